"""The ``radial`` family: closed-form azimuthal fields; μ = (1, 1, 1, 1, 0, 0) is eq. 7.2.

With μ = (k, a, b, α, p, w) and r = (x₁² + x₂²)^½ (issue 17):
φ = (a r² + b)/2, u = (α I₁(k r) + g(r)) e_θ, r g(r) = (w + p b/(2a)) ln(1 + a r²/b)/a − p r²/(2a),
curl u = (α k I₀(k r) + 2 (w − p r²/2)/(a r² + b)) e_z, div u = 0,
f = curl(φ curl u) = [p − α (a k I₀(k r) + φ k² I₁(k r)/r)] r e_θ.
Every term is written with r e_θ = (−x₂, x₁, 0) times a function regular on the axis:
I₁(k r)/r = k · I₁(z)/z (z = k r) and g(r)/r = (w + p b/(2a)) L(a r²/b)/b − p/(2a) with
L(t) = ln(1 + t)/t (summed as a series for small t).
"""

from __future__ import annotations

import numpy as np
from scipy.special import i0

from surrogate.fem.families.family import Family, azimuthal
from surrogate.fem.problems import check_points, i1_over_r

PARAM_NAMES = ("k", "a", "b", "alpha", "p", "w")
BOX = np.array([[0.5, 2.0], [0.5, 2.0], [0.5, 2.0], [0.5, 1.5], [-2.0, 2.0], [-1.0, 1.0]])
_SERIES_BELOW = 1e-4


def log1p_over_t(t: np.ndarray) -> np.ndarray:
    """L(t) = ln(1 + t)/t for t ≥ 0; the series 1 − t/2 + t²/3 − t³/4 below 1e-4."""
    t = np.asarray(t, dtype=np.float64)
    small = t < _SERIES_BELOW
    safe = np.where(small, 1.0, t)
    series = 1.0 + t * (-0.5 + t * (1.0 / 3.0 - 0.25 * t))
    return np.where(small, series, np.log1p(safe) / safe)


class RadialProblem:
    """The member μ = (k, a, b, α, p, w) of the ``radial`` family (closed forms above)."""

    name = "radial"
    has_exact = True
    in_names = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
    out_names = ("u1", "u2", "u3")

    def __init__(self, mu: np.ndarray):
        self.params = np.asarray(mu, dtype=np.float64)
        self.k, self.a, self.b, self.alpha, self.p, self.w = (float(v) for v in self.params)

    def _r(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = check_points(points)
        return x, np.hypot(x[:, 0], x[:, 1])

    def phi(self, points: np.ndarray) -> np.ndarray:
        """φ = (a r² + b)/2, shape (N,)."""
        _, r = self._r(points)
        return 0.5 * (self.a * r * r + self.b)

    def u(self, points: np.ndarray) -> np.ndarray:
        """u = (α k I₁(kr)/(kr) + g(r)/r)(−x₂, x₁, 0), shape (N, 3)."""
        x, r = self._r(points)
        t = self.a * r * r / self.b
        g_over_r = ((self.w + self.p * self.b / (2 * self.a)) * log1p_over_t(t) / self.b
                    - self.p / (2 * self.a))
        coeff = self.alpha * self.k * i1_over_r(self.k * r) + g_over_r
        return coeff[:, None] * azimuthal(x)

    def curl_u(self, points: np.ndarray) -> np.ndarray:
        """curl u = (α k I₀(kr) + 2(w − p r²/2)/(a r² + b)) e_z, shape (N, 3)."""
        x, r = self._r(points)
        out = np.zeros_like(x)
        out[:, 2] = (self.alpha * self.k * i0(self.k * r)
                     + 2.0 * (self.w - 0.5 * self.p * r * r) / (self.a * r * r + self.b))
        return out

    def div_u(self, points: np.ndarray) -> np.ndarray:
        """div u = 0 (an azimuthal field of r alone), shape (N,)."""
        return np.zeros(len(check_points(points)))

    def f(self, points: np.ndarray) -> np.ndarray:
        """f = [p − α(a k I₀(kr) + φ k³ I₁(kr)/(kr))](−x₂, x₁, 0), shape (N, 3)."""
        x, r = self._r(points)
        phi = 0.5 * (self.a * r * r + self.b)
        kr = self.k * r
        coeff = self.p - self.alpha * (self.a * self.k * i0(kr)
                                       + phi * self.k ** 3 * i1_over_r(kr))
        return coeff[:, None] * azimuthal(x)

    def tangential_data(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """u × n at boundary points with unit outer normals ``normals``, shape (N, 3)."""
        return np.cross(self.u(points), check_points(normals))

    def inputs(self, points: np.ndarray) -> np.ndarray:
        """Pointwise network inputs [x, f(x), φ(x)], shape (N, 7)."""
        x = check_points(points)
        return np.column_stack([x, self.f(x), self.phi(x)])


FAMILY = Family(name="radial", param_names=PARAM_NAMES, box=BOX, has_exact=True,
                make=RadialProblem)

__all__ = ["FAMILY", "RadialProblem", "PARAM_NAMES", "BOX", "log1p_over_t"]
