"""Benchmark: error against time for every FEM backend and order (issue 28).

Two studies, both the mixed solve (eq. 7.1) on the unit cube through the FEM-method registry
(:mod:`surrogate.fem.hcurl.registry`), timed mesh → u_h (the solution's stages: mesh
conversion, assembly with the data, solve; the mesh itself and the errors excluded), median
of ``--repeats``:

- ``eq72``: eq. 7.2 on ``--levels`` (0–4; 0 = the 6 tets of one cell) for every installed
  (backend, order): DOFs, relative L² error ‖u − u_h‖/‖u‖ by the toolkit's quadrature,
  seconds, solver. A case whose H(curl) DOFs would exceed ``--max-dofs`` (8× the previous
  level's) is skipped and listed.
- ``radial``: ``--problems`` (32) unseen `radial` problems, the draw `surrogate evaluate`
  makes for data of seed ``--seed`` − 1 (sobol, seed ``--seed``), on the same levels; per
  (backend, order) and target relative error (0.25, 0.62, 1, 2 %) the time to reach it on each
  problem (the fastest level whose error is at most the target), its median and p90 over the
  problems and how many problems reach it at all.

Each thread count of ``--threads`` (1 2) runs in a child process with OMP/OpenBLAS/MKL threads
set to it (and NGSolve's ``SetNumThreads``), so BLAS pools never mix. Prints one JSON object.

Run (quiet machine):  python benchmarks/fem_backends.py > fem_backends.json
Smoke (seconds):      python benchmarks/fem_backends.py --levels 1 --problems 2 --repeats 1
                      --threads 1 --max-dofs 2000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial

TARGETS = (0.0025, 0.0062, 0.01, 0.02)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _solve_case(method, mesh, problem, repeats: int, threads: int) -> dict:
    """Median mesh → u_h seconds over ``repeats`` and the errors of the last solution."""
    from surrogate.fem.hcurl.errors import error_intorder, field_l2_norm, hcurl_errors

    seconds, solution = [], None
    for _ in range(repeats):
        solution = method.run(mesh, problem, method="solve", threads=threads)
        seconds.append(sum(solution.timings.values()))
    error = hcurl_errors(solution, problem.u, None)[0]
    norm = field_l2_norm(mesh, problem.u, intorder=error_intorder(method.order))
    return {"ndofs": solution.ndofs, "seconds": statistics.median(seconds),
            "all_seconds": seconds, "relative_l2_error": error / norm,
            "solver": solution.solve_info.to_dict()}


def _level_row(method, meshes, problem, repeats: int, threads: int, level: int) -> dict:
    """One (method, problem, level) case as a row."""
    return {"level": level, **_solve_case(method, meshes[level], problem, repeats, threads)}


def _levels_of(method, levels, max_dofs, run_level):
    """Run ``run_level(level)`` on increasing levels while the DOFs stay under ``max_dofs``;
    returns (rows, skipped levels)."""
    rows, skipped, last = [], [], None
    for level in levels:
        if last is not None and 8 * last > max_dofs:
            skipped.append(level)
            continue
        row = run_level(level)
        rows.append(row)
        last = row["ndofs"]
    return rows, skipped


def _child(args) -> dict:
    """One thread count: both studies for every installed (backend, order)."""
    import numpy as np

    from surrogate.fem.domains import get_domain
    from surrogate.fem.families import get_family
    from surrogate.fem.hcurl.registry import fem_methods, parse_backends
    from surrogate.fem.problems import get_problem

    threads = args.child_threads
    methods = fem_methods(parse_backends(args.backends))
    domain = get_domain("cube")
    meshes = {level: domain.mesh(level) for level in args.levels}
    maxwell = get_problem("maxwell")
    for method in methods:  # warm-up: imports, first-call caches
        method.run(meshes[args.levels[0]], maxwell, method="solve", threads=threads)
    eq72 = []
    for method in methods:
        rows, skipped = _levels_of(method, args.levels, args.max_dofs, partial(
            _level_row, method, meshes, maxwell, args.repeats, threads))
        eq72.append({"backend": method.backend, "order": method.order, "label": method.label,
                     "rows": rows, "skipped_levels": skipped})
    family = get_family("radial")
    params = family.sample(args.problems, args.seed)
    problems = [family.problem(np.asarray(mu)) for mu in params]
    radial = []
    for method in methods:
        per_problem, skipped_all = [], set()
        for problem in problems:
            rows, skipped = _levels_of(method, args.levels, args.max_dofs, partial(
                _level_row, method, meshes, problem, args.repeats, threads))
            per_problem.append(rows)
            skipped_all.update(skipped)
        radial.append({"backend": method.backend, "order": method.order,
                       "label": method.label, "targets": _target_times(per_problem),
                       "skipped_levels": sorted(skipped_all)})
    return {"threads": threads, "eq72": eq72, "radial": radial}


def _target_times(per_problem: list[list[dict]]) -> dict:
    """Per target: median / p90 over problems of the fastest time reaching it (levels)."""
    out = {}
    for target in TARGETS:
        times, choices = [], []
        for rows in per_problem:
            hits = [r for r in rows if r["relative_l2_error"] <= target]
            best = min(hits, key=lambda r: r["seconds"]) if hits else None
            choices.append(None if best is None else {k: best[k] for k in
                                                      ("level", "ndofs", "seconds")})
            if best is not None:
                times.append(best["seconds"])
        out[f"{100 * target:g}%"] = {
            "reached": len(times), "problems": len(per_problem),
            "median_seconds": statistics.median(times) if times else None,
            "p90_seconds": _quantile(times, 0.9) if times else None,
            "per_problem": choices}
    return out


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--problems", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1, help="sobol seed of the radial draw")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--max-dofs", type=int, default=150_000)
    ap.add_argument("--backends", default=None, help="comma-separated; default all installed")
    ap.add_argument("--child-threads", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_threads is not None:
        print(json.dumps(_child(args)))
        return
    load_before = os.getloadavg()[0]
    runs, started = [], time.perf_counter()
    for threads in args.threads:
        env = {**os.environ, **{v: str(threads) for v in THREAD_VARIABLES}}
        cmd = [sys.executable, __file__, "--child-threads", str(threads), "--levels",
               *map(str, args.levels), "--problems", str(args.problems), "--seed",
               str(args.seed), "--repeats", str(args.repeats), "--max-dofs",
               str(args.max_dofs)] + (["--backends", args.backends] if args.backends else [])
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    print(json.dumps({"benchmark": "fem_backends", "domain": "cube", "levels": args.levels,
                      "problems": args.problems, "seed": args.seed, "repeats": args.repeats,
                      "max_dofs": args.max_dofs, "targets": list(TARGETS),
                      "load_average": [load_before, os.getloadavg()[0]],
                      "wall_seconds": time.perf_counter() - started, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
