"""metrics.json of a finished run: the errors of its kind, then sizes, timings, stopping."""

from __future__ import annotations

import os
from typing import Any

import torch

from surrogate.core.thread_settings import available_cpus, wait_policy
from surrogate.models.normalisation import Normalisation
from surrogate.training.config import TrainConfig
from surrogate.training.dataset_kind_rules import kind_rules
from surrogate.training.state import TrainingState
from surrogate.training.threads import thread_choice


def run_metrics(state: TrainingState, dataset: Any, normalisation: Normalisation,
                config: TrainConfig) -> dict[str, Any]:
    """metrics.json of a finished run: errors per split, τ, sizes, timings, stop reason.

    ``accuracy`` is ``{"train", "val", "test"}``
    (:func:`surrogate.training.split_metrics.split_accuracies`) for classification datasets
    (root attribute ``classes``) and None for regression datasets.
    Sequence runs report per-sequence errors instead of τ
    (:func:`surrogate.training.sequence.sequence_metrics`).
    """
    errors_part = kind_rules(state.kind).error_metrics(state.model, state.layer_ids, dataset,
                                                       normalisation)
    return {**errors_part, **training_metrics(state, config)}


def training_metrics(state: TrainingState, config: TrainConfig) -> dict[str, Any]:
    """Sizes, timings, stopping and the machine of any run."""
    last = state.history[-1] if state.history else {}
    return {
        "parameter_count": int(sum(p.numel() for p in state.model.parameters())),
        "wall_time_s": state.train_seconds,
        "epochs_run": state.epoch,
        "stop_reason": state.stop_reason,
        "best_epoch": state.best_epoch if state.best_state is not None else state.epoch,
        "final_train_loss": last.get("train_loss"),
        "final_val_loss": last.get("val_loss"),
        "pruning": list(state.prune_events),
        "device": str(next(state.model.parameters()).device),
        "dtype": config.dtype,
        "num_threads": torch.get_num_threads(),
        "threads": thread_record(),
    }


def thread_record() -> dict[str, Any]:
    """The threads training ran on: torch's intra-op count, the CPUs it may use, the thread
    variables, the OpenMP wait policy (:func:`surrogate.core.thread_settings.wait_policy`)
    and how the fit chose the count (:func:`surrogate.training.threads.thread_choice`)."""
    return {"num_threads": torch.get_num_threads(), "cpus": available_cpus(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), **wait_policy(),
            **thread_choice()}


__all__ = ["run_metrics", "training_metrics", "thread_record"]
