"""The fastest FEM at equal error: the comparison every "surrogate vs FEM" figure is held to.

Among FEM runs of any backend, order and mesh level, the one a user would pick to match a
surrogate's accuracy is the fastest whose error is not larger than the surrogate's. Every
verdict names it: backend, order, level, DOFs and seconds. Where it sits on the coarsest
evaluated level a coarser mesh might be faster still, and the verdict says so. Torch-free.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

COARSEST_NOTE = "fastest at the coarsest evaluated mesh: could be faster"


@dataclass(frozen=True)
class FemCandidate:
    """One FEM result: its order, mesh level, error, time (mesh → u_h) in seconds, DOFs,
    backend and method ("solve", "best", or a time-domain FEM's stepping, e.g. "Newmark
    Δt/2 + Richardson", shown after the DOFs). ``mesh``: a mesh other than the domain's
    levels, e.g. "fitted maxh 0.35" (a mesh fitted to the member, meshing in ``seconds``);
    it replaces the level in the label and never counts as the coarsest level."""

    order: int
    level: int
    error: float
    seconds: float
    dofs: int | None = None
    backend: str = "skfem"
    method: str = "solve"
    mesh: str | None = None

    @property
    def label(self) -> str:
        """E.g. ``"ngsolve order 2, level 1 (654 DOFs)"`` (the toolkit's order naming),
        ``"ngsolve order 3, fitted maxh 0.35 (9120 DOFs)"``."""
        how = " best approximation" if self.method == "best" else ""
        dofs = "" if self.dofs is None else f" ({self.dofs} DOFs)"
        stepping = "" if self.method in ("solve", "best") else f", {self.method}"
        where = f"level {self.level}" if self.mesh is None else self.mesh
        return f"{self.backend} order {self.order}{how}, {where}{dofs}{stepping}"


def fastest_at_equal_error(candidates: Iterable[FemCandidate],
                           target_error: float) -> FemCandidate | None:
    """The fastest candidate with ``error <= target_error`` (ties: fewer DOFs); None if none."""
    matching = [c for c in candidates
                if math.isfinite(c.error) and math.isfinite(c.seconds) and c.error <= target_error]
    if not matching:
        return None
    return min(matching, key=lambda c: (c.seconds, c.dofs if c.dofs is not None else 0))


def fastest_fem(candidates: Iterable[FemCandidate], target_error: float) -> dict[str, Any]:
    """The FEM a user would run to reach ``target_error``: the fastest candidate at that
    error, else the most accurate one (``lower_bound``: a FEM that matches takes at least its
    time). Returns ``{"fem": candidate dict with "label" | None, "lower_bound": bool,
    "at_coarsest_level": bool}``; ``at_coarsest_level``: the fastest sits on the coarsest
    level any level candidate was evaluated on (:data:`COARSEST_NOTE`; a candidate on
    another ``mesh``, e.g. fitted, is never at the coarsest level)."""
    candidates = list(candidates)
    chosen = fastest_at_equal_error(candidates, target_error)
    lower_bound = chosen is None
    if lower_bound:
        finite = [c for c in candidates if math.isfinite(c.error)]
        chosen = min(finite, key=lambda c: (c.error, c.seconds)) if finite else None
    coarsest = min((c.level for c in candidates if c.mesh is None), default=None)
    return {"fem": None if chosen is None else {**asdict(chosen), "label": chosen.label},
            "lower_bound": lower_bound,
            "at_coarsest_level": bool(chosen is not None and not lower_bound
                                      and chosen.mesh is None and chosen.level == coarsest)}


def equal_error_comparison(candidates: Iterable[FemCandidate], surrogate_error: float,
                           surrogate_seconds: float) -> dict[str, Any]:
    """The fastest FEM at the surrogate's error next to the surrogate, with a plain verdict.

    Returns ``{"surrogate": {"error", "seconds"}, "fem": {...} | None, "speedup": FEM time /
    surrogate time | None, "lower_bound": bool, "at_coarsest_level": bool, "verdict": str}``
    (:func:`fastest_fem`). The verdict names the FEM's backend, order, level, DOFs and
    seconds.
    """
    choice = fastest_fem(candidates, surrogate_error)
    fem, lower_bound = choice["fem"], choice["lower_bound"]
    speedup = (fem["seconds"] / surrogate_seconds
               if fem is not None and surrogate_seconds > 0 else None)
    coarsest = f" ({COARSEST_NOTE})" if choice["at_coarsest_level"] else ""
    if fem is None:
        verdict = "no FEM result to compare with"
    elif lower_bound:
        verdict = (f"no evaluated FEM reaches the surrogate's error; the most accurate "
                   f"({fem['label']}) takes {fem['seconds']:.3g} s, a lower bound")
    elif speedup is not None and speedup < 1:
        verdict = (f"the FEM wins: {fem['label']} reaches the surrogate's error in "
                   f"{fem['seconds']:.3g} s, {1 / speedup:.3g}x faster than the "
                   f"surrogate{coarsest}")
    else:
        verdict = (f"the surrogate wins: {speedup:.3g}x faster than the fastest FEM at equal "
                   f"error ({fem['label']}, {fem['seconds']:.3g} s){coarsest}")
    return {"surrogate": {"error": surrogate_error, "seconds": surrogate_seconds},
            "fem": fem, "speedup": speedup, "lower_bound": lower_bound,
            "at_coarsest_level": choice["at_coarsest_level"], "verdict": verdict}


__all__ = ["COARSEST_NOTE", "FemCandidate", "equal_error_comparison", "fastest_at_equal_error",
           "fastest_fem"]
