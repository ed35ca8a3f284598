"""One-line reasons for a failed epoch: divergence, a failed implicit solve, what was kept."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from surrogate.core.errors import SolverError
from surrogate.training.state import TrainingState


def kept_checkpoint(path: Path, last_saved: int | None) -> str:
    """Which checkpoint survives a failed epoch, as the end of a one-line message."""
    if last_saved is None:
        return "no checkpoint had been written yet"
    return f"kept the last good checkpoint {path} (epoch {last_saved})"


def last_good_epoch(state: TrainingState) -> str:
    """'last good epoch E: train loss …, val loss …' (or 'no earlier epoch')."""
    last = state.history[-1] if state.history else None
    if last is None:
        return "no earlier epoch"
    val = last.get("val_loss")
    return (f"last good epoch {last['epoch']}: train loss {last['train_loss']:.3e}"
            + ("" if val is None else f", val loss {val:.3e}"))


def divergence_message(state: TrainingState, what: str, lr: float, kept: str) -> str:
    """One line: which value became non-finite in which epoch, and the last good epoch."""
    return (f"{what} not finite at epoch {state.epoch} ({last_good_epoch(state)}; lr {lr:g}): "
            f"training diverged, try a smaller --lr or --grad-clip; {kept}")


def solve_failure_message(state: TrainingState, error: SolverError, lr: float,
                          kept: str) -> str:
    """One line: the implicit solve that failed in which epoch, and the last good epoch."""
    reason = " ".join(str(error).split())
    return (f"implicit solve failed at epoch {state.epoch} ({last_good_epoch(state)}; "
            f"lr {lr:g}): {reason}; {kept}")


def check_finite(state: TrainingState, train_loss: float, penalty: float,
                 val_loss: float | None, lr: float, kept: str) -> None:
    """SolverError (:func:`divergence_message`) when a loss or a parameter is not finite."""
    bad = [f"{name} loss is" for name, v in (("training", train_loss), ("penalty", penalty),
                                              ("validation", val_loss))
           if v is not None and not math.isfinite(v)]
    if not bad and not all(bool(torch.isfinite(p).all()) for p in state.model.parameters()):
        bad = ["a parameter is"]
    if bad:
        raise SolverError(divergence_message(state, bad[0], lr, kept))


__all__ = ["kept_checkpoint", "last_good_epoch", "divergence_message", "solve_failure_message",
           "check_finite"]
