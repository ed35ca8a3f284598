"""The scan of an open dataset file against datasets/FORMAT.md: attributes, arrays, splits.

Every problem found is appended to a list of one-line messages; a problem that makes the rest
of the file unreadable stops the scan (:class:`~surrogate.datasets.hdf5_safety.InvalidFile`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import h5py
import numpy as np

from surrogate.datasets.family.file_group import scan_family
from surrogate.datasets.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    KINDS,
    READOUTS,
    REQUIRED_ATTRS,
    SPLIT_NAMES,
)
from surrogate.datasets.hashing import content_hash, family_hash_arrays
from surrogate.datasets.hdf5_safety import (
    InvalidFile,
    MemoryBudget,
    check_declared_size,
    hard_dataset,
    read_attributes,
)

_HASH_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")
_FLOAT_DTYPES = ("float32", "float64")


def _column_names(ds: h5py.Dataset, label: str) -> tuple[str, ...] | None:
    """The ``names`` attribute of ``ds`` as a tuple of strings, or None when absent/invalid."""
    if "names" not in ds.attrs:
        return None
    names = read_attributes(ds, f"'{label}'").get("names")
    if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
        return None
    return tuple(names)


def _check_attrs(attrs: dict[str, Any], problems: list[str]) -> tuple[int, str, dict]:
    """Check the root attributes; return (version, kind, recipe) or raise InvalidFile."""
    fmt = attrs.get("format")
    if fmt != FORMAT_NAME:
        problems.append(f"format attribute is {fmt!r}, expected {FORMAT_NAME!r}")
        raise InvalidFile
    version = attrs.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        problems.append(f"version attribute {version!r} is not an integer >= 1")
        raise InvalidFile
    if version > FORMAT_VERSION:
        problems.append(f"written with format version {version}, newer than the supported "
                        f"version {FORMAT_VERSION} (upgrade surrogate)")
        raise InvalidFile
    missing = [k for k in REQUIRED_ATTRS if k not in attrs]
    if missing:
        problems.append(f"missing root attributes: {', '.join(missing)}")
    kind = attrs.get("kind")
    if kind not in KINDS:
        problems.append(f"kind attribute is {kind!r}, expected one of: {', '.join(KINDS)}")
        raise InvalidFile
    wrong = [k for k in ("problem", "domain", "package_version", "created")
             if k in attrs and not isinstance(attrs[k], str)]
    if wrong:
        problems.append(f"root attributes {', '.join(wrong)} must be strings")
    seed = attrs.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        problems.append(f"seed attribute {seed!r} is not an integer")
    digest = attrs.get("content_hash", "sha256:" + "0" * 64)
    if not isinstance(digest, str) or not _HASH_PATTERN.fullmatch(digest):
        problems.append(f"content_hash attribute {digest!r} is not 'sha256:<64 hex digits>'")
    try:
        recipe = json.loads(attrs.get("recipe", "{}"))
    except (TypeError, ValueError, RecursionError):
        recipe = None
    if not isinstance(recipe, dict):
        problems.append("recipe attribute is not a JSON object")
        recipe = {}
    return version, kind, recipe


def _read_float_array(f: h5py.File, label: str, ndim: int, kind: str, file_size: int,
                      budget: MemoryBudget, problems: list[str]) -> np.ndarray | None:
    """Read ``label`` after checking rank, dtype, non-empty axes and declared size."""
    ds = hard_dataset(f, label)
    if ds is None:
        problems.append(f"missing dataset '{label}'")
        return None
    if ds.ndim != ndim or ds.dtype.kind != "f" or ds.dtype.name not in _FLOAT_DTYPES:
        problems.append(f"'{label}' has shape {ds.shape} and dtype {ds.dtype}, expected "
                        f"a {ndim}-d float32/float64 array for kind {kind!r}")
        return None
    if 0 in ds.shape:
        problems.append(f"'{label}' has shape {ds.shape}: every axis must be non-empty")
        return None
    check_declared_size(ds, label, file_size, budget)
    arr = ds[()]
    bad = ~np.isfinite(arr)
    if bad.any():
        what = "NaN" if np.isnan(arr).any() else "inf"
        problems.append(f"'{label}' contains {int(bad.sum())} non-finite values ({what})")
    return arr


def _read_splits(f: h5py.File, n: int, file_size: int, budget: MemoryBudget,
                 problems: list[str]) -> dict[str, np.ndarray]:
    """Read and check splits/train|val|test against ``n`` rows (sizes checked first)."""
    splits: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    for name in SPLIT_NAMES:
        ds = hard_dataset(f, f"splits/{name}")
        if ds is None:
            problems.append(f"missing split 'splits/{name}'")
            continue
        if ds.ndim != 1 or ds.dtype.kind not in "iu":
            problems.append(f"split '{name}' must be a 1-d integer array, got shape {ds.shape} "
                            f"dtype {ds.dtype}")
            continue
        if ds.shape[0] > n:
            problems.append(f"split '{name}' declares {ds.shape[0]} indices, more than the {n} "
                            f"rows (indices must be distinct)")
            continue
        check_declared_size(ds, f"splits/{name}", file_size, budget)
        idx = ds[()]
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
            problems.append(f"split '{name}' has indices out of range [0, {n}) "
                            f"(min {idx.min()}, max {idx.max()})")
            continue
        idx = idx.astype(np.int64)
        counts[name] = np.bincount(idx, minlength=n)
        if idx.size and counts[name].max() > 1:
            problems.append(f"split '{name}' repeats indices")
        splits[name] = idx
    names_ok = [k for k in SPLIT_NAMES if k in counts]
    overlap = [f"{a}/{b}" for i, a in enumerate(names_ok) for b in names_ok[i + 1:]
               if np.any((counts[a] > 0) & (counts[b] > 0))]
    if overlap:
        problems.append(f"splits overlap: {', '.join(overlap)}")
    return splits


def _check_target_shape(kind: str, attrs: dict[str, Any], inputs: tuple[int, ...],
                        targets: tuple[int, ...], problems: list[str]) -> None:
    """Targets agree with inputs on all but the last axis; with the optional root attribute
    ``readout = "last"`` (sequence only) they are ``(N, 1, k)``: one target per sequence."""
    readout = attrs.get("readout", "sequence")
    if readout not in READOUTS:
        problems.append(f"readout attribute is {readout!r}, expected one of: "
                        f"{', '.join(READOUTS)}")
        return
    if readout == "last" and kind != "sequence":
        problems.append(f"readout attribute 'last' is only allowed for kind 'sequence', "
                        f"not {kind!r}")
        return
    expected = (inputs[0], 1) if readout == "last" else inputs[:-1]
    if targets[:-1] != expected:
        problems.append(f"'targets' shape {targets} does not match 'inputs' shape {inputs}"
                        + (" (readout 'last' needs (N, 1, k))" if readout == "last" else ""))


def scan_dataset(f: h5py.File, *, check_hash: bool, problems: list[str], file_size: int,
          memory: int) -> dict[str, Any]:
    """Check the open file against the spec; append problems; return what was read.

    Every array's declared size is checked against the file and ``memory`` (bytes for all
    arrays together; normally :func:`~surrogate.core.limits.memory_budget`) before it is read,
    so a crafted file cannot make the reader allocate unbounded memory.
    """
    attrs = read_attributes(f, "the root group")
    version, kind, recipe = _check_attrs(attrs, problems)
    budget = MemoryBudget(memory)
    ndim = 2 if kind == "pointwise" else 3
    arrays: dict[str, np.ndarray] = {}
    names: dict[str, tuple[str, ...]] = {}
    for label in ("inputs", "targets"):
        arr = _read_float_array(f, label, ndim, kind, file_size, budget, problems)
        if arr is None:
            continue
        cols = _column_names(f[label], label)
        if cols is None:
            problems.append(f"'{label}' has no 'names' attribute (a list of column names)")
        elif len(cols) != arr.shape[-1]:
            problems.append(f"'{label}' has {arr.shape[-1]} columns but {len(cols)} names")
        arrays[label], names[label] = arr, cols or ()
    if len(arrays) < 2:
        raise InvalidFile
    n = arrays["inputs"].shape[0]
    _check_target_shape(kind, attrs, arrays["inputs"].shape, arrays["targets"].shape, problems)
    time = None
    if kind == "sequence":
        ds = hard_dataset(f, "time")
        expected = (arrays["inputs"].shape[1],)
        if ds is None:
            problems.append("missing dataset 'time' (required for kind 'sequence')")
        elif ds.shape != expected or ds.dtype.name not in _FLOAT_DTYPES:
            problems.append(f"'time' has shape {ds.shape} dtype {ds.dtype}, expected "
                            f"{expected} float32/float64")
        else:
            check_declared_size(ds, "time", file_size, budget)
            time = ds[()]
            if not np.isfinite(time).all():
                problems.append("'time' contains non-finite values")
    splits = _read_splits(f, n, file_size, budget, problems)
    family = (scan_family(f, attrs, n, splits, file_size, budget, problems)
              if "family" in attrs else None)  # version 2: a family dataset
    digest = (content_hash(arrays["inputs"], arrays["targets"], family_hash_arrays(family))
              if check_hash else None)
    if check_hash and isinstance(attrs.get("content_hash"), str) \
            and digest != attrs["content_hash"]:
        problems.append(f"content hash mismatch: stored {attrs['content_hash']}, "
                        f"data hashes to {digest}")
    return {"attrs": attrs, "recipe": recipe, "arrays": arrays, "names": names,
            "splits": splits, "time": time, "kind": kind, "version": version,
            "family": family}


__all__ = ["scan_dataset"]
