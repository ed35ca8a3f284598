"""The FEM-method registry: the naming of orders, parsing, dispatch by (backend, order), that
skfem's order 0 is exactly the N0 code, and a missing ngsolve as one InputError."""

import sys

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.hcurl import registry
from surrogate.fem.hcurl.registry import (
    check_backend,
    check_order,
    fem_approximation,
    fem_hcurl_errors,
    fem_methods,
    order_from_legacy,
    parse_backends,
    parse_orders,
)
from surrogate.fem.hcurl.skfem.n0 import hcurl_errors, solve_maxwell
from surrogate.fem.problems import get_problem


def test_one_naming_of_orders_ngsolves():
    """The toolkit's order is NGSolve's; the table lists kind and degree of the literature."""
    assert [row.order for row in registry.ORDER_NAMES] == [0, 1, 2, 3, 4, 5, 6]
    assert registry.FEM_ORDERS == (0, 1, 2, 3, 4)  # orders 5, 6: time-domain operators only
    assert all(row.order == row.ngsolve_order for row in registry.ORDER_NAMES)
    assert registry.order_name(0) == "N0" and registry.order_name(1) == "complete linear"
    assert registry.ORDER_NAMES[1].nedelec == "second kind, degree 1"
    assert registry.BACKENDS["skfem"].orders == (0, 1)
    assert registry.BACKENDS["ngsolve"].orders == (0, 1, 2, 3, 4)
    assert order_from_legacy(1) == 0 and order_from_legacy(2) == 1
    table = registry.naming_table()
    assert "| 1 | 1 | second kind, degree 1 | complete linear | 2 | 1 | skfem, ngsolve |" in table
    assert ("| 5 | 5 | second kind, degree 5 | complete quintic | 6 | 5 | "
            "ngsolve (time domain only) |") in table


def test_orders_parse_and_bad_ones_are_input_errors():
    assert parse_orders("1,0") == (0, 1) and parse_orders(" 0 ") == (0,)
    assert check_order(1) == 1 and check_order("0") == 0
    assert check_order(4, "ngsolve") == 4
    for bad, match in (("2", "unknown FEM order '2' for the skfem backend"),
                       ("1.5", "unknown FEM order"), ("0,,1", "comma-separated"),
                       ("", "comma-separated")):
        with pytest.raises(InputError, match=match):
            parse_orders(bad)
    with pytest.raises(InputError, match="unknown FEM backend 'fenics'"):
        check_backend("fenics")


def test_dispatch_by_order_and_method():
    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    n0 = fem_approximation(mesh, problem, order=0, method="solve")
    ref = solve_maxwell(mesh, problem)
    np.testing.assert_array_equal(n0.dofs, ref.dofs)
    assert (n0.backend, n0.order) == ("skfem", 0)
    assert fem_hcurl_errors(n0, problem.u, problem.curl_u) == hcurl_errors(ref, problem.u,
                                                                           problem.curl_u)
    n1 = fem_approximation(mesh, problem, order=1, method="best")
    assert n1.order == 1 and n1.ndofs == 2 * n0.ndofs
    e0, _ = fem_hcurl_errors(n0, problem.u, problem.curl_u)
    e1, _ = fem_hcurl_errors(n1, problem.u, problem.curl_u)
    assert e1 < e0
    with pytest.raises(InputError, match="unknown method"):
        fem_approximation(mesh, problem, order=1, method="galerkin")
    with pytest.raises(InputError, match="unknown solver 'magic'"):
        fem_approximation(mesh, problem, order=0, method="solve", solver="magic")


def test_without_ngsolve_asking_for_it_is_one_line_and_the_rest_works(monkeypatch):
    """A missing ngsolve (import refused) leaves skfem alone; asking for it names the extra."""
    monkeypatch.setitem(sys.modules, "ngsolve", None)
    assert registry.installed_backends() == ("skfem",)
    assert parse_backends(None) == ("skfem",)
    assert [m.label for m in fem_methods()] == ["skfem order 0 (N0)",
                                               "skfem order 1 (complete linear)"]
    with pytest.raises(InputError) as info:
        fem_approximation(get_domain("cube").mesh(1), get_problem("maxwell"),
                          backend="ngsolve", order=2, method="solve")
    message = str(info.value)
    assert "\n" not in message and "pip install 'surrogate[ngsolve]'" in message


def test_dof_counts_without_building_the_space():
    """hcurl_dofs equals the ndofs of the built spaces (skfem orders 0-1, ngsolve 0-4)."""
    mesh, problem = get_domain("cube").mesh(1), get_problem("maxwell")
    for order in (0, 1):
        solution = fem_approximation(mesh, problem, order=order, method="solve")
        assert registry.hcurl_dofs(mesh, order) == solution.ndofs
    assert [registry.hcurl_dofs(mesh, k) for k in range(5)] == [98, 196, 654, 1544, 3010]
    if registry.backend_installed("ngsolve"):
        from surrogate.fem.hcurl.ngsolve.mesh_setup import mesh_setup

        assert all(mesh_setup(mesh, k).hcurl_ndof == registry.hcurl_dofs(mesh, k)
                   for k in range(5))


def test_evaluation_candidates_keys_and_the_default_note(monkeypatch):
    methods = registry.evaluation_methods(("skfem", "ngsolve") if
                                          registry.backend_installed("ngsolve") else ("skfem",))
    assert [m.key for m in methods][:2] == ["skfem:0", "skfem:1"]
    assert all(m.order <= 3 for m in methods)  # ngsolve's defaults stop at cubic
    assert registry.evaluation_methods(("skfem",), (1, 2))[0].key == "skfem:1"
    with pytest.raises(InputError, match="no FEM backend of skfem offers the orders 3"):
        registry.evaluation_methods(("skfem",), (3,))
    assert registry.parse_fem_key("ngsolve:2") == ("ngsolve", 2)
    assert registry.parse_fem_key("1") == ("skfem", 1)  # evaluation.json before backends
    skfem0 = registry.FemMethod("skfem", 0)
    assert skfem0.offered_method("best") == "best" and not skfem0.needs_exact
    ng = registry.FemMethod("ngsolve", 0)
    assert ng.offered_method("best") == "solve" and ng.needs_exact
    assert registry.fem_name("ngsolve", 2) == "ngsolve: complete quadratic"
    assert registry.fem_name("skfem", 1) == "complete linear"
    assert registry.backends_note(("skfem",)) is None
    monkeypatch.setitem(sys.modules, "ngsolve", None)
    note = registry.backends_note(None)
    assert note.startswith("FEM backends compared: skfem only") and "\n" not in note
    assert [m.backend for m in registry.evaluation_methods()] == ["skfem", "skfem"]
