"""Fixed sparse evaluation matrices of Nédélec (N0) fields: probes, cell centres, nodes.

u_h(x_i) = Σ_j dofs_j φ_j(x_i) is linear in the DOFs, so the values at a fixed set of points
are one sparse product ``P @ dofs`` with P of shape (3·n_points, n_dofs), row 3 i + c holding
component c at point i (6 non-zeros: the local edges of the containing tet). Built once,
``P @ D`` evaluates many fields (columns of D, e.g. time steps) at once.

Probe placement: the first points of the unscrambled Halton sequence (bases 2, 3, 5, the
origin skipped; ``scipy.stats.qmc.Halton``) mapped into the domain's bounding box shrunk by a
margin, keeping those inside the domain and the mesh: deterministic, well spread, away from the
walls.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from surrogate.core.errors import InputError
from surrogate.fem.domains import as_points
from surrogate.fem.point_evaluation import containing_cells, point_locator
from surrogate.fem.tet_geometry import vector_node_average

PROBE_MARGIN = 0.15  # fraction of the box side kept free next to each wall


def halton_points(n: int) -> np.ndarray:
    """Points (n, 3) of the unscrambled Halton sequence in [0, 1)³ (bases 2, 3, 5), indices 1..n.

    Point i is the radical inverse of i in each base: (Σ_k a_k 2^-(k+1), ...) for i = Σ_k a_k 2^k.
    """
    from scipy.stats import qmc

    sequence = qmc.Halton(d=3, scramble=False)
    sequence.fast_forward(1)  # index 0 is the origin, a corner of the box
    return sequence.random(n)


def probe_points(domain, mesh, n: int, margin: float = PROBE_MARGIN) -> np.ndarray:
    """n deterministic probes (n, 3): Halton points in the shrunk box, inside domain and mesh."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"number of probes must be an integer >= 1, got {n!r}")
    lo, hi = domain.bounds[:, 0], domain.bounds[:, 1]
    lo, hi = lo + margin * (hi - lo), hi - margin * (hi - lo)
    candidates = lo + (hi - lo) * halton_points(64 * n + 64)
    inside = domain.contains(candidates) & (point_locator(mesh).locate(candidates)[0] >= 0)
    points = candidates[inside][:n]
    if len(points) < n:
        raise InputError(f"could not place {n} probes inside the {domain.name} mesh")
    return points


def n0_evaluation_matrix(basis, points: np.ndarray, cells: np.ndarray | None = None
                         ) -> sp.csr_matrix:
    """P (3·n, basis.N) with (P @ dofs)[3 i + c] = u_h(points[i])_c for an ElementTetN0 basis.

    ``cells`` (n,) gives the containing tet of each point; by default they are located
    (InputError for points outside the mesh).
    """
    x = as_points(points)
    if cells is None:
        cells = containing_cells(basis.mesh, x, hint=False)
    cells = np.asarray(cells, dtype=np.int64)
    if cells.shape != (len(x),):
        raise InputError(f"cells must have shape ({len(x)},), got {cells.shape}")
    ref = basis.mapping.invF(x.T[:, :, None], tind=cells)  # reference coordinates (3, n, 1)
    values = np.stack([np.asarray(basis.elem.gbasis(basis.mapping, ref, k, tind=cells)[0])[:, :, 0]
                       for k in range(basis.Nbfun)])  # (6, 3, n): the local basis functions
    rows = 3 * np.arange(len(x))[None, None, :] + np.arange(3)[None, :, None]
    cols = np.broadcast_to(basis.element_dofs[:, cells][:, None, :], values.shape)
    rows = np.broadcast_to(rows, values.shape)
    return sp.csr_matrix((values.ravel(), (rows.ravel(), cols.ravel())),
                         shape=(3 * len(x), basis.N))


def n0_cell_centre_matrix(basis) -> sp.csr_matrix:
    """(3·n_cells, basis.N): the N0 field at every tet's barycentre (cf. vtk.n0_at_cell_centres)."""
    mesh = basis.mesh
    centres = mesh.p[:, mesh.t].mean(axis=1).T
    return n0_evaluation_matrix(basis, centres, np.arange(mesh.t.shape[1]))


def n0_node_matrix(basis) -> sp.csr_matrix:
    """(3·n_nodes, basis.N): u(node i) = Σ_{T∋i} |T| u_T(x_i) / Σ_{T∋i} |T| (vtk.n0_at_nodes)."""
    mesh = basis.mesh
    nodes = mesh.t.T.ravel()  # evaluation point 4 T + j is vertex j of tet T
    at_vertices = n0_evaluation_matrix(basis, mesh.p[:, nodes].T,
                                       np.repeat(np.arange(mesh.t.shape[1]), 4))
    return vector_node_average(mesh, at_vertices)


__all__ = ["halton_points", "probe_points", "n0_evaluation_matrix", "n0_cell_centre_matrix",
           "n0_node_matrix", "PROBE_MARGIN"]
