"""Benchmark: `surrogate fit` on a quiet machine and beside one busy core, by threads and policy.

The demo recipe (``make demo``): ``surrogate gen-data maxwell`` with its defaults, then
``surrogate fit DATA --arch frac-dnn`` with its defaults, here for ``--epochs`` (200) epochs.
Each fit runs as its own process (the OpenMP runtime reads its settings when torch loads),
``--repeats`` times per setting, for every combination of

- load: ``quiet``, or ``busy`` (``--busy`` spinning Python processes started before the fit
  and stopped after it: one busy core of the machine);
- threads: ``--threads`` (OMP_NUM_THREADS = MKL_NUM_THREADS = n; default 1,2);
- policy: ``--policies`` (default ``library``): ``library`` = nothing set, what ``fit`` picks
  by itself (surrogate.core.thread_settings); ``passive`` / ``active`` = OMP_WAIT_POLICY;
  ``runtime-default`` = GNU OpenMP's own default (GOMP_SPINCOUNT=300000, ≈ 3 ms of spinning:
  what ``fit`` ran with before it set a policy); ``spin=N`` = GOMP_SPINCOUNT=N.

Reported per setting: the median (and all) training seconds (metrics.json ``wall_time_s``,
the epochs alone) and process seconds (start to exit), the thread record of metrics.json
(threads, CPUs, policy and who set it); per threads and policy the ratio busy / quiet of the
medians. Targets (2 threads, ``library``): busy <= 1.5 × quiet, quiet within 10 % of 6.4 s.
Prints JSON.

Run:   python benchmarks/contention.py [--epochs 200] [--repeats 3] [--threads 1,2]
       [--policies library,runtime-default] [--data demo.h5] [--points N] [--busy 1]
Smoke: python benchmarks/contention.py --epochs 2 --repeats 1 --points 400
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

QUIET_REFERENCE_S = 6.4  # 200 epochs, 2 threads, quiet 2-core machine, before the policy
BUSY_OVER_QUIET_TARGET = 1.5
QUIET_TOLERANCE = 0.10
POLICY_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def surrogate(*args: str | Path) -> list[str]:
    """The command line ``surrogate ARGS`` with this interpreter."""
    return [sys.executable, "-m", "surrogate", *map(str, args)]


def policy_env(policy: str, threads: int) -> dict[str, str]:
    """The environment of one fit: the thread variables and the policy's OpenMP settings."""
    env = {k: v for k, v in os.environ.items() if k not in POLICY_VARIABLES}
    env.update({"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)})
    if policy in ("passive", "active"):
        env["OMP_WAIT_POLICY"] = policy.upper()
    elif policy == "runtime-default":
        env["GOMP_SPINCOUNT"] = "300000"
    elif policy.startswith("spin="):
        env["GOMP_SPINCOUNT"] = str(int(policy.removeprefix("spin=")))
    elif policy != "library":
        raise SystemExit(f"unknown policy {policy!r}: library, passive, active, "
                         "runtime-default or spin=N")
    return env


@contextlib.contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """``count`` processes spinning in Python for the duration of the block."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(count)]
    try:
        time.sleep(0.5)  # let them start spinning
        yield
    finally:
        for proc in spinners:
            proc.terminate()
        for proc in spinners:
            proc.wait(timeout=30)


def demo_data(path: Path, points: int | None) -> Path:
    """The demo's dataset (``gen-data maxwell`` defaults; ``points`` rows for a smoke run)."""
    args = ["gen-data", "maxwell", "-o", path, "--quiet"]
    if points is not None:
        args += ["-n", str(points)]
    subprocess.run(surrogate(*args), check=True)
    return path


def time_fit(data: Path, out: Path, epochs: int, threads: int, policy: str, timeout: float
             ) -> dict:
    """One demo fit: training and process seconds and the metrics' thread record."""
    command = surrogate("fit", data, "--arch", "frac-dnn", "--epochs", str(epochs), "-o", out,
                        "--overwrite", "--quiet")
    tic = time.perf_counter()
    done = subprocess.run(command, env=policy_env(policy, threads), capture_output=True,
                          text=True, timeout=timeout)
    process_s = time.perf_counter() - tic
    if done.returncode != 0:
        raise SystemExit(f"fit failed ({done.returncode}): {done.stderr.strip()}")
    metrics = json.loads((out / "metrics.json").read_text())
    return {"train_s": metrics["wall_time_s"], "process_s": process_s,
            "threads": metrics.get("threads", {"num_threads": metrics.get("num_threads")})}


def summary(times: list[dict]) -> dict:
    """Medians and all values of one setting's repeats."""
    return {"median_train_s": statistics.median(t["train_s"] for t in times),
            "median_process_s": statistics.median(t["process_s"] for t in times),
            "train_s": [t["train_s"] for t in times],
            "process_s": [t["process_s"] for t in times], "threads": times[-1]["threads"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--policies", default="library", help="comma-separated policies")
    parser.add_argument("--busy", type=int, default=1, help="spinning processes when busy")
    parser.add_argument("--data", type=Path, default=None, help="dataset (default: demo's)")
    parser.add_argument("--points", type=int, default=None, help="rows of generated data")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per fit")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    policies = args.policies.split(",")
    for policy in policies:
        policy_env(policy, 1)  # unknown names fail before any work
    settings = [(load, n, policy) for load in ("quiet", "busy") for n in threads
                for policy in policies]
    times: dict[tuple, list[dict]] = {s: [] for s in settings}
    with tempfile.TemporaryDirectory(prefix="contention-") as tmp:
        data = args.data or demo_data(Path(tmp) / "maxwell.h5", args.points)
        for _ in range(args.repeats):  # repeats outermost: drift spreads over all settings
            for load, n, policy in settings:
                with busy_cores(args.busy) if load == "busy" else contextlib.nullcontext():
                    times[load, n, policy].append(time_fit(
                        data, Path(tmp) / "run", args.epochs, n, policy, args.timeout))
    results = {f"{load}/{n} threads/{policy}": summary(times[load, n, policy])
               for load, n, policy in settings}
    ratios = {f"{n} threads/{policy}": results[f"busy/{n} threads/{policy}"]["median_train_s"]
              / results[f"quiet/{n} threads/{policy}"]["median_train_s"]
              for n in threads for policy in policies}
    report = {"benchmark": "fit.contention", "epochs": args.epochs, "repeats": args.repeats,
              "busy_processes": args.busy, "cpus": len(os.sched_getaffinity(0)),
              "data": str(args.data or f"gen-data maxwell -n {args.points or 'default'}"),
              "results": results, "busy_over_quiet": ratios}
    if 2 in threads and "library" in policies:
        quiet = results["quiet/2 threads/library"]["median_train_s"]
        report["targets"] = {
            "busy_over_quiet_max": BUSY_OVER_QUIET_TARGET,
            "busy_over_quiet_ok": ratios["2 threads/library"] <= BUSY_OVER_QUIET_TARGET,
            "quiet_reference_s": QUIET_REFERENCE_S,
            "quiet_within_10_percent": (args.epochs == 200 and abs(quiet / QUIET_REFERENCE_S - 1)
                                        <= QUIET_TOLERANCE),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
