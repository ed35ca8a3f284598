"""The cylinder with a ball glued in as an internal interface, meshed per member and curved.

The ``cylinder`` domain (x₁² + x₂² ≤ 1, 0 ≤ x₃ ≤ 1) and the ball |x − c| ≤ ρ of an
``inclusion`` member μ as one OCC solid of two regions (netgen.occ: the ball ∩ cylinder and
the cylinder minus the ball, glued, so the mesh conforms to the sphere): materials
``"ball"`` and ``"background"``, boundaries ``"wall"`` (the cylinder's faces, where u × n
is imposed) and ``"interface"`` (the sphere, internal). Netgen meshes it with tets of size
at most ``maxh`` (smaller where the ball's curvature asks) and ``mesh.Curve(k)`` maps every
element near a curved face by polynomials of degree k onto the geometry (k = 1: straight
tets; the ball's volume is then ≈ 10 % short at maxh 0.5, 0.2 % with k = 2, 0.02 % with
k = 3). The seconds of geometry, meshing and curving are recorded: they belong to a fitted
solve's timed span (mesh → u_h), since every new member must be meshed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

CYLINDER_RADIUS, CYLINDER_HEIGHT = 1.0, 1.0  # the ``cylinder`` domain of fem/domains.py
BALL, BACKGROUND = "ball", "background"
WALL, INTERFACE = "wall", "interface"


@dataclass
class FittedMesh:
    """A curved NGSolve mesh of the cylinder with the ball (``centre``, ``radius``) glued in;
    ``seconds``: geometry + meshing + curving."""

    ngmesh: Any = field(repr=False)
    centre: np.ndarray
    radius: float
    maxh: float
    curve_order: int
    seconds: float

    @property
    def n_cells(self) -> int:
        """The number of tetrahedra."""
        return int(self.ngmesh.ne)


def inclusion_geometry(centre: np.ndarray, radius: float) -> Any:
    """The OCC geometry of the cylinder with the ball |x − centre| ≤ radius glued in (module
    docstring: materials ``ball``/``background``, boundaries ``wall``/``interface``)."""
    from netgen.occ import Cylinder, Glue, OCCGeometry, Pnt, Sphere, Z

    cylinder = Cylinder(Pnt(0.0, 0.0, 0.0), Z, r=CYLINDER_RADIUS, h=CYLINDER_HEIGHT)
    cylinder.faces.name = WALL
    sphere = Sphere(Pnt(*map(float, centre)), float(radius))
    sphere.faces.name = INTERFACE
    ball, background = sphere * cylinder, cylinder - sphere
    ball.mat(BALL)
    background.mat(BACKGROUND)
    return OCCGeometry(Glue([background, ball]))


def fitted_mesh(centre, radius: float, maxh: float, curve_order: int = 3) -> FittedMesh:
    """The member's cylinder-with-ball meshed with tets of size ≤ ``maxh`` and curved to the
    geometry by polynomials of degree ``curve_order`` (timed); InputError for a ball that
    is empty or leaves no background, a non-positive ``maxh`` or a curve order outside 1–4."""
    import ngsolve

    centre = np.asarray(centre, dtype=np.float64)
    if centre.shape != (3,) or not np.all(np.isfinite(centre)) or not radius > 0:
        raise InputError(f"the ball needs a finite centre (3,) and a radius > 0, got "
                         f"{centre!r}, {radius!r}")
    if not maxh > 0 or int(curve_order) not in (1, 2, 3, 4):
        raise InputError(f"need maxh > 0 and a curve order 1-4, got {maxh!r}, {curve_order!r}")
    start = time.perf_counter()
    ngmesh = ngsolve.Mesh(inclusion_geometry(centre, radius).GenerateMesh(maxh=float(maxh)))
    ngmesh.Curve(int(curve_order))
    if set(ngmesh.GetMaterials()) != {BALL, BACKGROUND}:
        raise InputError(f"the ball (centre {centre.tolist()}, radius {radius}) must lie "
                         f"partly inside the cylinder and leave some of it outside; the mesh "
                         f"has the materials {sorted(set(ngmesh.GetMaterials()))}")
    return FittedMesh(ngmesh, centre, float(radius), float(maxh), int(curve_order),
                      time.perf_counter() - start)


def material_volumes(mesh: FittedMesh) -> dict[str, float]:
    """The volume of each material region of the curved mesh (NGSolve's quadrature, exact
    for its polynomial element maps)."""
    import ngsolve

    ngmesh = mesh.ngmesh
    degree = 3 * mesh.curve_order  # det J of a degree-k map has degree 3(k − 1) ≤ 3k
    return {name: float(ngsolve.Integrate(1.0, ngmesh, order=degree,
                                          definedon=ngmesh.Materials(name)))
            for name in sorted(set(ngmesh.GetMaterials()))}


__all__ = ["BACKGROUND", "BALL", "CYLINDER_HEIGHT", "CYLINDER_RADIUS", "FittedMesh",
           "INTERFACE", "WALL", "fitted_mesh", "inclusion_geometry", "material_volumes"]
