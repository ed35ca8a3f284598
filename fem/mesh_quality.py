"""Validity of a tetrahedral mesh before assembly: no (near-)degenerate, no inverted tets.

A tet whose volume is tiny against the cube of its longest edge (a sliver, a needle, or four
nearly coplanar nodes) makes the element matrices blow up like 1/volume and the system
ill-conditioned; one of zero volume makes it singular. An inverted tet (a node pushed through
the opposite face) overlaps its neighbour: across an interior face shared by two tets the two
remaining nodes then lie on the same side of that face. Both are reported as InputError
before any assembly, instead of being solved to garbage. The test of inversion does not
depend on the node order of the tets (skfem does not require positive orientation).
"""

from __future__ import annotations

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.tet_geometry import tet_signed_volumes

MIN_RELATIVE_VOLUME = 1e-8
"""Smallest accepted |volume| / (longest edge)³ of a tet. A regular tet has 1/(6√2) ≈ 0.118,
the cube's Kuhn tets 1/(18√3) ≈ 0.032; the domains' meshes stay above 0.02."""

_EDGES = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def relative_volumes(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Signed volume / (longest edge)³ per tet, shape (n_tets,); ``p`` (3, n), ``t`` (4, m)."""
    volume = tet_signed_volumes(p, t)
    longest = np.max([np.linalg.norm(p[:, t[i]] - p[:, t[j]], axis=0) for i, j in _EDGES],
                     axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(longest > 0, volume / longest**3, 0.0)


def overlapping_faces(mesh) -> np.ndarray:
    """Interior faces whose two tets lie on the same side of them (an inverted tet), (k,)."""
    p, t, facets, f2t = mesh.p, mesh.t, mesh.facets, mesh.f2t
    interior = np.flatnonzero(f2t[1] >= 0)
    face = facets[:, interior]
    # the node of a tet opposite a face: its node sum minus the face's node sum
    opposite = [t[:, f2t[k, interior]].sum(axis=0) - face.sum(axis=0) for k in (0, 1)]
    normal = np.cross(p[:, face[1]] - p[:, face[0]], p[:, face[2]] - p[:, face[0]], axis=0)
    side = [np.einsum("ij,ij->j", normal, p[:, o] - p[:, face[0]]) for o in opposite]
    return interior[side[0] * side[1] > 0]


def check_mesh(mesh, *, min_relative_volume: float = MIN_RELATIVE_VOLUME) -> None:
    """InputError naming the first bad tets if ``mesh`` has non-finite nodes, (near-)degenerate
    tets (|volume| ≤ min_relative_volume · longest edge³) or inverted (overlapping) tets."""
    p, t = np.asarray(mesh.p), np.asarray(mesh.t)
    if not np.isfinite(p).all():
        bad = np.flatnonzero(~np.isfinite(p).all(axis=0))
        raise InputError(f"mesh has {bad.size} node(s) with non-finite coordinates "
                         f"(e.g. node {bad[0]})")
    quality = np.abs(relative_volumes(p, t))
    degenerate = np.flatnonzero(~(quality > min_relative_volume))
    if degenerate.size:
        worst = degenerate[np.argmin(quality[degenerate])]
        raise InputError(f"mesh has {degenerate.size} degenerate tetrahedra (volume ≤ "
                         f"{min_relative_volume:g}·h³, h its longest edge), e.g. tet {worst} "
                         f"with volume {quality[worst]:.2e}·h³: the system would be singular or "
                         "ill-conditioned; fix or remesh")
    overlaps = overlapping_faces(mesh)
    if overlaps.size:
        pair = mesh.f2t[:, overlaps[0]]
        raise InputError(f"mesh has {overlaps.size} interior face(s) with both tetrahedra on "
                         f"the same side (inverted tets), e.g. tets {pair[0]} and {pair[1]} "
                         "overlap: fix or remesh")


__all__ = ["MIN_RELATIVE_VOLUME", "check_mesh", "overlapping_faces", "relative_volumes"]
