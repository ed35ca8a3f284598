"""A problem family: a parameter box, a quasi-random sampler and one Problem per draw μ."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from surrogate.core.errors import InputError

SAMPLERS = ("sobol", "lhs")


@runtime_checkable
class FamilyProblem(Protocol):
    """A member μ of a family, as evaluation reads it (directly and through the FEM solves,
    the FEM truth, the sensors and the network inputs it calls).

    ``params``: μ (p,); ``phi``, ``f``, ``u``, ``curl_u``: (N,) / (N, 3) at points (N, 3);
    ``tangential_data``: u × n at boundary points with normals; ``inputs``: the pointwise
    network inputs [x, f(x), φ(x)]. A member without a closed form raises in ``u`` and
    ``curl_u`` (its family's ``has_exact`` is False).
    """

    name: str
    params: np.ndarray

    def phi(self, points: np.ndarray) -> np.ndarray: ...

    def f(self, points: np.ndarray) -> np.ndarray: ...

    def u(self, points: np.ndarray) -> np.ndarray: ...

    def curl_u(self, points: np.ndarray) -> np.ndarray: ...

    def tangential_data(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray: ...

    def inputs(self, points: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class SphericalInterface(Protocol):
    """A member whose material jumps across the sphere |x − centre| = radius."""

    centre: np.ndarray
    radius: float


def check_box(box: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """``box`` as a float64 (p, 2) array [low, high] with finite low < high, or InputError."""
    b = np.asarray(box, dtype=np.float64)
    if b.shape != (len(names), 2):
        raise InputError(f"parameter box must have shape ({len(names)}, 2), got {b.shape}")
    if not np.all(np.isfinite(b)):
        raise InputError("parameter box has NaN or inf bounds")
    bad = [n for n, (lo, hi) in zip(names, b, strict=True) if not lo < hi]
    if bad:
        raise InputError(f"parameter box is empty or inverted for {', '.join(bad)} "
                         "(need low < high)")
    return b


def widened(box: np.ndarray, widen: float) -> np.ndarray:
    """The box widened by ``widen`` × its width on each side (``--extrapolate``: 0.25)."""
    if not widen >= 0.0:
        raise InputError(f"widen must be >= 0, got {widen!r}")
    width = box[:, 1] - box[:, 0]
    return np.column_stack([box[:, 0] - widen * width, box[:, 1] + widen * width])


def qmc_unit(n: int, p: int, seed: int, method: str = "sobol") -> np.ndarray:
    """n quasi-random points of [0, 1)^p: scrambled Sobol or Latin hypercube (scipy.stats.qmc)."""
    from scipy.stats import qmc

    if method not in SAMPLERS:
        raise InputError(f"unknown sampler {method!r}; choose one of: {', '.join(SAMPLERS)}")
    if n < 1:
        raise InputError(f"need at least 1 draw, got {n}")
    if method == "lhs":
        return qmc.LatinHypercube(d=p, seed=np.random.default_rng(seed)).random(n)
    sobol = qmc.Sobol(d=p, scramble=True, seed=np.random.default_rng(seed))
    return sobol.random(n)  # n need not be a power of 2 (balance warning silenced below)


GeometryFeatures = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(points (N, 3), params (N, p)) -> (N, g): pointwise features of each row's member geometry."""


@dataclass(frozen=True)
class Family:
    """A named family of static Maxwell problems; ``make(mu)`` builds the member μ;
    ``volume_sensors``: its default number of volume sensors (f, φ) for ``fields`` inputs;
    ``geometry``: for a family whose geometry moves with μ, pointwise features of it (named
    ``geometry_names``; the ``params-geometry`` inputs), vectorised over rows."""

    name: str
    param_names: tuple[str, ...]
    box: np.ndarray = field(repr=False)
    has_exact: bool
    make: Callable[[np.ndarray], FamilyProblem] = field(repr=False)
    training_domain: str = "cylinder"
    volume_sensors: int = 48
    geometry: GeometryFeatures | None = field(default=None, repr=False)
    geometry_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "box", check_box(self.box, self.param_names))

    def sample(self, n: int, seed: int, *, method: str = "sobol", widen: float = 0.0,
               box: np.ndarray | None = None) -> np.ndarray:
        """n draws (n, p) in the box (or ``box``), widened by ``widen``: μ = lo + u·(hi − lo)."""
        import warnings

        b = widened(check_box(self.box if box is None else box, self.param_names), widen)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Sobol balance for n not 2^m
            u = qmc_unit(int(n), len(self.param_names), int(seed), method)
        return b[:, 0] + u * (b[:, 1] - b[:, 0])

    def problem(self, mu: np.ndarray) -> FamilyProblem:
        """The member problem of parameters ``mu`` (p,)."""
        mu = np.asarray(mu, dtype=np.float64)
        if mu.shape != (len(self.param_names),) or not np.all(np.isfinite(mu)):
            raise InputError(f"{self.name}: parameters must be {len(self.param_names)} finite "
                             f"numbers ({', '.join(self.param_names)}), got shape {mu.shape}")
        return self.make(mu)

    def geometry_features(self, points: np.ndarray, params: np.ndarray) -> np.ndarray:
        """The member geometry's features (N, g) at ``points`` (N, 3), row i of member
        ``params[i]`` (N, p) or of one member (p,); InputError for a family without any."""
        if self.geometry is None:
            raise InputError(f"family {self.name!r} has no geometry that moves with its "
                             "parameters; use --inputs params")
        points = np.asarray(points, dtype=np.float64)
        params = np.asarray(params, dtype=np.float64)
        p = len(self.param_names)
        if params.ndim == 1:
            params = np.broadcast_to(params, (len(points), params.size))
        if points.ndim != 2 or points.shape[1] != 3 or params.shape != (len(points), p):
            raise InputError(f"{self.name}: geometry features need points (N, 3) and "
                             f"parameters (N, {p}) or ({p},), got {points.shape} and "
                             f"{params.shape}")
        return np.asarray(self.geometry(points, params), dtype=np.float64).reshape(
            len(points), len(self.geometry_names))


def sphere_signed_distance(points: np.ndarray, centres: np.ndarray, radii: np.ndarray | float
                           ) -> np.ndarray:
    """|x − c| − R of points (N, 3) to spheres of centres (N, 3) or (3,), radii (N,) or a
    number: negative inside, shape (N,)."""
    return np.linalg.norm(points - np.asarray(centres), axis=1) - radii


def azimuthal(x: np.ndarray, centre_x: float = 0.0, centre_y: float = 0.0) -> np.ndarray:
    """(−(x₂ − c₂), x₁ − c₁, 0) = r e_θ about the vertical axis through (c₁, c₂), shape (N, 3)."""
    return np.column_stack([-(x[:, 1] - centre_y), x[:, 0] - centre_x, np.zeros(len(x))])


__all__ = ["Family", "FamilyProblem", "GeometryFeatures", "SAMPLERS", "SphericalInterface",
           "check_box", "widened", "qmc_unit", "azimuthal", "sphere_signed_distance"]
