"""A fast FEM solve is timed as often as the surrogate it is held against."""

from types import SimpleNamespace

import pytest

from surrogate.evaluation.fem_timing import REPEAT_BELOW_S, median_timed_solve, solve_seconds


def _solves(*totals):
    """A solve() returning solutions whose stages sum to ``totals`` in turn."""
    made = iter([SimpleNamespace(timings={"assemble": 0.25 * t, "solve": 0.75 * t}, n=k)
                 for k, t in enumerate(totals)])
    calls = []

    def solve():
        calls.append(1)
        return next(made)

    return solve, calls


def test_a_fast_solve_keeps_the_median_of_the_repeats():
    solve, calls = _solves(0.012, 0.004, 0.008)
    kept = median_timed_solve(solve, 3)
    assert len(calls) == 3 and kept.n == 2 and solve_seconds(kept) == pytest.approx(0.008)


def test_a_slow_solve_or_a_single_repeat_is_timed_once():
    solve, calls = _solves(REPEAT_BELOW_S, 0.1, 0.1)
    assert median_timed_solve(solve, 3).n == 0 and len(calls) == 1
    solve, calls = _solves(0.01, 0.1)
    assert median_timed_solve(solve, 1).n == 0 and len(calls) == 1


def test_an_even_number_of_repeats_keeps_the_lower_median():
    solve, _ = _solves(0.004, 0.003, 0.002, 0.001)
    assert median_timed_solve(solve, 4).n == 2  # 0.002 s of 0.001, 0.002, 0.003, 0.004
