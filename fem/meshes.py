"""Tetrahedral mesh builders for the named domains (level L: nominal spacing h = 2**-L).

Cylinders and shells: a ring triangulation of the disk/annulus, extruded into prisms over z-layers,
each prism cut into 3 tets by the global vertex order so that neighbouring prisms cut their shared
quad face along the same diagonal (a conforming mesh). Every builder returns positively oriented
tets with no unused or duplicate nodes.
"""

from __future__ import annotations

import numpy as np
from skfem import MeshTet

from surrogate.core.errors import InputError
from surrogate.fem.tet_geometry import tet_signed_volumes


def check_level(level: int, minimum: int = 1) -> int:
    """Return ``level`` as an int if it is an integer >= ``minimum``, else raise InputError."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < minimum:
        raise InputError(f"mesh level must be an integer >= {minimum}, got {level!r}")
    return int(level)


def finalize_mesh(p: np.ndarray, t: np.ndarray) -> MeshTet:
    """MeshTet from nodes (3, n) and tets (4, m): drop unused nodes, orient every tet positively."""
    used, t = np.unique(t, return_inverse=True)
    t = t.reshape(4, -1)
    p = p[:, used]
    flip = tet_signed_volumes(p, t) < 0
    t[2, flip], t[3, flip] = t[3, flip], t[2, flip].copy()
    return MeshTet(np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(t))


def ring_node_count(radius: float, h: float) -> int:
    """Nodes on a circle of ``radius`` at spacing ~h: a multiple of 6, at least 6."""
    return max(6, 6 * int(round(2.0 * np.pi * radius / (6.0 * h))))


def _strip_triangles(inner: np.ndarray, outer: np.ndarray, n_in: int, n_out: int) -> np.ndarray:
    """Triangles (n_in + n_out, 3) zipping two closed rings whose nodes start at angle 0.

    Edges of both rings are merged by the angle of their midpoints; each edge with the current
    node of the other ring forms one triangle.
    """
    mid_in = 2.0 * np.pi * (np.arange(n_in) + 0.5) / n_in
    mid_out = 2.0 * np.pi * (np.arange(n_out) + 0.5) / n_out
    is_in = np.concatenate([np.ones(n_in, dtype=bool), np.zeros(n_out, dtype=bool)])
    order = np.argsort(np.concatenate([mid_in, mid_out]), kind="stable")
    is_in = is_in[order]
    i = np.cumsum(is_in) - is_in  # inner edges processed before each event
    j = np.cumsum(~is_in) - ~is_in  # outer edges processed before each event
    a = inner[i % n_in]
    b = np.where(is_in, inner[(i + 1) % n_in], outer[j % n_out])
    c = np.where(is_in, outer[j % n_out], outer[(j + 1) % n_out])
    return np.stack([a, b, c], axis=1)


def ring_triangulation(radii: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Triangulate the disk (radii[0] == 0) or annulus between concentric circles ``radii``.

    Returns nodes (n, 2) and triangles (m, 3); nodes on ring k lie exactly on the circle radii[k].
    """
    points, rings, start = [], [], 0
    for r in radii:
        n = 1 if r == 0 else ring_node_count(r, h)
        angle = 2.0 * np.pi * np.arange(n) / n
        points.append(np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1))
        rings.append(np.arange(start, start + n))
        start += n
    tris = []
    for inner, outer in zip(rings[:-1], rings[1:], strict=True):
        if len(inner) == 1:  # fan around the centre
            tris.append(np.stack([np.full(len(outer), inner[0]), outer, np.roll(outer, -1)], 1))
        else:
            tris.append(_strip_triangles(inner, outer, len(inner), len(outer)))
    return np.concatenate(points), np.concatenate(tris)


def extrude(p2: np.ndarray, tri: np.ndarray, z: np.ndarray) -> MeshTet:
    """Prism mesh of triangles ``tri`` (m, 3) over z-levels ``z``, each prism cut into 3 tets.

    With a < b < c the sorted node indices of a triangle and ' the next z-level, the tets are
    (a, b, c, c'), (a, b, b', c'), (a, a', b', c'): the quad over edge (u, v), u < v, is always
    cut along u–v', which depends only on the edge, so shared faces match (conforming).
    """
    n2, layers = len(p2), len(z) - 1
    p = np.vstack([np.tile(p2.T, len(z)), np.repeat(z, n2)])  # layer-major (3, len(z) * n2)
    a, b, c = np.sort(tri, axis=1).T
    off = (np.arange(layers) * n2)[:, None]
    a, b, c = a + off, b + off, c + off  # (layers, m)
    a1, b1, c1 = a + n2, b + n2, c + n2
    t = np.concatenate(
        [np.stack([a, b, c, c1]), np.stack([a, b, b1, c1]), np.stack([a, a1, b1, c1])], axis=1
    )
    return finalize_mesh(p, t.reshape(4, -1))


def cylinder_mesh(level: int, r_inner: float = 0.0, r_outer: float = 1.0) -> MeshTet:
    """{r_inner <= r <= r_outer, 0 <= z <= 1}: 2**L radial rings per unit, 2**L z-layers."""
    level = check_level(level)
    h = 2.0**-level
    n_rings = max(1, int(round((r_outer - r_inner) / h)))
    p2, tri = ring_triangulation(np.linspace(r_inner, r_outer, n_rings + 1), h)
    return extrude(p2, tri, np.linspace(0.0, 1.0, 2**level + 1))


def box_mesh(level: int, lower: np.ndarray, upper: np.ndarray) -> MeshTet:
    """Tensor mesh of the box [lower, upper] (integer side lengths) with spacing 2**-L; level 0
    is one cell per unit of length (the unit cube: 6 tets)."""
    level = check_level(level, minimum=0)
    axes = [
        np.linspace(lo, hi, int(round((hi - lo) * 2**level)) + 1)
        for lo, hi in zip(lower, upper, strict=True)
    ]
    m = MeshTet.init_tensor(*axes)
    return finalize_mesh(m.p, m.t)


def l_prism_mesh(level: int) -> MeshTet:
    """([−1, 1]² minus (0, 1]²) × [0, 1]: the box's tensor mesh without the removed quadrant."""
    m = box_mesh(level, np.array([-1.0, -1.0, 0.0]), np.array([1.0, 1.0, 1.0]))
    centroid = m.p[:, m.t].mean(axis=1)
    keep = ~((centroid[0] > 0) & (centroid[1] > 0))
    return finalize_mesh(m.p, m.t[:, keep])


def ball_mesh(level: int, centre: np.ndarray, radius: float) -> MeshTet:
    """Ball with n = 2**(L-1) cells per half-axis: the cube [−1, 1]³ mapped onto the ball.

    skfem's tensor mesh of [0, 1]³ (6 tets around each cell's (1, 1, 1) diagonal) is mirrored
    into the 8 octants, so the planes |x_i| = |x_j| where the map x ↦ x |x|_∞ / |x|_2 has kinks
    are unions of faces: every tet is mapped smoothly (quality bounded independently of L), and
    nodes with |x|_∞ = 1 land exactly on the sphere. (skfem's ``MeshTet.init_ball`` keeps interior
    nodes fixed while projecting boundary nodes, so its boundary layer degrades with refinement.)
    """
    n = 2 ** (check_level(level) - 1)
    octant = MeshTet.init_tensor(*[np.linspace(0.0, 1.0, n + 1)] * 3)
    grid = np.rint(octant.p * n).astype(np.int64)  # integer node coordinates in [0, n]
    signs = np.array(np.meshgrid([1, -1], [1, -1], [1, -1], indexing="ij")).reshape(3, -1).T
    nodes = np.concatenate([grid * s[:, None] for s in signs], axis=1)
    tets = np.concatenate([octant.t + k * grid.shape[1] for k in range(len(signs))], axis=1)
    key = ((nodes[0] + n) * (2 * n + 1) + nodes[1] + n) * (2 * n + 1) + nodes[2] + n
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    p = nodes[:, first] / n  # mirror planes merged: no duplicate nodes
    sup, euclid = np.abs(p).max(axis=0), np.linalg.norm(p, axis=0)
    p = p * np.divide(sup, euclid, out=np.ones_like(euclid), where=euclid > 0)
    p = radius * p + np.asarray(centre, dtype=np.float64)[:, None]
    return finalize_mesh(p, inverse.reshape(-1)[tets])
