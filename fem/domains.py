"""Named domains: membership, uniform sampling, exact volume and tetrahedral meshes by level.

| name       | region                                              | volume      |
|------------|-----------------------------------------------------|-------------|
| cylinder   | x₁² + x₂² ≤ 1, 0 ≤ x₃ ≤ 1 (the training domain)     | π           |
| cube       | [0, 1]³ (the unseen test domain)                    | 1           |
| ball       | ‖x − (0, 0, ½)‖ ≤ 1 (partly outside the cylinder)   | 4π/3        |
| l-prism    | ([−1, 1]² minus (0, 1]²) × [0, 1]                   | 3           |
| shell      | ½ ≤ (x₁² + x₂²)^½ ≤ 3/2, 0 ≤ x₃ ≤ 1                 | 2π          |

``mesh(level)`` refines with the nominal spacing ``mesh_size(level)``, halved per level; the
longest edge stays below 2 h. Boxes have a level 0 too (one cell per unit: the cube's 6
tets, where high-order FEM answers smooth fields fastest). Tets at levels 1..5: cube
48 · 8^(L−1) (196,608 at L = 5), ball the same, cylinder and l-prism 144 · 8^(L−1) (≈ 77k
and 74k at L = 4), shell ≈ twice that.
Curved boundaries are interpolated: boundary nodes lie on the true surface and the flat faces
between them miss the domain by O(h²) (inside a convex wall, into the shell's hole) — use
``evaluate_n0(..., outside="extrapolate")`` for points in that gap.

A value with a path separator or a file suffix is not a name but a tetrahedral mesh file
(``fem/file_domain.py``): level 1 is the file's mesh, each further level one uniform refinement.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from skfem import MeshTet

from surrogate.core.errors import InputError
from surrogate.fem import meshes
from surrogate.fem.domain_base import Domain, as_points


def _uniform_disk_radius(u: np.ndarray, r_inner: float, r_outer: float) -> np.ndarray:
    """Radii of points uniform in area on the annulus r_inner ≤ r ≤ r_outer (inverse CDF)."""
    return np.sqrt(r_inner**2 + u * (r_outer**2 - r_inner**2))


class Cylinder(Domain):
    """{r_inner ≤ (x₁² + x₂²)^½ ≤ r_outer, 0 ≤ x₃ ≤ 1}; r_inner = 0 is the solid cylinder."""

    def __init__(self, name: str, r_inner: float, r_outer: float):
        self.name, self.r_inner, self.r_outer = name, float(r_inner), float(r_outer)
        self.volume = float(np.pi * (self.r_outer**2 - self.r_inner**2))
        self.bounds = np.array([[-r_outer, r_outer], [-r_outer, r_outer], [0.0, 1.0]])

    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        x = as_points(points)
        r = np.hypot(x[:, 0], x[:, 1])
        radial = (r <= self.r_outer + tol) & (r >= self.r_inner - tol)
        return radial & (x[:, 2] >= -tol) & (x[:, 2] <= 1.0 + tol)

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.random((n, 3))
        r = _uniform_disk_radius(u[:, 0], self.r_inner, self.r_outer)
        theta = 2.0 * np.pi * u[:, 1]
        return np.stack([r * np.cos(theta), r * np.sin(theta), u[:, 2]], axis=1)

    def _mesh(self, level: int) -> MeshTet:
        return meshes.cylinder_mesh(level, self.r_inner, self.r_outer)


class Box(Domain):
    """The axis-aligned box [lower, upper] (integer side lengths, so levels nest exactly);
    level 0 is one cell per unit of length, where high-order elements answer smooth fields."""

    min_level = 0

    def __init__(self, name: str, lower, upper):
        self.name = name
        self.bounds = np.stack([np.asarray(lower, float), np.asarray(upper, float)], axis=1)
        self.volume = float(np.prod(self.bounds[:, 1] - self.bounds[:, 0]))

    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        x = as_points(points)
        return np.all((x >= self.bounds[:, 0] - tol) & (x <= self.bounds[:, 1] + tol), axis=1)

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        lo, hi = self.bounds[:, 0], self.bounds[:, 1]
        return lo + (hi - lo) * rng.random((n, 3))

    def _mesh(self, level: int) -> MeshTet:
        return meshes.box_mesh(level, self.bounds[:, 0], self.bounds[:, 1])


class LPrism(Domain):
    """([−1, 1]² minus the quadrant (0, 1]²) × [0, 1]: three unit squares, extruded."""

    _squares = np.array([[-1.0, -1.0], [0.0, -1.0], [-1.0, 0.0]])  # lower-left corners

    def __init__(self, name: str = "l-prism"):
        self.name, self.volume = name, 3.0
        self.bounds = np.array([[-1.0, 1.0], [-1.0, 1.0], [0.0, 1.0]])

    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        x = as_points(points)
        in_box = np.all((x >= self.bounds[:, 0] - tol) & (x <= self.bounds[:, 1] + tol), axis=1)
        return in_box & ~((x[:, 0] > tol) & (x[:, 1] > tol))

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        corner = self._squares[rng.integers(0, len(self._squares), n)]
        u = rng.random((n, 3))
        return np.column_stack([corner + u[:, :2], u[:, 2]])

    def _mesh(self, level: int) -> MeshTet:
        return meshes.l_prism_mesh(level)


class Ball(Domain):
    """{|x − centre| ≤ radius}."""

    def __init__(self, name: str, centre, radius: float):
        self.name, self.centre, self.radius = name, np.asarray(centre, float), float(radius)
        self.volume = float(4.0 / 3.0 * np.pi * self.radius**3)
        self.bounds = np.stack([self.centre - radius, self.centre + radius], axis=1)
        self._coarse_size = self.radius  # n = 2**(level-1) cells per half-axis

    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        x = as_points(points)
        return np.linalg.norm(x - self.centre, axis=1) <= self.radius + tol

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        direction = rng.standard_normal((n, 3))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        r = self.radius * np.cbrt(rng.random(n))
        return self.centre + r[:, None] * direction

    def _mesh(self, level: int) -> MeshTet:
        return meshes.ball_mesh(level, self.centre, self.radius)


DOMAINS: dict[str, Domain] = {
    d.name: d
    for d in (
        Cylinder("cylinder", 0.0, 1.0),
        Box("cube", [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        Ball("ball", [0.0, 0.0, 0.5], 1.0),
        LPrism("l-prism"),
        Cylinder("shell", 0.5, 1.5),
    )
}


def domain_names() -> list[str]:
    """Names accepted by :func:`get_domain` (besides mesh-file paths)."""
    return list(DOMAINS)


def is_mesh_path(value: str) -> bool:
    """Whether a ``--domain`` value names a mesh file: it has a path separator or a suffix."""
    text = str(value)
    return "/" in text or os.sep in text or Path(text).suffix != ""


def get_domain(name: str) -> Domain:
    """The built-in domain called ``name``, or the mesh file at that path (see is_mesh_path).

    Unknown names raise InputError naming the valid ones; bad mesh files DataFormatError.
    """
    if isinstance(name, (str, os.PathLike)) and is_mesh_path(os.fspath(name)):
        from surrogate.fem.file_domain import load_file_domain

        return load_file_domain(os.fspath(name))
    try:
        return DOMAINS[name]
    except (KeyError, TypeError):
        raise InputError(
            f"unknown domain {name!r}; choose one of: {', '.join(DOMAINS)}, "
            "or a tetrahedral mesh file (.msh, .vtu, .vtk, .xdmf, .mesh)"
        ) from None


__all__ = ["DOMAINS", "Domain", "as_points", "domain_names", "get_domain", "is_mesh_path"]
