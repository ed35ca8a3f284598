"""Checks of a mesh file's tets before use, each failing with ONE line naming the first bad cell.

In order: node indices in range, finite coordinates, no duplicate nodes (two used nodes
closer than ``DUPLICATE_RELATIVE`` · diameter: a crack the solver would not see), no
degenerate tets (|volume| ≤ ``MIN_RELATIVE_VOLUME`` · longest edge³), no face shared by more
than two tets, no inverted (overlapping) tets, one connected piece (tets joined through
faces). Tets are then oriented positively (a node order is a file convention, not an error)
and unused nodes dropped; the tet order of the file is kept, so tags stay aligned.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree
from skfem import MeshTet

from surrogate.core.errors import DataFormatError
from surrogate.fem.mesh_quality import MIN_RELATIVE_VOLUME, overlapping_faces, relative_volumes
from surrogate.fem.meshes import finalize_mesh

DUPLICATE_RELATIVE = 1e-10
"""Two used nodes closer than this times the mesh diameter are duplicates."""

MAX_COORDINATE = 1e100
"""Largest accepted |coordinate|: volumes (cubes of lengths) must not overflow."""

_FACES = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])


def _fail(path: str, message: str) -> DataFormatError:
    return DataFormatError(f"{path}: {message}")


def _first_tet_with(tets: np.ndarray, nodes: np.ndarray) -> int:
    """Index of the first tet (m, 4) that uses any node of ``nodes``."""
    return int(np.flatnonzero(np.isin(tets, nodes).any(axis=1))[0])


def check_indices_and_nodes(path: str, points: np.ndarray, tets: np.ndarray) -> None:
    """Node indices in range, finite coordinates, no duplicate used nodes."""
    bad = np.flatnonzero(((tets < 0) | (tets >= len(points))).any(axis=1))
    if bad.size:
        raise _fail(path, f"tetrahedron {bad[0]} refers to node {tets[bad[0]].tolist()} but "
                          f"the file has {len(points)} nodes")
    finite = (np.abs(points) <= MAX_COORDINATE).all(axis=1)  # False for NaN and inf too
    if not finite.all():
        node = int(np.flatnonzero(~finite)[0])
        used = np.flatnonzero(np.isin(tets, node).any(axis=1))
        where = f" (used by tetrahedron {used[0]})" if used.size else ""
        raise _fail(path, f"node {node} has non-finite coordinates (or beyond "
                          f"{MAX_COORDINATE:g}){where}")
    used = np.unique(tets)
    xyz = points[used]
    diameter = float(np.linalg.norm(xyz.max(axis=0) - xyz.min(axis=0)))
    pairs = cKDTree(xyz).query_pairs(DUPLICATE_RELATIVE * max(diameter, 1e-300),
                                     output_type="ndarray")
    if len(pairs):
        a, b = used[pairs[np.lexsort(pairs.T[::-1])[0]]]
        raise _fail(path, f"nodes {a} and {b} coincide (used by tetrahedra "
                          f"{_first_tet_with(tets, [a])} and {_first_tet_with(tets, [b])}); "
                          "merge duplicate nodes")


def check_shapes(path: str, points: np.ndarray, tets: np.ndarray) -> None:
    """No degenerate tets, no face shared by more than two tets."""
    quality = np.abs(relative_volumes(points.T, tets.T))
    bad = np.flatnonzero(~(quality > MIN_RELATIVE_VOLUME))
    if bad.size:
        raise _fail(path, f"tetrahedron {bad[0]} is degenerate (volume "
                          f"{quality[bad[0]]:.2e}·h³ ≤ {MIN_RELATIVE_VOLUME:g}·h³, h its "
                          "longest edge); fix or remesh")
    faces = np.sort(tets[:, _FACES], axis=2).reshape(-1, 3)  # face 4 T + j of tet T
    _, inverse, counts = np.unique(faces, axis=0, return_inverse=True, return_counts=True)
    crowded = np.flatnonzero(counts[inverse.reshape(-1)] > 2)
    if crowded.size:
        raise _fail(path, f"a face of tetrahedron {crowded[0] // 4} is shared by "
                          f"{counts[inverse.reshape(-1)[crowded[0]]]} tetrahedra "
                          "(overlapping or non-manifold mesh); fix or remesh")


def check_mesh_topology(path: str, mesh: MeshTet) -> None:
    """No inverted (overlapping) tets; every tet reachable from tet 0 through faces."""
    overlaps = overlapping_faces(mesh)
    if overlaps.size:
        a, b = sorted(mesh.f2t[:, overlaps[0]])
        raise _fail(path, f"tetrahedra {a} and {b} overlap (an inverted tet: both lie on "
                          "the same side of their shared face); fix or remesh")
    interior = mesh.f2t[:, mesh.f2t[1] >= 0]
    n = mesh.t.shape[1]
    graph = coo_matrix((np.ones(interior.shape[1]), (interior[0], interior[1])), shape=(n, n))
    count, label = connected_components(graph, directed=False)
    if count > 1:
        first = int(np.flatnonzero(label != label[0])[0])
        raise _fail(path, f"the mesh has {count} disconnected parts: tetrahedron {first} is "
                          "not joined to tetrahedron 0 through faces; mesh one part per file")


def validated_mesh(path: str, points: np.ndarray, tets: np.ndarray) -> MeshTet:
    """The file's tets as a positively oriented MeshTet, or DataFormatError on the first defect.

    ``points`` (n, 3) and ``tets`` (m, 4) as read; tet k of the result is tet k of the file.
    """
    if len(tets) == 0:
        raise _fail(path, "the mesh has no tetrahedra")
    check_indices_and_nodes(path, points, tets)
    check_shapes(path, points, tets)
    mesh = finalize_mesh(points.T.copy(), tets.T.copy())
    check_mesh_topology(path, mesh)
    return mesh


__all__ = ["DUPLICATE_RELATIVE", "MAX_COORDINATE", "check_indices_and_nodes", "check_mesh_topology",
           "check_shapes", "validated_mesh"]
