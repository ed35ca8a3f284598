"""Reading and validating dataset files: every problem becomes one DataFormatError."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.datasets.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    KINDS,
    REQUIRED_ATTRS,
    SPLIT_NAMES,
)
from surrogate.datasets.hashing import content_hash
from surrogate.errors import DataFormatError, InputError


@dataclass(frozen=True)
class Dataset:
    """An in-memory dataset: inputs (N, d) or (N, T, d), targets (N, k) or (N, T, k)."""

    path: Path
    kind: str
    inputs: np.ndarray
    targets: np.ndarray
    input_names: tuple[str, ...]
    target_names: tuple[str, ...]
    splits: dict[str, np.ndarray]
    problem: str
    domain: str
    recipe: dict[str, Any]
    seed: int
    version: int
    content_hash: str
    attrs: dict[str, Any] = field(default_factory=dict)
    time: np.ndarray | None = None

    def split(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(inputs, targets)`` rows of split ``name`` (train, val or test)."""
        if name not in self.splits:
            raise InputError(f"unknown split {name!r}; choose one of: {', '.join(SPLIT_NAMES)}")
        idx = self.splits[name]
        return self.inputs[idx], self.targets[idx]

    def __len__(self) -> int:
        return int(self.inputs.shape[0])


def _attr(value: Any) -> Any:
    """Convert an HDF5 attribute value to a plain Python value."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return [_attr(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


class _Invalid(Exception):
    """Internal: one problem found, stops the scan of a file."""


def _scan(f: h5py.File, *, check_hash: bool, problems: list[str]) -> dict[str, Any]:
    """Check the open file against the spec; append problems; return what was read."""
    attrs = {k: _attr(v) for k, v in f.attrs.items()}
    fmt = attrs.get("format")
    if fmt != FORMAT_NAME:
        problems.append(f"format attribute is {fmt!r}, expected {FORMAT_NAME!r}")
        raise _Invalid
    version = attrs.get("version")
    if not isinstance(version, int):
        problems.append(f"version attribute {version!r} is not an integer")
        raise _Invalid
    if version > FORMAT_VERSION:
        problems.append(f"written with format version {version}, newer than the supported "
                        f"version {FORMAT_VERSION} (upgrade surrogate)")
        raise _Invalid
    missing = [k for k in REQUIRED_ATTRS if k not in attrs]
    if missing:
        problems.append(f"missing root attributes: {', '.join(missing)}")
    kind = attrs.get("kind")
    if kind not in KINDS:
        problems.append(f"kind attribute is {kind!r}, expected one of: {', '.join(KINDS)}")
        raise _Invalid
    try:
        recipe = json.loads(attrs.get("recipe", "{}"))
    except (TypeError, ValueError):
        problems.append("recipe attribute is not valid JSON")
        recipe = {}
    ndim = 2 if kind == "pointwise" else 3
    arrays: dict[str, np.ndarray] = {}
    names: dict[str, tuple[str, ...]] = {}
    for label in ("inputs", "targets"):
        if not isinstance(f.get(label), h5py.Dataset):
            problems.append(f"missing dataset '{label}'")
            continue
        ds = f[label]
        if ds.ndim != ndim or ds.dtype.kind != "f":
            problems.append(f"'{label}' has shape {ds.shape} and dtype {ds.dtype}, expected "
                            f"a {ndim}-d float array for kind {kind!r}")
            continue
        cols = tuple(str(c) for c in (_attr(ds.attrs.get("names")) or []))
        if len(cols) != ds.shape[-1]:
            problems.append(f"'{label}' has {ds.shape[-1]} columns but {len(cols)} names")
        arr = ds[()]
        bad = ~np.isfinite(arr)
        if bad.any():
            what = "NaN" if np.isnan(arr).any() else "inf"
            problems.append(f"'{label}' contains {int(bad.sum())} non-finite values ({what})")
        arrays[label], names[label] = arr, cols
    if len(arrays) < 2:
        raise _Invalid
    n = arrays["inputs"].shape[0]
    if arrays["targets"].shape[:-1] != arrays["inputs"].shape[:-1]:
        problems.append(f"'targets' shape {arrays['targets'].shape} does not match 'inputs' "
                        f"shape {arrays['inputs'].shape}")
    time = None
    if kind == "sequence":
        if not isinstance(f.get("time"), h5py.Dataset):
            problems.append("missing dataset 'time' (required for kind 'sequence')")
        else:
            time = f["time"][()]
            if time.shape != (arrays["inputs"].shape[1],):
                problems.append(f"'time' has shape {time.shape}, expected "
                                f"({arrays['inputs'].shape[1]},)")
    splits: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    for name in SPLIT_NAMES:
        ds = f.get(f"splits/{name}")
        if not isinstance(ds, h5py.Dataset):
            problems.append(f"missing split 'splits/{name}'")
            continue
        idx = ds[()]
        if idx.ndim != 1 or idx.dtype.kind not in "iu":
            problems.append(f"split '{name}' must be a 1-d integer array, got shape {idx.shape} "
                            f"dtype {idx.dtype}")
            continue
        idx = idx.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            problems.append(f"split '{name}' has indices out of range [0, {n}) "
                            f"(min {idx.min()}, max {idx.max()})")
            continue
        counts[name] = np.bincount(idx, minlength=n)
        if idx.size and counts[name].max() > 1:
            problems.append(f"split '{name}' repeats indices")
        splits[name] = idx
    names_ok = [k for k in SPLIT_NAMES if k in counts]
    overlap = [f"{a}/{b}" for i, a in enumerate(names_ok) for b in names_ok[i + 1:]
               if np.any((counts[a] > 0) & (counts[b] > 0))]
    if overlap:
        problems.append(f"splits overlap: {', '.join(overlap)}")
    digest = content_hash(arrays["inputs"], arrays["targets"]) if check_hash else None
    if check_hash and "content_hash" in attrs and digest != attrs["content_hash"]:
        problems.append(f"content hash mismatch: stored {attrs['content_hash']}, "
                        f"data hashes to {digest}")
    return {"attrs": attrs, "recipe": recipe, "arrays": arrays, "names": names,
            "splits": splits, "time": time, "kind": kind, "version": version}


def _open_and_scan(path: Path, *, check_hash: bool) -> tuple[dict[str, Any] | None, list[str]]:
    problems: list[str] = []
    if not path.is_file():
        return None, ["no such file" if not path.exists() else "not a regular file"]
    try:
        if not h5py.is_hdf5(path):
            return None, ["not an HDF5 file"]
        with h5py.File(path, "r") as f:
            return _scan(f, check_hash=check_hash, problems=problems), problems
    except _Invalid:
        return None, problems
    except (OSError, RuntimeError, KeyError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, [*problems, f"cannot be read as HDF5 (truncated or corrupt file?): {reason}"]


def validate_dataset(path: str | os.PathLike) -> list[str]:
    """Fully check ``path`` against datasets/FORMAT.md, content hash included.

    Returns the list of problems found (empty when the file is valid).
    """
    return _open_and_scan(Path(path), check_hash=True)[1]


def read_dataset(path: str | os.PathLike, *, verify_hash: bool = True) -> Dataset:
    """Read and validate a dataset file; raise DataFormatError naming the file and problem."""
    path = Path(path)
    raw, problems = _open_and_scan(path, check_hash=verify_hash)
    if problems or raw is None:
        raise DataFormatError(f"{path}: {problems[0] if problems else 'invalid dataset'}")
    attrs = raw["attrs"]
    core = {"format", "version", "kind", "problem", "domain", "recipe", "seed", "content_hash"}
    return Dataset(
        path=path, kind=raw["kind"], inputs=raw["arrays"]["inputs"],
        targets=raw["arrays"]["targets"], input_names=raw["names"]["inputs"],
        target_names=raw["names"]["targets"], splits=raw["splits"],
        problem=str(attrs["problem"]), domain=str(attrs["domain"]), recipe=raw["recipe"],
        seed=int(attrs["seed"]), version=raw["version"], content_hash=str(attrs["content_hash"]),
        attrs={k: v for k, v in attrs.items() if k not in core}, time=raw["time"],
    )


__all__ = ["Dataset", "read_dataset", "validate_dataset"]
