"""Benchmark: N0 best approximation and mixed Maxwell solves on the unit cube; prints JSON lines.

Each (n, method, solver, repeat) runs in a fresh subprocess: mesh (n cells per side, n = 2**level
is cube level `level`) -> ``n0.best_approximation`` / ``n0.solve_maxwell`` -> L² and
curl errors. Per case it prints the median over repeats of the stage times (mesh, basis,
assembly, solve; "total" = mesh -> solution, errors excluded), iterations, residual, the peak
RSS of the child (ru_maxrss), OMP_NUM_THREADS and the 1-min load average before and after.
Then the fitted exponent k of total ~ ndofs^k per (method, solver).

Run: OMP_NUM_THREADS=2 python benchmarks/fem.py --n 8 16 32 --big --repeats 3
Targets (2 cores): n=32 (~239k DOFs) best ≤ 15 s, solve ≤ 60 s; n=48 (~795k) best ≤ 60 s and
≤ 10 GB; k ≤ 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

_CHILD = r"""
import json, math, os, resource, sys, time
t_import = time.perf_counter()
import numpy as np
from skfem import MeshTet
from surrogate.fem.hcurl.skfem import n0
from surrogate.fem.problems import get_problem
n, method, solver = int(sys.argv[1]), sys.argv[2], sys.argv[3]
problem = get_problem("maxwell")
t0 = time.perf_counter()
mesh = MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)
t_mesh = time.perf_counter() - t0
fun = n0.best_approximation if method == "best" else n0.solve_maxwell
sol = fun(mesh, problem, solver=solver)
total = time.perf_counter() - t0
t1 = time.perf_counter()
e_l2, e_curl = n0.hcurl_errors(sol, problem.u, problem.curl_u)
timings = {"mesh": t_mesh, **sol.timings, "errors": time.perf_counter() - t1}
level = int(round(math.log2(n))) if n & (n - 1) == 0 else None
print(json.dumps({
    "n": n, "level": level, "method": method, "solver": solver, "ndofs": sol.ndofs,
    "n_tets": int(mesh.t.shape[1]), "timings": timings, "total": total,
    "import_seconds": t0 - t_import, "iterations": sol.solve_info.iterations,
    "residual": sol.solve_info.residual, "solver_method": sol.solve_info.method,
    "solver_ndofs": sol.solve_info.ndofs, "l2_error": e_l2, "curl_l2_error": e_curl,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}))
"""

DIRECT_MAX_N = 16  # sparse direct beyond ~30k unknowns takes > 10 s (SuperLU fill in 3D)


def _run(n: int, method: str, solver: str) -> dict:
    load_before = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n), method, solver],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"case n={n} {method} {solver} failed:\n{out.stderr}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["load_avg_1min"] = [load_before, os.getloadavg()[0]]
    return row


def _median_row(runs: list[dict]) -> dict:
    row = dict(runs[0])
    row["total"] = float(np.median([r["total"] for r in runs]))
    row["timings"] = {k: float(np.median([r["timings"][k] for r in runs]))
                      for k in runs[0]["timings"]}
    row["total_all"] = [r["total"] for r in runs]
    row["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    row["load_avg_1min"] = [min(r["load_avg_1min"][0] for r in runs),
                            max(r["load_avg_1min"][1] for r in runs)]
    row["repeats"] = len(runs)
    return row


def main() -> None:
    """Run the chosen cases, print one JSON line per case, then the fitted exponents."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[8, 16, 32], help="cells per side")
    ap.add_argument("--big", action="store_true", help="also n=48 (≈795k DOFs), best only")
    ap.add_argument("--methods", nargs="+", default=["best", "solve"],
                    choices=["best", "solve"])
    ap.add_argument("--solvers", nargs="+", default=["direct", "iterative"],
                    choices=["auto", "direct", "iterative"])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    cases = [(n, m, s) for n in args.n for m in args.methods for s in args.solvers
             if not (s == "direct" and n > DIRECT_MAX_N)]
    if args.big:
        cases.append((48, "best", "iterative"))
    print(json.dumps({"omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                      "cpu_count": os.cpu_count(), "load_avg": os.getloadavg()}), flush=True)
    rows = []
    for n, m, s in cases:
        row = _median_row([_run(n, m, s) for _ in range(args.repeats)])
        rows.append(row)
        print(json.dumps(row), flush=True)
    for m in args.methods:
        for s in args.solvers:
            sel = [r for r in rows if r["method"] == m and r["solver"] == s]
            if len(sel) >= 2:
                k = np.polyfit(np.log([r["ndofs"] for r in sel]),
                               np.log([r["total"] for r in sel]), 1)[0]
                print(json.dumps({"fit": "total ~ ndofs^k", "method": m, "solver": s,
                                  "k": float(k), "ndofs": [r["ndofs"] for r in sel]}))


if __name__ == "__main__":
    main()
