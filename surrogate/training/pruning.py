"""``surrogate prune``: delete hidden layers whose learned step is negligible (§7, Fig. 2).

A ResNet layer with τ^[k] = 0 is the identity (eq. 5.2: y^[k+1] = y^[k]), so layers with
τ^[k] < tol can be removed with an O(tol) change of the output; the Fractional-DNN
(eq. 5.7) changes by O(tol^γ). :func:`prune_run` applies ``model.prune(tol)``, measures
the relative L² error on every split of the run's dataset before and after, and writes a
complete run directory for the pruned model.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import torch

from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.interrupts import held_signals
from surrogate.models.registry import architecture_spec
from surrogate.runs.load import load_run
from surrogate.runs.run import Run
from surrogate.runs.save import save_run
from surrogate.training.config import TrainConfig
from surrogate.training.data import network_dataset
from surrogate.training.optimiser import make_optimizer, make_scheduler
from surrogate.training.prune_options import PruneOptions
from surrogate.training.split_metrics import dataset_classes, split_accuracies, split_errors
from surrogate.training.state import TrainingState


def run_dataset(run: Run, data: str | os.PathLike | None = None) -> Any:
    """The dataset a run was trained on (``data`` overrides the recorded path); DataFormatError
    when it is missing or its content hash differs from the run's."""
    from surrogate.datasets.reader import read_dataset

    recorded = run.dataset.get("path")
    path = Path(data) if data is not None else Path(recorded) if recorded else None
    if path is None:
        raise DataFormatError(f"{run.path}: the run records no dataset path; pass --data")
    if not path.is_file():
        hint = "" if data is not None else " (moved? pass its new location with --data)"
        raise DataFormatError(f"dataset {path} of run {run.path} not found{hint}")
    dataset = read_dataset(path)
    expected = run.dataset.get("content_hash")
    if expected and dataset.content_hash != expected:
        raise DataFormatError(f"dataset {path} has content hash {dataset.content_hash[:19]}…, "
                              f"but run {run.path} was trained on {str(expected)[:19]}…")
    return network_dataset(dataset, run.model_config)


def parameter_count(model: torch.nn.Module) -> int:
    """Number of trainable and fixed parameters of ``model``."""
    return int(sum(p.numel() for p in model.parameters()))


def prune_run(run_dir: str | os.PathLike, tol: float, out_dir: str | os.PathLike, *,
              data: str | os.PathLike | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Prune a run at ``tol`` and write the pruned run to ``out_dir``; returns the report.

    The report holds the τ before/after, the removed layers (indices into the source
    run's τ; the original layer numbers where the run was already pruned in training), the
    depth and parameter counts, and the relative L² errors on train/val/test before and
    after (physical units). ``tol`` is checked as ``prune --prune-tol`` is (:class:`PruneOptions`).
    """
    tol = PruneOptions(prune_tol=tol).prune_tol
    run = load_run(run_dir)
    if architecture_spec(run.model_config.arch).kind != "pointwise":
        raise InputError(f"{run_dir} is a {run.model_config.arch} run; prune deletes τ-layers of "
                         f"the pointwise networks only")
    out_dir = Path(out_dir)
    if out_dir.resolve() == Path(run_dir).resolve():
        raise InputError("the pruned run must go to a new directory (-o), not over its source")
    if (out_dir / "config.json").exists() and not overwrite:
        raise InputError(f"{out_dir} already holds a run; use --overwrite to replace it")
    dataset = run_dataset(run, data)
    taus_before = run.taus()
    errors_before = split_errors(run.model, dataset, run.normalisation)
    pruned, removed, new_config = run.model.prune(tol)
    pruned.eval()
    with torch.no_grad():
        taus_after = [float(t) for t in pruned.taus().cpu()]
    errors_after = split_errors(pruned, dataset, run.normalisation)
    layer_ids = list(run.extra.get("layer_ids") or range(len(taus_before)))
    kept_ids = [i for k, i in enumerate(layer_ids) if k not in removed]
    report = {
        "source": str(run_dir), "output": str(out_dir), "tol": float(tol),
        "arch": new_config.arch, "removed": list(removed),
        "removed_layers": [layer_ids[k] for k in removed],
        "kept_layers": kept_ids, "depth_before": len(taus_before),
        "depth_after": new_config.depth, "taus_before": taus_before, "taus_after": taus_after,
        "parameters_before": parameter_count(run.model),
        "parameters_after": parameter_count(pruned),
        "relative_l2_error_before": errors_before, "relative_l2_error_after": errors_after,
    }
    before, after = errors_before.get("test"), errors_after.get("test")
    report["test_error_change"] = (after - before) / before if before else None
    metrics = dict(run.metrics)
    metrics.update({
        "relative_l2_error": errors_after,
        **{f"{name}_relative_l2_error": value for name, value in errors_after.items()},
        "taus": taus_after, "layer_ids": kept_ids, "depth": new_config.depth,
        "accuracy": (split_accuracies(pruned, dataset, run.normalisation)
                     if dataset_classes(dataset) is not None else None),
        "parameter_count": report["parameters_after"],
        "pruned_from": report,
    })
    extra = {**run.extra, "layer_ids": kept_ids, "pruned_from": {
        "run": str(Path(run_dir).resolve()), "tol": float(tol),
        "removed_layers": report["removed_layers"]}}
    with held_signals():  # an interrupt cannot leave old and new run files mixed
        save_run(out_dir, model=pruned, train_config=run.train_config,
                 normalisation=run.normalisation, dataset=run.dataset, history=run.history,
                 metrics=metrics, extra=extra)
    return report


def prune_in_training(state: TrainingState, config: TrainConfig) -> dict[str, Any] | None:
    """Delete hidden layers with τ < prune_tol (model.prune); rebuild the optimiser, keep the
    schedule's position and the current lr. Returns the logged event or None."""
    with torch.no_grad():
        taus = [float(t) for t in state.model.taus().cpu()]
    new_model, removed, new_config = state.model.prune(config.prune_tol)
    if not removed:
        return None
    event = {"epoch": state.epoch, "removed_layers": [state.layer_ids[k] for k in removed],
             "removed_taus": [taus[k] for k in removed], "depth_before": len(taus),
             "depth_after": new_config.depth}
    state.layer_ids = [i for k, i in enumerate(state.layer_ids) if k not in removed]
    lrs = [group["lr"] for group in state.optimizer.param_groups]
    new_model.train()
    state.model = new_model
    state.optimizer = make_optimizer(new_model.parameters(), config)
    old_scheduler, state.scheduler = state.scheduler, make_scheduler(state.optimizer, config)
    if old_scheduler is not None:
        state.scheduler.load_state_dict(old_scheduler.state_dict())
    for group, lr in zip(state.optimizer.param_groups, lrs, strict=True):
        group["lr"] = lr
    state.best_val, state.best_state, state.bad_epochs = math.inf, None, 0
    state.prune_events.append(event)
    return event


__all__ = ["prune_run", "run_dataset", "prune_in_training", "parameter_count"]
