"""Order 0 of the skfem backend: lowest-order Nédélec (N0), best approximation and mixed solve.

``best_approximation``: the H(curl) projection of the exact field, the paper's FEM baseline:
(curl u_h, curl v) + (u_h, v) = (curl u, curl v) + (u, v) for all v in N0.
``solve_maxwell``: the mixed (Kikuchi) form of curl(φ curl u) = f, div u = 0 (eq. 7.1 with
ε = I, ρ = 0): find (u_h, p_h) in N0 × P1 with
(φ curl u_h, curl v) + (v, ∇p_h) = (f, v),  (u_h, ∇q) = 0,
u_h × n = the N0 interpolant of the exact u on ∂Ω and p_h = 0 on ∂Ω.
The forms are :mod:`surrogate.fem.hcurl.forms` (shared with order 1), the errors
:mod:`surrogate.fem.hcurl.errors`. skfem's N0 DOFs are ∫_e u·t ds along mesh.edges oriented
low → high node index.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from skfem import Basis, ElementTetN0, ElementTetP1, MeshTet

from surrogate.fem.hcurl import forms
from surrogate.fem.hcurl.errors import error_intorder
from surrogate.fem.hcurl.errors import hcurl_errors as _hcurl_errors
from surrogate.fem.hcurl.skfem.solution import SkfemSolution
from surrogate.fem.hcurl.solvers import solve_hcurl_spd, solve_maxwell_saddle
from surrogate.fem.mesh_quality import check_mesh
from surrogate.fem.tet_geometry import edge_gauss_points

ORDER = 0
ASSEMBLY_INTORDER = 2  # exact for the N0 mass and φ curl–curl matrices (φ quadratic)
ERROR_INTORDER = error_intorder(ORDER)  # 4: its error is O(h^5), far below O(h)

NedelecSolution = SkfemSolution
"""An N0 field (``order`` 0); the name of earlier releases."""


def edge_interpolant(mesh: MeshTet, fn, edges: np.ndarray | None = None) -> np.ndarray:
    """N0 DOFs of a field: ∫_e u·t ds = ∫₀¹ u(a + s(b − a))·(b − a) ds (5-point Gauss).

    ``fn`` maps points (N, 3) to (N, 3); ``edges`` selects edge indices (default: all).
    Returns (len(edges),) in the orientation of mesh.edges (low → high node index).
    """
    s, w, t, pts = edge_gauss_points(mesh, edges)
    vals = np.asarray(fn(pts)).reshape(len(s), len(t), 3)
    return np.einsum("g,gec,ec->e", w, vals, t)


def best_approximation(mesh: MeshTet, problem, *, solver: str = "auto", rtol: float = 1e-10
                       ) -> SkfemSolution:
    """H(curl) best approximation of ``problem.u`` in N0 (the paper's FEM baseline); errors
    as :func:`solve_maxwell`."""
    t0 = _checked_start(mesh, problem)
    basis = Basis(mesh, ElementTetN0(), intorder=ASSEMBLY_INTORDER)
    t1 = time.perf_counter()
    A = forms.curlcurl_mass.assemble(basis)
    b = forms.exact_rhs.assemble(basis, uex=forms.at_quadrature_points(problem.u, basis),
                                cex=forms.at_quadrature_points(problem.curl_u, basis))
    t2 = time.perf_counter()
    dofs, info = solve_hcurl_spd(A, b, basis, solver=solver, rtol=rtol)
    t3 = time.perf_counter()
    return SkfemSolution(mesh, basis, dofs, "best",
                         {"basis": t1 - t0, "assembly": t2 - t1, "solve": t3 - t2}, info, ORDER)


def solve_maxwell(mesh: MeshTet, problem, *, solver: str = "auto", rtol: float = 1e-10
                  ) -> SkfemSolution:
    """Mixed N0 × P1 solve of curl(φ curl u) = f, div u = 0, u × n from the exact u.

    InputError for a problem without exact u or a degenerate or inverted mesh
    (:func:`check_mesh`), SolverError when the linear solve fails (singular factorisation, no
    convergence) or the domain has voids (:func:`forms.require_one_boundary`).
    """
    t0 = _checked_start(mesh, problem)
    forms.require_one_boundary(mesh)
    bu = Basis(mesh, ElementTetN0(), intorder=ASSEMBLY_INTORDER)
    bp = Basis(mesh, ElementTetP1(), intorder=ASSEMBLY_INTORDER)
    t1 = time.perf_counter()
    A = forms.phi_curlcurl.assemble(bu, phi=forms.at_quadrature_points(problem.phi, bu))
    B = sp.csr_matrix(forms.coupling.assemble(bu, bp))
    f_u = forms.source.assemble(bu, f=forms.at_quadrature_points(problem.f, bu))
    fixed_u, fixed_p = bu.get_dofs().all(), bp.get_dofs().all()
    x0_u = np.zeros(bu.N)
    x0_u[fixed_u] = edge_interpolant(mesh, problem.u, fixed_u)
    t2 = time.perf_counter()
    dofs, _, info = solve_maxwell_saddle(
        A, B, f_u, np.zeros(bp.N), bu, bp, x0_u=x0_u,
        free_u=bu.complement_dofs(fixed_u), free_p=bp.complement_dofs(fixed_p),
        solver=solver, rtol=rtol)
    t3 = time.perf_counter()
    return SkfemSolution(mesh, bu, dofs, "solve",
                         {"basis": t1 - t0, "assembly": t2 - t1, "solve": t3 - t2}, info, ORDER)


def _checked_start(mesh: MeshTet, problem) -> float:
    """``time.perf_counter()`` after the checks of both formulations (exact u, a valid mesh)."""
    forms.require_exact(problem)
    check_mesh(mesh)
    return time.perf_counter()


def l2_error(solution, exact, *, intorder: int = ERROR_INTORDER) -> float:
    """‖u − u_h‖_{L²(Ω_h)} by a degree-``intorder`` rule; ``exact`` maps (N, 3) -> (N, 3)."""
    return _hcurl_errors(solution, exact, None, intorder=intorder)[0]


def curl_l2_error(solution, exact_curl, *, intorder: int = ERROR_INTORDER) -> float:
    """‖curl u − curl u_h‖_{L²(Ω_h)}; ``exact_curl`` maps (N, 3) -> (N, 3)."""
    return _hcurl_errors(solution, None, exact_curl, intorder=intorder)[1]


def hcurl_errors(solution, exact, exact_curl, *, intorder: int = ERROR_INTORDER
                 ) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h) (:func:`surrogate.fem.hcurl.errors.hcurl_errors`
    at N0's default rule)."""
    return _hcurl_errors(solution, exact, exact_curl, intorder=intorder)


__all__ = ["ORDER", "NedelecSolution", "edge_interpolant", "best_approximation",
           "solve_maxwell", "l2_error", "curl_l2_error", "hcurl_errors"]
