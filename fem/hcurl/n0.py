"""Lowest-order Nédélec (N0) approximations of a Maxwell problem: best approximation and solve.

``best_approximation``: the H(curl) projection of the exact field, the paper's FEM baseline:
(curl u_h, curl v) + (u_h, v) = (curl u, curl v) + (u, v) for all v in N0.
``solve_maxwell``: the mixed (Kikuchi) form of curl(φ curl u) = f, div u = 0 (eq. 7.1 with
ε = I, ρ = 0): find (u_h, p_h) in N0 × P1 with
(φ curl u_h, curl v) + (v, ∇p_h) = (f, v),  (u_h, ∇q) = 0,
u_h × n = the N0 interpolant of the exact u on ∂Ω and p_h = 0 on ∂Ω.
skfem's N0 DOFs are ∫_e u·t ds along mesh.edges oriented low → high node index.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from skfem import Basis, BilinearForm, ElementTetN0, ElementTetP1, LinearForm, MeshTet
from skfem.helpers import curl, dot, grad

from surrogate.core.errors import InputError
from surrogate.fem.hcurl.solvers import SolveInfo, solve_hcurl_spd, solve_maxwell_saddle
from surrogate.fem.mesh_quality import check_mesh
from surrogate.fem.quadrature import quadrature_rule

ASSEMBLY_INTORDER = 2  # exact for the N0 mass and φ curl–curl matrices (φ quadratic)
ERROR_INTORDER = 4  # quadrature of the errors: its error is O(h^5), far below O(h)
_CHUNK = 40_000  # elements per block when evaluating u_h at error quadrature points
_GAUSS_EDGE = np.polynomial.legendre.leggauss(5)


@dataclass
class NedelecSolution:
    """An N0 field u_h = Σ dofs_i φ_i on ``mesh`` and how it was computed.

    ``timings`` has keys "basis", "assembly", "solve" (seconds); ``method`` is "best" or
    "solve"; ``solve_info`` says which linear solver ran, its iterations and residual.
    """

    mesh: MeshTet = field(repr=False)
    basis: Basis = field(repr=False)
    dofs: np.ndarray = field(repr=False)
    method: str
    timings: dict[str, float] = field(default_factory=dict)
    solve_info: SolveInfo | None = None

    def values_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """u_h at arbitrary points (N, 3) -> (N, 3) (point location in the mesh)."""
        from surrogate.fem.point_evaluation import evaluate_n0

        return evaluate_n0(self.basis, self.dofs, points, outside=outside)

    def values_at_quadrature(self, intorder: int = ERROR_INTORDER) -> np.ndarray:
        """u_h at the points of ``quadrature_rule(mesh, intorder)``, shape (M, 3)."""
        return np.concatenate([v for v, _ in _n0_at_quadrature(self, intorder)])

    def curl_at_quadrature(self, intorder: int = ERROR_INTORDER) -> np.ndarray:
        """curl u_h at the points of ``quadrature_rule(mesh, intorder)``, shape (M, 3)."""
        return np.concatenate([c for _, c in _n0_at_quadrature(self, intorder)])

    @property
    def ndofs(self) -> int:
        """Number of N0 degrees of freedom (= edges of the mesh)."""
        return int(self.basis.N)


def edge_interpolant(mesh: MeshTet, fn, edges: np.ndarray | None = None) -> np.ndarray:
    """N0 DOFs of a field: ∫_e u·t ds = ∫₀¹ u(a + s(b − a))·(b − a) ds (5-point Gauss).

    ``fn`` maps points (N, 3) to (N, 3); ``edges`` selects edge indices (default: all).
    Returns (len(edges),) in the orientation of mesh.edges (low → high node index).
    """
    idx = np.arange(mesh.edges.shape[1]) if edges is None else np.asarray(edges, dtype=np.int64)
    a, b = mesh.p[:, mesh.edges[0, idx]].T, mesh.p[:, mesh.edges[1, idx]].T  # (E, 3)
    s, w = _GAUSS_EDGE
    s, w = 0.5 * (s + 1.0), 0.5 * w  # Gauss–Legendre on [0, 1]
    t = b - a
    pts = (a[None] + s[:, None, None] * t[None]).reshape(-1, 3)  # (G·E, 3), node-major
    vals = np.asarray(fn(pts)).reshape(len(s), len(idx), 3)
    return np.einsum("g,gec,ec->e", w, vals, t)


def best_approximation(mesh: MeshTet, problem, *, solver: str = "auto", rtol: float = 1e-10
                       ) -> NedelecSolution:
    """H(curl) best approximation of ``problem.u`` in N0 (the paper's FEM baseline).

    InputError for a degenerate or inverted mesh (:func:`check_mesh`), SolverError when the
    linear solve fails (singular factorisation, no convergence).
    """
    _require_exact(problem)
    check_mesh(mesh)
    t0 = time.perf_counter()
    basis = Basis(mesh, ElementTetN0(), intorder=ASSEMBLY_INTORDER)
    t1 = time.perf_counter()
    A = _curlcurl_mass.assemble(basis)
    b = _exact_rhs.assemble(basis, uex=_at_qp(problem.u, basis), cex=_at_qp(problem.curl_u, basis))
    t2 = time.perf_counter()
    dofs, info = solve_hcurl_spd(A, b, basis, solver=solver, rtol=rtol)
    t3 = time.perf_counter()
    return NedelecSolution(mesh, basis, dofs, "best",
                           {"basis": t1 - t0, "assembly": t2 - t1, "solve": t3 - t2}, info)


def solve_maxwell(mesh: MeshTet, problem, *, solver: str = "auto", rtol: float = 1e-10
                  ) -> NedelecSolution:
    """Mixed N0 × P1 solve of curl(φ curl u) = f, div u = 0, u × n from the exact u.

    InputError for a degenerate or inverted mesh (:func:`check_mesh`), SolverError when the
    linear solve fails (singular factorisation, no convergence).
    """
    _require_exact(problem)
    check_mesh(mesh)
    t0 = time.perf_counter()
    bu = Basis(mesh, ElementTetN0(), intorder=ASSEMBLY_INTORDER)
    bp = Basis(mesh, ElementTetP1(), intorder=ASSEMBLY_INTORDER)
    t1 = time.perf_counter()
    A = _phi_curlcurl.assemble(bu, phi=_at_qp(problem.phi, bu))
    B = sp.csr_matrix(_coupling.assemble(bu, bp))
    f_u = _source.assemble(bu, f=_at_qp(problem.f, bu))
    fixed_u, fixed_p = bu.get_dofs().all(), bp.get_dofs().all()
    x0_u = np.zeros(bu.N)
    x0_u[fixed_u] = edge_interpolant(mesh, problem.u, fixed_u)
    t2 = time.perf_counter()
    dofs, _, info = solve_maxwell_saddle(
        A, B, f_u, np.zeros(bp.N), bu, bp, x0_u=x0_u,
        free_u=bu.complement_dofs(fixed_u), free_p=bp.complement_dofs(fixed_p),
        solver=solver, rtol=rtol)
    t3 = time.perf_counter()
    return NedelecSolution(mesh, bu, dofs, "solve",
                           {"basis": t1 - t0, "assembly": t2 - t1, "solve": t3 - t2}, info)


def l2_error(solution: NedelecSolution, exact, *, intorder: int = ERROR_INTORDER) -> float:
    """‖u − u_h‖_{L²(Ω_h)} by a degree-``intorder`` rule; ``exact`` maps (N, 3) -> (N, 3)."""
    return hcurl_errors(solution, exact, None, intorder=intorder)[0]


def curl_l2_error(solution: NedelecSolution, exact_curl, *, intorder: int = ERROR_INTORDER
                  ) -> float:
    """‖curl u − curl u_h‖_{L²(Ω_h)}; ``exact_curl`` maps (N, 3) -> (N, 3)."""
    return hcurl_errors(solution, None, exact_curl, intorder=intorder)[1]


def hcurl_errors(solution: NedelecSolution, exact, exact_curl, *,
                 intorder: int = ERROR_INTORDER) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h) in one pass; a None callable gives NaN."""
    points, weights = quadrature_rule(solution.mesh, intorder)
    sums, start = np.zeros(2), 0
    for value, curl_value in _n0_at_quadrature(solution, intorder):
        stop = start + len(value)
        x, w = points[start:stop], weights[start:stop]
        for k, (fn, approx) in enumerate(((exact, value), (exact_curl, curl_value))):
            if fn is not None:
                diff = np.asarray(fn(x)) - approx
                sums[k] += float(np.dot(w, np.einsum("ij,ij->i", diff, diff)))
        start = stop
    return (float(np.sqrt(sums[0])) if exact is not None else float("nan"),
            float(np.sqrt(sums[1])) if exact_curl is not None else float("nan"))


def _n0_at_quadrature(solution: NedelecSolution, intorder: int):
    """Yield (u_h, curl u_h) at the quadrature points, (m, 3) each, blocks of elements.

    The blocks reuse the solution's DOF numbering, skip skfem's global DOF locations and
    combine the basis functions here (``Basis.interpolate`` runs np.unique over all DOFs),
    so each block costs O(block size), not O(mesh size).
    """
    mesh = solution.mesh
    n_tets = mesh.t.shape[1]
    for lo in range(0, n_tets, _CHUNK):
        elements = np.arange(lo, min(lo + _CHUNK, n_tets))
        basis = Basis(mesh, ElementTetN0(), intorder=intorder, elements=elements,
                      dofs=solution.basis.dofs, disable_doflocs=True)
        value = np.zeros((3, len(elements), len(basis.W)))
        curl_value = np.zeros_like(value)
        for i in range(basis.Nbfun):  # u_h = Σ_i dofs[element_dofs[i]] φ_i (6 local edges)
            phi = basis.basis[i][0]
            coeff = solution.dofs[basis.element_dofs[i]][None, :, None]
            value += coeff * np.asarray(phi)
            curl_value += coeff * phi.curl
        yield value.reshape(3, -1).T, curl_value.reshape(3, -1).T


def _at_qp(fn, basis: Basis) -> np.ndarray:
    """Evaluate a point function on the basis' quadrature points: (3, nel, nqp) or (nel, nqp)."""
    x = np.asarray(basis.global_coordinates())  # (3, nel, nqp)
    values = np.asarray(fn(x.reshape(3, -1).T))
    if values.ndim == 1:
        return values.reshape(x.shape[1:])
    return np.ascontiguousarray(values.T).reshape(x.shape)


def _require_exact(problem) -> None:
    if not getattr(problem, "has_exact", False):
        raise InputError(f"problem {getattr(problem, 'name', problem)!r} has no exact solution "
                         "for the boundary data / best approximation")


@BilinearForm
def _curlcurl_mass(u, v, w):
    return dot(curl(u), curl(v)) + dot(u, v)


@BilinearForm
def _phi_curlcurl(u, v, w):
    return w.phi * dot(curl(u), curl(v))


@BilinearForm
def _coupling(u, q, w):
    return dot(u, grad(q))


@LinearForm
def _exact_rhs(v, w):
    return dot(w.cex, curl(v)) + dot(w.uex, v)


@LinearForm
def _source(v, w):
    return dot(w.f, v)
