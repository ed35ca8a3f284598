"""Benchmark: the inclusion family's FEM truth and its own error, against a finer solve.

For ``--problems`` draws (seed ``--seed``) of the ``inclusion`` family on the cylinder, the mixed
solves (eq. 7.1, u × n = 0) of N0 on ``--n0-levels`` (1 2 3) and of complete linear (order 1) on
``--complete-linear-levels`` (2 3), and a reference order-1 solve on ``--reference-level`` (4). Per
problem and as medians: the relative L² difference ‖u_h − u_ref‖/‖u_ref‖ of each solve to the
reference (on the reference's mesh, :func:`surrogate.fem.families.truth.l2_difference`), the
observed rates log₂(e_L / e_{L+1}) between successive levels of one order, the truth's own estimated
error (the truth = order 1 on ``--truth-level``, 3: its difference to the reference) and, per FEM
solve it judges (N0 up to its level, complete linear below it), the ratio "judged error / truth
error", whose smallest value the issue wants ≥ 4 (``ratio_ok``: on every problem). Seconds per solve
(assembly + solve, the mesh built beforehand), thread settings and the load average.

Prints one JSON object. Run: OMP_NUM_THREADS=1 python benchmarks/inclusion_truth.py
[--problems 3] [--seed 11] [--reference-level 4]   (≈ 20 s per problem on one thread;
``--complete-linear-levels 2 3 4 --truth-level 4 --reference-level 5``: ≈ 3 min and 10 GB per
problem)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time

from surrogate.core.thread_settings import thread_settings

REQUIRED_RATIO = 4.0  # the truth must be at least this many times below the errors it judges


def _label(order: int, level: int) -> str:
    """"N0 L2" or "order-1 L3" (the toolkit's order naming: 1 = complete linear)."""
    return f"{'N0' if order == 0 else f'order-{order}'} L{level}"


def _solve(problem, order: int, level: int) -> tuple[object, float]:
    """(solution, seconds) of the truth solve of ``order`` on ``level`` (mesh built first)."""
    from surrogate.fem.families.truth import fem_truth, truth_mesh

    truth_mesh("cylinder", level)
    start = time.perf_counter()
    solution = fem_truth(problem, "cylinder", level, order=order)
    return solution, time.perf_counter() - start


def _rates(errors: dict[str, float], order: int, levels: list[int]) -> dict[str, float]:
    """log₂(e_L / e_{L+1}) for successive ``levels`` of ``order``."""
    return {f"{_label(order, a)}->{b}": math.log2(errors[_label(order, a)]
                                                  / errors[_label(order, b)])
            for a, b in zip(levels, levels[1:], strict=False)}


def study_problem(problem, args: argparse.Namespace) -> dict:
    """Differences to the reference, rates, the truth's error and the ratio for one problem."""
    from surrogate.fem.families.truth import l2_difference

    reference, ref_seconds = _solve(problem, 1, args.reference_level)
    cases = [(0, lv) for lv in args.n0_levels] + [(1, lv) for lv in args.complete_linear_levels]
    errors, seconds = {}, {_label(1, args.reference_level) + " (reference)": ref_seconds}
    for order, level in cases:
        solution, seconds[_label(order, level)] = _solve(problem, order, level)
        diff, norm = l2_difference(solution, reference)
        errors[_label(order, level)] = diff / norm
    truth = errors[_label(1, args.truth_level)]
    judged = {name: errors[name] / truth for name in _judged(args)}
    return {"mu": [float(v) for v in problem.params],
            "relative_l2_vs_reference": errors,
            "rates": {**_rates(errors, 0, args.n0_levels),
                      **_rates(errors, 1, args.complete_linear_levels)},
            "truth_error": truth,
            "judged_over_truth_error": judged,
            "smallest_judged_over_truth_error": min(judged.values(), default=None),
            "seconds": seconds}


def _judged(args: argparse.Namespace) -> list[str]:
    """The solves the truth judges: N0 on ``--n0-levels`` up to the truth's level, complete linear
    below it (``surrogate evaluate`` runs complete linear below the truth's level only)."""
    return ([_label(0, lv) for lv in args.n0_levels if lv <= args.truth_level]
            + [_label(1, lv) for lv in args.complete_linear_levels if lv < args.truth_level])


def _medians(rows: list[dict], key: str) -> dict[str, float]:
    """Median over problems of each entry of ``row[key]``."""
    return {name: statistics.median(r[key][name] for r in rows) for name in rows[0][key]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=3, help="K inclusion draws")
    parser.add_argument("--seed", type=int, default=11, help="seed of the Sobol draw")
    parser.add_argument("--n0-levels", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--complete-linear-levels", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--truth-level", type=int, default=3, help="the order-1 truth's level")
    parser.add_argument("--reference-level", type=int, default=4)
    args = parser.parse_args()
    linear = args.complete_linear_levels
    if args.truth_level not in linear or args.reference_level <= max(linear):
        parser.error("--truth-level must be one of --complete-linear-levels, all below "
                     "--reference-level")

    from surrogate.fem.families import get_family

    family = get_family("inclusion")
    rows = [study_problem(family.problem(mu), args)
            for mu in family.sample(args.problems, args.seed)]
    ratios = [r["smallest_judged_over_truth_error"] for r in rows]
    median_ratio = None if None in ratios else statistics.median(ratios)
    result = {
        "benchmark": "inclusion_truth.complete-linear-truth-vs-reference",
        "truth": f"complete-linear mixed solve on level {args.truth_level} of cylinder",
        "reference": f"complete-linear mixed solve on level {args.reference_level} of cylinder",
        "problems": rows,
        "median": {"relative_l2_vs_reference": _medians(rows, "relative_l2_vs_reference"),
                   "rates": _medians(rows, "rates"),
                   "truth_error": statistics.median(r["truth_error"] for r in rows),
                   "smallest_judged_over_truth_error": median_ratio,
                   "seconds": _medians(rows, "seconds")},
        "required_ratio": REQUIRED_RATIO,
        "ratio_ok": None if median_ratio is None else bool(min(ratios) >= REQUIRED_RATIO),
        "threads": thread_settings(), "cpu_count": os.cpu_count(),
        "load_avg_1min": os.getloadavg()[0],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
