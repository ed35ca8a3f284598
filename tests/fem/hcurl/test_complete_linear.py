"""Order 1 (complete-linear, hierarchical) Nédélec element: exactness on P1 fields, orientation,
hierarchy over N0 (1e-12), convergence rates on eq. 7.2 (L² ≈ 2, curl ≈ 1), split = monolithic
mixed solve, point evaluation, bad input."""

import numpy as np
import pytest
from skfem import Basis, BilinearForm, ElementTetN0, ElementTetP1, ElementTetP2, MeshTet
from skfem.helpers import curl, dot, grad

from surrogate.core.errors import InputError
from surrogate.fem.convergence import observed_rate
from surrogate.fem.domains import get_domain
from surrogate.fem.hcurl.errors import field_l2_norm
from surrogate.fem.hcurl.errors import hcurl_errors as hcurl_errors2
from surrogate.fem.hcurl.skfem.complete_linear.element import (
    ElementTetCompleteLinear,
    bubble_dofs,
    complete_linear_interpolant,
    edge_dof_indices,
    p2_gradient,
    whitney_dofs,
)
from surrogate.fem.hcurl.skfem.complete_linear.evaluate import (
    evaluate_complete_linear,
    evaluate_complete_linear_curl,
)
from surrogate.fem.hcurl.skfem.complete_linear.solve import (
    assemble_best,
    assemble_mixed,
    best_approximation_complete_linear,
    saddle_direct,
    solve_maxwell_complete_linear,
    spd_direct,
)
from surrogate.fem.hcurl.skfem.n0 import best_approximation, edge_interpolant, solve_maxwell
from surrogate.fem.hcurl.skfem.solution import fields_at_quadrature
from surrogate.fem.problems import get_problem
from surrogate.fem.quadrature import quadrature_rule

RNG = np.random.default_rng(7)
M1 = RNG.standard_normal((3, 3))  # u = M1 x + C1: a general degree-1 field
C1 = RNG.standard_normal(3)


def _affine(x):
    return x @ M1.T + C1


def _affine_curl():
    return np.array([M1[2, 1] - M1[1, 2], M1[0, 2] - M1[2, 0], M1[1, 0] - M1[0, 1]])


def _scrambled_mesh(n: int = 3) -> MeshTet:
    """Perturbed cube mesh whose tets list their vertices in random order (all edge signs)."""
    m = MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)
    interior = np.all((m.p > 1e-9) & (m.p < 1 - 1e-9), axis=0)
    p = m.p + 0.08 / n * RNG.standard_normal(m.p.shape) * interior
    t = np.take_along_axis(m.t, np.argsort(RNG.random(m.t.shape), axis=0), axis=0)
    return MeshTet(p, t)


def _at(basis):
    return np.asarray(basis.global_coordinates()).reshape(3, -1).T


def test_interpolant_reproduces_degree_one_fields_exactly():
    mesh = _scrambled_mesh()
    basis = Basis(mesh, ElementTetCompleteLinear(), intorder=3)
    dofs = complete_linear_interpolant(mesh, _affine)
    field = basis.interpolate(dofs)
    x = _at(basis)
    np.testing.assert_allclose(np.asarray(field).reshape(3, -1).T, _affine(x), atol=1e-12)
    curl_h = field.curl.reshape(3, -1).T
    np.testing.assert_allclose(curl_h, np.broadcast_to(_affine_curl(), curl_h.shape), atol=1e-12)
    # lowest-order part = N0's DOFs; a subset of edges gives the matching slice
    np.testing.assert_allclose(dofs[whitney_dofs(mesh.edges.shape[1])],
                               edge_interpolant(mesh, _affine), atol=1e-14)
    some = np.array([3, 0, 7])
    np.testing.assert_allclose(complete_linear_interpolant(mesh, _affine, some),
                               dofs[edge_dof_indices(some)], atol=1e-14)


def test_p2_gradient_is_the_interpolant_of_the_gradient():
    mesh = _scrambled_mesh(2)
    Q = RNG.standard_normal((3, 3))
    Q, g = Q + Q.T, RNG.standard_normal(3)
    values = Basis(mesh, ElementTetP2()).doflocs.T  # P2 DOF locations
    q = 0.5 * np.einsum("ni,ij,nj->n", values, Q, values) + values @ g
    np.testing.assert_allclose(p2_gradient(mesh) @ q,
                               complete_linear_interpolant(mesh, lambda x: x @ Q + g), atol=1e-12)


def test_bubble_dofs_are_curl_free_and_orientation_free():
    mesh = _scrambled_mesh(2)
    basis = Basis(mesh, ElementTetCompleteLinear(), intorder=2)
    dofs = np.zeros(basis.N)
    dofs[bubble_dofs(mesh.edges.shape[1])] = RNG.standard_normal(mesh.edges.shape[1])
    assert np.abs(basis.interpolate(dofs).curl).max() == 0.0


def _n0_forms():
    mass_cc = BilinearForm(lambda u, v, w: dot(curl(u), curl(v)) + dot(u, v))
    phi_cc = BilinearForm(lambda u, v, w: w.phi * dot(curl(u), curl(v)))
    coupling = BilinearForm(lambda u, q, w: dot(u, grad(q)))
    return mass_cc, phi_cc, coupling


def test_hierarchy_reproduces_n0_matrices_and_solutions():
    """Whitney block of the complete-linear systems = N0's (same rules); its solves = n0.py's."""
    mesh, problem = get_domain("cube").mesh(2), get_problem("maxwell")
    W = whitney_dofs(mesh.edges.shape[1])
    mass_cc, phi_cc, coupling = _n0_forms()
    b0 = Basis(mesh, ElementTetN0(), intorder=2)
    p1 = Basis(mesh, ElementTetP1(), intorder=2)
    A2, rhs2, _ = assemble_best(mesh, problem, rhs_intorder=2)
    A0 = mass_cc.assemble(b0)
    assert abs(A2[W][:, W] - A0).max() <= 1e-12 * abs(A0).max()
    ref = best_approximation(mesh, problem, solver="direct").dofs
    dofs, _ = spd_direct(A2[W][:, W], rhs2[W])
    np.testing.assert_allclose(dofs, ref, rtol=0, atol=1e-12 * np.abs(ref).max())

    system = assemble_mixed(mesh, problem, ElementTetP1(), rhs_intorder=2)
    phi = problem.phi(_at(b0)).reshape(mesh.t.shape[1], -1)
    A0 = phi_cc.assemble(b0, phi=phi)
    B0 = coupling.assemble(b0, p1)
    assert abs(system.A[W][:, W] - A0).max() <= 1e-12 * abs(A0).max()
    assert abs(system.B[:, W] - B0).max() <= 1e-12 * abs(B0).max()
    bound = mesh.boundary_edges()
    x0 = np.zeros(len(W))
    x0[bound] = complete_linear_interpolant(mesh, problem.u, bound)[0::2]
    free_u = np.setdiff1d(np.arange(len(W)), bound)
    free_p = np.setdiff1d(np.arange(mesh.p.shape[1]), mesh.boundary_nodes())
    u, _, _ = saddle_direct(system.A[W][:, W], system.B[:, W], system.f_u[W], x0, free_u,
                            free_p)
    ref = solve_maxwell(mesh, problem, solver="direct").dofs
    np.testing.assert_allclose(u, ref, rtol=0, atol=1e-12 * np.abs(ref).max())


def test_split_solve_equals_the_monolithic_saddle_point_solve():
    mesh, problem = get_domain("cube").mesh(2), get_problem("maxwell")
    split = solve_maxwell_complete_linear(mesh, problem)
    mono = solve_maxwell_complete_linear(mesh, problem, solver="monolithic")
    assert split.solve_info.method == "direct-split" and split.solve_info.residual < 1e-12
    np.testing.assert_allclose(split.dofs, mono.dofs, rtol=0,
                               atol=1e-12 * np.abs(mono.dofs).max())


def _rates(levels, approximate):
    dom, problem = get_domain("cube"), get_problem("maxwell")
    rows = []
    for level in levels:
        solution = approximate(dom.mesh(level), problem)
        rows.append((dom.mesh_size(level), *hcurl_errors2(solution, problem.u, problem.curl_u)))
    l2 = [observed_rate(a[1], b[1], a[0], b[0]) for a, b in zip(rows[:-1], rows[1:], strict=True)]
    cu = [observed_rate(a[2], b[2], a[0], b[0]) for a, b in zip(rows[:-1], rows[1:], strict=True)]
    return rows, l2, cu


def test_rates_mixed_solve_levels_1_to_3():
    """L² error O(h²) (rate ≥ 1.9), curl error O(h) (rate ≥ 0.9: curl ∇(λ_aλ_b) = 0)."""
    rows, l2, cu = _rates((1, 2, 3), solve_maxwell_complete_linear)
    assert min(l2) >= 1.9, (rows, l2)
    assert all(0.9 <= r <= 1.2 for r in cu), (rows, cu)
    u_norm = field_l2_norm(get_domain("cube").mesh(3), get_problem("maxwell").u)
    assert rows[-1][1] / u_norm < 0.0017  # N0 level 5's 0.17 % relative error at level 3


def test_rates_best_approximation_levels_2_to_3():
    rows, l2, cu = _rates((2, 3), best_approximation_complete_linear)
    assert l2[-1] >= 1.9 and 0.9 <= cu[-1] <= 1.2, (rows, l2, cu)


def test_iterative_solves_equal_the_direct_ones():
    """CG-AMG + MINRES-HX split solve and CG with the complete-linear auxiliary-space preconditioner
    give the direct solutions to the solver tolerance."""
    mesh, problem = get_domain("cube").mesh(2), get_problem("maxwell")
    for approximate, method in ((solve_maxwell_complete_linear, "iterative-split"),
                                (best_approximation_complete_linear, "cg-hx-hierarchical")):
        direct = approximate(mesh, problem, solver="direct")
        iterative = approximate(mesh, problem, solver="iterative")
        assert iterative.solve_info.method == method
        assert iterative.solve_info.iterations < 60 and iterative.solve_info.residual < 1e-9
        np.testing.assert_allclose(iterative.dofs, direct.dofs, rtol=0,
                                   atol=1e-8 * np.abs(direct.dofs).max())


@pytest.mark.slow
def test_rates_mixed_solve_levels_3_to_4_iterative():
    """Level 4 (62k DOFs) goes through "auto" = the iterative split solve (seconds, not the
    ~60 s of SuperLU)."""
    rows, l2, cu = _rates((3, 4), solve_maxwell_complete_linear)
    assert l2[-1] >= 1.9 and 0.9 <= cu[-1] <= 1.2, (rows, l2, cu)


def test_point_evaluation_matches_quadrature_values():
    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    solution = solve_maxwell_complete_linear(mesh, problem)
    points, _ = quadrature_rule(mesh, 3)
    value, curl_value = next(fields_at_quadrature(solution, 3))
    np.testing.assert_allclose(solution.values_at(points), value, atol=1e-12)
    np.testing.assert_allclose(solution.curl_at(points), curl_value, atol=1e-12)
    outside = np.array([[2.0, 0.5, 0.5]])
    with pytest.raises(InputError, match="outside"):
        evaluate_complete_linear(solution.basis, solution.dofs, outside)
    assert np.isnan(evaluate_complete_linear_curl(solution.basis, solution.dofs, outside,
                                                  outside="nan")).all()


def test_bad_input_is_an_input_error():
    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    with pytest.raises(InputError, match="solver"):
        solve_maxwell_complete_linear(mesh, problem, solver="cholesky")

    class NoExact:
        name, has_exact = "none", False

    with pytest.raises(InputError, match="exact"):
        best_approximation_complete_linear(mesh, NoExact())
    n0 = best_approximation(mesh, problem)
    with pytest.raises(InputError, match="ElementTetCompleteLinear"):
        evaluate_complete_linear(n0.basis, n0.dofs, np.array([[0.5, 0.5, 0.5]]))
    with pytest.raises(InputError, match="must map"):
        complete_linear_interpolant(mesh, lambda x: x[:, 0])


def test_an_order_2_field_in_an_n0_only_path_is_one_input_error_naming_the_order():
    from surrogate.fem.point_evaluation import evaluate_n0
    from surrogate.fem.vtk import n0_at_nodes

    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    linear = solve_maxwell_complete_linear(mesh, problem)
    n0 = best_approximation(mesh, problem)
    x = np.array([[0.5, 0.5, 0.5]])
    for call in (lambda: evaluate_n0(linear.basis, linear.dofs, x),  # complete-linear basis
                 lambda: evaluate_n0(n0.basis, linear.dofs, x),  # complete-linear DOFs, N0 basis
                 lambda: n0_at_nodes(n0.basis, linear.dofs)):
        with pytest.raises(InputError, match="complete-linear field") as info:
            call()
        assert "\n" not in str(info.value)
    # the nodal projection takes a complete-linear field with its own basis; P1 fields exactly
    nodes = n0_at_nodes(linear.basis, complete_linear_interpolant(mesh, _affine))
    np.testing.assert_allclose(nodes, _affine(mesh.p.T), atol=1e-12)
