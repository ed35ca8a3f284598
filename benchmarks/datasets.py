"""Benchmark: gen-data maxwell (exact source) for 12k and 1M points; prints JSON.

Each repeat runs in a fresh subprocess, which reports wall time and peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``); the JSON holds the median time, the
largest peak RSS, the thread settings and the 1-minute load average.

Run: OMP_NUM_THREADS=2 python benchmarks/datasets.py [--domain cylinder] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from surrogate.datasets import MaxwellRecipe, generate_dataset
n, domain, out = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
t0 = time.perf_counter()
summary = generate_dataset(MaxwellRecipe(domain=domain, n=n, seed=0), out)
seconds = time.perf_counter() - t0
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"n": n, "seconds": seconds, "peak_rss_mb": rss_mb,
                  "file_mb": out.stat().st_size / 2**20}))
"""

LIMITS = {12_000: {"seconds": 2.0}, 1_000_000: {"seconds": 30.0, "peak_rss_mb": 1024.0}}


def _once(n: int, domain: str, out: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(n), domain, out],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="cylinder")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, limits in LIMITS.items():
            runs = [_once(n, args.domain, f"{tmp}/bench_{n}_{k}.h5") for k in range(args.repeats)]
            row = {"n": n, "seconds": statistics.median(r["seconds"] for r in runs),
                   "seconds_all": [r["seconds"] for r in runs],
                   "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
                   "file_mb": runs[0]["file_mb"], "limits": limits}
            row["ok"] = all(row[k] < v for k, v in limits.items())
            rows.append(row)
    print(json.dumps({"benchmark": "datasets.gen-data-maxwell", "domain": args.domain,
                      "repeats": args.repeats,
                      "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
                      "load_avg_1min": os.getloadavg()[0], "results": rows}, indent=2))


if __name__ == "__main__":
    main()
