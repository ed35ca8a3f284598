"""Safe reading of run files: bounded text and JSON, ``torch.load(weights_only=True)`` behind
zip and CRC checks, finite dense tensors only. Every failure is one DataFormatError line."""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError
from surrogate.core.limits import (
    MAX_COMPRESSION_RATIO,
    MAX_NESTING,
    MAX_TEXT_BYTES,
    memory_budget,
    memory_ceiling,
    size_text,
)


def read_text(path: Path) -> str:
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


def nesting_depth(value: Any) -> int:
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
    text = read_text(path)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataFormatError(f"{path}: not valid JSON ({reason})") from None
    if not isinstance(data, dict):
        raise DataFormatError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if nesting_depth(data) > MAX_NESTING:
        raise DataFormatError(f"{path}: nested deeper than {MAX_NESTING} levels")
    return data


def load_weights_only(path: Path, what: str, *, missing: str) -> Any:
    """``torch.load(path, weights_only=True)`` on the CPU; DataFormatError naming ``what`` if
    the file is absent (message ``missing``) or not loadable (crafted pickles, truncation)."""
    import torch

    if not path.is_file():
        raise DataFormatError(f"{path}: {missing}" if not path.exists()
                              else f"{path}: not a regular file")
    check_torch_zip(path, what)
    try:
        with memory_ceiling(2 * memory_budget()):
            return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a format problem
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataFormatError(f"{path}: not {what} loadable with "
                              f"torch.load(weights_only=True): {reason}") from None


def check_torch_zip(path: Path, what: str) -> None:
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


def is_plain_state_dict(state: Any) -> bool:
    """True when ``state`` is a dict of str -> Tensor (what ``model.pt`` must hold)."""
    import torch

    return isinstance(state, dict) and all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items())


def load_state_dict_file(path: Path) -> dict[str, Any]:
    """A plain state_dict from ``path`` via ``torch.load(weights_only=True)``, else
    DataFormatError (crafted pickles, wrong objects, truncated files are all refused)."""
    state = load_weights_only(path, "a plain state_dict",
                              missing="missing (not a complete run directory)")
    if not is_plain_state_dict(state):
        raise DataFormatError(f"{path}: not a plain state_dict (expected a dict of "
                              f"name -> tensor, got {type(state).__name__})")
    check_tensors(state, path)
    return state


__all__ = ["read_text", "nesting_depth", "read_json_object", "load_weights_only",
           "check_torch_zip", "check_tensors", "is_plain_state_dict", "load_state_dict_file"]
