"""The one reader of run directories, :func:`load_run`, and the torch-free :func:`run_summary`.

Every missing, corrupt or inconsistent file is one DataFormatError line naming it; the model
config is checked against the stored tensors before any network is built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.json_files import json_safe
from surrogate.models.normalisation import Normalisation
from surrogate.runs.history import read_history
from surrogate.runs.layout import (
    CONFIG_FILE,
    CONFIG_SECTIONS,
    HISTORY_FILE,
    METADATA_FILE,
    METRICS_FILE,
    MODEL_FILE,
    RUN_FORMAT,
    RUN_VERSION,
)
from surrogate.runs.run import Run
from surrogate.runs.safe_load import load_state_dict_file, read_json_object

if TYPE_CHECKING:
    from torch import nn

    from surrogate.models.config import ModelConfig
    from surrogate.models.sequence_config import SequenceModelConfig


def _check_run_dir(run_dir: Path) -> None:
    if not run_dir.exists():
        raise DataFormatError(f"run directory {run_dir} does not exist")
    if not run_dir.is_dir():
        raise DataFormatError(f"{run_dir} is not a run directory (not a folder)")


def read_config(run_dir: str | os.PathLike) -> dict[str, Any]:
    """``config.json`` of a run, checked for format and the required sections."""
    run_dir = Path(run_dir)
    _check_run_dir(run_dir)
    config = read_json_object(run_dir / CONFIG_FILE)
    if config.get("format") != RUN_FORMAT:
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: format is {config.get('format')!r}, "
                              f"expected {RUN_FORMAT!r}")
    version = config.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= RUN_VERSION:
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: unsupported run version "
                              f"{version!r} (this reader: {RUN_VERSION})")
    missing = [k for k in CONFIG_SECTIONS if not isinstance(config.get(k), dict)]
    if missing:
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: missing section(s) {', '.join(missing)} "
                              f"(each must be a JSON object)")
    if not isinstance(config.get("extra", {}), dict):
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: section extra must be a JSON object")
    return config


def check_config_fits_state(model_config: ModelConfig | SequenceModelConfig,
                            state: Mapping[str, Any], source: Path) -> None:
    """Refuse a config needing more parameters than ``state`` holds, before building it.

    The registry knows a lower bound for every architecture (a τ-stepping network has
    ``depth`` affine maps and a linear output; a sequence model input, recurrent and read-out
    maps), so a config declaring a huge width, depth or hidden size is caught without
    allocating the model.
    """
    from surrogate.models.registry import parameter_floor

    needed = parameter_floor(model_config)
    held = sum(int(v.numel()) for v in state.values())
    if needed > held:
        raise DataFormatError(f"{source}: tensor shapes do not match the model config "
                              f"({model_config.arch} needs at least {needed} parameters, the "
                              f"file holds {held})")


def build_loaded_model(model_config: ModelConfig | SequenceModelConfig,
                       state: Mapping[str, Any], source: Path) -> nn.Module:
    """The network of ``model_config`` with ``state`` loaded (dtype taken from the state)."""
    from surrogate.models.registry import build_model

    check_config_fits_state(model_config, state, source)
    model = build_model(model_config)
    expected = model.state_dict()
    if set(state) != set(expected):
        missing = sorted(set(expected) - set(state))
        unexpected = sorted(set(state) - set(expected))
        raise DataFormatError(f"{source}: state_dict does not match the model config "
                              f"(missing {missing[:4]}, unexpected {unexpected[:4]})")
    bad = [k for k, v in state.items() if tuple(v.shape) != tuple(expected[k].shape)]
    if bad:
        raise DataFormatError(f"{source}: tensor {bad[0]} has shape {tuple(state[bad[0]].shape)}"
                              f", the model config needs {tuple(expected[bad[0]].shape)}")
    reference = state.get("output.weight", next(iter(state.values()), None))
    dtype = None if reference is None else reference.dtype
    if dtype is not None:
        model.to(dtype=dtype)
    model.load_state_dict(state, strict=True)
    return model.eval()


def load_run(run_dir: str | os.PathLike) -> Run:
    """Read a run directory written by :func:`~surrogate.runs.save.save_run`; DataFormatError
    when missing or corrupt."""
    from surrogate.models.registry import config_from_dict

    run_dir = Path(run_dir)
    config = read_config(run_dir)
    try:
        model_config = config_from_dict(config["model"])
    except InputError as exc:
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: bad model config: {exc}") from None
    normalisation = Normalisation.from_dict(config["normalisation"])
    if (normalisation.in_features, normalisation.out_features) != (
            model_config.in_features, model_config.out_features):
        raise DataFormatError(f"{run_dir / CONFIG_FILE}: normalisation sizes do not match the "
                              "model's input/output sizes")
    state = load_state_dict_file(run_dir / MODEL_FILE)
    model = build_loaded_model(model_config, state, run_dir / MODEL_FILE)
    history = read_history(run_dir / HISTORY_FILE)
    metrics = read_json_object(run_dir / METRICS_FILE)
    metadata = read_json_object(run_dir / METADATA_FILE)
    return Run(path=run_dir, model=model, model_config=model_config,
               train_config=dict(config["train"]), normalisation=normalisation,
               dataset=dict(config["dataset"]), history=history, metrics=metrics,
               metadata=metadata, extra=dict(config.get("extra") or {}))


def run_summary(run_dir: str | os.PathLike) -> dict[str, Any]:
    """JSON-safe summary of a run (no torch needed): arch, configs, dataset, metrics, epochs."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    metrics = read_json_object(run_dir / METRICS_FILE)
    metadata = read_json_object(run_dir / METADATA_FILE)
    model = config["model"]
    dataset = config["dataset"]
    data_kind = dataset.get("kind", "pointwise")  # runs before sequences recorded no kind
    tau = "learned" if model.get("tau") is None else model.get("tau")
    return json_safe({
        "path": str(run_dir), "kind": "run", "arch": model.get("arch"),
        "data_kind": data_kind, "hidden": model.get("hidden"),
        "width": model.get("width"), "depth": model.get("depth"),
        "tau": tau if data_kind == "pointwise" else None,
        "model": model, "train": config["train"], "dataset": dataset,
        "dataset_hash": dataset.get("content_hash"), "metrics": metrics,
        "epochs": metrics.get("epochs_run"), "stop_reason": metrics.get("stop_reason"),
        "extra": config.get("extra") or {}, "created": metadata.get("created"),
        "package_version": metadata.get("package_version"),
        "torch_version": metadata.get("torch_version"),
    })


__all__ = ["load_run", "read_config", "check_config_fits_state", "build_loaded_model",
           "run_summary"]
