"""Benchmark: query latency of a family surrogate per problem, through the predictor; JSON.

Three query patterns, each per problem (medians):

- ``field``: the whole field at the cube's level-4 nodes (4,913), one problem at a time;
- ``probes``: 100 probe points in the cube, one problem at a time;
- ``field_batch``: the whole field for ``--batch`` problems (default 1,000) in one call,
  its time divided by the batch.

for the separable model (``deeponet``: trunk features cached per point set) and the
``params`` ResNet (normalised points cached), at 1 and 2 threads; the ResNet's field query
is also timed the way ``evaluate`` used to run it (rows built in numpy per query,
``run.predict``). The predictor's one-off set-up per point set is reported apart.

Runs: ``--separable RUN`` and ``--resnet RUN`` (trained family runs); without them both
are stand-ins fitted for one epoch on a small radial file with the architectures of
``--separable-model`` / ``--resnet-model`` (latency depends on the sizes, not the weights).

Run: python benchmarks/predict.py [--separable runs/sep --resnet runs/params]
     [--threads 1,2] [--repeats 5] [--batch 1000] [--device cpu]
Smoke: python benchmarks/predict.py --threads 1 --repeats 1 --batch 10 --problems 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

SEPARABLE_MODEL = {"arch": "deeponet", "inputs": "params", "width": 64, "depth": 3,
                   "basis": 64, "activation": "silu", "tau_init": 1.0,
                   "quadratic_output": True}
RESNET_MODEL = {"arch": "resnet", "inputs": "params", "width": 128, "depth": 6,
                "activation": "silu", "tau_init": 1.0, "quadratic_output": True}


def stand_in_runs(root: Path, separable: dict, resnet: dict) -> dict[str, Path]:
    """Two family runs of the given architectures, one epoch on 40 problems × 200 points."""
    from surrogate.datasets import MaxwellFamilyRecipe, generate_dataset
    from surrogate.training.loop import fit

    data = root / "radial.h5"
    generate_dataset(MaxwellFamilyRecipe(family="radial", problems=40, points=200, seed=0),
                     data)
    train = {"epochs": 1, "batch_size": 1024, "lr": 1e-3}
    return {"separable": fit(data, separable, train, root / "separable").path,
            "resnet": fit(data, resnet, train, root / "resnet").path}


def _median_seconds(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_run(run, label: str, args: argparse.Namespace, points: dict, mu: np.ndarray) -> dict:
    """Per-problem medians of every query pattern for one run at the current thread count."""
    from surrogate.predict import Predictor

    out: dict = {"label": label, "arch": run.model_config.arch}
    predictors = {}
    for name, where in points.items():
        start = time.perf_counter()
        predictors[name] = Predictor(run, where, device=args.device, dtype=args.dtype)
        out[f"{name}_setup_seconds"] = time.perf_counter() - start
    for name, predictor in predictors.items():
        predictor.predict(mu[0])  # warm-up: lazy initialisation outside the timings
        one = [_median_seconds(lambda m=m, p=predictor: p.predict(m), args.repeats)
               for m in mu[:args.problems]]
        out[f"{name}_seconds"] = statistics.median(one)
    batch = mu[:args.batch]
    field = predictors["field"]
    field.predict(batch[:2])
    out["field_batch_seconds"] = _median_seconds(lambda: field.predict(batch),
                                                 args.repeats) / len(batch)
    out["batch"] = len(batch)
    if not field.separable:  # the query as evaluate ran it: numpy rows, run.predict
        from surrogate.evaluation.family.measure import FamilyPredictor
        from surrogate.fem.families import get_family

        old = FamilyPredictor.from_run(label, run, None)
        family = get_family(str(run.dataset["family"]))
        problems = [family.problem(m) for m in mu[:args.problems]]
        old(points["field"].points, problems[0])
        out["field_seconds_rows_per_query"] = statistics.median(
            _median_seconds(lambda p=p: old(points["field"].points, p), args.repeats)
            for p in problems)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--separable", type=Path, help="A trained deeponet family run.")
    parser.add_argument("--resnet", type=Path, help="A trained params ResNet family run.")
    parser.add_argument("--separable-model", type=json.loads, default=SEPARABLE_MODEL)
    parser.add_argument("--resnet-model", type=json.loads, default=RESNET_MODEL)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--problems", type=int, default=20,
                        help="Problems timed one at a time (median over them).")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--level", type=int, default=4, help="Cube level of the field query.")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()

    import torch

    from surrogate.fem.domains import get_domain
    from surrogate.fem.families import get_family
    from surrogate.predict import PointSet
    from surrogate.runs.load import load_run

    with tempfile.TemporaryDirectory() as tmp:
        paths = {"separable": args.separable, "resnet": args.resnet}
        stand_ins = None in paths.values()
        if stand_ins:
            torch.set_num_threads(max(int(t) for t in args.threads.split(",")))
            made = stand_in_runs(Path(tmp), args.separable_model, args.resnet_model)
            paths = {k: v or made[k] for k, v in paths.items()}
        runs = {label: load_run(path) for label, path in paths.items()}
        points = {"field": PointSet.from_domain("cube", args.level),
                  "probes": PointSet(get_domain("cube").sample(
                      args.probes, np.random.default_rng(0)), None, "probes")}
        box = np.asarray(runs["separable"].dataset["param_box"], dtype=float)
        mu = get_family("radial").sample(max(args.batch, args.problems), 1, box=box)
        results = []
        for threads in (int(t) for t in args.threads.split(",")):
            torch.set_num_threads(threads)
            for label, run in runs.items():
                results.append({"threads": threads, **time_run(run, label, args, points, mu)})
    print(json.dumps({
        "benchmark": "predict.query-latency", "device": args.device, "dtype": args.dtype,
        "field_nodes": len(points["field"]), "probes": args.probes,
        "repeats": args.repeats, "problems_one_at_a_time": args.problems,
        "runs": {k: str(v) for k, v in paths.items()},
        "stand_in_runs": stand_ins, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "load_avg_1min": os.getloadavg()[0], "results": results}, indent=2))


if __name__ == "__main__":
    main()
