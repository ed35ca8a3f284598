"""Linear solvers for the Nédélec systems (interface; direct solves only for now).

The stream "fem-solvers" replaces the iterative branch with CG + Hiptmair–Xu and MINRES with a
block-diagonal preconditioner, keeping these signatures.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from surrogate.errors import InputError

DIRECT_LIMIT = 30_000  # unknowns below which "auto" picks a sparse direct solve


@dataclass(frozen=True)
class SolveInfo:
    """What a linear solve did: method, iterations, relative residual, time, size."""

    method: str
    iterations: int
    residual: float
    seconds: float
    ndofs: int

    def to_dict(self) -> dict:
        """JSON-safe dictionary."""
        return asdict(self)


def _free_indices(n: int, free: np.ndarray | None) -> np.ndarray:
    return np.arange(n) if free is None else np.asarray(free, dtype=np.int64)


def _check_solver(solver: str) -> None:
    if solver not in ("auto", "direct", "iterative"):
        raise InputError(f"unknown solver {solver!r}; choose one of: auto, direct, iterative")


def solve_hcurl_spd(
    A: sp.spmatrix,
    b: np.ndarray,
    basis,
    *,
    x0: np.ndarray | None = None,
    free: np.ndarray | None = None,
    solver: str = "auto",
    rtol: float = 1e-10,
    maxiter: int = 1000,
) -> tuple[np.ndarray, SolveInfo]:
    """Solve the SPD N0 system A x = b for the ``free`` DOFs, the others fixed to ``x0``.

    Solves A[F, F] x_F = b_F − A[F, D] x0_D and returns the full vector x (x_D = x0_D).
    """
    _check_solver(solver)
    A = sp.csr_matrix(A)
    n = A.shape[0]
    x = np.zeros(n) if x0 is None else np.array(x0, dtype=float)
    F = _free_indices(n, free)
    rhs = b[F] - A[F] @ x + A[F][:, F] @ x[F]
    AFF = A[F][:, F].tocsc()
    start = time.perf_counter()
    x[F] = spla.spsolve(AFF, rhs)
    seconds = time.perf_counter() - start
    res = float(np.linalg.norm(rhs - AFF @ x[F]) / max(np.linalg.norm(rhs), 1e-300))
    return x, SolveInfo("direct", 1, res, seconds, len(F))


def solve_maxwell_saddle(
    A: sp.spmatrix,
    B: sp.spmatrix,
    f_u: np.ndarray,
    f_p: np.ndarray,
    basis_u,
    basis_p,
    *,
    x0_u: np.ndarray | None = None,
    x0_p: np.ndarray | None = None,
    free_u: np.ndarray | None = None,
    free_p: np.ndarray | None = None,
    solver: str = "auto",
    rtol: float = 1e-10,
    maxiter: int = 2000,
) -> tuple[np.ndarray, np.ndarray, SolveInfo]:
    """Solve [[A, Bᵀ], [B, 0]] [u; p] = [f_u; f_p] for the free DOFs (mixed Kikuchi form).

    A is the N0 curl–curl matrix (φ curl u, curl v), B[q, v] = (v, ∇q) with P1 q.
    Fixed DOFs take the values of ``x0_u`` / ``x0_p`` (zeros when not given).
    """
    _check_solver(solver)
    nu, npp = A.shape[0], B.shape[0]
    K = sp.bmat([[A, B.T], [B, None]], format="csr")
    x0 = np.concatenate(
        [np.zeros(nu) if x0_u is None else x0_u, np.zeros(npp) if x0_p is None else x0_p]
    )
    F = np.concatenate([_free_indices(nu, free_u), nu + _free_indices(npp, free_p)])
    rhs_full = np.concatenate([f_u, f_p])
    x = x0.astype(float).copy()
    rhs = rhs_full[F] - K[F] @ x + K[F][:, F] @ x[F]
    KFF = K[F][:, F].tocsc()
    start = time.perf_counter()
    x[F] = spla.spsolve(KFF, rhs)
    seconds = time.perf_counter() - start
    res = float(np.linalg.norm(rhs - KFF @ x[F]) / max(np.linalg.norm(rhs), 1e-300))
    return x[:nu], x[nu:], SolveInfo("direct", 1, res, seconds, len(F))
