"""Benchmark: scale-out of data generation and training, 1 vs 2 workers; prints JSON.

Generation: ``gen-data maxwell-td`` on its N0 path (skfem order 0, one Newmark step per output
step, no Richardson: the settings of the measurements in docs/results/scale-out.md, not the
recipe's converged defaults) with every sample its own material (one FEM run per
sample: the FEM-heavy case), serial and on a 2-process pool
(:func:`surrogate.datasets.executors.open_executor`). Throughput in samples/s after one
untimed warm-up generation (mesh and operators built; the pool's start-up, paid once per
command, is reported apart); each configuration is timed ``--repeats`` times (median), and
the files must be byte-identical.

Training: ``surrogate fit`` in one process (1 thread, then 2 threads) and ``--nproc 2``
(DistributedDataParallel over gloo, 1 thread each) on the same data, full batch by default;
steps/s from the run's own epoch timings (``history.csv`` seconds: start-up, data loading
and evaluation excluded), median over the epochs of a run, then over ``--repeats`` runs.

Every section records the thread settings and the 1-minute load average before and after
(other processes on the machine show there).

Run: python benchmarks/scaling.py [--repeats 3] [--level 3] [--samples 12] [--epochs 40]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("SOURCE_DATE_EPOCH", "1700000000")  # byte-identical files


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def generation(args: argparse.Namespace, folder: Path) -> dict:
    """maxwell-td samples/s with 1 and 2 local worker processes."""
    from surrogate.datasets import generate_dataset
    from surrogate.datasets.executors import open_executor
    from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
    from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe

    recipe = MaxwellTDRecipe(level=args.level, n=args.samples, n_materials=args.samples,
                             steps=args.steps, seed=0, **N0_TD_SETTINGS)
    results, digests = {}, {}
    for workers in (1, 2):
        load_before = _load()
        tic = time.perf_counter()
        with open_executor(workers=workers) as executor:
            startup = time.perf_counter() - tic
            if executor is not None:  # start the workers, load the mesh once in each
                list(executor.map(_warm, [recipe] * workers))
            warm = time.perf_counter() - tic
            generate_dataset(recipe, folder / f"warm-{workers}.h5", executor=executor)
            times = []
            for repeat in range(args.repeats):
                out = folder / f"mtd-{workers}-{repeat}.h5"
                start = time.perf_counter()
                generate_dataset(recipe, out, executor=executor)
                times.append(time.perf_counter() - start)
                digests.setdefault(workers, set()).add(
                    hashlib.sha256(out.read_bytes()).hexdigest())
        median = statistics.median(times)
        results[str(workers)] = {
            "workers": workers, "median_s": median, "samples_per_s": args.samples / median,
            "times_s": times, "pool_startup_s": warm if workers > 1 else 0.0,
            "pool_created_s": startup, "load_avg_1min_before": load_before,
            "load_avg_1min_after": _load()}
    identical = len(digests[1] | digests[2]) == 1
    return {"recipe": {"level": args.level, "n": args.samples, "n_materials": args.samples,
                       "steps": args.steps, **N0_TD_SETTINGS},
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "results": results, "identical_files": identical,
            "speedup_2_workers": results["1"]["median_s"] / results["2"]["median_s"]}


def _warm(recipe) -> int:
    from surrogate.datasets.sequence.maxwell_td_stream import cached_setup

    cached_setup(recipe)
    return os.getpid()


def _fit(data: Path, out: Path, args: argparse.Namespace, nproc: int, threads: int) -> float:
    """Median seconds per step of one ``surrogate fit`` run (from its history.csv)."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    command = [sys.executable, "-m", "surrogate", "fit", str(data), "-o", str(out),
               "--overwrite", "--width", "50", "--depth", "6", "--epochs", str(args.epochs),
               "--checkpoint-every", "100000", "--seed", "0", "-q"]
    if args.batch_size:
        command += ["--batch-size", str(args.batch_size)]
    if nproc > 1:
        command += ["--nproc", str(nproc)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    with open(out / "history.csv") as fh:
        seconds = [float(row["seconds"]) for row in csv.DictReader(fh)]
    steps = 1 if not args.batch_size else -(-args.train_rows // args.batch_size)
    return statistics.median(seconds[2:]) / steps  # the first epochs warm up


def training(args: argparse.Namespace, folder: Path) -> dict:
    """DDP steps/s: 1 process (1 and 2 threads) vs 2 processes (1 thread each)."""
    from surrogate.datasets import MaxwellRecipe, generate_dataset, read_dataset

    data = folder / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=args.rows, seed=0), data)
    args.train_rows = len(read_dataset(data).splits["train"])
    results = {}
    for label, nproc, threads in (("1proc_1thread", 1, 1), ("1proc_2threads", 1, 2),
                                  ("2proc_1thread", 2, 1)):
        load_before = _load()
        step_s = [_fit(data, folder / f"run-{label}", args, nproc, threads)
                  for _ in range(args.repeats)]
        median = statistics.median(step_s)
        results[label] = {"processes": nproc, "threads_per_process": threads,
                          "median_step_s": median, "steps_per_s": 1.0 / median,
                          "step_s": step_s, "load_avg_1min_before": load_before,
                          "load_avg_1min_after": _load()}
    base = results["1proc_1thread"]["median_step_s"]
    return {"model": "resnet width 50 depth 6, float32, Adam",
            "train_rows": args.train_rows,
            "batch": "full" if not args.batch_size else args.batch_size,
            "results": results,
            "speedup_2proc_vs_1proc_1thread": base / results["2proc_1thread"]["median_step_s"],
            "speedup_2proc_vs_1proc_2threads":
                results["1proc_2threads"]["median_step_s"]
                / results["2proc_1thread"]["median_step_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--level", type=int, default=3, help="maxwell-td mesh level")
    parser.add_argument("--samples", type=int, default=12, help="maxwell-td samples")
    parser.add_argument("--steps", type=int, default=100, help="maxwell-td time steps")
    parser.add_argument("--rows", type=int, default=15_000, help="Maxwell rows for training")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=0, help="0: full batch")
    parser.add_argument("--skip", choices=("generation", "training"), default=None)
    args = parser.parse_args()
    report: dict = {"benchmark": "scaling", "cpus": os.cpu_count(),
                    "load_avg_1min_start": _load()}
    with tempfile.TemporaryDirectory() as tmp:
        if args.skip != "generation":
            report["generation"] = generation(args, Path(tmp))
        if args.skip != "training":
            report["training"] = training(args, Path(tmp))
    report["load_avg_1min_end"] = _load()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
