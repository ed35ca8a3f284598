"""The optimiser and the per-epoch learning-rate schedule of a TrainConfig."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import torch

from surrogate.training.config import TrainConfig


def make_optimizer(params: Iterable[torch.nn.Parameter], config: TrainConfig
                   ) -> torch.optim.Optimizer:
    """Adam, SGD (steepest descent, optional momentum) or L-BFGS (strong Wolfe line search,
    up to 20 iterations per step, i.e. per batch and epoch). Adam runs fused (one kernel over
    every parameter per step): on small networks the per-tensor update loop was a fifth of a
    mini-batch step."""
    params = list(params)
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr, fused=True)
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr, momentum=config.momentum)
    return torch.optim.LBFGS(params, lr=config.lr, max_iter=20,
                             history_size=config.lbfgs_history, line_search_fn="strong_wolfe")


class CosineFactor:
    """lr(e)/lr = r + (1 − r)(1 + cos(π min(e, E)/E))/2 with r = lr_min/lr (closed form)."""

    def __init__(self, epochs: int, ratio: float) -> None:
        self.epochs, self.ratio = epochs, ratio

    def __call__(self, epoch: int) -> float:
        progress = min(epoch, self.epochs) / self.epochs
        return self.ratio + (1.0 - self.ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def make_scheduler(optimizer: torch.optim.Optimizer, config: TrainConfig) -> Any:
    """The per-epoch LR schedule (None for ``"none"``)."""
    sched = torch.optim.lr_scheduler
    if config.schedule == "cosine":
        return sched.LambdaLR(optimizer, CosineFactor(config.epochs, config.lr_min / config.lr))
    if config.schedule == "step":
        return sched.StepLR(optimizer, step_size=config.step_every, gamma=config.step_factor)
    if config.schedule == "plateau":
        return sched.ReduceLROnPlateau(optimizer, factor=config.step_factor,
                                       patience=config.step_every, min_lr=config.lr_min)
    return None


def step_scheduler(scheduler: Any, monitored: float) -> None:
    """Advance the schedule by one epoch (a plateau schedule watches ``monitored``)."""
    if scheduler is None:
        return
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        scheduler.step(monitored)
    else:
        scheduler.step()


__all__ = ["make_optimizer", "make_scheduler", "step_scheduler", "CosineFactor"]
