"""Platform-independent content hash of a dataset's inputs and targets."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

FAMILY_HASHED = ("params", "problem_id", "sensor_values")
"""Arrays of a family file's ``family/`` group that the content hash covers (what tells the
network which problem a row belongs to), hashed after ``targets`` as ``family/<name>``."""


def family_hash_arrays(family: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
    """``{"family/params": ..., ...}`` of a ``family/`` tree (or FamilyData); empty for None."""
    if family is None:
        return {}
    arrays = {}
    for name in FAMILY_HASHED:
        value = family[name] if isinstance(family, Mapping) else getattr(family, name)
        if isinstance(value, tuple):  # a writer tree's (array, attributes) entry
            value = value[0]
        arrays[f"family/{name}"] = np.asarray(value)
    return arrays


def content_hash(inputs: np.ndarray, targets: np.ndarray,
                 extra: Mapping[str, np.ndarray] | None = None) -> str:
    """Return ``"sha256:<hex>"`` over a canonical layout of ``inputs``, ``targets``, ``extra``.

    For each array the digest sees ``name``, the little-endian dtype string (``"<f8"``),
    the shape, then the C-ordered little-endian bytes, so the value is stable across
    runs, platforms and HDF5 chunk layouts. ``extra`` (a family file's
    :func:`family_hash_arrays`) follows in its given order; without it the value is the
    version-1 hash.
    """
    digest = hashlib.sha256()
    for name, array in (("inputs", inputs), ("targets", targets), *(extra or {}).items()):
        arr = np.asarray(array)
        canonical = arr.dtype.newbyteorder("<")
        arr = np.ascontiguousarray(arr, dtype=canonical)
        header = f"{name}|{canonical.str}|{','.join(str(s) for s in arr.shape)}|"
        digest.update(header.encode("ascii"))
        digest.update(memoryview(arr).cast("B"))
    return f"sha256:{digest.hexdigest()}"


class ContentHasher:
    """:func:`content_hash` fed array by array in row blocks (arrays larger than memory).

    ``start("inputs", dtype, shape)``, ``update(block)`` for its rows in order, then the
    same for ``targets``; :meth:`value` equals ``content_hash(inputs, targets)``.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._dtype: np.dtype | None = None

    def start(self, name: str, dtype: np.dtype | str, shape: tuple[int, ...]) -> None:
        """Begin array ``name`` of the given dtype and full shape."""
        self._dtype = np.dtype(dtype).newbyteorder("<")
        header = f"{name}|{self._dtype.str}|{','.join(str(int(s)) for s in shape)}|"
        self._digest.update(header.encode("ascii"))

    def update(self, block: np.ndarray) -> None:
        """The next rows of the current array."""
        arr = np.ascontiguousarray(block, dtype=self._dtype)
        self._digest.update(memoryview(arr).cast("B"))

    def value(self) -> str:
        """``"sha256:<hex>"``."""
        return f"sha256:{self._digest.hexdigest()}"


__all__ = ["content_hash", "ContentHasher", "family_hash_arrays", "FAMILY_HASHED"]
