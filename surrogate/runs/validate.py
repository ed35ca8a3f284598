"""Full check of a run directory (``surrogate validate RUN_DIR``): every problem, one line each.

Where :func:`surrogate.runs.load.load_run` stops at the first problem, :func:`validate_run`
goes on and lists them all: config sections and their types, model.pt loadable with
``torch.load(weights_only=True)`` with every tensor finite and of the shape the model
config builds, metrics/metadata/history readable, the dataset content hash recorded.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError, InputError
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.runs.history import read_history
from surrogate.runs.layout import (
    CHECKPOINT_FILE,
    CONFIG_FILE,
    CONFIG_SECTIONS,
    HISTORY_FILE,
    METADATA_FILE,
    METRICS_FILE,
    MODEL_FILE,
    RUN_FORMAT,
    RUN_VERSION,
)
from surrogate.runs.load import load_run
from surrogate.runs.safe_load import load_weights_only, read_json_object

DATASET_KEYS = ("path", "content_hash", "problem", "domain", "input_names", "target_names",
                "recipe")
"""Keys every run records about its training data (contract of ``Run.dataset``)."""
_HASH = re.compile(r"sha256:[0-9a-f]{64}")
MAX_LISTED = 20
"""At most this many tensor problems are listed one by one (then a count)."""


def _message(exc: Exception, path: Path) -> str:
    """The one-line text of ``exc`` without a leading ``"<path>: "`` (the caller adds it)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.removeprefix(f"{path}: ")


def _check_config(config: dict[str, Any], problems: list[str]) -> tuple[Any, Any]:
    """Append config problems; return (model config | None, Normalisation | None).

    The model config class (ModelConfig, SequenceModelConfig) follows the stored ``arch``
    (:func:`surrogate.models.registry.config_from_dict`).
    """
    from surrogate.models.normalisation import Normalisation
    from surrogate.models.registry import config_from_dict
    from surrogate.training.config import TrainConfig

    where = CONFIG_FILE
    if config.get("format") != RUN_FORMAT:
        problems.append(f"{where}: format is {config.get('format')!r}, expected {RUN_FORMAT!r}")
    version = config.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= RUN_VERSION:
        problems.append(f"{where}: version {version!r} is not a supported run version "
                        f"(1..{RUN_VERSION})")
    for section in CONFIG_SECTIONS:
        if not isinstance(config.get(section), dict):
            problems.append(f"{where}: section {section!r} is missing or not a JSON object")
    if not isinstance(config.get("extra", {}), dict):
        problems.append(f"{where}: section 'extra' is not a JSON object")
    model_config = normalisation = None
    if isinstance(config.get("model"), dict):
        try:
            model_config = config_from_dict(config["model"])
        except (InputError, TypeError) as exc:
            problems.append(f"{where}: model: {_message(exc, Path(where))}")
    if isinstance(config.get("train"), dict):
        try:
            TrainConfig.from_dict(config["train"])
        except (InputError, TypeError) as exc:
            problems.append(f"{where}: train: {_message(exc, Path(where))}")
    if isinstance(config.get("normalisation"), dict):
        try:
            normalisation = Normalisation.from_dict(config["normalisation"])
        except DataFormatError as exc:
            problems.append(f"{where}: normalisation: {exc}")
    if model_config is not None and normalisation is not None and (
            normalisation.in_features, normalisation.out_features) != (
            model_config.in_features, model_config.out_features):
        problems.append(f"{where}: normalisation has {normalisation.in_features} inputs and "
                        f"{normalisation.out_features} outputs, the model "
                        f"{model_config.in_features} and {model_config.out_features}")
    if isinstance(config.get("dataset"), dict):
        _check_dataset_section(config["dataset"], model_config, problems)
    return model_config, normalisation


def _check_dataset_section(dataset: dict[str, Any], model_config: Any,
                           problems: list[str]) -> None:
    where = f"{CONFIG_FILE}: dataset"
    missing = [k for k in DATASET_KEYS if k not in dataset]
    if missing:
        problems.append(f"{where}: missing {', '.join(missing)}")
    digest = dataset.get("content_hash")
    if "content_hash" in dataset and not (isinstance(digest, str) and _HASH.fullmatch(digest)):
        problems.append(f"{where}: content_hash {digest!r} is not 'sha256:<64 hex digits>'")
    for key, size in (("input_names", getattr(model_config, "in_features", None)),
                      ("target_names", getattr(model_config, "out_features", None))):
        names = dataset.get(key)
        if key not in dataset:
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            problems.append(f"{where}: {key} is not a list of column names")
        elif size is not None and len(names) != size:
            problems.append(f"{where}: {len(names)} {key} but the model has {size} "
                            f"{'inputs' if key == 'input_names' else 'outputs'}")


def _check_weights(run_dir: Path, model_config: Any, problems: list[str]) -> None:
    """model.pt: weights-only loadable, plain state_dict, finite floats, shapes of the config."""
    import torch

    path = run_dir / MODEL_FILE
    try:
        state = load_weights_only(path, "a plain state_dict",
                                  missing="missing (not a complete run directory)")
    except DataFormatError as exc:
        problems.append(f"{MODEL_FILE}: {_message(exc, path)}")
        return
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        problems.append(f"{MODEL_FILE}: not a plain state_dict (a dict of name -> tensor), "
                        f"got {type(state).__name__}")
        return
    found: list[str] = []
    for key, value in state.items():
        if value.layout != torch.strided or value.dtype not in (torch.float32, torch.float64):
            found.append(f"{MODEL_FILE}: tensor {key!r} is {value.dtype} ({value.layout}), "
                         f"expected a dense float32/float64 tensor")
        elif not bool(torch.isfinite(value).all()):
            bad = int((~torch.isfinite(value)).sum())
            found.append(f"{MODEL_FILE}: tensor {key!r} has {bad} non-finite values")
    if model_config is not None:
        found.extend(_shape_problems(state, model_config))
    problems.extend(found[:MAX_LISTED])
    if len(found) > MAX_LISTED:
        problems.append(f"{MODEL_FILE}: ... and {len(found) - MAX_LISTED} more tensor problems")


def _shape_problems(state: dict[str, Any], model_config: Any) -> list[str]:
    """State keys and shapes against the model the config builds (on the meta device)."""
    import torch

    from surrogate.models.registry import build_model

    depth = getattr(model_config, "depth", 0)  # τ-stepping networks: one module per layer
    if depth > len(state):  # each layer has >= 2 tensors: not worth building
        return [f"{MODEL_FILE}: the model config has depth {depth}, the file holds "
                f"only {len(state)} tensors"]
    with torch.device("meta"):  # shapes only: no memory for the weights
        expected = {k: tuple(v.shape) for k, v in build_model(model_config).state_dict().items()}
    found = [f"{MODEL_FILE}: tensor {key!r} is missing (the model config needs shape "
             f"{shape})" for key, shape in expected.items() if key not in state]
    found += [f"{MODEL_FILE}: unexpected tensor {key!r} (not part of the configured model)"
              for key in state if key not in expected]
    found += [f"{MODEL_FILE}: tensor {key!r} has shape {tuple(state[key].shape)}, the model "
              f"config needs {shape}" for key, shape in expected.items()
              if key in state and tuple(state[key].shape) != shape]
    return found


def _check_side_files(run_dir: Path, config: dict[str, Any] | None,
                      problems: list[str]) -> None:
    """metrics.json, metadata.json (dataset hash), history.csv and checkpoint.pt."""
    for name in (METRICS_FILE, METADATA_FILE):
        try:
            document = read_json_object(run_dir / name)
        except DataFormatError as exc:
            problems.append(f"{name}: {_message(exc, run_dir / name)}")
            continue
        if name == METADATA_FILE and config is not None:
            recorded = (config.get("dataset") or {}).get("content_hash") \
                if isinstance(config.get("dataset"), dict) else None
            if document.get("dataset_hash") is None:
                problems.append(f"{METADATA_FILE}: no dataset_hash recorded")
            elif recorded is not None and document.get("dataset_hash") != recorded:
                problems.append(f"{METADATA_FILE}: dataset_hash {document.get('dataset_hash')!r}"
                                f" differs from config.json's {recorded!r}")
    try:
        history = read_history(run_dir / HISTORY_FILE)
    except DataFormatError as exc:
        problems.append(f"{HISTORY_FILE}: {_message(exc, run_dir / HISTORY_FILE)}")
    else:
        if not history:
            problems.append(f"{HISTORY_FILE}: no epochs recorded")
    if (run_dir / CHECKPOINT_FILE).exists():
        try:
            load_checkpoint(run_dir / CHECKPOINT_FILE)
        except DataFormatError as exc:
            problems.append(f"{CHECKPOINT_FILE}: {_message(exc, run_dir / CHECKPOINT_FILE)}")


def validate_run(run_dir: str | os.PathLike) -> list[str]:
    """Fully check a run directory; return every problem found, one line each (empty: valid).

    Problems name the file they concern (``"model.pt: tensor 'output.weight' has ..."``).
    """
    run_dir = Path(run_dir)
    if not run_dir.exists():
        return [f"run directory {run_dir} does not exist"]
    if not run_dir.is_dir():
        return [f"{run_dir} is not a run directory (not a folder)"]
    problems: list[str] = []
    config: dict[str, Any] | None = None
    model_config = None
    try:
        config = read_json_object(run_dir / CONFIG_FILE)
    except DataFormatError as exc:
        problems.append(f"{CONFIG_FILE}: {_message(exc, run_dir / CONFIG_FILE)}")
    else:
        model_config, _ = _check_config(config, problems)
    _check_weights(run_dir, model_config, problems)
    _check_side_files(run_dir, config, problems)
    if not problems:  # everything checked separately: the reader itself must agree
        try:
            load_run(run_dir)
        except DataFormatError as exc:
            problems.append(_message(exc, run_dir))
    return problems


__all__ = ["validate_run", "DATASET_KEYS"]
