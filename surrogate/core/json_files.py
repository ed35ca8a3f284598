"""The one JSON writer: strict JSON (non-finite floats become ``null``), written atomically.

Python's :mod:`json` writes ``NaN``/``Infinity`` by default, which no other JSON reader
accepts; every JSON file of the package goes through :func:`write_json_file` instead.
Torch-free (numpy and the standard library only), so ``fem`` and ``datasets`` can use it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.atomic_files import write_text_atomic


def json_safe(value: Any) -> Any:
    """Plain JSON values of ``value``: mappings (str keys), lists, numbers, str, bool, None.

    Recursively converts tuples, numpy arrays and scalars, paths and anything with a
    ``tolist()`` (tensors); non-finite floats become None.
    """
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
    if not isinstance(value, (str, int, float, bool, type(None))) and hasattr(value, "tolist"):
        return json_safe(value.tolist())
    return value


def json_text(payload: Any) -> str:
    """Indented strict JSON text of ``payload`` (through :func:`json_safe`), newline-ended."""
    return json.dumps(json_safe(payload), indent=2, allow_nan=False) + "\n"


def write_json_file(path: str | os.PathLike, payload: Any) -> Path:
    """Write :func:`json_text` of ``payload`` to ``path`` atomically; returns the path."""
    return write_text_atomic(path, json_text(payload))


__all__ = ["json_safe", "json_text", "write_json_file"]
