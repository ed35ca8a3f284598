"""The one writer of run directories, :func:`save_run` (each file atomically)."""

from __future__ import annotations

import datetime as _dt
import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from surrogate.core.atomic_files import write_atomic, write_text_atomic
from surrogate.core.errors import InputError
from surrogate.core.json_files import json_safe, write_json_file
from surrogate.models.normalisation import Normalisation
from surrogate.runs.history import history_to_csv
from surrogate.runs.layout import (
    CONFIG_FILE,
    HISTORY_FILE,
    METADATA_FILE,
    METRICS_FILE,
    MODEL_FILE,
    RUN_FORMAT,
    RUN_VERSION,
)

if TYPE_CHECKING:
    from torch import nn


def creation_time() -> str:
    """ISO-8601 UTC time (``SOURCE_DATE_EPOCH`` overrides the clock, as for datasets)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = (_dt.datetime.fromtimestamp(int(epoch), tz=_dt.timezone.utc) if epoch is not None
             else _dt.datetime.now(tz=_dt.timezone.utc))
    return stamp.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def dataset_info(dataset: Any) -> dict[str, Any]:
    """The JSON-safe description of a dataset recorded in every run (contract keys)."""
    return {"path": str(Path(dataset.path).resolve()), "content_hash": dataset.content_hash,
            "kind": getattr(dataset, "kind", "pointwise"), "problem": dataset.problem,
            "domain": dataset.domain,
            "input_names": list(dataset.input_names), "target_names": list(dataset.target_names),
            "recipe": json_safe(dataset.recipe), "n_samples": int(len(dataset)),
            "splits": {name: int(len(idx)) for name, idx in dataset.splits.items()}}


def plain_state_dict(model: nn.Module) -> dict[str, Any]:
    """The model's state as a plain dict of detached CPU tensors (no wrapper prefixes)."""
    module = getattr(model, "_orig_mod", model)  # torch.compile wrapper
    module = getattr(module, "module", module)  # DataParallel / DDP wrapper
    return {key: value.detach().cpu().clone() for key, value in module.state_dict().items()}


def save_run(run_dir: str | os.PathLike, *, model: nn.Module,
             train_config: Mapping[str, Any] | Any, normalisation: Normalisation,
             dataset: Mapping[str, Any], history: Sequence[Mapping[str, Any]],
             metrics: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> Path:
    """Write a complete run directory (each file atomically); returns its path.

    ``model.config`` (a ModelConfig) is the model config written; ``train_config`` is a
    TrainConfig or its dict. The files are listed in :mod:`surrogate.runs.layout`.
    """
    import torch

    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise InputError(f"run directory {run_dir} exists and is not a directory")
    run_dir.mkdir(parents=True, exist_ok=True)
    train = train_config.to_dict() if hasattr(train_config, "to_dict") else dict(train_config)
    config = {"format": RUN_FORMAT, "version": RUN_VERSION, "model": model.config.to_dict(),
              "train": train, "normalisation": normalisation.to_dict(),
              "dataset": dict(dataset), "extra": dict(extra or {})}
    state = plain_state_dict(model)
    write_atomic(run_dir / MODEL_FILE, lambda fh: torch.save(state, fh))
    write_json_file(run_dir / CONFIG_FILE, config)
    write_text_atomic(run_dir / HISTORY_FILE, history_to_csv(history))
    write_json_file(run_dir / METRICS_FILE, metrics)
    from surrogate.core.version import __version__

    metadata = {"format": RUN_FORMAT, "version": RUN_VERSION, "package_version": __version__,
                "torch_version": torch.__version__, "numpy_version": np.__version__,
                "python_version": platform.python_version(),
                "dataset_hash": dataset.get("content_hash"), "created": creation_time()}
    write_json_file(run_dir / METADATA_FILE, metadata)
    return run_dir


__all__ = ["save_run", "dataset_info", "plain_state_dict", "creation_time"]
