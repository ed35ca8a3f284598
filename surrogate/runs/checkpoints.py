"""Training checkpoints (``checkpoint.pt``): everything needed to resume a run exactly.

Written with ``torch.save`` (plain containers and tensors only) and read back with
``torch.load(weights_only=True)``; every field resuming needs is checked on reading.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import write_atomic
from surrogate.core.errors import DataFormatError
from surrogate.runs.layout import CHECKPOINT_FORMAT, CHECKPOINT_VERSION
from surrogate.runs.safe_load import check_tensors, is_plain_state_dict, load_weights_only

CHECKPOINT_FIELDS: dict[str, tuple[type, ...]] = {
    "epoch": (int,), "model_config": (dict,), "model": (dict,), "optimizer": (dict,),
    "scheduler": (dict, type(None)), "history": (list,), "layer_ids": (list,),
    "prune_events": (list,), "best": (dict,), "stop_reason": (str, type(None)),
    "train_seconds": (int, float), "train_config": (dict,), "normalisation": (dict,),
    "dataset": (dict,),
}
"""Fields a checkpoint must have, with the container types each may take."""

PARTIAL_EPOCH_TENSORS = ("generator", "data_sum", "penalty_sum", "grad_sq_sum")
"""Tensors of the optional ``partial_epoch`` (an epoch stopped between two mini-batches),
beside ``batches`` (the mini-batches taken, >= 1) and ``seconds``."""


def save_checkpoint(path: str | os.PathLike, payload: Mapping[str, Any]) -> Path:
    """Write a training checkpoint atomically (plain containers and tensors only)."""
    import torch

    body = {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload}
    return write_atomic(path, lambda fh: torch.save(body, fh))


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint with ``torch.load(weights_only=True)``; DataFormatError otherwise."""
    path = Path(path)
    payload = load_weights_only(path, "a checkpoint", missing="no checkpoint to resume from")
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise DataFormatError(f"{path}: not a {CHECKPOINT_FORMAT} file")
    version = payload.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise DataFormatError(f"{path}: checkpoint version {version!r} is not an integer >= 1")
    if version > CHECKPOINT_VERSION:
        raise DataFormatError(f"{path}: checkpoint version {version} is newer "
                              f"than this reader ({CHECKPOINT_VERSION})")
    check_checkpoint_fields(payload, path)
    return payload


def check_checkpoint_fields(payload: Mapping[str, Any], path: Path) -> None:
    """The fields resuming needs exist with the right container types; weights are finite."""
    import torch

    wrong = [key for key, types in CHECKPOINT_FIELDS.items()
             if not isinstance(payload.get(key, ...), types) or isinstance(payload[key], bool)]
    if wrong:
        raise DataFormatError(f"{path}: checkpoint field(s) {', '.join(wrong)} missing or of "
                              f"the wrong type")
    if payload["epoch"] < 0 or not isinstance(payload.get("generator"), torch.Tensor):
        raise DataFormatError(f"{path}: checkpoint epoch or generator state is invalid")
    if not all(isinstance(row, dict) for row in payload["history"]) \
            or not all(isinstance(e, dict) for e in payload["prune_events"]) \
            or not all(isinstance(i, int) and not isinstance(i, bool)
                       for i in payload["layer_ids"]):
        raise DataFormatError(f"{path}: checkpoint history, prune_events or layer_ids malformed")
    if not _valid_partial_epoch(payload.get("partial_epoch")):
        raise DataFormatError(f"{path}: checkpoint partial_epoch malformed")
    if not isinstance(payload.get("defaults_applied"), dict | type(None)):
        raise DataFormatError(f"{path}: checkpoint defaults_applied is not a dict")
    for what, state in (("model", payload["model"]), ("best", payload["best"].get("state"))):
        if what == "best" and state is None:
            continue
        if not is_plain_state_dict(state):
            raise DataFormatError(f"{path}: checkpoint {what} weights are not a plain state_dict")
        check_tensors(state, path, f"checkpoint {what}")


def _valid_partial_epoch(partial: Any) -> bool:
    """None (the checkpoint is at an epoch's end), or the position within an epoch."""
    import torch

    if partial is None:
        return True
    if not isinstance(partial, dict):
        return False
    batches, seconds = partial.get("batches"), partial.get("seconds")
    return (all(isinstance(partial.get(k), torch.Tensor) for k in PARTIAL_EPOCH_TENSORS)
            and all(bool(torch.isfinite(partial[k]).all()) for k in PARTIAL_EPOCH_TENSORS[1:])
            and isinstance(batches, int) and not isinstance(batches, bool) and batches >= 1
            and isinstance(seconds, int | float) and not isinstance(seconds, bool))


__all__ = ["save_checkpoint", "load_checkpoint", "check_checkpoint_fields", "CHECKPOINT_FIELDS",
           "PARTIAL_EPOCH_TENSORS"]
