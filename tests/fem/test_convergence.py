"""Observed O(h) convergence of N0 approximations (L² and curl-L²) on the cube and cylinder."""

import math

import pytest

from surrogate.core.errors import InputError
from surrogate.fem.convergence import check_study_options, convergence_study, observed_rate

ROW_KEYS = {"backend", "order", "level", "h", "n_tets", "ndofs", "l2_error", "relative_l2_error",
            "curl_l2_error", "l2_rate", "curl_l2_rate", "seconds", "timings", "solver"}


def _assert_first_order(rows, levels):
    assert [r["level"] for r in rows] == levels
    assert rows[0]["l2_rate"] is None and rows[0]["curl_l2_rate"] is None
    for prev, row in zip(rows[:-1], rows[1:], strict=True):
        assert set(row) == ROW_KEYS
        assert row["h"] == pytest.approx(prev["h"] / 2)
        assert row["ndofs"] > 4 * prev["ndofs"]
        assert row["l2_rate"] >= 0.9, rows
        assert row["curl_l2_rate"] >= 0.9, rows
        assert row["l2_rate"] == pytest.approx(math.log2(prev["l2_error"] / row["l2_error"]))
        assert row["solver"]["residual"] < 1e-9
        assert set(row["timings"]) == {"mesh", "basis", "assembly", "solve", "errors"}


@pytest.mark.parametrize("method", ["best", "solve"])
def test_first_order_on_the_cube(method):
    calls = []
    rows = convergence_study("cube", [2, 3, 4], method=method,
                             on_progress=lambda *a: calls.append(a))
    _assert_first_order(rows, [2, 3, 4])
    assert calls[0][:2] == (0, 3) and calls[-1][:2] == (3, 3)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["best", "solve"])
def test_first_order_on_the_cylinder(method):
    rows = convergence_study("cylinder", [2, 3, 4], method=method)
    _assert_first_order(rows, [2, 3, 4])
    assert rows[-1]["solver"]["method"] == ("cg-hx" if method == "best" else "minres-block")


def test_solver_choice_is_passed_through():
    rows = convergence_study("cube", [1, 2], method="solve", solver="iterative")
    assert [r["solver"]["method"] for r in rows] == ["minres-block", "minres-block"]
    assert all(r["solver"]["iterations"] > 1 for r in rows)


def test_observed_rate():
    assert observed_rate(4.0, 1.0, 0.2, 0.1) == pytest.approx(2.0)
    assert observed_rate(1.0, 0.0, 0.2, 0.1) is None
    assert observed_rate(1.0, 0.5, 0.1, 0.1) is None


@pytest.mark.parametrize("levels, method, solver, match", [
    ([-1, 1], "best", "auto", "start at 0"),
    ([3, 2], "best", "auto", "increase"),
    ([], "best", "auto", "no mesh level"),
    ([1], "galerkin", "auto", "best, solve"),
    ([1], "best", "gmres", "auto, direct, iterative"),
])
def test_bad_options(levels, method, solver, match):
    with pytest.raises(InputError, match=match):
        check_study_options(levels, method, solver)


def test_a_method_the_backend_lacks_at_that_order_is_refused_before_any_work():
    with pytest.raises(InputError, match="ngsolve backend offers only the mixed solve"):
        check_study_options([1], "best", "auto", order=2, backend="ngsolve")


def test_unknown_domain():
    with pytest.raises(InputError, match="cube"):
        convergence_study("torus", [1])
