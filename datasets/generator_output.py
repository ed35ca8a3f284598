"""What a generator returns: arrays and metadata ready for the writer, and its progress hook."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ProgressCallback = Callable[[int, int, str], None]


@dataclass(frozen=True)
class GeneratedData:
    """Arrays and metadata produced by a generator, ready for :func:`write_dataset`."""

    inputs: np.ndarray
    targets: np.ndarray
    input_names: tuple[str, ...]
    target_names: tuple[str, ...]
    splits: dict[str, np.ndarray]
    problem: str
    domain: str
    recipe: dict[str, Any]
    seed: int
    dtype: str = "float64"
    kind: str = "pointwise"
    time: np.ndarray | None = None
    mesh: dict[str, np.ndarray] | None = None
    fem: dict[str, Any] | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


__all__ = ["GeneratedData", "ProgressCallback"]
