"""Benchmark: locate and evaluate an N0 field at many random points; prints one JSON object.

Each repeat runs in a fresh subprocess (peak RSS = that process's ru_maxrss). Default: u_h and
curl u_h at 10⁶ uniform points of the unit cube at level 5 (n = 32: 196,608 tets, 238,688 DOFs).
Targets: evaluate_n0 (including building the point locator) ≤ 20 s and peak RSS ≤ 4 GB.

Run: OMP_NUM_THREADS=2 python benchmarks/point_evaluation.py --points 1000000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
import numpy as np
from skfem import Basis, ElementTetN0
from surrogate.fem.domains import get_domain
from surrogate.fem.point_evaluation import evaluate_n0, evaluate_n0_curl, locate_points

domain, level, n_points, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
rng = np.random.default_rng(seed)
d = get_domain(domain)
t0 = time.perf_counter()
basis = Basis(d.mesh(level), ElementTetN0())
t_setup = time.perf_counter() - t0
dofs = rng.standard_normal(basis.N)
x = d.sample(n_points, rng)
rss_before = rss()
t0 = time.perf_counter()
u = evaluate_n0(basis, dofs, x, outside="nan")  # cold: builds the locator (KD-tree)
t_value = time.perf_counter() - t0
t0 = time.perf_counter()
c = evaluate_n0_curl(basis, dofs, x, outside="nan")  # warm: locator reused
t_curl = time.perf_counter() - t0
t0 = time.perf_counter()
cells = locate_points(basis.mesh, x)
t_locate = time.perf_counter() - t0
print(json.dumps({
    "n_tets": int(basis.mesh.t.shape[1]), "ndofs": int(basis.N),
    "outside": int((cells < 0).sum()), "nan_rows": int(np.isnan(u[:, 0]).sum()),
    "seconds_setup": t_setup, "seconds_evaluate_n0": t_value,
    "seconds_evaluate_n0_curl": t_curl, "seconds_locate_warm": t_locate,
    "rss_before_gib": rss_before, "peak_rss_gib": rss(),
}))
"""


def main() -> None:
    """Run the repeats in fresh subprocesses and print medians plus the raw runs as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="cube")
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    runs = []
    for r in range(args.repeats):
        cmd = [sys.executable, "-c", _CHILD, args.domain, str(args.level), str(args.points),
               str(args.seed + r)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    keys = [k for k in runs[0] if k.startswith(("seconds", "peak", "rss"))]
    result = {
        "benchmark": "point_evaluation",
        "domain": args.domain, "level": args.level, "points": args.points,
        "repeats": args.repeats,
        "n_tets": runs[0]["n_tets"], "ndofs": runs[0]["ndofs"],
        "median": {k: statistics.median(run[k] for run in runs) for k in keys},
        "targets": {"seconds_evaluate_n0": 20.0, "peak_rss_gib": 4.0},
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "load_average_1min": os.getloadavg()[0],
        "cpu_count": os.cpu_count(),
        "runs": runs,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
