"""FEM baselines by order: parsing, dispatch, and that order 1 is exactly the N0 code."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.hcurl.n0 import hcurl_errors, solve_maxwell
from surrogate.fem.hcurl.registry import (
    check_order,
    fem_approximation,
    fem_hcurl_errors,
    parse_orders,
    solution_order,
)
from surrogate.fem.problems import get_problem


def test_orders_parse_and_bad_ones_are_input_errors():
    assert parse_orders("2,1") == (1, 2) and parse_orders(" 1 ") == (1,)
    assert check_order(2) == 2 and check_order("1") == 1
    for bad, match in (("3", "unknown FEM order '3'"), ("1.5", "unknown FEM order"),
                       ("1,,2", "comma-separated"), ("", "comma-separated")):
        with pytest.raises(InputError, match=match):
            parse_orders(bad)


def test_dispatch_by_order_and_method():
    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    n0 = fem_approximation(mesh, problem, order=1, method="solve")
    ref = solve_maxwell(mesh, problem)
    np.testing.assert_array_equal(n0.dofs, ref.dofs)
    assert solution_order(n0) == 1
    assert fem_hcurl_errors(n0, problem.u, problem.curl_u) == hcurl_errors(ref, problem.u,
                                                                           problem.curl_u)
    n2 = fem_approximation(mesh, problem, order=2, method="best")
    assert solution_order(n2) == 2 and n2.ndofs == 2 * n0.ndofs
    e0, _ = fem_hcurl_errors(n0, problem.u, problem.curl_u)
    e2, _ = fem_hcurl_errors(n2, problem.u, problem.curl_u)
    assert e2 < e0
    with pytest.raises(InputError, match="unknown method"):
        fem_approximation(mesh, problem, order=2, method="galerkin")
