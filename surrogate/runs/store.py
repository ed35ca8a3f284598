"""Run directories: the one writer (:func:`save_run`) and reader (:func:`load_run`).

A run directory holds

- ``model.pt``: a plain ``state_dict`` (str -> Tensor), loadable with
  ``torch.load(..., weights_only=True)``;
- ``config.json``: ``model`` (ModelConfig or SequenceModelConfig, picked by its ``arch``
  through :func:`surrogate.models.registry.config_from_dict`), ``train`` (TrainConfig),
  ``normalisation`` (per-column mean/std of the training split; per channel over all time
  steps for sequence data), ``dataset`` (path, content hash, kind, problem, domain,
  input/target names, recipe) and ``extra`` (e.g. pruning provenance);
- ``metadata.json``: package/torch/numpy/python versions, dataset hash, creation time;
- ``history.csv``: one row per epoch (losses, every τ, gradient norms, lr, seconds);
- ``metrics.json``: relative L² errors per split in physical units, τ, sizes, timings;
- ``checkpoint.pt`` (training only): everything needed to resume exactly.

Every file is written atomically (temporary name in the same folder, then ``os.replace``).
Reading a summary (:func:`run_summary`) needs no torch.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os
import platform
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from surrogate.core.atomic_files import write_atomic, write_text_atomic
from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.limits import (
    MAX_COMPRESSION_RATIO,
    MAX_NESTING,
    MAX_TEXT_BYTES,
    memory_budget,
    memory_ceiling,
    size_text,
)
from surrogate.models.normalisation import Normalisation

if TYPE_CHECKING:
    from torch import nn

    from surrogate.models.config import ModelConfig
    from surrogate.models.sequence_config import SequenceModelConfig

RUN_FORMAT = "surrogate-run"
RUN_VERSION = 1
CHECKPOINT_FORMAT = "surrogate-checkpoint"
CHECKPOINT_VERSION = 1
MODEL_FILE, CONFIG_FILE, METADATA_FILE = "model.pt", "config.json", "metadata.json"
HISTORY_FILE, METRICS_FILE, CHECKPOINT_FILE = "history.csv", "metrics.json", "checkpoint.pt"
_INT_COLUMNS = ("epoch", "depth")
CONFIG_SECTIONS = ("model", "train", "normalisation", "dataset")


# ------------------------------------------------------------------------------ atomic files


def write_json_file(path: str | os.PathLike, payload: Any) -> Path:
    """Write ``payload`` as indented JSON atomically (NaN/inf become null)."""
    return write_text_atomic(path, json.dumps(json_safe(payload), indent=2) + "\n")


def json_safe(value: Any) -> Any:
    """Recursively convert numpy scalars/arrays, tuples and paths; non-finite floats -> None."""
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def creation_time() -> str:
    """ISO-8601 UTC time (``SOURCE_DATE_EPOCH`` overrides the clock, as for datasets)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = (_dt.datetime.fromtimestamp(int(epoch), tz=_dt.timezone.utc) if epoch is not None
             else _dt.datetime.now(tz=_dt.timezone.utc))
    return stamp.replace(microsecond=0).isoformat().replace("+00:00", "Z")


# ------------------------------------------------------------------------------------ history


def history_columns(history: Sequence[Mapping[str, Any]]) -> list[str]:
    """Union of the rows' keys in order of first appearance (τ columns of pruned layers stay)."""
    return list(dict.fromkeys(key for row in history for key in row))


def history_to_csv(history: Sequence[Mapping[str, Any]]) -> str:
    """CSV text of the history; floats keep their exact repr, missing cells are empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = history_columns(history)
    writer.writerow(columns)
    for row in history:
        writer.writerow(["" if row.get(c) is None else repr(row[c]) if isinstance(row[c], float)
                         else row[c] for c in columns])
    return out.getvalue()


def history_from_csv(text: str) -> list[dict[str, Any]]:
    """Inverse of :func:`history_to_csv`: numbers as float (int for epoch/depth), empty -> None."""
    rows = []
    for raw in csv.DictReader(io.StringIO(text)):
        if None in raw:
            raise ValueError(f"row {len(rows) + 1} has more cells than the header")
        row: dict[str, Any] = {}
        for key, cell in raw.items():
            if cell is None or cell == "":
                row[key] = None
            elif key in _INT_COLUMNS:
                row[key] = int(cell)
            else:
                row[key] = float(cell)
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------ the run


CPU_BATCH = 2048
"""Rows per forward pass on CPU: small blocks stay in cache (2.16M points through a 2×50 net:
0.5 s at 2048 rows, 2.8 s at 65,536 rows on 2 cores)."""
GPU_BATCH = 1 << 18
"""Rows per forward pass on an accelerator, where large blocks pay."""
CPU_SEQUENCE_STEPS = 1 << 16
"""Time steps (sequences × T) per forward pass of a sequence model on CPU: the recurrence is
sequential in T, so batches of many sequences pay."""
GPU_SEQUENCE_STEPS = 1 << 22
"""Time steps per forward pass of a sequence model on an accelerator."""


def predict_array(model: nn.Module, normalisation: Normalisation, inputs: np.ndarray,
                  batch_size: int | None = None) -> np.ndarray:
    """Physical-unit outputs (N, d_out) float64 of ``model`` for physical inputs (N, d_in).

    ``batch_size=None`` picks :data:`CPU_BATCH` or :data:`GPU_BATCH` by the model's device.
    Sequence inputs (N, T, d_in) go to :func:`predict_sequences`.
    """
    import torch

    inputs = np.asarray(inputs)
    if inputs.ndim == 3:
        return predict_sequences(model, normalisation, inputs, batch_size)
    if inputs.ndim != 2 or inputs.shape[1] != normalisation.in_features:
        raise InputError(f"inputs must have shape (N, {normalisation.in_features}), "
                         f"got {inputs.shape}")
    if not np.isfinite(inputs).all():
        raise InputError(f"inputs contain {int((~np.isfinite(inputs)).sum())} non-finite values")
    reference = next(model.parameters())
    if batch_size is None:
        batch_size = CPU_BATCH if reference.device.type == "cpu" else GPU_BATCH
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    scaled = normalisation.normalise_inputs(inputs)
    out = np.empty((inputs.shape[0], normalisation.out_features), dtype=np.float64)
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, inputs.shape[0], batch_size):
                chunk = torch.as_tensor(scaled[start:start + batch_size], dtype=reference.dtype,
                                        device=reference.device)
                out[start:start + batch_size] = model(chunk).double().cpu().numpy()
    finally:
        model.train(was_training)
    return normalisation.denormalise_targets(out)


def predict_sequences(model: nn.Module, normalisation: Normalisation, inputs: np.ndarray,
                      batch_size: int | None = None) -> np.ndarray:
    """Physical-unit outputs of a sequence model for physical inputs (N, T, d_in), float64.

    (N, T, d_out) for read-out ``"sequence"``, (N, d_out) for ``"last"``. ``batch_size``
    counts sequences per forward pass; None fits :data:`CPU_SEQUENCE_STEPS` (or
    :data:`GPU_SEQUENCE_STEPS`) time steps into one.
    """
    import torch

    inputs = np.asarray(inputs)
    if inputs.ndim != 3 or inputs.shape[2] != normalisation.in_features \
            or min(inputs.shape) < 1:
        raise InputError(f"sequence inputs must have shape (N, T, {normalisation.in_features})"
                         f" with N, T >= 1, got {inputs.shape}")
    if not np.isfinite(inputs).all():
        raise InputError(f"inputs contain {int((~np.isfinite(inputs)).sum())} non-finite values")
    reference = next(model.parameters())
    if batch_size is None:
        steps = CPU_SEQUENCE_STEPS if reference.device.type == "cpu" else GPU_SEQUENCE_STEPS
        batch_size = max(1, steps // inputs.shape[1])
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    scaled = normalisation.normalise_inputs(inputs)
    chunks = []
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, inputs.shape[0], batch_size):
                chunk = torch.as_tensor(scaled[start:start + batch_size], dtype=reference.dtype,
                                        device=reference.device)
                chunks.append(model(chunk).double().cpu().numpy())
    finally:
        model.train(was_training)
    return normalisation.denormalise_targets(np.concatenate(chunks))


@dataclass
class Run:
    """A trained surrogate read from (or about to be written to) a run directory."""

    path: Path
    model: nn.Module
    model_config: ModelConfig | SequenceModelConfig
    train_config: dict[str, Any]
    normalisation: Normalisation
    dataset: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def predict(self, inputs: np.ndarray, batch_size: int | None = None) -> np.ndarray:
        """Surrogate outputs in physical units, no grad: (N, d_out) for inputs (N, d_in);
        for a sequence run (N, T, d_out) or (N, d_out) (read-out "last") for (N, T, d_in)."""
        return predict_array(self.model, self.normalisation, inputs, batch_size)

    def taus(self) -> list[float]:
        """Current steps τ^[0] … τ^[depth-1] as floats."""
        import torch

        with torch.no_grad():
            return [float(t) for t in self.model.taus().cpu()]


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
    TrainConfig or its dict.
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
    from surrogate import __version__

    metadata = {"format": RUN_FORMAT, "version": RUN_VERSION, "package_version": __version__,
                "torch_version": torch.__version__, "numpy_version": np.__version__,
                "python_version": platform.python_version(),
                "dataset_hash": dataset.get("content_hash"), "created": creation_time()}
    write_json_file(run_dir / METADATA_FILE, metadata)
    return run_dir


def _read_text(path: Path) -> str:
    """Text of a run file: a regular file of at most MAX_TEXT_BYTES, else DataFormatError."""
    if not path.exists():
        raise DataFormatError(f"{path}: missing (not a complete run directory)")
    if not path.is_file():
        raise DataFormatError(f"{path}: not a regular file")
    try:
        size = path.stat().st_size
        if size > MAX_TEXT_BYTES:
            raise DataFormatError(f"{path}: {size_text(size)}, larger than the "
                                  f"{size_text(MAX_TEXT_BYTES)} a run file may have")
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"{path}: cannot be read as UTF-8 text ({exc})") from None


def _nesting_depth(value: Any) -> int:
    """Deepest nesting of lists/dicts in ``value`` (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_NESTING:
                break
            stack.extend((child, depth + 1) for child in item)
    return deepest


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; DataFormatError when missing, too big, too deep or not JSON."""
    text = _read_text(path)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataFormatError(f"{path}: not valid JSON ({reason})") from None
    if not isinstance(data, dict):
        raise DataFormatError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if _nesting_depth(data) > MAX_NESTING:
        raise DataFormatError(f"{path}: nested deeper than {MAX_NESTING} levels")
    return data


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


def load_weights_only(path: Path, what: str, *, missing: str) -> Any:
    """``torch.load(path, weights_only=True)`` on the CPU; DataFormatError naming ``what`` if
    the file is absent (message ``missing``) or not loadable (crafted pickles, truncation)."""
    import torch

    if not path.is_file():
        raise DataFormatError(f"{path}: {missing}" if not path.exists()
                              else f"{path}: not a regular file")
    _check_torch_zip(path, what)
    try:
        with memory_ceiling(2 * memory_budget()):
            return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a format problem
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataFormatError(f"{path}: not {what} loadable with "
                              f"torch.load(weights_only=True): {reason}") from None


def _check_torch_zip(path: Path, what: str) -> None:
    """Refuse anything but an intact zip-format torch file of a size that fits in memory.

    Runs before ``torch.load``: the declared (uncompressed) sizes are bounded by
    :func:`~surrogate.core.limits.memory_budget` and the compression ratio, then every entry's
    CRC-32 is verified, so a flipped bit in the weights is reported, not loaded.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            declared = sum(entry.file_size for entry in entries)
            stored = sum(entry.compress_size for entry in entries)
            budget = memory_budget()
            if declared > budget:
                raise DataFormatError(f"{path}: declares {size_text(declared)} of data, more "
                                      f"than the {size_text(budget)} this reader may use")
            if declared > MAX_COMPRESSION_RATIO * max(stored, 1) + (1 << 20):
                raise DataFormatError(f"{path}: declares {declared} bytes from {stored} "
                                      f"compressed bytes (not a file torch.save writes)")
            bad = archive.testzip()
    except zipfile.BadZipFile:
        raise DataFormatError(f"{path}: not {what} (not a zip-format torch file; truncated "
                              f"or corrupt?)") from None
    except (OSError, EOFError, zlib.error, NotImplementedError, RuntimeError, ValueError,
            OverflowError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataFormatError(f"{path}: corrupt zip archive ({reason})") from None
    if bad is not None:
        raise DataFormatError(f"{path}: corrupt entry {bad!r} (CRC-32 mismatch)")


def check_tensors(state: Mapping[str, Any], source: Path, what: str = "state_dict") -> None:
    """Every value of ``state`` must be a finite dense CPU float32/float64 tensor."""
    import torch

    for key, value in state.items():
        if value.layout != torch.strided or value.device.type != "cpu" \
                or value.dtype not in (torch.float32, torch.float64):
            raise DataFormatError(f"{source}: {what} tensor {key!r} is {value.dtype} "
                                  f"({value.layout}), expected a dense float32/float64 tensor")
        if not bool(torch.isfinite(value).all()):
            raise DataFormatError(f"{source}: {what} tensor {key!r} contains NaN or inf")


def load_state_dict_file(path: Path) -> dict[str, Any]:
    """A plain state_dict from ``path`` via ``torch.load(weights_only=True)``, else
    DataFormatError (crafted pickles, wrong objects, truncated files are all refused)."""
    import torch

    state = load_weights_only(path, "a plain state_dict",
                              missing="missing (not a complete run directory)")
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise DataFormatError(f"{path}: not a plain state_dict (expected a dict of "
                              f"name -> tensor, got {type(state).__name__})")
    check_tensors(state, path)
    return state


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
    """Read a run directory written by :func:`save_run`; DataFormatError when missing/corrupt."""
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


def read_history(path: Path) -> list[dict[str, Any]]:
    """``history.csv`` of a run as rows; DataFormatError when missing or malformed."""
    text = _read_text(path)
    if not text.strip():
        raise DataFormatError(f"{path}: empty (expected a header row of column names)")
    try:
        return history_from_csv(text)
    except (ValueError, TypeError, csv.Error) as exc:
        raise DataFormatError(f"{path}: not a valid history ({exc})") from None


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


# -------------------------------------------------------------------------------- checkpoints


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
    _check_checkpoint_fields(payload, path)
    return payload


_CHECKPOINT_FIELDS: dict[str, tuple[type, ...]] = {
    "epoch": (int,), "model_config": (dict,), "model": (dict,), "optimizer": (dict,),
    "scheduler": (dict, type(None)), "history": (list,), "layer_ids": (list,),
    "prune_events": (list,), "best": (dict,), "stop_reason": (str, type(None)),
    "train_seconds": (int, float), "train_config": (dict,), "normalisation": (dict,),
    "dataset": (dict,),
}


def _check_checkpoint_fields(payload: Mapping[str, Any], path: Path) -> None:
    """The fields resuming needs exist with the right container types; weights are finite."""
    import torch

    wrong = [key for key, types in _CHECKPOINT_FIELDS.items()
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
    for what, state in (("model", payload["model"]), ("best", payload["best"].get("state"))):
        if what == "best" and state is None:
            continue
        if not isinstance(state, dict) or not all(
                isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
            raise DataFormatError(f"{path}: checkpoint {what} weights are not a plain state_dict")
        check_tensors(state, path, f"checkpoint {what}")


__all__ = ["Run", "save_run", "load_run", "run_summary", "read_config", "read_history",
           "read_json_object", "load_weights_only", "load_state_dict_file", "check_tensors",
           "check_config_fits_state", "build_loaded_model", "CONFIG_SECTIONS", "save_checkpoint",
           "load_checkpoint", "predict_array", "predict_sequences", "relative_l2_error",
           "dataset_info",
           "history_to_csv", "history_from_csv", "write_atomic", "write_json_file",
           "RUN_FORMAT", "MODEL_FILE", "CONFIG_FILE", "METADATA_FILE", "HISTORY_FILE",
           "METRICS_FILE", "CHECKPOINT_FILE"]
