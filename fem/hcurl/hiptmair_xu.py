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
    mg_g = smoothed_aggregation_solver(_regularise(AG), max_coarse=500,
                                           coarse_solver="splu")
    nb = AP.shape[0] // 3
    Bp = np.kron(np.ones((nb, 1)), np.eye(3))  # rigid translations: near-kernel of ∇·∇
    mg_p = smoothed_aggregation_solver(
        sp.bsr_matrix(_regularise(AP), blocksize=(3, 3)), B=Bp, max_coarse=500,
        coarse_solver="splu",
    )
    Mg, Mp = mg_g.aspreconditioner(cycle="V"), mg_p.aspreconditioner(cycle="V")
    GT, PT = sp.csr_matrix(G.T), sp.csr_matrix(Pi.T)

    def apply(r: np.ndarray) -> np.ndarray:
        r = np.ravel(r)
        x = np.zeros_like(r)
        gauss_seidel(A, x, r, iterations=1, sweep="symmetric")
        return x + G @ (Mg @ (GT @ r)) + Pi @ (Mp @ (PT @ r))

    return spla.LinearOperator(A.shape, matvec=apply, dtype=float)


def _regularise(K: sp.csr_matrix) -> sp.csr_matrix:
    d = K.diagonal()
    fix = np.where(d <= 1e-14 * max(d.max(), 1e-300), 1.0, 0.0)
    return sp.csr_matrix(K + sp.diags(fix))
