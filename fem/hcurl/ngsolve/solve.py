"""The ``ngsolve`` backend: the mixed Maxwell solve in NGSolve's H(curl) × H¹ of orders 0–4.

Find (u_h, λ_h) in HCurl_k × H1_{k+1} with u_h × n = g × n and λ_h = 0 on ∂Ω and
(φ curl u_h, curl v) + (∇λ_h, v) = (f, v),  (u_h, ∇q) = 0      (eq. 7.1, mixed Kikuchi form),
the same problem as the skfem backend, on the toolkit's own tetrahedra
(:func:`~surrogate.fem.hcurl.ngsolve.mesh.ngsolve_mesh`), with static condensation of the
element-interior DOFs (``condense=True``). NGSolve's ``order`` k is the toolkit's (0 = N0; k ≥ 1
Nédélec's second kind of degree k); ∇H1_{k+1} ⊂ HCurl_k, so the multiplier space matches.
φ and f are sampled at the points of the forms' own integration rule (degree 2k + 2), g enters
as an L² projection of degree k + 2 on the boundary triangles
(:mod:`~surrogate.fem.hcurl.ngsolve.data`), imposed by NGSolve's boundary projection
``Set(g, BND)``; polynomial data of low degree are integrated exactly. On a domain with voids
the multiplier also holds one constant per void (λ, q = const on a void's surface:
:mod:`~surrogate.fem.hcurl.ngsolve.mesh_setup`), whose equation (u_h, ∇ψ_i) = (u, ∇ψ_i) fixes
the flux of u_h through the void's surface to the exact field's; without it the system is
singular and u_h is off by an arbitrary gradient.

Timed span, per problem: mesh → u_h. The mesh-only part (conversion, spaces, rule points,
boundary mass; :mod:`~surrogate.fem.hcurl.ngsolve.mesh_setup`) is built once per mesh object and
order and reused by later problems, but its build time is charged to every problem
(``timings["mesh"]``); "assembly" (data evaluation, forms, boundary values) and "solve"
(factorisation or preconditioner, Krylov iterations, condensed back-substitution) are each
problem's own.

Solvers on the condensed system: "direct" factors the quasi-definite neighbour
[[A + εM, Bᵀ], [B, −εL]] (ε = 1e-6: LDLᵀ by NGSolve's sparse Cholesky needs no pivoting then;
the plain saddle point has zero pivots on the gradient DOFs) and runs GMRES on the exact
system with that factorisation as preconditioner (3 iterations to 1e-12 on the cube), so the
answer is the exact mixed solution; "iterative" runs MINRES preconditioned by BDDC of the
block-diagonal SPD form (φ curl u, curl v) + (u, v) + (∇λ, ∇q); "auto" = direct below
``DIRECT_LIMIT`` condensed free DOFs. ``threads`` sets ``ngsolve.SetNumThreads`` (assembly
and solve run in a TaskManager when > 1); it is recorded in ``solve_info``.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import SolverError
from surrogate.fem.hcurl.forms import require_exact
from surrogate.fem.hcurl.ngsolve.mesh import BOUNDARY as WALL
from surrogate.fem.hcurl.registry import check_order, check_solver
from surrogate.fem.hcurl.solvers import SolveInfo
from surrogate.fem.mesh_quality import check_mesh

DIRECT_LIMIT = 20_000  # condensed free DOFs from which "auto" solves iteratively
REGULARISATION = 1e-6  # ε of the factorised quasi-definite neighbour of the saddle point
_POINT_CHUNK = 200_000


@dataclass
class NgsolveSolution:
    """u_h of the ngsolve backend on the skfem ``mesh`` it was solved on; ``ndofs`` counts
    the H(curl) DOFs (before condensation), as for skfem. ``timings``:
    "mesh" (the mesh-only setup, charged to every problem), "assembly" (data, forms, boundary
    values), "solve"; their sum is mesh → u_h."""

    mesh: Any = field(repr=False)
    ngmesh: Any = field(repr=False)
    field_u: Any = field(repr=False)
    method: str
    order: int
    ndofs: int
    timings: dict[str, float] = field(default_factory=dict)
    solve_info: SolveInfo | None = None
    backend: str = "ngsolve"

    def values_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """u_h at arbitrary points (N, 3) -> (N, 3) (the toolkit's point location)."""
        return self._at_points(points, outside, curl=False)

    def curl_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """curl u_h at arbitrary points (N, 3) -> (N, 3)."""
        return self._at_points(points, outside, curl=True)

    def fields_at_quadrature(self, intorder: int):
        """Yield (u_h, curl u_h), (m, 3) each, at ``quadrature_rule(mesh, intorder)``'s
        points in their order (element-major), by blocks of points."""
        import ngsolve
        from skfem.quadrature import get_quadrature
        from skfem.refdom import RefTet

        X, _ = get_quadrature(RefTet, int(intorder))  # (3, q) reference coordinates
        n_tets, q = self.mesh.t.shape[1], X.shape[1]
        cells = np.repeat(np.arange(n_tets), q)
        bary = np.tile(X.T, (n_tets, 1))
        curl = ngsolve.curl(self.field_u)
        for lo in range(0, len(cells), _POINT_CHUNK):
            mips = _mesh_points(self.ngmesh, cells[lo:lo + _POINT_CHUNK],
                                bary[lo:lo + _POINT_CHUNK])
            yield (np.asarray(self.field_u(mips)).reshape(-1, 3),
                   np.asarray(curl(mips)).reshape(-1, 3))

    def values_at_quadrature(self, intorder: int = 4) -> np.ndarray:
        """u_h (M, 3) at the points of ``quadrature_rule(mesh, intorder)``."""
        return np.concatenate([v for v, _ in self.fields_at_quadrature(intorder)])

    def _at_points(self, points, outside: str, curl: bool) -> np.ndarray:
        import ngsolve

        from surrogate.fem.point_evaluation import locate_with_outside

        x = np.asarray(points, dtype=np.float64)
        cells, bary = locate_with_outside(self.mesh, x, outside)
        out = np.full((len(x), 3), np.nan)
        rows = np.flatnonzero(cells >= 0)
        what = ngsolve.curl(self.field_u) if curl else self.field_u
        for lo in range(0, len(rows), _POINT_CHUNK):
            r = rows[lo:lo + _POINT_CHUNK]
            out[r] = np.asarray(what(_mesh_points(self.ngmesh, cells[r], bary[r]))).reshape(-1, 3)
        return out


def solve_maxwell_ngsolve(mesh, problem, *, order: int, solver: str = "auto",
                          rtol: float = 1e-10, threads: int = 1) -> NgsolveSolution:
    """The mixed solve (module docstring) of ``problem`` on the skfem ``mesh`` in NGSolve's
    spaces of ``order``; InputError for a bad order, solver, mesh or problem, SolverError when
    the solve does not reach ``rtol``."""
    import ngsolve

    from surrogate.fem.hcurl.ngsolve import data as ngsolve_data
    from surrogate.fem.hcurl.ngsolve.mesh_setup import mesh_setup

    order = check_order(order, "ngsolve")
    check_solver(solver, "ngsolve", order)
    require_exact(problem)
    check_mesh(mesh)
    threads = max(int(threads), 1)
    ngsolve.SetNumThreads(threads)
    with ngsolve.TaskManager() if threads > 1 else nullcontext():
        setup = mesh_setup(mesh, int(order))
        t1 = time.perf_counter()
        phi = ngsolve_data.volume_coefficient(setup, problem.phi)
        f = ngsolve_data.volume_coefficient(setup, problem.f)
        boundary = ngsolve_data.boundary_coefficient(setup, problem.u)
        flux = ngsolve_data.volume_coefficient(setup, problem.u) if setup.cavities else None
        u_h, info, _, solve = solve_mixed(setup.space, setup.free, setup.free_mask, phi, f,
                                          setup.rules, boundary, solver=solver, rtol=rtol,
                                          threads=threads, cavities=setup.cavities, flux=flux)
        assembly = time.perf_counter() - t1 - solve  # data, forms and boundary values
    return NgsolveSolution(mesh, setup.ngmesh, u_h, "solve", int(order), setup.hcurl_ndof,
                           {"mesh": setup.seconds, "assembly": assembly, "solve": solve}, info)


def solve_mixed(space, free, free_mask: np.ndarray, phi, f, rules, boundary=None, *,
                solver: str = "auto", rtol: float = 1e-10, threads: int = 1, cavities=(),
                flux=None):
    """The mixed system (module docstring) in ``space`` = HCurl_k × H1_{k+1} (Dirichlet DOFs
    on the wall; ``free``, ``free_mask``: its condensed unknowns) with the coefficients φ and
    f integrated by ``rules`` (the data's rule; the multiplier terms exactly) and u_h = g on
    the wall, g the coefficient ``boundary`` (None: u × n = 0), assembled and solved:
    (u_h, SolveInfo, assembly seconds, solve seconds); SolverError when it misses ``rtol``.
    ``cavities``: ψ_i of the multiplier's constants, one ``NumberSpace`` factor of ``space``
    each after H1 (:class:`~surrogate.fem.hcurl.ngsolve.mesh_setup.MeshSetup`); ``flux``: the
    exact u as a coefficient on ``rules``, giving (u, ∇ψ_i) (None: zero flux).
    The one definition of the form: the backend's solve and the fitted solve
    (:mod:`surrogate.fem.fitted.solve`) call it."""
    import ngsolve

    t1 = time.perf_counter()
    (u, lam, *consts), (v, q, *tests) = space.TnT()
    dx, dq = ngsolve.dx, ngsolve.dx(intrules=rules)  # dq: the data's rule
    mixed = (phi * ngsolve.curl(u) * ngsolve.curl(v) * dq + ngsolve.grad(lam) * v * dx
             + ngsolve.grad(q) * u * dx)
    load = f * v * dq
    gram = []  # c_i d_i |∇ψ_i|²: the constants' part of the SPD and regularised forms
    for c, d, psi in zip(consts, tests, cavities, strict=True):
        mixed += c * ngsolve.grad(psi) * v * dx + d * ngsolve.grad(psi) * u * dx
        gram.append(c * d * ngsolve.grad(psi) * ngsolve.grad(psi))
        if flux is not None:
            load += d * flux * ngsolve.grad(psi) * dq
    a = ngsolve.BilinearForm(mixed, condense=True).Assemble()
    rhs = ngsolve.LinearForm(load).Assemble()
    x = ngsolve.GridFunction(space)
    if boundary is not None:
        x.components[0].Set(boundary, ngsolve.BND, definedon=space.mesh.Boundaries(WALL))
    n_free = int(free_mask.sum())
    iterative = solver == "iterative" or (solver == "auto" and n_free >= DIRECT_LIMIT)
    t2 = time.perf_counter()
    r = rhs.vec.CreateVector()
    r.data = rhs.vec - a.mat * x.vec
    r.data += a.harmonic_extension_trans * r
    if iterative:
        spd = (phi * ngsolve.curl(u) * ngsolve.curl(v) * dq + u * v * dx
               + ngsolve.grad(lam) * ngsolve.grad(q) * dx)
        for term in gram:
            spd += term * dx
        m = ngsolve.BilinearForm(spd, condense=True)
        pre = ngsolve.Preconditioner(m, "bddc")
        m.Assemble()
        krylov = ngsolve.krylovspace.MinResSolver(a.mat, pre.mat, tol=rtol, maxiter=2000)
        name = "minres-bddc"
    else:
        eps = REGULARISATION
        regularised = mixed + eps * u * v * dx - eps * ngsolve.grad(lam) * ngsolve.grad(q) * dx
        for term in gram:
            regularised += -eps * term * dx
        neighbour = ngsolve.BilinearForm(regularised, condense=True).Assemble()
        factors = neighbour.mat.Inverse(free, inverse="sparsecholesky")
        krylov = ngsolve.krylovspace.GMResSolver(a.mat, factors, tol=min(rtol, 1e-12),
                                                 maxiter=100)
        name = "ldlt-gmres"
    dx_free = krylov.Solve(r)
    x.vec.data += dx_free
    x.vec.data += a.harmonic_extension * x.vec
    x.vec.data += a.inner_solve * r
    t3 = time.perf_counter()
    residual = _relative_residual(a, r, dx_free, free_mask)
    if not residual <= max(10 * rtol, 1e-9):
        raise SolverError(f"{name} on the {n_free}-unknown condensed ngsolve system did not "
                          f"converge: relative residual {residual:.3e}")
    info = SolveInfo(name, int(krylov.iterations), residual, t3 - t2, n_free, threads)
    return x.components[0], info, t2 - t1, t3 - t2


def _relative_residual(a, r, x, mask: np.ndarray) -> float:
    """‖r − A x‖ / ‖r‖ on the free DOFs (``mask``) of the condensed system."""
    res = r.CreateVector()
    res.data = r - a.mat * x
    rv, bv = res.FV().NumPy()[mask], r.FV().NumPy()[mask]
    nb = float(np.linalg.norm(bv))
    return float(np.linalg.norm(rv) / nb) if nb > 0 else float(np.linalg.norm(rv))


def _mesh_points(ngmesh, cells, bary):
    from surrogate.fem.hcurl.ngsolve.mesh import mesh_points

    return mesh_points(ngmesh, cells, bary)


__all__ = ["DIRECT_LIMIT", "NgsolveSolution", "solve_maxwell_ngsolve", "solve_mixed"]
