"""How a FEM solve is timed in an evaluation: as often as the surrogate it is held against.

A millisecond solve timed once is noisy, and its noise moves verdicts (which of FEM and
surrogate is faster, the break-even N*). So a solve faster than :data:`REPEAT_BELOW_S` is
repeated: the family evaluation keeps the fastest of ``--repeats`` (as it times the
surrogates' queries), the single-problem evaluation the median of as many solves as it times
the surrogate's whole field. Slower solves are timed once. Torch-free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

REPEAT_BELOW_S = 0.5
"""Seconds under which a FEM solve is timed more than once."""


def repeated_seconds(first: float, again: Callable[[], float], repeats: int) -> float:
    """``first`` for a solve of at least :data:`REPEAT_BELOW_S`, else the fastest of it and
    ``repeats − 1`` more timings by ``again()``."""
    if first >= REPEAT_BELOW_S or repeats <= 1:
        return float(first)
    return float(min([first, *(again() for _ in range(repeats - 1))]))


def solve_seconds(solution: Any) -> float:
    """A solution's time: the sum of its stages (``solution.timings``, mesh → u_h)."""
    return float(sum(solution.timings.values()))


def median_timed_solve(solve: Callable[[], Any], repeats: int) -> Any:
    """``solve()`` once; a solve under :data:`REPEAT_BELOW_S` (:func:`solve_seconds`) is run
    ``repeats`` times in all and the solution of median time is returned (the repeats compute
    the same u_h; only the timings differ)."""
    first = solve()
    if solve_seconds(first) >= REPEAT_BELOW_S or repeats <= 1:
        return first
    runs = sorted([first, *(solve() for _ in range(repeats - 1))], key=solve_seconds)
    return runs[(len(runs) - 1) // 2]  # the lower median for an even count


__all__ = ["REPEAT_BELOW_S", "repeated_seconds", "solve_seconds", "median_timed_solve"]
