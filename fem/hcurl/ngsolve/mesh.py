"""The toolkit's own tetrahedra as an NGSolve mesh (no re-meshing), and NGSolve mesh points.

``ngsolve_mesh(points, tets)`` builds a ``netgen.meshing.Mesh`` from the arrays: the points
(n, 3), the tets (m, 4) as 3-D elements of material 1 in the given vertex order, and the
boundary triangles (faces of exactly one tet) as 2-D elements of boundary ``"wall"``. NGSolve
keeps the element and vertex order, so element e is tet e and its reference coordinates
(ξ, η, ζ) are the barycentric coordinates of the tet's vertices 0, 1, 2 (checked on every
build). ``mesh_points`` turns (element, barycentric) pairs into NGSolve's vectorised mesh-point
array: a GridFunction evaluated there returns all values in one call, no point search.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.tet_geometry import boundary_faces

BOUNDARY = "wall"
def ngsolve_mesh(points: np.ndarray, tets: np.ndarray) -> Any:
    """An ``ngsolve.Mesh`` of the tetrahedra ``tets`` (m, 4) over ``points`` (n, 3)."""
    import ngsolve
    from netgen.meshing import FaceDescriptor
    from netgen.meshing import Mesh as NetgenMesh

    points = np.ascontiguousarray(points, dtype=np.float64)
    tets = np.ascontiguousarray(tets, dtype=np.int32)
    if points.ndim != 2 or points.shape[1] != 3 or tets.ndim != 2 or tets.shape[1] != 4:
        raise InputError(f"expected points (n, 3) and tets (m, 4), got {points.shape} and "
                         f"{tets.shape}")
    raw = NetgenMesh(dim=3)
    raw.AddPoints(points)
    raw.Add(FaceDescriptor(surfnr=1, domin=1, domout=0, bc=1))
    raw.SetBCName(0, BOUNDARY)
    raw.AddElements(dim=3, index=1, data=tets, base=0)
    raw.AddElements(dim=2, index=1, data=np.ascontiguousarray(boundary_faces(tets), np.int32),
                    base=0)
    mesh = ngsolve.Mesh(raw)
    _check_vertex_order(mesh, points, tets)
    return mesh


def mesh_points(mesh: Any, cells: np.ndarray, bary: np.ndarray) -> np.ndarray:
    """NGSolve's mesh-point array for points in tets ``cells`` (N,) with barycentric
    coordinates ``bary`` (N, 3) of the tets' vertices 1, 2, 3 (vertex 0's is 1 − Σ)."""
    template = mesh(np.zeros(1), np.zeros(1), np.zeros(1))
    out = np.repeat(template, len(cells))
    out["VorB"] = 0  # VOL
    out["x"] = 1.0 - bary.sum(axis=1)
    out["y"] = bary[:, 0]
    out["z"] = bary[:, 1]
    out["nr"] = np.asarray(cells, dtype=np.int32)
    return out


def _check_vertex_order(mesh: Any, points: np.ndarray, tets: np.ndarray) -> None:
    """InputError unless NGSolve kept every tet's vertex order (the mapping above relies on
    it): the point with barycentric (0.1, 0.2, 0.3) of vertices 1–3 must map back to itself."""
    import ngsolve

    bary = np.tile([0.1, 0.2, 0.3], (len(tets), 1))
    mips = mesh_points(mesh, np.arange(len(tets)), bary)
    got = np.asarray(ngsolve.CF((ngsolve.x, ngsolve.y, ngsolve.z))(mips))
    corners = points[tets]  # (m, 4, 3)
    want = corners[:, 0] * 0.4 + corners[:, 1] * 0.1 + corners[:, 2] * 0.2 + corners[:, 3] * 0.3
    scale = max(float(np.ptp(points)), 1e-300)
    if not np.allclose(got, want, rtol=0.0, atol=1e-10 * scale):
        raise InputError("NGSolve reordered the vertices of some tetrahedra; the ngsolve "
                         "backend cannot map its points onto this mesh")


__all__ = ["BOUNDARY", "ngsolve_mesh", "mesh_points"]
