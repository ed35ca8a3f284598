"""Reading and validating dataset files: every problem becomes one DataFormatError."""

from __future__ import annotations

import json
import math
import mmap
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.errors import DataFormatError, InputError
from surrogate.core.limits import (
    MAX_COMPRESSION_RATIO,
    crash_probe,
    memory_budget,
    memory_ceiling,
    size_text,
)
from surrogate.datasets.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    KINDS,
    READOUTS,
    REQUIRED_ATTRS,
    SPLIT_NAMES,
)
from surrogate.datasets.hashing import content_hash

MAX_ATTRIBUTE_BYTES = 16 << 20
"""Largest attribute read (recipe JSON, column names, ...)."""
_GLOBAL_HEAP = b"GCOL\x01\x00\x00\x00"  # signature + version 1 + reserved bytes
_HEAP_HEADER = 16  # bytes of a collection header and of an object header (8-byte lengths)
PROBE_SECONDS = 30.0
"""Time allowed to the forked parse of a file (plus 1 s per 100 MB) before it counts as a hang."""
_HASH_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")
_FLOAT_DTYPES = ("float32", "float64")


@dataclass(frozen=True)
class Dataset:
    """In-memory dataset: inputs (N, d) or (N, T, d); targets (N, k), (N, T, k) or (N, 1, k)."""

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

    @property
    def readout(self) -> str:
        """``"last"``: sequence targets (N, 1, k) at the last step; else ``"sequence"``."""
        return "last" if self.attrs.get("readout") == "last" else "sequence"


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


def _check_global_heaps(path: Path) -> str | None:
    """Walk every HDF5 global heap collection of the file (where variable-length strings,
    i.e. our attributes, live); return a problem if one is inconsistent, else None.

    libhdf5 trusts these size fields: a zero-sized free-space object makes it loop forever
    and an oversized collection makes it allocate and read gigabytes, so they are checked
    here, before the file is opened.
    """
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        end_of_file = len(data)
        start = data.find(_GLOBAL_HEAP)
        while start != -1:
            size = int.from_bytes(data[start + 8:start + 16], "little")
            end = start + size
            if size < _HEAP_HEADER or end > end_of_file:
                return (f"global heap at byte {start} declares {size} bytes, past the end of the "
                        f"file (truncated or corrupt file)")
            p = start + _HEAP_HEADER
            while p + _HEAP_HEADER <= end:
                index = int.from_bytes(data[p:p + 2], "little")
                length = int.from_bytes(data[p + 8:p + 16], "little")
                need = length if index == 0 else _HEAP_HEADER + -(-length // 8) * 8
                if need < _HEAP_HEADER or p + need > end:
                    return (f"global heap at byte {start} has an object of {length} bytes that "
                            f"does not fit in it (corrupt file)")
                p += need
            start = data.find(_GLOBAL_HEAP, start + 8)
    return None


def _hard_dataset(f: h5py.File, path: str) -> h5py.Dataset | None:
    """The dataset at ``path`` if every link on the way is a hard link inside this file.

    Soft and external links (which could point at other files) count as absent.
    """
    node: Any = f
    for part in path.split("/"):
        if not isinstance(node, h5py.Group) or not isinstance(
                node.get(part, getlink=True), h5py.HardLink):
            return None
        node = node[part]
    return node if isinstance(node, h5py.Dataset) else None


class _Budget:
    """Bytes the arrays of one file may still take (all arrays together)."""

    def __init__(self, total: int) -> None:
        self.total = self.left = total

    def take(self, label: str, shape: tuple[int, ...], n_bytes: int) -> None:
        if n_bytes > self.left:
            raise _Invalid(f"'{label}' declares shape {shape} ({size_text(n_bytes)}), more than "
                           f"the {size_text(self.left)} of memory left of the "
                           f"{size_text(self.total)} this reader may use")
        self.left -= n_bytes


def _check_declared_size(ds: h5py.Dataset, label: str, file_size: int, budget: _Budget) -> None:
    """Refuse an array whose declared size is not backed by the file or does not fit in memory.

    Checked before anything is read: unfiltered data must be stored in full (a resizable or
    never-written dataset reads as fill values), compressed data can expand at most
    :data:`MAX_COMPRESSION_RATIO` times, external/virtual storage is refused, chunks and the
    arrays together must fit in the memory budget.
    """
    if ds.is_virtual or ds.external:
        raise _Invalid(f"'{label}' uses virtual or external storage (data outside this file)")
    declared = math.prod(ds.shape) * ds.dtype.itemsize
    stored = ds.id.get_storage_size()
    filtered = ds.id.get_create_plist().get_nfilters() > 0
    if stored > file_size:
        raise _Invalid(f"'{label}' claims {stored} bytes of storage in a file of {file_size} "
                       f"bytes (truncated or corrupt file)")
    budget.take(label, ds.shape, declared)
    if ds.chunks is not None and math.prod(ds.chunks) * ds.dtype.itemsize > budget.total:
        raise _Invalid(f"'{label}' has chunks of shape {ds.chunks}, larger than the "
                       f"{size_text(budget.total)} of memory this reader may use")
    if not filtered and stored < declared:
        raise _Invalid(f"'{label}' declares shape {ds.shape} ({declared} bytes) but stores "
                       f"only {stored} bytes (unwritten or truncated data)")
    if filtered and declared > MAX_COMPRESSION_RATIO * max(stored, 1):
        raise _Invalid(f"'{label}' declares shape {ds.shape} ({declared} bytes) from only "
                       f"{stored} compressed bytes (more than {MAX_COMPRESSION_RATIO}:1)")


def _read_attrs(obj: h5py.HLObject, where: str) -> dict[str, Any]:
    """All attributes of ``obj`` as plain values, each checked for size before reading."""
    attrs: dict[str, Any] = {}
    for key in obj.attrs:
        aid = obj.attrs.get_id(key)
        n_bytes = math.prod(aid.shape or ()) * aid.dtype.itemsize
        if n_bytes > MAX_ATTRIBUTE_BYTES:
            raise _Invalid(f"attribute {key!r} of {where} declares {n_bytes} bytes (more than "
                           f"{MAX_ATTRIBUTE_BYTES})")
        attrs[key] = _attr(obj.attrs[key])
    return attrs


def _column_names(ds: h5py.Dataset, label: str) -> tuple[str, ...] | None:
    """The ``names`` attribute of ``ds`` as a tuple of strings, or None when absent/invalid."""
    if "names" not in ds.attrs:
        return None
    names = _read_attrs(ds, f"'{label}'").get("names")
    if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
        return None
    return tuple(names)


def _check_attrs(attrs: dict[str, Any], problems: list[str]) -> tuple[int, str, dict]:
    """Check the root attributes; return (version, kind, recipe) or raise _Invalid."""
    fmt = attrs.get("format")
    if fmt != FORMAT_NAME:
        problems.append(f"format attribute is {fmt!r}, expected {FORMAT_NAME!r}")
        raise _Invalid
    version = attrs.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        problems.append(f"version attribute {version!r} is not an integer >= 1")
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
                      budget: _Budget, problems: list[str]) -> np.ndarray | None:
    """Read ``label`` after checking rank, dtype, non-empty axes and declared size."""
    ds = _hard_dataset(f, label)
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
    _check_declared_size(ds, label, file_size, budget)
    arr = ds[()]
    bad = ~np.isfinite(arr)
    if bad.any():
        what = "NaN" if np.isnan(arr).any() else "inf"
        problems.append(f"'{label}' contains {int(bad.sum())} non-finite values ({what})")
    return arr


def _read_splits(f: h5py.File, n: int, file_size: int, budget: _Budget,
                 problems: list[str]) -> dict[str, np.ndarray]:
    """Read and check splits/train|val|test against ``n`` rows (sizes checked first)."""
    splits: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    for name in SPLIT_NAMES:
        ds = _hard_dataset(f, f"splits/{name}")
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
        _check_declared_size(ds, f"splits/{name}", file_size, budget)
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


def _scan(f: h5py.File, *, check_hash: bool, problems: list[str], file_size: int,
          memory: int) -> dict[str, Any]:
    """Check the open file against the spec; append problems; return what was read.

    Every array's declared size is checked against the file and ``memory`` (bytes for all
    arrays together; normally :func:`~surrogate.core.limits.memory_budget`) before it is read,
    so a crafted file cannot make the reader allocate unbounded memory.
    """
    attrs = _read_attrs(f, "the root group")
    version, kind, recipe = _check_attrs(attrs, problems)
    budget = _Budget(memory)
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
        raise _Invalid
    n = arrays["inputs"].shape[0]
    _check_target_shape(kind, attrs, arrays["inputs"].shape, arrays["targets"].shape, problems)
    time = None
    if kind == "sequence":
        ds = _hard_dataset(f, "time")
        expected = (arrays["inputs"].shape[1],)
        if ds is None:
            problems.append("missing dataset 'time' (required for kind 'sequence')")
        elif ds.shape != expected or ds.dtype.name not in _FLOAT_DTYPES:
            problems.append(f"'time' has shape {ds.shape} dtype {ds.dtype}, expected "
                            f"{expected} float32/float64")
        else:
            _check_declared_size(ds, "time", file_size, budget)
            time = ds[()]
            if not np.isfinite(time).all():
                problems.append("'time' contains non-finite values")
    splits = _read_splits(f, n, file_size, budget, problems)
    digest = content_hash(arrays["inputs"], arrays["targets"]) if check_hash else None
    if check_hash and isinstance(attrs.get("content_hash"), str) \
            and digest != attrs["content_hash"]:
        problems.append(f"content hash mismatch: stored {attrs['content_hash']}, "
                        f"data hashes to {digest}")
    return {"attrs": attrs, "recipe": recipe, "arrays": arrays, "names": names,
            "splits": splits, "time": time, "kind": kind, "version": version}


def _scan_file(path: Path, file_size: int, budget: int) -> None:
    """The whole scan but the hash, for :func:`~surrogate.core.limits.crash_probe` (a child)."""
    with h5py.File(path, "r") as f:
        _scan(f, check_hash=False, problems=[], file_size=file_size, memory=budget)


_PROBED: dict[tuple[int, ...], None] = {}
"""Identity (device, inode, size, mtime, ctime) of files whose forked scan finished."""


def _probe_once(path: Path, stat: os.stat_result, budget: int) -> str | None:
    """:func:`~surrogate.core.limits.crash_probe` of the scan, skipped for a file already probed
    unchanged (``info`` and ``fit`` read a file several times)."""
    identity = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    if identity in _PROBED:
        return None
    crash = crash_probe(lambda: _scan_file(path, stat.st_size, budget),
                        PROBE_SECONDS + stat.st_size / 1e8)
    if crash is None:
        if len(_PROBED) >= 256:
            _PROBED.clear()
        _PROBED[identity] = None
    return crash


def _open_and_scan(path: Path, *, check_hash: bool) -> tuple[dict[str, Any] | None, list[str]]:
    """Open ``path`` and scan it; every failure (HDF5 errors included) becomes a problem.

    Global heaps are checked first; then the scan runs once in a forked child, so a file that
    crashes libhdf5 or makes it loop is reported instead of killing or hanging this process.
    """
    problems: list[str] = []
    if not path.is_file():
        return None, ["no such file" if not path.exists() else "not a regular file"]
    budget = memory_budget()
    try:
        if not h5py.is_hdf5(path):
            return None, ["not an HDF5 file"]
        heap_problem = _check_global_heaps(path)
        if heap_problem is not None:
            return None, [heap_problem]
        stat = path.stat()
        file_size = stat.st_size
        with memory_ceiling(2 * budget):  # the arrays (<= budget) and their temporaries
            crash = _probe_once(path, stat, budget)
            if crash is not None:
                return None, [f"reading it with libhdf5 {crash}"]
            with h5py.File(path, "r") as f:
                return _scan(f, check_hash=check_hash, problems=problems, file_size=file_size,
                             memory=budget), problems
    except _Invalid as exc:
        return None, [*problems, *(str(a) for a in exc.args)]
    except MemoryError:
        return None, [*problems, f"reading it needs more than the {size_text(2 * budget)} "
                                 f"of memory this reader may use (corrupt size field?)"]
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, IndexError,
            OverflowError, RecursionError) as exc:
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
