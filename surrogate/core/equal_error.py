"""The fastest FEM at equal error: the comparison every "surrogate vs FEM" figure is held to.

Among FEM runs of any order and mesh level, the one a user would pick to match a surrogate's
accuracy is the fastest whose error is not larger than the surrogate's. Torch-free.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class FemCandidate:
    """One FEM result: its order, mesh level, error and time (mesh → u_h) in seconds."""

    order: int
    level: int
    error: float
    seconds: float
    dofs: int | None = None

    @property
    def label(self) -> str:
        """E.g. ``"order 1, level 1"`` (the toolkit's order naming)."""
        return f"order {self.order}, level {self.level}"


def fastest_at_equal_error(candidates: Iterable[FemCandidate],
                           target_error: float) -> FemCandidate | None:
    """The fastest candidate with ``error <= target_error`` (ties: fewer DOFs); None if none."""
    matching = [c for c in candidates
                if math.isfinite(c.error) and math.isfinite(c.seconds) and c.error <= target_error]
    if not matching:
        return None
    return min(matching, key=lambda c: (c.seconds, c.dofs if c.dofs is not None else 0))


def equal_error_comparison(candidates: Iterable[FemCandidate], surrogate_error: float,
                           surrogate_seconds: float) -> dict[str, Any]:
    """The fastest FEM at the surrogate's error next to the surrogate, with a plain verdict.

    Returns ``{"surrogate": {"error", "seconds"}, "fem": {...} | None, "speedup": FEM time /
    surrogate time | None, "lower_bound": bool, "verdict": str}``. When no candidate reaches
    the surrogate's error, ``fem`` is the most accurate candidate and ``lower_bound`` is true:
    a FEM that matches would take at least that long.
    """
    candidates = list(candidates)
    fastest = fastest_at_equal_error(candidates, surrogate_error)
    lower_bound = fastest is None
    if lower_bound:
        finite = [c for c in candidates if math.isfinite(c.error)]
        fastest = min(finite, key=lambda c: c.error) if finite else None
    speedup = (fastest.seconds / surrogate_seconds
               if fastest is not None and surrogate_seconds > 0 else None)
    if fastest is None:
        verdict = "no FEM result to compare with"
    elif lower_bound:
        verdict = (f"no evaluated FEM reaches the surrogate's error; the most accurate "
                   f"({fastest.label}) takes {fastest.seconds:.3g} s, a lower bound")
    elif speedup is not None and speedup < 1:
        verdict = (f"the FEM wins: {fastest.label} reaches the surrogate's error in "
                   f"{fastest.seconds:.3g} s, {1 / speedup:.3g}x faster than the surrogate")
    else:
        verdict = (f"the surrogate wins: {speedup:.3g}x faster than the fastest FEM at equal "
                   f"error ({fastest.label}, {fastest.seconds:.3g} s)")
    return {"surrogate": {"error": surrogate_error, "seconds": surrogate_seconds},
            "fem": None if fastest is None else {**asdict(fastest), "label": fastest.label},
            "speedup": speedup, "lower_bound": lower_bound, "verdict": verdict}
