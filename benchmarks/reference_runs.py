"""The subprocess side of benchmarks/reference_sequences.py: one run per call.

``python benchmarks/reference_runs.py SPEC.json`` runs the spec and writes its result JSON
(``spec["result"]``). Kinds: ``data`` (the arrays the authors' FitzHugh–Nagumo ``data.py``
draws for a seed), ``authors`` (one of their task scripts, from its temporary copy, as
``__main__``: seeded, every ``nn.MSELoss`` call recorded, stopped at the target or at the
first call past the wall-clock budget) and ``ours`` (:func:`surrogate.fit`). Their code is
never imported from this repository.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

LAST_BATCH = 128
"""The authors' evaluation batch: their ``eval`` returns the loss of the last one only."""


class TargetReached(Exception):
    """Raised inside a run once its held-out MSE is at or below the target."""


class BudgetSpent(Exception):
    """Raised inside a run once its wall-clock budget (``spec["max_seconds"]``) is spent."""


def deadline(spec: dict, start: float) -> float | None:
    """The perf_counter time at which the run's budget ends (None: no budget)."""
    budget = spec.get("max_seconds")
    return None if budget is None else start + float(budget)


def record_losses(calls: list, target: float | None, ends: float | None = None):
    """Replace torch.nn.MSELoss by a subclass appending (time, training?, Σ(ŷ−y)², count,
    loss, √loss as their scripts take it) per call; an evaluation loss ≤ ``target`` raises
    :class:`TargetReached`, a call after ``ends`` :class:`BudgetSpent`."""
    import torch

    class RecordingMSELoss(torch.nn.MSELoss):
        def forward(self, prediction, truth):
            if ends is not None and time.perf_counter() > ends:
                raise BudgetSpent
            loss = super().forward(prediction, truth)
            grad = torch.is_grad_enabled()
            diff = (prediction.detach().double() - truth.detach().double())
            calls.append((time.perf_counter(), grad, float((diff ** 2).sum()), diff.numel(),
                          float(loss.detach()), torch.sqrt(loss.detach()).item()))
            if not grad and target is not None and float(loss) <= target:
                raise TargetReached
            return loss

    torch.nn.MSELoss = RecordingMSELoss


def run_authors(spec: dict) -> dict:
    """Their script (``spec["script"]`` in its copy) as ``__main__``, seeded, recorded."""
    import runpy

    import torch
    torch.set_num_threads(spec["threads"])
    os.chdir(spec["run_dir"])
    sys.path.insert(0, str(Path(spec["script"]).parent))
    torch.manual_seed(spec["seed"])
    np.random.seed(spec["seed"])
    calls: list = []
    start, scope, reached, spent = time.perf_counter(), {}, False, False
    record_losses(calls, spec.get("target"), deadline(spec, start))
    sys.argv = [spec["script"], *spec["args"]]
    try:
        scope = runpy.run_path(spec["script"], run_name="__main__")
    except TargetReached:
        reached = True
    except BudgetSpent:
        spent = True
    out = {"wall_s": time.perf_counter() - start, "threads": torch.get_num_threads(),
           "target_reached": reached, "budget_spent": spent,
           "device": str(spec.get("device", "cpu"))}
    if spec["task"] == "fhn":
        data = np.load(spec["data"])
        out["same_data"] = all(np.array_equal(scope[k], data[k]) for k in data.files)
        out.update(fhn_from_calls(calls, spec["epochs"], scope["final_test_loss"]))
    else:
        out.update(adding_from_calls(calls))
    return out


def fhn_from_calls(calls: list, epochs: int, final_test_loss: float) -> dict:
    """Per epoch: their val RMSE (1 batch), test RMSE over all batches and the last; the
    best-validation epoch as their loop picks it (first strict minimum)."""
    blocks, block = [], []
    for call in calls:
        if call[1]:
            if block:
                blocks.append(block)
            block = []
        else:
            block.append(call)
    blocks.append(block)
    assert len(blocks) == epochs, (len(blocks), epochs)
    val = [b[0][5] for b in blocks]  # torch.sqrt(loss).item(), their validation number
    best = min(range(epochs), key=lambda e: (val[e], e))
    test = blocks[best][1:]
    ends = [b[-1][0] for b in blocks]
    evals = [b[-1][0] - b[0][0] for b in blocks]
    per_epoch = (ends[-1] - ends[0]) / (epochs - 1) if epochs > 1 else None
    return {"best_epoch": best + 1, "best_val_rmse": val[best],
            "test_rmse_all": math.sqrt(sum(c[2] for c in test) / sum(c[3] for c in test)),
            "test_rmse_last_batch": math.sqrt(test[-1][2] / test[-1][3]),
            "their_final_test_loss": float(final_test_loss),
            "their_number_reproduced": test[-1][5] == float(final_test_loss),
            "wall_per_epoch_s": per_epoch,
            "wall_per_epoch_without_test_eval_s":
                None if per_epoch is None else per_epoch - statistics.mean(evals[1:])}


def adding_from_calls(calls: list) -> dict:
    """Held-out MSE against training steps, steps to the target, steps per second."""
    curve, steps, stamps = [], 0, []
    for t, grad, _, _, loss, _ in calls:
        if grad:
            steps += 1
            stamps.append(t)
        else:
            curve.append((steps, loss))
    gaps = np.diff(stamps)
    span = stamps[-1] - calls[0][0] if steps else 0.0
    return {"steps": steps, "curve": curve, "seconds_per_step_median": float(np.median(gaps))
            if len(gaps) else None, "steps_per_s": steps / span if span > 0 else None}


def authors_data(spec: dict) -> dict:
    """The arrays their FitzHugh–Nagumo script draws for ``seed`` (np.random.seed, then
    128 train, 128 val, 1024 test sequences), saved to ``spec["out"]``."""
    sys.path.insert(0, spec["code"])
    import data  # their data.py, from the copy
    np.random.seed(spec["seed"])
    arrays = {}
    for split, n in (("train", 128), ("valid", 128), ("test", 1024)):
        arrays[f"{split}_x"], arrays[f"{split}_y"] = data.get_data(n)
    np.savez(spec["out"], **arrays)
    return {"shapes": {k: list(v.shape) for k, v in arrays.items()}}


def run_ours(spec: dict) -> dict:
    """``surrogate.fit`` on ``spec["data"]``; FHN: test RMSE over all and the last batch;
    adding: the val MSE per epoch (stopping at the target)."""
    import torch

    from surrogate import fit
    from surrogate.runs.predict import predict_sequences
    torch.set_num_threads(spec["threads"])
    curve, per_epoch = [], spec.get("steps_per_epoch", 1)
    scale = spec.get("target_var", 1.0)

    def on_epoch(record: dict) -> None:
        curve.append((record["epoch"] * per_epoch, 2.0 * record["val_loss"] * scale,
                      record["seconds"]))
        if spec.get("target") is not None and curve[-1][1] <= spec["target"]:
            raise TargetReached
        if ends is not None and time.perf_counter() > ends:
            raise BudgetSpent

    start, reached, spent = time.perf_counter(), False, False
    ends = deadline(spec, start)
    try:
        run = fit(spec["data"], model=spec["model"], train=spec["train"],
                  out_dir=spec["run_dir"], overwrite=True, on_epoch=on_epoch)
    except TargetReached:
        reached, run = True, None
    except BudgetSpent:
        spent, run = True, None
    out = {"wall_s": time.perf_counter() - start, "threads": torch.get_num_threads(),
           "wall_per_epoch_s": statistics.mean(c[2] for c in curve) if curve else None,
           "device": spec["train"].get("device", "cpu")}
    if spec["task"] == "adding":
        steps = curve[-1][0] if curve else 0
        return {**out, "target_reached": reached, "budget_spent": spent, "steps": steps,
                "steps_per_s": steps / sum(c[2] for c in curve) if curve else None,
                "curve": [(s, v) for s, v, _ in curve]}
    test = np.load(spec["arrays"])
    err = predict_sequences(run.model, run.normalisation, test["test_x"]) - test["test_y"]
    return {**out, "best_epoch": run.metrics["best_epoch"],
            "test_rmse_all": float(np.sqrt(np.mean(err ** 2))),
            "test_rmse_last_batch": float(np.sqrt(np.mean(err[-LAST_BATCH:] ** 2))),
            "metrics_rmse_test": run.metrics["rmse"]["test"],
            "parameters": run.metrics["parameter_count"]}


def worker(spec_path: str) -> None:
    """Run one spec (JSON file) and write its result next to it."""
    spec = json.loads(Path(spec_path).read_text())
    result = {"data": authors_data, "authors": run_authors, "ours": run_ours}[spec["kind"]](spec)
    Path(spec["result"]).write_text(json.dumps(result))


if __name__ == "__main__":
    worker(sys.argv[1])
