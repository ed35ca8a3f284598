"""Benchmark: ``gen-data maxwell-family --family inclusion`` throughput for 1 and 2 workers, and
the FEM truth's own convergence; prints JSON.

Throughput: problems/s of the whole generation (sampling, truth solves, point evaluation,
writing; median over ``--repeats``), at truth level ``--level``. Truth study (``--study``):
for ``--study-problems`` draws, the N0 mixed solves at levels 1 … top (the complete-linear truth's
own study: benchmarks/inclusion_truth.py), the relative L²
difference of each level to level ``top`` (on top's mesh) and the observed rate
log₂(e_L / e_{L+1}) between consecutive levels (measured, not assumed: φ jumps at the
inclusion).

Run: OMP_NUM_THREADS=1 python benchmarks/family_data.py [--level 3] [--problems 8]
     [--repeats 3] [--study --top 4 --study-problems 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from surrogate.core.thread_settings import thread_settings


def throughput(workers: int, level: int, problems: int, points: int, repeats: int) -> dict:
    """Median problems/s of the inclusion generation with ``workers`` local processes."""
    from surrogate.datasets import MaxwellFamilyRecipe, generate_dataset, open_executor

    recipe = MaxwellFamilyRecipe(family="inclusion", problems=problems, points=points,
                                 truth_mesh="level", truth_level=level, seed=0)
    seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        with open_executor(workers) as executor:  # warm-up (imports), not timed
            warm = MaxwellFamilyRecipe(family="inclusion", problems=3, points=10,
                                       truth_mesh="level", truth_level=1)
            generate_dataset(warm, Path(tmp) / "warm.h5", executor=executor)
        for k in range(repeats):
            t0 = time.perf_counter()
            with open_executor(workers) as executor:
                generate_dataset(recipe, Path(tmp) / f"w{workers}_{k}.h5", executor=executor)
            seconds.append(time.perf_counter() - t0)
        digests = sorted({hashlib.sha256((Path(tmp) / f"w{workers}_{k}.h5").read_bytes())
                          .hexdigest() for k in range(repeats)})
    median = statistics.median(seconds)
    return {"workers": workers, "level": level, "problems": problems, "points": points,
            "seconds": median, "seconds_all": seconds, "problems_per_second": problems / median,
            "file_sha256": digests}


def truth_study(top: int, n_problems: int) -> dict:
    """Relative L² difference of levels 1 … top−1 to level ``top``, and the observed rates."""
    from surrogate.fem.families import fem_truth, get_family
    from surrogate.fem.families.truth import l2_difference

    family = get_family("inclusion")
    rows = []
    for mu in family.sample(n_problems, 7):
        problem = family.problem(mu)
        sols, times = {}, {}
        for level in range(1, top + 1):
            t0 = time.perf_counter()
            sols[level] = fem_truth(problem, "cylinder", level, order=0)
            times[level] = time.perf_counter() - t0
        rel = {level: float(np.divide(*l2_difference(sols[level], sols[top])))
               for level in range(1, top)}
        rates = {f"{a}-{a + 1}": float(np.log2(rel[a] / rel[a + 1])) for a in range(1, top - 1)}
        rows.append({"mu": mu.tolist(), "relative_l2_vs_top": rel, "rates": rates,
                     "solve_seconds": times})
    return {"top": top, "problems": rows,
            "median_relative_l2_vs_top": {level: statistics.median(
                r["relative_l2_vs_top"][level] for r in rows) for level in range(1, top)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--points", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--study", action="store_true")
    parser.add_argument("--top", type=int, default=4)
    parser.add_argument("--study-problems", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1700000000")  # fixed `created`: same bytes
    runs = [throughput(w, args.level, args.problems, args.points, args.repeats) for w in (1, 2)]
    result = {"benchmark": "family_data.gen-data-maxwell-family-inclusion",
              "threads": thread_settings(),
              "cpu_count": os.cpu_count(),
              "throughput": runs,
              "speedup_2_over_1": runs[1]["problems_per_second"] / runs[0]["problems_per_second"],
              "files_byte_identical": len({d for r in runs for d in r["file_sha256"]}) == 1}
    if args.study:
        result["truth_study"] = truth_study(args.top, args.study_problems)
    result["load_avg_1min"] = os.getloadavg()[0]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
