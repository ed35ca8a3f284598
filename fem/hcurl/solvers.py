"""Linear solvers for the Nédélec systems: sparse direct, CG + Hiptmair–Xu, block MINRES.

"auto" solves directly below DIRECT_LIMIT unknowns and iteratively above. Iterative solves stop
at relative residual ||b − Ax|| / ||b|| ≤ rtol (default 1e-10, far below discretisation error).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from surrogate.core.errors import SolverError
from surrogate.fem.hcurl.discrete_operators import discrete_gradient, nodal_interpolation
from surrogate.fem.hcurl.hiptmair_xu import amg_cycle, hx_preconditioner
from surrogate.fem.hcurl.registry import check_solver

DIRECT_LIMIT = 5_000  # unknowns below which "auto" picks a sparse direct solve (SuperLU fill
# grows fast in 3D: at ~30k N0 unknowns direct takes 10+ s where CG-HX or MINRES take < 1 s)
DIRECT_RESIDUAL_LIMIT = 1e-6
"""Largest relative residual ||b − Ax|| / ||b|| accepted from a direct solve: LU with partial
pivoting is backward stable (residuals ~1e-14 here), so more means a (nearly) singular matrix."""


@dataclass(frozen=True)
class SolveInfo:
    """What a linear solve did: method, iterations, relative residual, time, size, and the
    threads it was given (None where the backend does not set them)."""

    method: str
    iterations: int
    residual: float
    seconds: float
    ndofs: int
    threads: int | None = None

    def to_dict(self) -> dict:
        """JSON-safe dictionary."""
        return asdict(self)


def _free_indices(n: int, free: np.ndarray | None) -> np.ndarray:
    return np.arange(n) if free is None else np.asarray(free, dtype=np.int64)


def _check_solver(solver: str) -> None:
    check_solver(solver, "skfem", 0)


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
    AFF = sp.csr_matrix(A[F][:, F])
    _check_finite(AFF, rhs, "N0 system")
    start = time.perf_counter()
    if _use_direct(solver, len(F)):
        x[F] = lu_solve(AFF, rhs, "N0 system")[0]
        method, its = "direct", 1
    else:
        prec = hx_preconditioner(AFF, *_aux_operators(basis.mesh, F))
        x[F], its = _krylov(spla.cg, AFF, rhs, prec, rtol, maxiter, "CG")
        method = "cg-hx"
    seconds = time.perf_counter() - start
    res = float(np.linalg.norm(rhs - AFF @ x[F]) / max(np.linalg.norm(rhs), 1e-300))
    return x, SolveInfo(method, its, res, seconds, len(F))


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
    KFF = sp.csr_matrix(K[F][:, F])
    _check_finite(KFF, rhs, "saddle-point system")
    start = time.perf_counter()
    if _use_direct(solver, len(F)):
        x[F] = lu_solve(KFF, rhs, "saddle-point system")[0]
        method, its = "direct", 1
    else:
        Fu, Fp = _free_indices(nu, free_u), _free_indices(npp, free_p)
        prec = _block_preconditioner(A, basis_u, basis_p, Fu, Fp)
        x[F], its = _krylov(spla.minres, KFF, rhs, prec, rtol, maxiter, "MINRES")
        method = "minres-block"
    seconds = time.perf_counter() - start
    res = float(np.linalg.norm(rhs - KFF @ x[F]) / max(np.linalg.norm(rhs), 1e-300))
    return x[:nu], x[nu:], SolveInfo(method, its, res, seconds, len(F))


def _aux_operators(mesh, F: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """G and Π restricted to free edges (rows) and to nodes touching no fixed edge (columns)."""
    G, Pi = discrete_gradient(mesh), nodal_interpolation(mesh)
    nn = mesh.p.shape[1]
    fixed = np.ones(G.shape[0], dtype=bool)
    fixed[F] = False
    bad = np.zeros(nn, dtype=bool)
    bad[mesh.edges[:, fixed].ravel()] = True
    nodes = np.flatnonzero(~bad)
    cols = (3 * nodes[:, None] + np.arange(3)).ravel()
    return sp.csr_matrix(G[F][:, nodes]), sp.csr_matrix(Pi[F][:, cols])


def _use_direct(solver: str, n: int) -> bool:
    return solver == "direct" or (solver == "auto" and n < DIRECT_LIMIT)


def _check_finite(K: sp.spmatrix, rhs: np.ndarray | None, name: str) -> None:
    """SolverError when the system has NaN/inf entries (no solver can make sense of them)."""
    bad = [what for what, ok in (("matrix", np.isfinite(K.data).all()),
                                 ("right-hand side", rhs is None or np.isfinite(rhs).all()))
           if not ok]
    if bad:
        raise SolverError(f"the {K.shape[0]}-unknown {name} has non-finite entries in its "
                          f"{' and '.join(bad)}")


def lu_factor(K: sp.spmatrix, name: str) -> spla.SuperLU:
    """SuperLU factors of K (COLAMD: on these systems it fills less than MMD on Kᵀ + K);
    SolverError for non-finite entries or a singular factorisation. ``name`` says what K is."""
    K = sp.csc_matrix(K)
    _check_finite(K, None, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            return spla.splu(K)
        except (spla.MatrixRankWarning, RuntimeError) as exc:
            raise SolverError(f"direct solve of the {K.shape[0]}-unknown {name}: the LU "
                              f"factorisation is singular ({exc}); degenerate mesh or missing "
                              "boundary conditions?") from None


def lu_solve(K: sp.spmatrix, rhs: np.ndarray, name: str) -> tuple[np.ndarray, float]:
    """x = K⁻¹ rhs by sparse LU (:func:`lu_factor`) and its relative residual ‖rhs − K x‖ /
    ‖rhs‖; SolverError for non-finite data, a singular factorisation or a residual above
    :data:`DIRECT_RESIDUAL_LIMIT` (a nearly singular, i.e. ill-conditioned, matrix)."""
    K, rhs = sp.csr_matrix(K), np.asarray(rhs, dtype=float)
    _check_finite(K, rhs, name)
    x = np.atleast_1d(lu_factor(K, name).solve(rhs))
    nb = np.linalg.norm(rhs)
    res = float(np.linalg.norm(rhs - K @ x) / nb) if nb > 0 else float(np.linalg.norm(K @ x))
    if not np.isfinite(x).all() or not res <= DIRECT_RESIDUAL_LIMIT:
        raise SolverError(f"direct solve of the {K.shape[0]}-unknown {name} is unreliable: "
                          f"relative residual {res:.3e} > {DIRECT_RESIDUAL_LIMIT:.0e} (the "
                          "matrix is singular or ill-conditioned)")
    return x, res


def _krylov(method, K, rhs, prec, rtol, maxiter, name):
    """Run a preconditioned scipy Krylov method; SolverError if rtol is not reached."""
    count = [0]

    def cb(_):
        count[0] += 1

    nb = np.linalg.norm(rhs)
    if nb == 0:
        return np.zeros_like(rhs), 0
    # scipy stops on the preconditioned residual; restart until the true one meets rtol
    xs, inner, res = np.zeros_like(rhs), rtol, np.inf
    for _ in range(6):
        xs, _ = method(K, rhs, x0=xs, rtol=inner, maxiter=maxiter - count[0], M=prec,
                       callback=cb)
        res = float(np.linalg.norm(rhs - K @ xs) / nb)
        if res <= rtol or count[0] >= maxiter or not np.isfinite(res):
            break
        inner = max(inner * 0.5 * rtol / res, 1e-15)
    if not res <= rtol:  # also a NaN residual (non-finite matrix or preconditioner)
        raise SolverError(
            f"{name} did not converge in {count[0]} iterations: relative residual {res:.3e} "
            f"> rtol {rtol:.1e}"
        )
    return xs, count[0]


def _block_preconditioner(A, basis_u, basis_p, Fu, Fp) -> spla.LinearOperator:
    """diag((A + M)⁻¹, L⁻¹) by one HX V-cycle and one AMG V-cycle (Greif–Schötzau 2007)."""
    from skfem import BilinearForm
    from skfem.helpers import dot, grad

    mass = BilinearForm(lambda u, v, w: dot(u, v)).assemble(basis_u)
    lap = BilinearForm(lambda u, v, w: dot(grad(u), grad(v))).assemble(basis_p)
    AM = sp.csr_matrix((A + mass)[Fu][:, Fu])
    hx = hx_preconditioner(AM, *_aux_operators(basis_u.mesh, Fu))
    L = sp.csr_matrix(lap[Fp][:, Fp])
    # sparse LU on the coarsest level: pyamg's default dense pinv (an SVD of up to ~1500²) costs
    # 0.5 s on an idle machine and 5-20 s under BLAS thread contention
    amg = amg_cycle(L)
    nu = len(Fu)

    def apply(r):
        r = np.ravel(r)
        return np.concatenate([hx @ r[:nu], amg @ r[nu:]])

    n = nu + len(Fp)
    return spla.LinearOperator((n, n), matvec=apply, dtype=float)
