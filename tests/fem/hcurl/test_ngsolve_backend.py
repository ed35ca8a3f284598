"""The ngsolve backend against our own elements on the same meshes.

Same space, same answer: with zero tangential boundary data and polynomial φ and f that both
backends integrate exactly, skfem's N0 and complete-linear solutions equal NGSolve's orders 0
and 1 to solver tolerance (≤ 1e-8 relative L², cube levels 1–3). With eq. 7.2's and three
`radial` problems' data (boundary projections and quadrature differ) the difference is
reported and shrinks with h at least as fast as the errors do.
"""

import math

import numpy as np
import pytest

pytest.importorskip("ngsolve")

from surrogate.core.errors import InputError  # noqa: E402
from surrogate.fem.domains import get_domain  # noqa: E402
from surrogate.fem.families import get_family  # noqa: E402
from surrogate.fem.hcurl.errors import error_intorder, hcurl_errors  # noqa: E402
from surrogate.fem.hcurl.registry import fem_approximation  # noqa: E402
from surrogate.fem.problems import get_problem  # noqa: E402
from surrogate.fem.quadrature import quadrature_rule  # noqa: E402

LEVELS = (1, 2, 3)


class PolynomialProblem:
    """φ = 1 + x² + y z (quadratic), f = (1 + y, z − x, 2 x + y) (linear), u × n = 0."""

    name, has_exact = "polynomial", True

    def phi(self, x):
        return 1.0 + x[:, 0] ** 2 + x[:, 1] * x[:, 2]

    def f(self, x):
        return np.stack([1.0 + x[:, 1], x[:, 2] - x[:, 0], 2.0 * x[:, 0] + x[:, 1]], axis=1)

    def u(self, x):  # the boundary data only: u × n = 0 on the wall
        return np.zeros_like(x)


def _relative_difference(a, b) -> float:
    """‖u_a − u_b‖ / ‖u_a‖ in L²(Ω_h) by the rule of both (same mesh, same points)."""
    intorder = error_intorder(max(a.order, b.order))
    _, w = quadrature_rule(a.mesh, intorder)
    ua, ub = a.values_at_quadrature(intorder), b.values_at_quadrature(intorder)
    diff = np.einsum("ij,ij->i", ua - ub, ua - ub)
    return math.sqrt(w @ diff / (w @ np.einsum("ij,ij->i", ua, ua)))


@pytest.mark.slow
@pytest.mark.parametrize("order", [0, 1])
def test_same_space_same_answer_for_exactly_integrable_data(order):
    problem = PolynomialProblem()
    for level in LEVELS:
        mesh = get_domain("cube").mesh(level)
        ours = fem_approximation(mesh, problem, backend="skfem", order=order, method="solve",
                                 solver="direct")
        theirs = fem_approximation(mesh, problem, backend="ngsolve", order=order,
                                   method="solve", solver="direct")
        assert ours.ndofs == theirs.ndofs  # the same H(curl) space
        assert _relative_difference(ours, theirs) <= 1e-8, (order, level)


def _problems():
    radial = get_family("radial")
    return [("eq. 7.2", get_problem("maxwell"))] + [
        (f"radial {i}", radial.problem(mu)) for i, mu in enumerate(radial.sample(3, 11))]


@pytest.mark.slow
@pytest.mark.parametrize("order", [0, 1])
def test_backend_difference_shrinks_at_least_as_fast_as_the_errors(order):
    """Per problem: the observed rate of ‖u_skfem − u_ngsolve‖ over levels 1→3 is at least
    the slower backend's L² rate (less 0.2), and the difference is reported."""
    report = {}
    for name, problem in _problems():
        diffs, errors = [], []
        for level in LEVELS:
            mesh = get_domain("cube").mesh(level)
            pair = [fem_approximation(mesh, problem, backend=b, order=order, method="solve")
                    for b in ("skfem", "ngsolve")]
            diffs.append(_relative_difference(*pair))
            errors.append([hcurl_errors(s, problem.u, None)[0] for s in pair])
        diff_rate = math.log2(diffs[0] / diffs[-1]) / (len(LEVELS) - 1)
        error_rate = min(math.log2(errors[0][k] / errors[-1][k]) for k in range(2)) / (
            len(LEVELS) - 1)
        report[name] = {"differences": diffs, "diff_rate": diff_rate, "error_rate": error_rate}
        assert diff_rate >= error_rate - 0.2, report
        assert diffs[-1] < 1e-2, report
    print(f"order {order}: skfem vs ngsolve", report)


def test_values_at_points_match_the_quadrature_values_and_outside_modes():
    problem = get_problem("maxwell")
    mesh = get_domain("cube").mesh(1)
    solution = fem_approximation(mesh, problem, backend="ngsolve", order=2, method="solve")
    points, _ = quadrature_rule(mesh, 3)
    np.testing.assert_allclose(solution.values_at(points[:200]),
                               solution.values_at_quadrature(3)[:200], atol=1e-12)
    assert solution.curl_at(points[:5]).shape == (5, 3)
    outside = np.array([[2.0, 2.0, 2.0]])
    assert np.isnan(solution.values_at(outside, outside="nan")).all()
    with pytest.raises(InputError, match="outside the mesh"):
        solution.values_at(outside)
    assert solution.solve_info.threads == 1 and solution.backend == "ngsolve"
    assert set(solution.timings) == {"mesh", "assembly", "solve"}


def test_iterative_solver_gives_the_direct_answer():
    problem = get_problem("maxwell")
    mesh = get_domain("cube").mesh(2)
    direct, iterative = (fem_approximation(mesh, problem, backend="ngsolve", order=1,
                                           method="solve", solver=s, rtol=1e-10)
                         for s in ("direct", "iterative"))
    assert iterative.solve_info.method == "minres-bddc"
    assert direct.solve_info.method == "ldlt-gmres"
    assert _relative_difference(direct, iterative) < 1e-7


def test_ngsolve_offers_no_best_approximation_and_checks_orders():
    mesh = get_domain("cube").mesh(1)
    with pytest.raises(InputError, match="only the mixed solve"):
        fem_approximation(mesh, get_problem("maxwell"), backend="ngsolve", order=1)
    with pytest.raises(InputError, match="unknown FEM order 5"):
        fem_approximation(mesh, get_problem("maxwell"), backend="ngsolve", order=5,
                          method="solve")


def test_high_order_on_the_cubes_six_tets_beats_complete_quadratic_on_48():
    """The reason the cube's level 0 is a FEM candidate: on smooth `radial` problems order 4
    on 6 tets is more accurate than the complete quadratic space on 48 with fewer DOFs, so the
    fastest FEM at equal error can sit there."""
    from surrogate.fem.families.truth import with_boundary_data

    family = get_family("radial")
    cube = get_domain("cube")

    def relative(solution, problem):
        points, weights = quadrature_rule(solution.mesh, 9)
        u, v = problem.u(points), solution.values_at_quadrature(9)
        return math.sqrt((weights @ ((u - v) ** 2).sum(1)) / (weights @ (u ** 2).sum(1)))

    for params in family.sample(3, 5):
        problem = with_boundary_data(family.problem(params))
        coarse = fem_approximation(cube.mesh(0), problem, backend="ngsolve", order=4,
                                   method="solve")
        finer = fem_approximation(cube.mesh(1), problem, backend="ngsolve", order=2,
                                  method="solve")
        assert coarse.ndofs < finer.ndofs
        assert relative(coarse, problem) < relative(finer, problem)
