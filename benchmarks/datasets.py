"""Benchmark: gen-data maxwell (exact source) for 12k and 1M points; prints JSON.

Each case runs in a fresh subprocess, which reports wall time and peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``).

Run: python benchmarks/datasets.py [--domain cylinder]
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domain", default="cylinder")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, limits in LIMITS.items():
            out = subprocess.run([sys.executable, "-c", _CHILD, str(n), args.domain,
                                  f"{tmp}/bench_{n}.h5"], capture_output=True, text=True,
                                 check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["limits"] = limits
            row["ok"] = all(row[k] < v for k, v in limits.items())
            rows.append(row)
    print(json.dumps({"benchmark": "datasets.gen-data-maxwell", "domain": args.domain,
                      "results": rows}, indent=2))


if __name__ == "__main__":
    main()
