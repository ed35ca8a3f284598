"""PDE data of static Maxwell problems: coefficient φ = μ⁻¹, source f, exact solution u.

The seed problem "maxwell" is the manufactured Bessel solution of eq. 7.2 (τ-learning paper):
curl(φ curl u) = f, div u = 0 with u = I₁(r) e_θ, φ = (x₁² + x₂² + 1)/2, hence
curl u = I₀(r) e_z, div u = 0, f = −r I₀(r) e_θ − φ u = −(I₀(r) + φ I₁(r)/r) (−x₂, x₁, 0).
Everything is written with I₁(r)/r · (−x₂, x₁, 0), which is regular on the axis r = 0.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from scipy.special import i0, i1

from surrogate.core.errors import InputError

_SERIES_BELOW = 1e-3  # r below which I₁(r)/r is summed as a power series


@runtime_checkable
class Problem(Protocol):
    """What a Maxwell problem offers: named inputs/outputs and vectorised point functions."""

    name: str
    has_exact: bool
    in_names: tuple[str, ...]
    out_names: tuple[str, ...]

    def u(self, points: np.ndarray) -> np.ndarray: ...
    def curl_u(self, points: np.ndarray) -> np.ndarray: ...
    def f(self, points: np.ndarray) -> np.ndarray: ...
    def phi(self, points: np.ndarray) -> np.ndarray: ...
    def div_u(self, points: np.ndarray) -> np.ndarray: ...
    def inputs(self, points: np.ndarray) -> np.ndarray: ...


def i1_over_r(r: np.ndarray) -> np.ndarray:
    """I₁(r)/r for r ≥ 0, shape of ``r``; the series 1/2 + r²/16 + r⁴/384 + r⁶/18432 near 0."""
    r = np.asarray(r, dtype=np.float64)
    small = r < _SERIES_BELOW
    r2 = r * r
    series = 0.5 + r2 * (1.0 / 16 + r2 * (1.0 / 384 + r2 / 18432))
    safe = np.where(small, 1.0, r)
    return np.where(small, series, i1(safe) / safe)


def check_points(points: np.ndarray) -> np.ndarray:
    """Return ``points`` as a float64 (N, 3) array; InputError on another shape or NaN/inf."""
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 3:
        raise InputError(f"points must have shape (N, 3), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise InputError(f"points contain {int((~np.isfinite(x)).any(axis=1).sum())} "
                         "rows with NaN or inf")
    return x


def _azimuthal(x: np.ndarray) -> np.ndarray:
    """(−x₂, x₁, 0) = r e_θ, shape (N, 3)."""
    return np.column_stack([-x[:, 1], x[:, 0], np.zeros(len(x))])


class MaxwellBessel:
    """Manufactured Bessel solution of curl(φ curl u) = f, div u = 0 on a cylinder (eq. 7.2)."""

    name = "maxwell"
    has_exact = True
    in_names = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
    out_names = ("u1", "u2", "u3")

    def phi(self, points: np.ndarray) -> np.ndarray:
        """φ = μ⁻¹ = (x₁² + x₂² + 1)/2, shape (N,)."""
        x = check_points(points)
        return 0.5 * (x[:, 0] ** 2 + x[:, 1] ** 2 + 1.0)

    def u(self, points: np.ndarray) -> np.ndarray:
        """u = I₁(r) e_θ = (I₁(r)/r)(−x₂, x₁, 0), shape (N, 3) (eq. 7.2)."""
        x = check_points(points)
        return i1_over_r(np.hypot(x[:, 0], x[:, 1]))[:, None] * _azimuthal(x)

    def curl_u(self, points: np.ndarray) -> np.ndarray:
        """curl u = I₀(r) e_z, shape (N, 3)."""
        x = check_points(points)
        out = np.zeros_like(x)
        out[:, 2] = i0(np.hypot(x[:, 0], x[:, 1]))
        return out

    def div_u(self, points: np.ndarray) -> np.ndarray:
        """div u = 0, shape (N,)."""
        return np.zeros(len(check_points(points)))

    def f(self, points: np.ndarray) -> np.ndarray:
        """f = curl(φ curl u) = −r I₀(r) e_θ − φ u = −(I₀ + φ I₁/r)(−x₂, x₁, 0), shape (N, 3)."""
        x = check_points(points)
        r = np.hypot(x[:, 0], x[:, 1])
        phi = 0.5 * (r * r + 1.0)
        return -(i0(r) + phi * i1_over_r(r))[:, None] * _azimuthal(x)

    def inputs(self, points: np.ndarray) -> np.ndarray:
        """Network inputs [x, f(x), φ(x)], shape (N, 7), columns ``in_names``."""
        x = check_points(points)
        return np.column_stack([x, self.f(x), self.phi(x)])


_PROBLEMS: dict[str, type] = {"maxwell": MaxwellBessel}


def problem_names() -> list[str]:
    """Names accepted by :func:`get_problem`."""
    return sorted(_PROBLEMS)


def get_problem(name: str) -> Problem:
    """The problem registered under ``name``; InputError naming the valid names otherwise."""
    try:
        return _PROBLEMS[name]()
    except KeyError:
        raise InputError(f"unknown problem {name!r}; choose one of: "
                         f"{', '.join(problem_names())}") from None
