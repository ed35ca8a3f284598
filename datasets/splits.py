"""Train/validation/test splits: parsing the fractions and drawing index arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from surrogate.core.errors import InputError
from surrogate.datasets.format import SPLIT_NAMES


def parse_split(text: str | Sequence[float]) -> tuple[float, float, float]:
    """Parse ``"0.8,0.1,0.1"`` (or a sequence) into three non-negative fractions summing to 1."""
    try:
        parts = [float(p) for p in (text.split(",") if isinstance(text, str) else text)]
    except (TypeError, ValueError):
        raise InputError(f"--split {text!r}: expected three numbers like 0.8,0.1,0.1") from None
    if len(parts) != 3:
        raise InputError(f"--split {text!r}: expected three numbers (train,val,test), "
                         f"got {len(parts)}")
    if not all(np.isfinite(p) and p >= 0 for p in parts):
        raise InputError(f"--split {text!r}: fractions must be finite and non-negative")
    if abs(sum(parts) - 1.0) > 1e-9:
        raise InputError(f"--split {text!r}: fractions sum to {sum(parts):g}, not 1")
    return (parts[0], parts[1], parts[2])


def make_splits(
    n: int, fractions: Sequence[float], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Randomly partition ``range(n)`` into sorted int64 index arrays train/val/test.

    Sizes: val = floor(f_val n), test = floor(f_test n), train = the rest.
    """
    f_train, f_val, f_test = parse_split(fractions)
    n_val, n_test = int(np.floor(f_val * n)), int(np.floor(f_test * n))
    n_train = n - n_val - n_test
    perm = rng.permutation(n).astype(np.int64)
    bounds = np.cumsum([0, n_train, n_val, n_test])
    return {name: np.sort(perm[bounds[i]:bounds[i + 1]]) for i, name in enumerate(SPLIT_NAMES)}


__all__ = ["parse_split", "make_splits"]
