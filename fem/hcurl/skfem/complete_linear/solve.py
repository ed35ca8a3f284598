"""Order 1 of the skfem backend: the complete-linear space (hierarchical over N0), best
approximation and mixed solve.

The same two formulations and forms (:mod:`surrogate.fem.hcurl.forms`) as N0
(:mod:`surrogate.fem.hcurl.skfem.n0`), in the space of
:class:`~surrogate.fem.hcurl.skfem.complete_linear.element.ElementTetCompleteLinear`:

``best_approximation_complete_linear``: (curl u_h, curl v) + (u_h, v) = (curl u, curl v) +
(u, v) for all v.
``solve_maxwell_complete_linear``: the mixed (Kikuchi) form of curl(φ curl u) = f, div u = 0:
find (u_h, p_h) in complete linear × P2 with (φ curl u_h, curl v) + (v, ∇p_h) = (f, v),
(u_h, ∇q) = 0, u_h × n = the complete-linear interpolant
(:func:`complete_linear_interpolant`) of the exact u on ∂Ω, p_h = 0 on ∂Ω. ∇P2 ⊂ the
complete-linear space (exact sequence), so the multiplier is P2 Lagrange.

Matrices use a degree-2 rule (exact: φ is quadratic, curls constant, u·v and u·∇q quadratic),
right-hand sides a degree-4 rule. ``solver``: "direct" (SuperLU), "iterative" (CG with the
preconditioners of :mod:`surrogate.fem.hcurl.skfem.complete_linear.iterative`), "auto" =
iterative from ``ITERATIVE_LIMIT`` complete-linear DOFs on, direct below; "monolithic" (the
mixed solve only) factors the full saddle-point matrix (the reference in the tests). The
registry (:mod:`surrogate.fem.hcurl.registry`) lists them.

The mixed solve ("direct" and "iterative"; :mod:`surrogate.fem.hcurl.saddle_split`) does not
factor the saddle-point matrix (SuperLU's fill makes that 10-50× slower): with G₂ the exact
P2 → complete-linear gradient (:func:`p2_gradient`), M the complete-linear mass matrix and
L = G₂ᵀ M G₂ the P2 Laplacian (Dirichlet), it solves the same equations exactly in three small
steps: (1) L p = G₂ᵀ f (test with v = ∇q; curl ∇q = 0); (2) the Whitney part from the N0
saddle system of A restricted to Whitney DOFs (curl g_e = 0, so A lives there) with the
right-hand side f − M G₂ p (its P1 multiplier is 0 up to rounding); (3) the gradient
correction u = ũ + G₂ ψ, L ψ = −G₂ᵀ M ũ, which enforces (u_h, ∇q) = 0 and leaves curl u_h
alone. "iterative" runs the same three steps with CG + AMG for L and the N0 step by MINRES
with the block Hiptmair–Xu preconditioner
(:func:`~surrogate.fem.hcurl.solvers.solve_maxwell_saddle`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from skfem import Basis, ElementTetP2, MeshTet

from surrogate.fem.hcurl import forms
from surrogate.fem.hcurl.errors import error_intorder
from surrogate.fem.hcurl.registry import check_solver
from surrogate.fem.hcurl.saddle_split import ITERATIVE_LIMIT, saddle_split
from surrogate.fem.hcurl.skfem.complete_linear.element import (
    ElementTetCompleteLinear,
    complete_linear_interpolant,
    edge_dof_indices,
)
from surrogate.fem.hcurl.skfem.solution import SkfemSolution
from surrogate.fem.hcurl.solvers import SolveInfo, lu_solve
from surrogate.fem.mesh_quality import check_mesh

ASSEMBLY_INTORDER = 2  # exact for every matrix here (φ quadratic, fields linear)
RHS_INTORDER = 4  # right-hand sides of non-polynomial data
ORDER = 1  # the toolkit's order of the complete-linear space
ERROR_INTORDER = error_intorder(ORDER)  # 6: far below the O(h²) L² error


@dataclass
class MixedSystem:
    """The assembled mixed system: A (φ curl–curl), B[q, v] = (v, ∇q), f_u = (f, v), bases."""

    A: sp.csr_matrix
    B: sp.csr_matrix | None
    f_u: np.ndarray
    basis_u: Basis
    basis_p: Basis | None
    M: sp.csr_matrix | None = None


def assemble_best(mesh: MeshTet, problem, *, rhs_intorder: int = RHS_INTORDER
                   ) -> tuple[sp.csr_matrix, np.ndarray, Basis]:
    """(A, b, basis) of the H(curl) best approximation: A = curl–curl + mass, b from exact u."""
    basis, rhs_basis = _bases(mesh, rhs_intorder)
    A = sp.csr_matrix(forms.curlcurl_mass.assemble(basis))
    b = forms.exact_rhs.assemble(rhs_basis, uex=forms.at_quadrature_points(problem.u, rhs_basis),
                            cex=forms.at_quadrature_points(problem.curl_u, rhs_basis))
    return A, b, basis


def assemble_mixed(mesh: MeshTet, problem, multiplier=None, *,
                    rhs_intorder: int = RHS_INTORDER) -> MixedSystem:
    """The mixed system with an H¹ multiplier element (default P2; P1 for hierarchy checks);
    ``multiplier=False`` assembles the complete-linear mass matrix M instead of B and no
    multiplier basis (B = G₂ᵀ M for P2, what the split solve uses)."""
    bu, rhs_basis = _bases(mesh, rhs_intorder)
    phi = forms.at_quadrature_points(problem.phi, bu)
    A = sp.csr_matrix(forms.phi_curlcurl.assemble(bu, phi=phi))
    f_u = forms.source.assemble(rhs_basis, f=forms.at_quadrature_points(problem.f, rhs_basis))
    if multiplier is False:
        return MixedSystem(A, None, f_u, bu, None, sp.csr_matrix(forms.mass.assemble(bu)))
    bp = Basis(mesh, ElementTetP2() if multiplier is None else multiplier,
               intorder=ASSEMBLY_INTORDER)
    return MixedSystem(A, sp.csr_matrix(forms.coupling.assemble(bu, bp)), f_u, bu, bp)


def best_approximation_complete_linear(mesh: MeshTet, problem, *, solver: str = "auto",
                        rtol: float = 1e-10) -> SkfemSolution:
    """H(curl) best approximation of ``problem.u`` in the complete-linear space (module docstring).

    InputError for a problem without exact solution, a bad mesh or solver name; SolverError
    when the factorisation is singular or inaccurate.
    """
    _check(problem, solver)
    check_mesh(mesh)
    t0 = time.perf_counter()
    A, b, basis = assemble_best(mesh, problem)
    t1 = time.perf_counter()
    if _iterative(solver, basis.N):
        from surrogate.fem.hcurl.skfem.complete_linear.iterative import spd_iterative

        dofs, info = spd_iterative(A, b, mesh, rtol=rtol)
    else:
        dofs, info = spd_direct(A, b)
    t2 = time.perf_counter()
    return SkfemSolution(mesh, basis, dofs, "best", {"assembly": t1 - t0, "solve": t2 - t1},
                         info, ORDER)


def solve_maxwell_complete_linear(mesh: MeshTet, problem, *, solver: str = "auto",
                   rtol: float = 1e-10) -> SkfemSolution:
    """Mixed complete-linear × P2 solve of curl(φ curl u) = f, div u = 0, u × n from the exact u.

    ``timings["assembly"]`` includes the bases (skfem evaluates them when built) and the
    boundary data; errors as :func:`best_approximation_complete_linear`, and SolverError on a
    domain with voids (:func:`~surrogate.fem.hcurl.forms.require_one_boundary`).
    """
    _check(problem, solver)
    check_mesh(mesh)
    forms.require_one_boundary(mesh)
    t0 = time.perf_counter()
    monolithic = solver == "monolithic"
    system = assemble_mixed(mesh, problem, None if monolithic else False)
    bound = mesh.boundary_edges()
    fixed_u = edge_dof_indices(bound)
    x0_u = np.zeros(system.basis_u.N)
    x0_u[fixed_u] = complete_linear_interpolant(mesh, problem.u, bound)
    t1 = time.perf_counter()
    if monolithic:
        free_u = system.basis_u.complement_dofs(fixed_u)
        free_p = system.basis_p.complement_dofs(system.basis_p.get_dofs().all())
        u, _, info = saddle_direct(system.A, system.B, system.f_u, x0_u, free_u, free_p)
    else:
        u, _, info = saddle_split(mesh, system.A, system.M, system.f_u, x0_u, rtol=rtol,
                                  iterative=_iterative(solver, system.basis_u.N))
    t2 = time.perf_counter()
    return SkfemSolution(mesh, system.basis_u, u, "solve",
                         {"assembly": t1 - t0, "solve": t2 - t1}, info, ORDER)


def spd_direct(A: sp.spmatrix, b: np.ndarray) -> tuple[np.ndarray, SolveInfo]:
    """Solve the (SPD) system A x = b by sparse LU; SolveInfo("direct", 1, residual, ...)."""
    start = time.perf_counter()
    x, res = lu_solve(A, b, "complete-linear H(curl) system")
    return x, SolveInfo("direct", 1, res, time.perf_counter() - start, len(b))


def saddle_direct(A: sp.spmatrix, B: sp.spmatrix, f_u: np.ndarray, x0_u: np.ndarray,
                  free_u: np.ndarray, free_p: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, SolveInfo]:
    """Solve [[A, Bᵀ], [B, 0]] [u; p] = [f_u; 0] for the free DOFs, u fixed to ``x0_u``
    elsewhere and p to 0; returns (u, p, SolveInfo)."""
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    npp = B.shape[0]
    free_u, free_p = np.asarray(free_u, np.int64), np.asarray(free_p, np.int64)
    x0_u = np.asarray(x0_u, dtype=float)
    Bf = B[free_p]
    rhs = np.concatenate([f_u[free_u] - A[free_u] @ x0_u + A[free_u][:, free_u] @ x0_u[free_u],
                          -(Bf @ x0_u) + Bf[:, free_u] @ x0_u[free_u]])
    K = sp.bmat([[A[free_u][:, free_u], Bf[:, free_u].T], [Bf[:, free_u], None]], format="csr")
    start = time.perf_counter()
    x, res = lu_solve(K, rhs, "complete-linear saddle-point system")
    seconds = time.perf_counter() - start
    u, p = x0_u.copy(), np.zeros(npp)
    u[free_u], p[free_p] = x[:len(free_u)], x[len(free_u):]
    return u, p, SolveInfo("direct", 1, res, seconds, len(rhs))


def _bases(mesh: MeshTet, rhs_intorder: int) -> tuple[Basis, Basis]:
    """The complete-linear basis for the matrices and one with a finer rule for right-hand sides."""
    basis = Basis(mesh, ElementTetCompleteLinear(), intorder=ASSEMBLY_INTORDER)
    if rhs_intorder == ASSEMBLY_INTORDER:
        return basis, basis
    rhs_basis = Basis(mesh, ElementTetCompleteLinear(), intorder=rhs_intorder, dofs=basis.dofs,
                      disable_doflocs=True)
    return basis, rhs_basis


def _iterative(solver: str, ndofs: int) -> bool:
    """Whether ``solver`` means an iterative solve for a system of ``ndofs`` order-1 DOFs."""
    return solver == "iterative" or (solver == "auto" and ndofs >= ITERATIVE_LIMIT)


def _check(problem, solver: str) -> None:
    check_solver(solver, "skfem", ORDER)
    forms.require_exact(problem)
