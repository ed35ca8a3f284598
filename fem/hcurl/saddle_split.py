"""The complete-linear mixed solve in three small steps, by sparse direct or iterative solvers.

With G₂ the exact P2 → complete-linear gradient
(:func:`~surrogate.fem.hcurl.skfem.complete_linear.element.p2_gradient`), M the complete-linear
mass matrix and L = G₂ᵀ M G₂ the P2 Laplacian (Dirichlet), the complete linear × P2
saddle-point system [[A, Bᵀ], [B, 0]], B = G₂ᵀ M, is solved exactly by

1. L p = G₂ᵀ f                                   (test with v = ∇q; curl ∇q = 0),
2. the Whitney part ũ from the N0 saddle system of A on the Whitney DOFs (curl g_e = 0, so A
   lives there) with right-hand side f − M G₂ p (its P1 multiplier is 0 up to rounding),
3. u = ũ + G₂ ψ, L ψ = −G₂ᵀ M ũ                  (enforces (u_h, ∇q) = 0, keeps curl u_h).

"direct": SuperLU for L and for the N0 saddle system. "iterative": CG with a smoothed-aggregation
AMG V-cycle (pyamg) for L, and MINRES with the block Hiptmair–Xu / AMG preconditioner of
:func:`~surrogate.fem.hcurl.solvers.solve_maxwell_saddle` for step 2; every Krylov solve stops at
relative residual ``rtol``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from surrogate.fem.hcurl.discrete_operators import discrete_gradient
from surrogate.fem.hcurl.skfem.complete_linear.element import edge_dof_indices, p2_gradient
from surrogate.fem.hcurl.skfem.complete_linear.iterative import AmgCg
from surrogate.fem.hcurl.solvers import SolveInfo, lu_factor, solve_maxwell_saddle

ITERATIVE_LIMIT = 20_000  # order-1 DOFs from which "auto" solves iteratively (SuperLU's fill:
# cube level 3, 8k DOFs, 0.4 s direct; level 4, 62k DOFs, > 60 s direct, seconds iteratively)


def _whitney_direct(A_w: sp.csr_matrix, B_w: sp.csr_matrix, rhs: np.ndarray) -> np.ndarray:
    """Whitney DOFs of the N0 saddle system [[A_w, B_wᵀ], [B_w, 0]] (free DOFs) by SuperLU."""
    K = sp.bmat([[A_w, B_w.T], [B_w, None]], format="csr")
    rhs1 = np.concatenate([rhs, np.zeros(B_w.shape[0])])
    return lu_factor(K, "N0 saddle-point system").solve(rhs1)[:A_w.shape[0]]


def saddle_split(mesh, A: sp.spmatrix, M: sp.spmatrix, f_u: np.ndarray, x0_u: np.ndarray, *,
                 iterative: bool = False, rtol: float = 1e-10, maxiter: int = 2000
                 ) -> tuple[np.ndarray, np.ndarray, SolveInfo]:
    """The complete linear × P2 mixed solve in three steps (module docstring); u = x0_u on the
    DOFs of ``mesh.boundary_edges()``, p = 0 on boundary nodes and edges.

    Returns (u, p, SolveInfo) with p in skfem's ElementTetP2 numbering and the relative residual
    of the full saddle-point system on the free DOFs; SolveInfo.method is "direct-split" or
    "iterative-split" (iterations: CG + MINRES iterations of the three steps).
    """
    start = time.perf_counter()
    A, M = sp.csr_matrix(A), sp.csr_matrix(M)
    nv, ne = mesh.p.shape[1], mesh.edges.shape[1]
    free_e = np.setdiff1d(np.arange(ne), mesh.boundary_edges())
    free_n = np.setdiff1d(np.arange(nv), mesh.boundary_nodes())
    free_u = edge_dof_indices(free_e)
    free_q = np.concatenate([free_n, nv + free_e])
    G = p2_gradient(mesh)[:, free_q].tocsr()
    GT = sp.csr_matrix(G.T)
    L = sp.csr_matrix(GT @ M @ G)
    solve_l: Callable[[np.ndarray], np.ndarray]
    if iterative:
        amg = AmgCg(L, rtol, maxiter, "P2 Laplacian")
        solve_l = amg.solve
    else:
        solve_l = lu_factor(L, "P2 Laplacian").solve
    p_free = solve_l(GT @ f_u)  # (1) (∇p, ∇q) = (f, ∇q)
    r = f_u - M @ (G @ p_free)
    u = np.asarray(x0_u, dtype=float).copy()
    minres_its = 0
    if iterative:  # (2) the Whitney part by MINRES + block Hiptmair–Xu on all edges
        u[2 * free_e], minres_its = _whitney_iterative(mesh, A, M, r, u, free_e, free_n, rtol,
                                                       maxiter)
    else:
        w = 2 * free_e
        B_w = sp.csr_matrix(discrete_gradient(mesh)[free_e][:, free_n].T @ M[w][:, w])
        u[w] = _whitney_direct(sp.csr_matrix(A[w][:, w]), B_w, r[w] - A[w] @ u)
    u += G @ solve_l(-(GT @ (M @ u)))  # (3) gradient correction: (u_h, ∇q) = 0
    p = np.zeros(nv + ne)
    p[free_q] = p_free
    res_u = f_u[free_u] - (A @ u)[free_u] - (M @ (G @ p_free))[free_u]
    res = np.concatenate([res_u, GT @ (M @ u)])
    scale = max(np.linalg.norm(f_u[free_u] - (A @ x0_u)[free_u]), 1e-300)
    method, its = ("iterative-split", amg.iterations + minres_its) if iterative else \
        ("direct-split", 1)
    return u, p, SolveInfo(method, its, float(np.linalg.norm(res) / scale),
                           time.perf_counter() - start, len(free_u) + len(free_q))


def _whitney_iterative(mesh, A, M, r, u, free_e, free_n, rtol, maxiter
                       ) -> tuple[np.ndarray, int]:
    """Step 2 by :func:`~surrogate.fem.hcurl.solvers.solve_maxwell_saddle` ("iterative") on the N0
    and P1 bases of ``mesh`` (its preconditioner needs them); returns (free Whitney DOFs,
    MINRES iterations)."""
    from skfem import Basis, ElementTetN0, ElementTetP1

    w_all = 2 * np.arange(mesh.edges.shape[1])
    A_w, M_w = sp.csr_matrix(A[w_all][:, w_all]), sp.csr_matrix(M[w_all][:, w_all])
    B_w = sp.csr_matrix(discrete_gradient(mesh).T @ M_w)
    basis_u = Basis(mesh, ElementTetN0(), intorder=2)
    basis_p = Basis(mesh, ElementTetP1(), intorder=2)
    u_w, _, info = solve_maxwell_saddle(
        A_w, B_w, r[w_all], np.zeros(mesh.p.shape[1]), basis_u, basis_p, x0_u=u[w_all],
        free_u=free_e, free_p=free_n, solver="iterative", rtol=rtol, maxiter=maxiter)
    return u_w[free_e], info.iterations


__all__ = ["ITERATIVE_LIMIT", "saddle_split"]
