"""The models of a UQ study: μ (B, p) -> quantities (B, q) at :class:`QuantityPoints`.

- :class:`SurrogateQuantities`, the low-fidelity model: the run's batched
  :class:`~surrogate.predict.Predictor` bound to the points once (a separable run's trunk
  features are cached), asked for blocks of problems at a time;
- :class:`FemQuantities`, the high-fidelity model: the mixed solve of one (backend, order)
  of the FEM registry on the points' mesh (``domain`` at ``level``), as ``evaluate`` names
  its candidates; the energy by the rule of degree ``error_intorder(order)`` on that mesh.
  With ``maxh`` (a family with a fitted geometry, ``inclusion``) each sample is meshed to fit
  its interface instead (:func:`~surrogate.fem.fitted.solve.fitted_truth`, ngsolve, meshing
  in its cost) and u_h read at the same points by point location, as ``evaluate`` measures
  its fitted candidates;
- :class:`ExactQuantities`: the family's closed-form u (a family with ``has_exact``), the
  reference the tests use as high fidelity.

A FEM or closed-form evaluation is one problem at a time (one solve each); the surrogate's
is batched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.uq.quantities import Quantity, QuantityPoints, quantity_points

FIELD_BLOCK = 4_000_000
"""Values (problems × points × 3) the surrogate produces per block of problems."""


def default_domain(family: Any) -> str:
    """The test domain of ``evaluate``: the cube for a closed-form family, else the family's
    training domain (where its FEM truth lives)."""
    return "cube" if family.has_exact else str(family.training_domain)


@dataclass
class SurrogateQuantities:
    """The surrogate's quantities: u at the points for blocks of problems, then reduced."""

    points: QuantityPoints
    predictor: Any = field(repr=False)

    @classmethod
    def from_run(cls, run: Any, points: QuantityPoints, *, device: str = "cpu",
                 dtype: str = "float32") -> SurrogateQuantities:
        """The predictor of ``run`` (a Run or its folder) bound to ``points``."""
        from surrogate.predict import Predictor

        return cls(points, Predictor(run, points.points, device=device, dtype=dtype))

    def __call__(self, mu: np.ndarray) -> np.ndarray:
        """Quantities (B, q) of the problems μ (B, p)."""
        mu = np.atleast_2d(np.asarray(mu, dtype=np.float64))
        block = max(1, FIELD_BLOCK // (3 * len(self.points.points)))
        return np.concatenate([self.points.from_fields(self.predictor.predict(mu[s:s + block]))
                               for s in range(0, len(mu), block)])


@dataclass
class FemQuantities:
    """The quantities of the mixed solve of ``method`` (a registry ``FemMethod``); ``choice``
    says how it was chosen (:func:`~surrogate.uq.reference_fem.reference_fem`)."""

    family: Any
    points: QuantityPoints
    method: Any
    solver: str = "auto"
    rtol: float = 1e-10
    choice: dict[str, Any] = field(default_factory=dict)
    maxh: float | None = None

    @property
    def label(self) -> str:
        """The FEM in evaluate's words, e.g. "ngsolve order 3 (complete cubic), fitted maxh
        0.5"."""
        if self.maxh is None:
            return str(self.method.label)
        from surrogate.evaluation.family.fitted import fitted_mesh_name

        return f"{self.method.label}, {fitted_mesh_name(self.maxh)}"

    @property
    def where(self) -> str:
        """Its mesh in words: "cylinder level 2", or a fitted one's and its points' level."""
        level = f"{self.points.domain} level {self.points.level}"
        return level if self.maxh is None else f"each sample's mesh (points on {level})"

    def one(self, mu: np.ndarray) -> np.ndarray:
        """u (M + R, 3) of the solve of the member μ (p,) at the points."""
        if self.maxh is not None:
            return self._fitted(mu)
        from surrogate.fem.families.truth import with_boundary_data

        problem = with_boundary_data(self.family.problem(mu))
        solution = self.method.run(self.points.mesh, problem, method="solve",
                                   solver=self.solver, rtol=self.rtol)
        parts = []
        if len(self.points.weights):
            parts.append(solution.values_at_quadrature(self.points.intorder))
        if len(self.points.probes):
            parts.append(solution.values_at(self.points.probes))
        return np.concatenate(parts)

    def _fitted(self, mu: np.ndarray) -> np.ndarray:
        """u (M + R, 3) of the member μ's solve on its own fitted mesh, at the points (a
        point the curved wall misses is read slightly inwards, as evaluate does)."""
        from surrogate.evaluation.family.fitted import fitted_solver
        from surrogate.fem.fitted.solve import fitted_truth

        solution = fitted_truth(self.family.problem(mu), self.method.order, self.maxh,
                                solver=fitted_solver(self.solver))
        return solution.values_at(self.points.points, outside="extrapolate")

    def __call__(self, mu: np.ndarray) -> np.ndarray:
        """Quantities (B, q) of the problems μ (B, p): one solve each."""
        mu = np.atleast_2d(np.asarray(mu, dtype=np.float64))
        return self.points.from_fields(np.stack([self.one(m) for m in mu]))


@dataclass
class ExactQuantities:
    """The quantities of the family's closed-form u."""

    family: Any
    points: QuantityPoints

    def __call__(self, mu: np.ndarray) -> np.ndarray:
        """Quantities (B, q) of the problems μ (B, p)."""
        mu = np.atleast_2d(np.asarray(mu, dtype=np.float64))
        x = self.points.points
        return self.points.from_fields(np.stack([self.family.problem(m).u(x) for m in mu]))


def fem_quantities(family: Any, quantities: tuple[Quantity, ...], *, backend: str = "skfem",
                   order: int = 0, level: int = 2, domain: str | None = None,
                   solver: str = "auto", maxh: float | None = None) -> FemQuantities:
    """The FEM model ``(backend, order)`` on ``domain`` (default :func:`default_domain`) at
    ``level``, or with ``maxh`` on each member's fitted mesh (points on ``level``);
    InputError for a backend, order, level or fitted mesh that does not exist."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.hcurl.errors import error_intorder
    from surrogate.fem.hcurl.registry import fem_method

    method = fem_method(backend, order)
    domain = domain or default_domain(family)
    coarsest = get_domain(domain).min_level
    if isinstance(level, bool) or not isinstance(level, int | np.integer) or level < coarsest:
        raise InputError(f"FEM level {level!r} does not exist on the {domain} (levels from "
                         f"{coarsest})")
    if maxh is not None:
        maxh = _checked_maxh(family, method, domain, maxh)
    points = quantity_points(quantities, domain, int(level), error_intorder(method.order))
    return FemQuantities(family, points, method, solver, maxh=maxh)


def _checked_maxh(family: Any, method: Any, domain: str, maxh: float) -> float:
    """``maxh`` of a fitted FEM, or InputError: a family without a fitted geometry, a backend
    other than ngsolve, a test domain other than the family's own, a size not > 0."""
    from surrogate.evaluation.family.fitted import (
        FITTED_BACKEND,
        check_maxh,
        require_fitted_geometry,
    )

    require_fitted_geometry(family, "--fem-maxh")
    if method.backend != FITTED_BACKEND:
        raise InputError(f"a fitted mesh is solved by {FITTED_BACKEND}, not {method.backend}: "
                         f"add --fem-backend {FITTED_BACKEND}")
    if domain != str(family.training_domain):
        raise InputError(f"a fitted mesh is of the {family.training_domain}, the family's "
                         f"domain, not the {domain}")
    return check_maxh((float(maxh),), "--fem-maxh")[0]


def one_off_seconds(run: Any) -> dict[str, float | None]:
    """The run's one-off seconds: ``generation`` (data), ``training`` (None when not
    recorded) and their ``total``, an unrecorded part counted as 0 (as ``evaluate``'s
    break-even does)."""
    from surrogate.evaluation.family.measure import run_facts

    facts = run_facts(run)
    parts = {"generation": facts["generation_seconds"], "training": facts["train_seconds"]}
    return {**parts, "total": float(sum(v or 0.0 for v in parts.values()))}


__all__ = ["FIELD_BLOCK", "default_domain", "SurrogateQuantities", "FemQuantities",
           "ExactQuantities", "fem_quantities", "one_off_seconds"]
