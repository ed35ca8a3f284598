"""Break-even queries of a family surrogate: N* = one-off / (FEM per query − surrogate per query).

A user facing a new member of a family, whose u is unknown, runs the mixed solve. Per problem
the FEM's cost of one query is the time (mesh → u_h) of the fastest mixed solve, over every
evaluated backend, order and level, whose relative L² error is not larger than the
surrogate's on that problem (:func:`fem_per_problem`, one call for all problems); when none
reaches it, the most accurate one's time, marked as a lower bound (so N* is then an upper
bound). The FEM chosen depends on the error only, not on the query kind. The
surrogate's cost of one query is its time for the whole field (mesh nodes → u_NN) or for u at
the probe points (the FEM still solves the whole problem), one problem at a time, or its time
per problem when a batch of problems is answered in one call (the FEM still solves each one).
The one-off cost is the data generation plus the training seconds of the run. Torch-free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from surrogate.core.equal_error import COARSEST_NOTE, FemCandidate, fastest_fem

QUERY_KINDS = {"field": "whole field (mesh nodes → u_NN), one problem at a time",
               "probes": "u at the probe points, one problem at a time",
               "batch": "whole field, a batch of problems in one call (time per problem)"}


def distribution(values: Sequence[float | None]) -> dict[str, Any]:
    """{"median", "p90", "mean", "max", "count"} of the finite values (None when there are none)."""
    finite = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if finite.size == 0:
        return {"median": None, "p90": None, "mean": None, "max": None, "count": 0}
    return {"median": float(np.median(finite)), "p90": float(np.percentile(finite, 90)),
            "mean": float(finite.mean()), "max": float(finite.max()), "count": int(finite.size)}


def median_counting_never(n_stars: Sequence[float | None]) -> float | None:
    """Median N* over all problems, a problem that never breaks even (None) counted as +∞;
    None when that median is infinite (half the problems or more never break even)."""
    if not n_stars:
        return None
    median = float(np.median([math.inf if n is None else float(n) for n in n_stars]))
    return median if math.isfinite(median) else None


def median_all_text(query: Mapping[str, Any]) -> str:
    """A query's ``n_star_median_all`` as text: "never" when infinite, "–" when the
    ``evaluation.json`` predates it."""
    if "n_star_median_all" not in query:
        return "–"
    value = query["n_star_median_all"]
    return "never" if value is None else f"{value:.4g}"


def median_index(values: Sequence[float]) -> int:
    """Index of the median entry (the lower median for an even count)."""
    order = np.argsort(np.asarray(values, dtype=float), kind="stable")
    return int(order[(len(order) - 1) // 2])


def break_even(one_off_seconds: float, fem_seconds: float | None,
               surrogate_seconds: float) -> float | None:
    """N* = one_off / (fem − surrogate); None (never) when the surrogate is not faster."""
    if fem_seconds is None or not fem_seconds > surrogate_seconds:
        return None
    return one_off_seconds / (fem_seconds - surrogate_seconds)


def fem_per_problem(candidates_per_problem: Sequence[Sequence[FemCandidate]],
                    surrogate_errors: Sequence[float]) -> list[dict[str, Any]]:
    """Per problem k the FEM a user would run to reach ``surrogate_errors[k]``: the fastest of
    ``candidates_per_problem[k]`` (any backend, order, level) at that error, else the most
    accurate (``lower_bound``); :func:`surrogate.core.equal_error.fastest_fem`'s ``{"fem",
    "lower_bound", "at_coarsest_level"}``, the fem naming backend, order, level, DOFs and
    seconds."""
    return [fastest_fem(cands, error) for cands, error in
            zip(candidates_per_problem, surrogate_errors, strict=True)]


def fem_per_method(candidates_per_problem: Sequence[Sequence[FemCandidate]],
                   surrogate_errors: Sequence[float]) -> dict[str, dict[str, Any]]:
    """Per FEM method (``"backend order k"``) the time of its fastest level at each problem's
    surrogate error: ``{"backend", "order", "seconds": distribution over the problems it
    reaches, "reached", "problems", "levels": the level chosen per problem (None: not
    reached; a fitted method's own key ``"... fitted"``: the mesh, e.g. "fitted maxh
    0.35")}``. The strongest backend and order at equal error, method by method."""
    def method(c: FemCandidate) -> tuple[str, int, bool]:
        return c.backend, c.order, c.mesh is not None

    methods = sorted({method(c) for cands in candidates_per_problem for c in cands})
    out: dict[str, dict[str, Any]] = {}
    for backend, order, fitted in methods:
        choices = [fastest_fem([c for c in cands if method(c) == (backend, order, fitted)],
                               error)
                   for cands, error in zip(candidates_per_problem, surrogate_errors, strict=True)]
        reached = [c["fem"] for c in choices if c["fem"] is not None and not c["lower_bound"]]
        where = "mesh" if fitted else "level"
        out[f"{backend} order {order}" + (" fitted" if fitted else "")] = {
            "backend": backend, "order": order, "fitted": fitted,
            "seconds": distribution([float(f["seconds"]) for f in reached]),
            "reached": len(reached), "problems": len(choices),
            "levels": [None if c["fem"] is None or c["lower_bound"] else c["fem"][where]
                       for c in choices]}
    return out


def problem_break_even(choice: Mapping[str, Any], surrogate_error: float,
                       surrogate_seconds: float, one_off_seconds: float) -> dict[str, Any]:
    """Every term of N* for one problem and one query kind, given the FEM ``choice`` of
    :func:`fem_per_problem` for it."""
    fem, lower_bound = choice["fem"], bool(choice["lower_bound"])
    fem_seconds = None if fem is None else float(fem["seconds"])
    n_star = break_even(one_off_seconds, fem_seconds, surrogate_seconds)
    return {
        "surrogate_error": surrogate_error,
        "surrogate_seconds": surrogate_seconds,
        "fem": fem,
        "fem_seconds": fem_seconds,
        "fem_lower_bound": lower_bound,
        "fem_at_coarsest_level": bool(choice.get("at_coarsest_level")),
        "saving_per_query": None if fem_seconds is None else fem_seconds - surrogate_seconds,
        "one_off_seconds": one_off_seconds,
        "n_star": n_star,
        "n_star_upper_bound": lower_bound and n_star is not None,
        "surrogate_faster": n_star is not None,
    }


def describe(entry: Mapping[str, Any]) -> str:
    """One sentence on an N* entry: the break-even count or why there is none."""
    fem = entry.get("fem")
    if fem is None:
        return "no FEM result to compare with"
    bound = " (the FEM time is a lower bound: no evaluated FEM reaches the surrogate's error)" \
        if entry["fem_lower_bound"] else ""
    if entry.get("fem_at_coarsest_level"):
        bound += f" ({COARSEST_NOTE})"
    if entry["n_star"] is None:
        return (f"never: the surrogate ({entry['surrogate_seconds']:.3g} s per query) is not "
                f"faster than the FEM at its error ({fem['label']}, "
                f"{entry['fem_seconds']:.3g} s){bound}")
    upper = "at most " if entry["n_star_upper_bound"] else ""
    return (f"N* = {upper}{entry['n_star']:.4g} queries: one-off {entry['one_off_seconds']:.4g} s"
            f" / ({entry['fem_seconds']:.3g} s FEM ({fem['label']}) − "
            f"{entry['surrogate_seconds']:.3g} s surrogate){bound}")


def break_even_table(candidates_per_problem: Sequence[Sequence[FemCandidate]],
                     surrogate_errors: Sequence[float],
                     surrogate_seconds: Mapping[str, Sequence[float]],
                     generation_seconds: float | None, train_seconds: float | None
                     ) -> dict[str, Any]:
    """``break_even_queries`` of one run on one test domain, with every term.

    ``candidates_per_problem[k]``: the mixed solves of problem k (any backend, order, level);
    ``surrogate_errors[k]``: the surrogate's relative L² error there;
    ``surrogate_seconds[kind][k]``: its time per query of each kind in :data:`QUERY_KINDS`.
    The median problem is the one with the median surrogate error (lower median for an even
    count). ``n_star`` is the distribution over the problems that break even;
    ``n_star_median_all`` the median over all, never = +∞.
    """
    generation = float(generation_seconds) if generation_seconds is not None else None
    training = float(train_seconds) if train_seconds is not None else None
    one_off = (generation or 0.0) + (training or 0.0)
    notes = []
    if generation is None:
        notes.append("the run records no data generation time; counted as 0 s")
    if training is None:
        notes.append("the run records no training time; counted as 0 s")
    middle = median_index(surrogate_errors)
    choices = fem_per_problem(candidates_per_problem, surrogate_errors)
    out: dict[str, Any] = {
        "one_off_seconds": {"generation": generation, "training": training, "total": one_off},
        "median_problem": middle, "notes": notes, "queries": {},
        "fem_per_method": fem_per_method(candidates_per_problem, surrogate_errors),
    }
    for kind, seconds in surrogate_seconds.items():
        per_problem = [problem_break_even(choice, err, sec, one_off) for choice, err, sec in
                       zip(choices, surrogate_errors, seconds, strict=True)]
        n_stars = [e["n_star"] for e in per_problem]
        never = sum(n is None for n in n_stars)
        median_entry = dict(per_problem[middle])
        median_entry["problem"] = middle
        median_entry["text"] = describe(median_entry)
        out["queries"][kind] = {
            "what": QUERY_KINDS.get(kind, kind),
            "median_problem": median_entry,
            "per_problem": per_problem,
            "n_star": distribution(n_stars),
            "n_star_median_all": median_counting_never(n_stars),
            "problems_never_break_even": never,
            "fem_seconds": distribution([e["fem_seconds"] for e in per_problem]),
            "surrogate_seconds": distribution(list(seconds)),
        }
    return out


__all__ = ["QUERY_KINDS", "break_even", "break_even_table", "describe",
           "distribution", "fem_per_method", "fem_per_problem", "median_all_text",
           "median_counting_never", "median_index", "problem_break_even"]
