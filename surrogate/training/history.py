"""One row of history.csv per epoch, and the progress line shown for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from surrogate.training.dataset_kind_rules import kind_rules
from surrogate.training.state import TrainingState


def epoch_record(state: TrainingState, train_loss: float, penalty: float,
                 val_loss: float | None, grad_norms: list[float], lr: float, seconds: float
                 ) -> dict[str, Any]:
    """One history row: losses, lr, time, then the columns of the model's kind."""
    record: dict[str, Any] = {"epoch": state.epoch, "train_loss": train_loss,
                              "penalty": penalty, "objective": train_loss + penalty,
                              "val_loss": val_loss, "lr": lr, "seconds": seconds}
    record.update(kind_rules(state.kind).history_columns(state.model, state.layer_ids,
                                                         grad_norms))
    return record


def format_taus(taus: list[float], limit: int = 6) -> str:
    """The first ``limit`` steps τ, then an ellipsis: ``[0.1 0.2 …]``."""
    shown = " ".join(f"{t:.3g}" for t in taus[:limit])
    return f"[{shown}{' …' if len(taus) > limit else ''}]"


def steps_text(record: Mapping[str, Any]) -> str:
    """The progress line's step sizes: τ of the layers, or the learned Δt range."""
    taus = [v for k, v in record.items() if k.startswith("tau_")]
    if taus:
        return f"  τ {format_taus(taus)}"
    if "dt_mean" in record:
        return f"  Δt {record['dt_min']:.3g}…{record['dt_max']:.3g}"
    return ""


def progress_line(record: Mapping[str, Any], epochs: int) -> str:
    """``epoch E/N  train J  val J  τ […]`` for one history row."""
    val = record["val_loss"]
    val_text = "n/a" if val is None else f"{val:.3e}"
    return (f"epoch {record['epoch']}/{epochs}  train {record['train_loss']:.3e}  "
            f"val {val_text}{steps_text(record)}")


__all__ = ["epoch_record", "progress_line", "steps_text", "format_taus"]
