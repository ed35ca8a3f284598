"""N0 best approximation and mixed solve: DOF convention, exactness on N0 fields, quadrature
errors (self / constant offset), point evaluation against quadrature, results bookkeeping."""

import numpy as np
import pytest
from skfem import Basis, ElementTetN0, MeshTet

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.hcurl.skfem.n0 import (
    NedelecSolution,
    best_approximation,
    curl_l2_error,
    edge_interpolant,
    hcurl_errors,
    l2_error,
    solve_maxwell,
)
from surrogate.fem.problems import get_problem
from surrogate.fem.quadrature import l2_norm, quadrature_rule

B = np.array([0.4, -1.1, 0.7])  # u = a + b × x lies in N0, curl u = 2b
A = np.array([0.3, -0.2, 0.5])


def _cube(n: int) -> MeshTet:
    return MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)


class LinearField:
    """u = a + b × x (in N0, div u = 0), φ = (x₁² + x₂² + 1)/2, f = curl(φ curl u) = ∇φ × 2b."""

    name, has_exact = "linear", True

    def u(self, x):
        return A + np.cross(B, x)

    def curl_u(self, x):
        return np.broadcast_to(2 * B, x.shape).copy()

    def phi(self, x):
        return 0.5 * (x[:, 0] ** 2 + x[:, 1] ** 2 + 1)

    def f(self, x):
        grad_phi = np.column_stack([x[:, 0], x[:, 1], 0 * x[:, 2]])
        return np.cross(grad_phi, 2 * B)


def test_edge_interpolant_matches_skfem_dof_convention():
    """DOFs = ∫_e u·t ds (low → high node): skfem's interpolant of a + b × x is the field."""
    mesh = _cube(3)
    basis = Basis(mesh, ElementTetN0(), intorder=4)
    dofs = edge_interpolant(mesh, LinearField().u)
    x = np.asarray(basis.global_coordinates()).reshape(3, -1).T
    field = basis.interpolate(dofs)
    np.testing.assert_allclose(np.asarray(field).reshape(3, -1).T, LinearField().u(x), atol=1e-13)
    np.testing.assert_allclose(field.curl.reshape(3, -1).T, LinearField().curl_u(x), atol=1e-12)


def test_edge_interpolant_of_a_gradient_is_the_potential_difference():
    """∫_e ∇g·t ds = g(b) − g(a) for a cubic g (5-point Gauss is exact to degree 9)."""
    mesh = get_domain("cylinder").mesh(1)

    def g(x):
        return x[:, 0] ** 3 - 2 * x[:, 0] * x[:, 1] * x[:, 2] + x[:, 2] ** 2

    def grad_g(x):
        return np.column_stack([3 * x[:, 0] ** 2 - 2 * x[:, 1] * x[:, 2],
                                -2 * x[:, 0] * x[:, 2], -2 * x[:, 0] * x[:, 1] + 2 * x[:, 2]])

    a, b = mesh.p[:, mesh.edges[0]].T, mesh.p[:, mesh.edges[1]].T
    np.testing.assert_allclose(edge_interpolant(mesh, grad_g), g(b) - g(a), atol=1e-13)
    sub = np.array([5, 0, 17])
    np.testing.assert_allclose(edge_interpolant(mesh, grad_g, sub), (g(b) - g(a))[sub],
                               atol=1e-13)


def test_quadrature_rule_matches_skfem_and_sums_to_the_volume():
    mesh = get_domain("cylinder").mesh(2)
    points, weights = quadrature_rule(mesh, 4)
    basis = Basis(mesh, ElementTetN0(), intorder=4)
    np.testing.assert_array_equal(points, np.asarray(basis.global_coordinates()).reshape(3, -1).T)
    np.testing.assert_allclose(weights, basis.dx.ravel(), rtol=1e-15)
    volume = np.abs(np.linalg.det(np.stack([mesh.p[:, mesh.t[k]] - mesh.p[:, mesh.t[0]]
                                            for k in (1, 2, 3)], axis=1).T)).sum() / 6
    assert abs(weights.sum() - volume) < 1e-12 * volume
    assert 0.9 * np.pi < volume < np.pi  # inscribed polygonal cylinder
    with pytest.raises(InputError):
        l2_norm(np.ones(3), weights)


@pytest.mark.parametrize("method", [best_approximation, solve_maxwell])
@pytest.mark.parametrize("solver", ["direct", "iterative"])
def test_galerkin_reproduces_n0_fields(method, solver):
    """a + b × x lies in N0 and is divergence free: both methods return its interpolant."""
    mesh = _cube(4)
    sol = method(mesh, LinearField(), solver=solver)
    expected = edge_interpolant(mesh, LinearField().u)
    np.testing.assert_allclose(sol.dofs, expected, rtol=0, atol=1e-8)
    assert sol.solve_info.method == ("direct" if solver == "direct" else
                                     "cg-hx" if method is best_approximation else "minres-block")


def test_error_of_a_field_against_itself_and_a_constant_offset():
    """‖u − u_h‖ = 0 when u_h = u; = |c|·sqrt(volume) against u + c (same for the curl)."""
    mesh = get_domain("cylinder").mesh(2)
    field = LinearField()
    basis = Basis(mesh, ElementTetN0())
    sol = NedelecSolution(mesh, basis, edge_interpolant(mesh, field.u), "best")
    volume = quadrature_rule(mesh)[1].sum()
    c = np.array([0.3, -1.2, 0.4])
    assert l2_error(sol, field.u) < 1e-13
    assert curl_l2_error(sol, field.curl_u) < 1e-12
    offset = np.linalg.norm(c) * np.sqrt(volume)
    assert abs(l2_error(sol, lambda x: field.u(x) + c) - offset) < 1e-12 * offset
    assert abs(curl_l2_error(sol, lambda x: field.curl_u(x) - c) - offset) < 1e-12 * offset
    points, weights = quadrature_rule(mesh)
    assert abs(l2_norm(sol.values_at_quadrature() - field.u(points) - c, weights) - offset
               ) < 1e-12 * offset


def test_point_evaluation_agrees_with_quadrature_error():
    """evaluate_n0 at the quadrature points = values_at_quadrature; Monte Carlo ≈ quadrature."""
    problem, domain = get_problem("maxwell"), get_domain("cube")
    sol = best_approximation(domain.mesh(3), problem)
    points, weights = quadrature_rule(sol.mesh, 4)
    at_qp = sol.values_at_quadrature(4)
    np.testing.assert_allclose(sol.values_at(points), at_qp, rtol=0, atol=1e-13)
    e_quad = l2_error(sol, problem.u)
    assert abs(l2_norm(problem.u(points) - at_qp, weights) - e_quad) < 1e-14
    x = domain.sample(200_000, np.random.default_rng(3))
    diff = problem.u(x) - sol.values_at(x)
    e_mc = np.sqrt(domain.volume * np.mean(np.einsum("ij,ij->i", diff, diff)))
    assert abs(e_mc - e_quad) < 0.01 * e_quad, (e_mc, e_quad)


def test_solve_uses_the_exact_tangential_trace_and_reports_timings():
    problem = get_problem("maxwell")
    mesh = get_domain("cylinder").mesh(1)
    sol = solve_maxwell(mesh, problem)
    boundary = sol.basis.get_dofs().all()
    np.testing.assert_allclose(sol.dofs[boundary], edge_interpolant(mesh, problem.u, boundary),
                               rtol=0, atol=1e-15)
    assert sol.method == "solve" and sol.ndofs == mesh.edges.shape[1]
    assert set(sol.timings) == {"basis", "assembly", "solve"}
    assert all(t >= 0 for t in sol.timings.values())
    info = sol.solve_info
    assert info.method == "direct" and info.residual < 1e-12
    assert info.ndofs == sol.ndofs - len(boundary) + len(sol.mesh.interior_nodes())
    e_l2, e_curl = hcurl_errors(sol, problem.u, problem.curl_u)
    assert e_l2 == l2_error(sol, problem.u) and e_curl == curl_l2_error(sol, problem.curl_u)
    assert 0 < e_l2 < 0.05 and 0 < e_curl < 0.2


def test_bad_solver_and_problem_without_exact_solution():
    mesh = _cube(1)
    with pytest.raises(InputError, match="auto, direct, iterative"):
        best_approximation(mesh, get_problem("maxwell"), solver="cholesky")

    class NoExact(LinearField):
        has_exact = False

    with pytest.raises(InputError, match="exact"):
        solve_maxwell(mesh, NoExact())
