"""The ``inclusion`` family: a spherical inclusion in φ and a Gaussian azimuthal current.

μ = (c₁, c₂, c₃, ρ, κ, s₁, s₂, s₃): φ = κ inside the ball |x − c| < ρ and 1 outside
(contrast κ ∈ [1, 10]); f = A exp(−(d² + (x₃ − s₃)²)/(2σ²)) (−(x₂ − s₂), x₁ − s₁, 0)/σ with
d the distance from the vertical axis through (s₁, s₂): an azimuthal field g(d, x₃) e_θ about
that axis, so div f = 0 exactly. u × n = 0 on the cylinder's wall. No closed form: the truth
is the order-3 mixed solve on the member's mesh fitted to its ball (maxh 0.25,
:class:`surrogate.fem.families.truth.TruthSpec`; before 2026-11-28 the complete-linear solve
on level 3, :func:`surrogate.fem.families.truth.fem_truth`).
"""

from __future__ import annotations

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.families.family import Family, azimuthal, sphere_signed_distance
from surrogate.fem.problems import check_points

PARAM_NAMES = ("c1", "c2", "c3", "radius", "contrast", "s1", "s2", "s3")
BOX = np.array([[-0.4, 0.4], [-0.4, 0.4], [0.35, 0.65], [0.15, 0.3], [1.0, 10.0],
                [-0.5, 0.5], [-0.5, 0.5], [0.3, 0.7]])
SOURCE_WIDTH = 0.3  # σ of the Gaussian current
SOURCE_AMPLITUDE = 10.0  # A


class InclusionProblem:
    """The member μ of the ``inclusion`` family (see the module docstring)."""

    name = "inclusion"
    has_exact = False
    in_names = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
    out_names = ("u1", "u2", "u3")

    def __init__(self, mu: np.ndarray):
        self.params = np.asarray(mu, dtype=np.float64)
        self.centre = self.params[:3]
        self.radius, self.contrast = float(self.params[3]), float(self.params[4])
        self.source = self.params[5:8]

    def phi(self, points: np.ndarray) -> np.ndarray:
        """φ = κ in the ball |x − c| < ρ, 1 elsewhere, shape (N,)."""
        x = check_points(points)
        inside = np.sum((x - self.centre) ** 2, axis=1) < self.radius ** 2
        return np.where(inside, self.contrast, 1.0)

    def f(self, points: np.ndarray) -> np.ndarray:
        """f = A exp(−(d² + (x₃ − s₃)²)/(2σ²)) (−(x₂ − s₂), x₁ − s₁, 0)/σ, shape (N, 3)."""
        x = check_points(points)
        s1, s2, s3 = self.source
        d2 = (x[:, 0] - s1) ** 2 + (x[:, 1] - s2) ** 2 + (x[:, 2] - s3) ** 2
        weight = SOURCE_AMPLITUDE * np.exp(-0.5 * d2 / SOURCE_WIDTH ** 2) / SOURCE_WIDTH
        return weight[:, None] * azimuthal(x, s1, s2)

    def tangential_data(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """u × n = 0 on the wall, shape (N, 3)."""
        check_points(normals)
        return np.zeros_like(check_points(points))

    def _no_exact(self, points: np.ndarray) -> np.ndarray:
        raise InputError("the inclusion family has no closed-form solution; use its FEM truth "
                         "(surrogate.fem.families.fem_truth)")

    u = curl_u = div_u = _no_exact

    def inputs(self, points: np.ndarray) -> np.ndarray:
        """Pointwise network inputs [x, f(x), φ(x)], shape (N, 7)."""
        x = check_points(points)
        return np.column_stack([x, self.f(x), self.phi(x)])


def interface_distance(points: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Signed distance |x − c| − ρ of row i's point to its member's sphere (< 0 inside), (N, 1):
    u has a kink there (φ jumps), which a network of (x, μ) would have to form itself."""
    return sphere_signed_distance(points, params[:, :3], params[:, 3])[:, None]


GEOMETRY_NAMES = ("interface_distance",)

VOLUME_SENSORS = 1000
"""Default volume sensors: uniform in the cylinder (volume π), ≈ 4.5 fall inside the smallest
ball (ρ = 0.15) and ≈ 36 inside the largest, so φ at them sees every inclusion (48 sensors:
0.2–1.7 on average). ``fit --inputs fields`` joins them to every row (4,051 columns: 10 GB of
float64 for 160 problems × 2,000 points)."""

FAMILY = Family(name="inclusion", param_names=PARAM_NAMES, box=BOX, has_exact=False,
                make=InclusionProblem, volume_sensors=VOLUME_SENSORS,
                geometry=interface_distance, geometry_names=GEOMETRY_NAMES)

__all__ = ["FAMILY", "InclusionProblem", "PARAM_NAMES", "BOX", "VOLUME_SENSORS",
           "interface_distance", "GEOMETRY_NAMES"]
