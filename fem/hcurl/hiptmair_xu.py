"""Auxiliary-space Hiptmair–Xu preconditioner for N0 curl–curl + mass systems (pyamg V-cycles).

B = S + G AMG(GᵀAG) Gᵀ + Π AMG(ΠᵀAΠ) Πᵀ  (additive; S = symmetric Gauss–Seidel sweep on A).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from pyamg.relaxation.relaxation import gauss_seidel

from surrogate.fem.hcurl.amg import smoothed_aggregation_solver


def hx_preconditioner(A: sp.csr_matrix, G: sp.spmatrix, Pi: sp.spmatrix) -> spla.LinearOperator:
    """Return B ≈ A⁻¹ as a fixed linear SPD operator (Hiptmair–Xu 2007, additive form)."""
    A = sp.csr_matrix(A)
    G = sp.csr_matrix(G)
    Pi = sp.csr_matrix(Pi)
    AG = sp.csr_matrix(G.T @ A @ G)
    AP = sp.csr_matrix(Pi.T @ A @ Pi)
    # drop auxiliary DOFs with no coupling (e.g. all-Dirichlet nodes)
    Mg = amg_cycle(_regularise(AG))
    nb = AP.shape[0] // 3
    Bp = np.kron(np.ones((nb, 1)), np.eye(3))  # rigid translations: near-kernel of ∇·∇
    Mp = amg_cycle(sp.bsr_matrix(_regularise(AP), blocksize=(3, 3)), B=Bp)
    GT, PT = sp.csr_matrix(G.T), sp.csr_matrix(Pi.T)

    def apply(r: np.ndarray) -> np.ndarray:
        r = np.ravel(r)
        x = np.zeros_like(r)
        gauss_seidel(A, x, r, iterations=1, sweep="symmetric")
        return x + G @ (Mg @ (GT @ r)) + Pi @ (Mp @ (PT @ r))

    return spla.LinearOperator(A.shape, matvec=apply, dtype=float)


def amg_cycle(K: sp.spmatrix, **options) -> spla.LinearOperator:
    """One smoothed-aggregation V-cycle for ``K`` (sparse LU on the coarsest level); the zero
    operator for an empty ``K`` (a mesh with no interior node, e.g. the cube's 6 tets)."""
    if K.shape[0] == 0:
        return spla.LinearOperator((0, 0), matvec=lambda r: np.zeros(0), dtype=float)
    solver = smoothed_aggregation_solver(K, max_coarse=500, coarse_solver="splu", **options)
    return solver.aspreconditioner(cycle="V")


def _regularise(K: sp.csr_matrix) -> sp.csr_matrix:
    if K.shape[0] == 0:
        return sp.csr_matrix(K)
    d = K.diagonal()
    fix = np.where(d <= 1e-14 * max(d.max(), 1e-300), 1.0, 0.0)
    return sp.csr_matrix(K + sp.diags(fix))
