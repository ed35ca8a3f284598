"""The order-1 H(curl) element on tetrahedra: the complete-linear space, hierarchical over N0.

The space is Nédélec's second kind of degree 1 (complete P1 vector fields, 2 DOFs per edge,
12 per tet), written as a hierarchical basis: for every edge e = (a, b)

    w_e = λ_a ∇λ_b − λ_b ∇λ_a        (Whitney: exactly skfem's ``ElementTetN0`` function)
    g_e = ∇(λ_a λ_b)                  (gradient of the quadratic edge bubble).

N0 ⊕ span{g_e} = P1³ on every tet, so the L² error of u is O(h²) for a smooth u. curl g_e = 0,
so curl u_h lies in the same piecewise constants as for N0: the curl error stays O(h) (only the
full quadratic space of the first kind would raise it). λ_aλ_b is symmetric in a and b, so only
the Whitney function carries the edge orientation sign; the bubble DOF has none.

DOF numbering is scikit-fem's for ``edge_dofs = 2``: global DOF 2 e is the Whitney DOF of edge
e = mesh.edges[:, e] (oriented low → high node index, the N0 numbering), 2 e + 1 its bubble DOF;
locally 2 k and 2 k + 1 belong to the reference edge k. The DOF functionals, dual to the basis,
with s ∈ [0, 1] running from a to b and t = b − a:

    ℓ_e(u) = ∫₀¹ u·t ds              (the N0 DOF)
    m_e(u) = 3 ∫₀¹ u·t (1 − 2 s) ds  (a Legendre moment; invariant under reversing the edge)

(w_e·t = 1 and g_e·t = 1 − 2 s on e; every other basis function has no tangential trace on e.)
The interpolant :func:`complete_linear_interpolant` reproduces every degree-1 field exactly.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from skfem import ElementTetN0, MeshTet
from skfem.element.element_hcurl import ElementHcurl
from skfem.refdom import RefTet

from surrogate.core.errors import InputError
from surrogate.fem.tet_geometry import edge_gauss_points

_N0 = ElementTetN0()
_BARY_GRADS = np.array([[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


class ElementTetCompleteLinear(ElementHcurl):
    """Complete-linear H(curl) element (2 DOFs per edge), hierarchical: Whitney + ∇(λ_aλ_b).

    Local DOF 2 k is skfem's N0 function of reference edge k (same sign convention), 2 k + 1 the
    gradient of the edge bubble (curl 0, no orientation sign). L² error O(h²), curl error O(h).
    """

    edge_dofs = 2
    maxdeg = 1
    dofnames = ["u^t", "u^s"]
    doflocs = np.repeat(_N0.doflocs, 2, axis=0)
    refdom = RefTet

    def orient(self, mapping, i, tind=None):
        """Edge sign for the Whitney DOFs; +1 for the (symmetric) bubble gradients."""
        if i % 2 == 0:
            return super().orient(mapping, i, tind)
        ones = np.ones(mapping.mesh.t.shape[1], dtype=np.int32)
        return ones if tind is None else ones[tind]

    def lbasis(self, X, i):
        if not 0 <= i < 12:
            self._index_error()
        k = i // 2
        if i % 2 == 0:
            return _N0.lbasis(X, k)
        a, b = RefTet.edges[k]
        x = X[0]
        lam = [1.0 - X[0] - X[1] - X[2], X[0], X[1], X[2]]
        phi = np.array([lam[a] * _BARY_GRADS[b, c] + lam[b] * _BARY_GRADS[a, c]
                        for c in range(3)])
        return phi, np.array([0.0 * x, 0.0 * x, 0.0 * x])


def whitney_dofs(n_edges: int) -> np.ndarray:
    """Global indices of the lowest-order (Whitney, N0) DOFs, in the order of mesh.edges."""
    return 2 * np.arange(int(n_edges))


def bubble_dofs(n_edges: int) -> np.ndarray:
    """Global indices of the edge-bubble gradient DOFs, in the order of mesh.edges."""
    return 2 * np.arange(int(n_edges)) + 1


def edge_dof_indices(edges: np.ndarray) -> np.ndarray:
    """Both global DOFs (2 e, 2 e + 1) of each edge index in ``edges``, edge-major."""
    e = np.asarray(edges, dtype=np.int64)
    return (2 * e[:, None] + np.arange(2)).ravel()


def complete_linear_interpolant(mesh: MeshTet, fn, edges: np.ndarray | None = None) -> np.ndarray:
    """Complete-linear DOFs of a field: (ℓ_e(u), m_e(u)) per edge, flattened as 2 e, 2 e + 1.

    ``fn`` maps points (N, 3) to (N, 3); ``edges`` selects edge indices (default: all). The
    result has length 2·len(edges) and is aligned with :func:`edge_dof_indices` (``edges``).
    The even entries equal N0's ``edge_interpolant`` (5-point Gauss along each edge).
    """
    s, w, t, pts = edge_gauss_points(mesh, edges)
    vals = np.asarray(fn(pts), dtype=np.float64)
    if vals.shape != pts.shape:
        raise InputError(f"the field must map (N, 3) points to (N, 3) values, got {vals.shape}")
    tangential = np.einsum("gec,ec->ge", vals.reshape(len(s), len(t), 3), t)  # (G, E)
    out = np.empty((len(t), 2))
    out[:, 0] = w @ tangential
    out[:, 1] = 3.0 * (w * (1.0 - 2.0 * s)) @ tangential
    return out.ravel()


def n0_only_error(basis, dofs: np.ndarray, where: str) -> InputError | None:
    """The one-line InputError for an order-1 field (basis or DOF vector) handed to the N0-only
    path ``where``; None when the field looks like an N0 field."""
    n_edges = basis.mesh.edges.shape[1]
    size = np.asarray(dofs).size
    if isinstance(getattr(basis, "elem", None), ElementTetCompleteLinear) or size == 2 * n_edges:
        return InputError(f"{where} takes lowest-order (N0, 1 DOF per edge) fields, got a "
                          f"complete-linear field ({size} DOFs = 2 per edge on {n_edges} edges); "
                          "evaluate it with its ElementTetCompleteLinear basis "
                          "(skfem.complete_linear.evaluate.evaluate_complete_linear)")
    return None


def p2_gradient(mesh: MeshTet) -> sp.csr_matrix:
    """G₂ (2 n_edges, n_nodes + n_edges): complete-linear DOFs of ∇q for Lagrange P2 q (exact).

    Columns follow skfem's ``ElementTetP2`` numbering (nodes, then edge midpoints in the order
    of mesh.edges). For q with values q_a, q_b at the ends of edge e and q_m at its midpoint:
    ℓ_e(∇q) = q_b − q_a and m_e(∇q) = 4 q_m − 2 q_a − 2 q_b (∇P2 ⊂ the complete-linear space).
    """
    a, b = mesh.edges
    ne, nv = mesh.edges.shape[1], mesh.p.shape[1]
    e = np.arange(ne)
    rows = np.concatenate([2 * e, 2 * e, 2 * e + 1, 2 * e + 1, 2 * e + 1])
    cols = np.concatenate([a, b, a, b, nv + e])
    vals = np.concatenate([-np.ones(ne), np.ones(ne), np.full(ne, -2.0), np.full(ne, -2.0),
                           np.full(ne, 4.0)])
    return sp.csr_matrix((vals, (rows, cols)), shape=(2 * ne, nv + ne))


__all__ = ["ElementTetCompleteLinear", "whitney_dofs", "bubble_dofs", "edge_dof_indices",
           "complete_linear_interpolant", "n0_only_error", "p2_gradient"]
