"""The evolving state of a training run and its checkpoint (what exact resume restores)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from surrogate.core.errors import DataFormatError, InputError
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import config_from_dict
from surrogate.runs.load import build_loaded_model
from surrogate.runs.save import plain_state_dict
from surrogate.training.config import TrainConfig
from surrogate.training.dataset_kind_rules import kind_rules
from surrogate.training.optimiser import make_optimizer, make_scheduler


@dataclass
class PartialEpoch:
    """An epoch stopped between two mini-batches: what continuing it exactly needs."""

    generator: Tensor
    """State of the shuffling generator at the epoch's start (it draws the batch order)."""
    batches: int
    """Mini-batches of the epoch already taken."""
    data_sum: Tensor
    penalty_sum: Tensor
    grad_sq_sum: Tensor
    """The epoch's running sums of the logged J, penalty and squared gradient norms."""
    seconds: float = 0.0
    """Seconds the epoch has run so far."""

    def to_dict(self) -> dict[str, Any]:
        """Plain containers and tensors (a checkpoint's ``partial_epoch``)."""
        return {"generator": self.generator, "batches": self.batches,
                "data_sum": self.data_sum, "penalty_sum": self.penalty_sum,
                "grad_sq_sum": self.grad_sq_sum, "seconds": self.seconds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], device: torch.device) -> PartialEpoch:
        """Inverse of :meth:`to_dict`, the sums on ``device``."""
        return cls(generator=data["generator"], batches=int(data["batches"]),
                   data_sum=data["data_sum"].to(device), penalty_sum=data["penalty_sum"].to(device),
                   grad_sq_sum=data["grad_sq_sum"].to(device), seconds=float(data["seconds"]))


@dataclass
class TrainingState:
    """Everything that evolves during training (what a checkpoint stores)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: Any
    generator: torch.Generator
    epoch: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    layer_ids: list[int] = field(default_factory=list)
    prune_events: list[dict[str, Any]] = field(default_factory=list)
    best_val: float = math.inf
    best_epoch: int = 0
    best_state: dict[str, Tensor] | None = None
    bad_epochs: int = 0
    stop_reason: str | None = None
    train_seconds: float = 0.0
    kind: str = "pointwise"
    partial: PartialEpoch | None = None
    """Set while epoch ``epoch + 1`` is stopped between two mini-batches."""


def new_state(model: nn.Module, config: TrainConfig, shuffle_seed: int,
              kind: str = "pointwise") -> TrainingState:
    """Fresh optimiser, schedule and shuffling generator for ``model`` on ``kind`` data
    (sequence models have no τ-layers: no layer ids)."""
    optimizer = make_optimizer(model.parameters(), config)
    generator = torch.Generator().manual_seed(shuffle_seed)
    return TrainingState(model=model, optimizer=optimizer,
                         scheduler=make_scheduler(optimizer, config), generator=generator,
                         layer_ids=kind_rules(kind).layer_ids(model), kind=kind)


def track_best(state: TrainingState, patience: int | None, monitored: float) -> None:
    """Early stopping: keep the best weights; stop after ``patience`` epochs without gain."""
    if patience is None:
        return
    if monitored < state.best_val:
        state.best_val, state.best_epoch, state.bad_epochs = monitored, state.epoch, 0
        state.best_state = plain_state_dict(state.model)
    else:
        state.bad_epochs += 1
        if state.bad_epochs >= patience:
            state.stop_reason = "early-stopping"


def checkpoint_payload(state: TrainingState, config: TrainConfig,
                       normalisation: Normalisation, dataset: Mapping[str, Any]) -> dict:
    """The checkpoint of ``state`` (plain containers and tensors: weights_only-loadable)."""
    return {
        "epoch": state.epoch,
        "model_config": state.model.config.to_dict(),
        "model": plain_state_dict(state.model),
        "optimizer": state.optimizer.state_dict(),
        "scheduler": None if state.scheduler is None else state.scheduler.state_dict(),
        "generator": state.generator.get_state(),
        "history": [dict(row) for row in state.history],
        "layer_ids": list(state.layer_ids),
        "prune_events": [dict(e) for e in state.prune_events],
        "best": {"val": state.best_val, "epoch": state.best_epoch, "state": state.best_state,
                 "bad_epochs": state.bad_epochs},
        "stop_reason": state.stop_reason,
        "train_seconds": state.train_seconds,
        "partial_epoch": None if state.partial is None else state.partial.to_dict(),
        "train_config": config.to_dict(),
        "normalisation": normalisation.to_dict(),
        "dataset": dict(dataset),
    }


def restore_state(payload: Mapping[str, Any], config: TrainConfig, device: torch.device,
                  dtype: torch.dtype, source: Path, kind: str = "pointwise") -> TrainingState:
    """Rebuild the TrainingState a checkpoint describes (model, optimiser, schedule, RNG)."""
    try:
        model_config = config_from_dict(payload["model_config"])
        model = build_loaded_model(model_config, payload["model"], source).to(device, dtype)
        model.train()
        state = new_state(model, config, 0, kind)
        state.optimizer.load_state_dict(payload["optimizer"])
        if state.scheduler is not None and payload["scheduler"] is not None:
            state.scheduler.load_state_dict(payload["scheduler"])
        state.generator.set_state(payload["generator"])
        best = payload["best"]
        state.epoch = int(payload["epoch"])
        state.history = [dict(row) for row in payload["history"]]
        state.layer_ids = [int(i) for i in payload["layer_ids"]]
        state.prune_events = [dict(e) for e in payload["prune_events"]]
        state.best_val, state.best_epoch = float(best["val"]), int(best["epoch"])
        state.best_state = best["state"]
        state.bad_epochs = int(best["bad_epochs"])
        state.stop_reason = payload["stop_reason"]
        state.train_seconds = float(payload["train_seconds"])
        partial = payload.get("partial_epoch")  # absent from checkpoints before mid-epoch stops
        state.partial = None if partial is None else PartialEpoch.from_dict(partial, device)
    except (KeyError, TypeError, ValueError, RuntimeError, InputError) as exc:
        raise DataFormatError(f"{source}: incomplete or inconsistent checkpoint "
                              f"({type(exc).__name__}: {exc})") from None
    return state


__all__ = ["PartialEpoch", "TrainingState", "new_state", "track_best", "checkpoint_payload",
           "restore_state"]
