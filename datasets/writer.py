"""Atomic writer of dataset files (temporary name in the same directory, then rename)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.version import __version__
from surrogate.datasets.format import (
    DTYPES,
    FORMAT_NAME,
    FORMAT_VERSION,
    KINDS,
    READOUTS,
    SPLIT_NAMES,
)
from surrogate.datasets.hashing import content_hash, family_hash_arrays
from surrogate.datasets.trusted_files import commit_own

_CHUNK_BYTES = 1 << 20  # about 1 MiB per chunk
_COPY_CHUNKS = 16  # chunks per block when rows are copied from another file


def creation_time() -> str:
    """ISO-8601 UTC creation time; ``SOURCE_DATE_EPOCH`` (seconds) overrides the clock."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        stamp = _dt.datetime.fromtimestamp(int(epoch), tz=_dt.timezone.utc)
    else:
        stamp = _dt.datetime.now(tz=_dt.timezone.utc)
    return stamp.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _put(group: h5py.Group, name: str, data: np.ndarray | h5py.Dataset) -> h5py.Dataset:
    """Create a dataset; large arrays are chunked along axis 0 (about 1 MiB per chunk).

    Integer arrays (splits, mesh cells) are gzip(1)+shuffle compressed; float samples are
    not (random doubles shrink by ~15% at several times the write cost). ``data`` may be an
    h5py Dataset of another file (a streamed generation's rows): it is copied in row blocks
    of whole chunks, in order, so the file is the one the full array would give.
    """
    streamed = isinstance(data, h5py.Dataset)
    data = data if streamed else np.asarray(data)
    kwargs: dict[str, Any] = {"track_times": False}
    if data.ndim >= 1 and data.size > 4096:
        row_bytes = data.dtype.itemsize * int(np.prod(data.shape[1:], dtype=np.int64))
        rows = min(data.shape[0], max(1, _CHUNK_BYTES // max(1, row_bytes)))
        kwargs["chunks"] = (rows, *data.shape[1:])
        if data.dtype.kind in "iu":
            kwargs.update(compression="gzip", compression_opts=1, shuffle=True)
    if not streamed:
        return group.create_dataset(name, data=data, **kwargs)
    ds = group.create_dataset(name, shape=data.shape, dtype=data.dtype, **kwargs)
    step = kwargs["chunks"][0] * _COPY_CHUNKS if "chunks" in kwargs else max(1, data.shape[0])
    for start in range(0, data.shape[0], step):
        ds[start:start + step] = data[start:start + step]
    return ds


def _check_readout(kind: str, readout: Any, inputs: np.ndarray, targets: np.ndarray) -> None:
    """The optional ``readout`` attribute: sequence targets per step, or at the last step only."""
    if readout not in READOUTS:
        raise InputError(f"unknown readout {readout!r}; choose one of: {', '.join(READOUTS)}")
    if kind != "sequence" and readout != "sequence":
        raise InputError(f"readout {readout!r} applies to sequence datasets only")
    steps = 1 if readout == "last" else inputs.shape[1]
    if kind == "sequence" and targets.shape[:2] != (inputs.shape[0], steps):
        raise InputError(f"inputs {inputs.shape} and targets {targets.shape} disagree: readout "
                         f"{readout!r} needs targets of shape ({inputs.shape[0]}, {steps}, k)")


def _check_arrays(kind: str, inputs: np.ndarray, targets: np.ndarray, input_names: Sequence[str],
                  target_names: Sequence[str], time: np.ndarray | None,
                  readout: Any = "sequence") -> None:
    if kind not in KINDS:
        raise InputError(f"unknown dataset kind {kind!r}; choose one of: {', '.join(KINDS)}")
    ndim = 2 if kind == "pointwise" else 3
    for label, arr, names in (("inputs", inputs, input_names), ("targets", targets, target_names)):
        if arr.ndim != ndim:
            raise InputError(f"{label} must have {ndim} dimensions for kind {kind!r}, "
                             f"got shape {arr.shape}")
        if arr.shape[-1] != len(names):
            raise InputError(f"{label} has {arr.shape[-1]} columns but {len(names)} names")
        if not np.all(np.isfinite(arr)):
            raise InputError(f"{label} contain NaN or inf values")
    _check_readout(kind, readout, inputs, targets)
    if kind == "pointwise" and inputs.shape[:-1] != targets.shape[:-1]:
        raise InputError(f"inputs {inputs.shape} and targets {targets.shape} disagree in length")
    if kind == "sequence" and (time is None or np.shape(time) != (inputs.shape[1],)):
        raise InputError(f"sequence datasets need time of shape ({inputs.shape[1]},)")


def root_attributes(*, kind: str, problem: str, domain: str, recipe: Mapping[str, Any],
                    seed: int, digest: str, dtype: str,
                    attrs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The root attributes of a dataset file, in the order they are written."""
    root = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "kind": kind,
        "problem": problem, "domain": domain,
        "recipe": json.dumps(dict(recipe), sort_keys=True), "seed": int(seed),
        "content_hash": digest, "package_version": __version__,
        "created": creation_time(), "dtype": dtype,
    }
    return {**root, **dict(attrs or {})}


def write_dataset(
    path: str | os.PathLike,
    *,
    inputs: np.ndarray,
    targets: np.ndarray,
    input_names: Sequence[str],
    target_names: Sequence[str],
    splits: Mapping[str, np.ndarray],
    problem: str,
    domain: str,
    recipe: Mapping[str, Any],
    seed: int,
    kind: str = "pointwise",
    time: np.ndarray | None = None,
    mesh: Mapping[str, np.ndarray] | None = None,
    fem: Mapping[str, Any] | None = None,
    dtype: str = "float64",
    attrs: Mapping[str, Any] | None = None,
    commit: Callable[[Path, Path], None] | None = None,
    family: Mapping[str, Any] | None = None,
) -> str:
    """Write one dataset file atomically (see datasets/FORMAT.md); return its content hash.

    The file is built under a temporary name in the target directory and renamed only
    when complete; on any exception (KeyboardInterrupt, a full disk included) the temporary
    file is removed and no file appears at ``path``. ``mesh``/``fem`` map names to arrays
    (``fem`` may also hold scalar/str entries, stored as attributes of ``fem/``).
    ``attrs`` may hold ``readout="last"`` (sequence targets ``(N, 1, k)`` at the last step).
    ``commit(temporary, path)`` puts the complete file in place (default ``os.replace``; a
    caller may rename companion files at the same moment). ``family`` is the ``family/`` group
    of a family dataset (a tree, see :func:`put_tree`).
    """
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose one of: {', '.join(DTYPES)}")
    inputs = np.asarray(inputs, dtype=dtype)
    targets = np.asarray(targets, dtype=dtype)
    _check_arrays(kind, inputs, targets, input_names, target_names, time,
                  dict(attrs or {}).get("readout", "sequence"))
    n = inputs.shape[0]
    for name in SPLIT_NAMES:
        idx = np.asarray(splits[name])
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise InputError(f"split {name!r} has indices outside [0, {n})")
    digest = content_hash(inputs, targets, family_hash_arrays(family))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with h5py.File(tmp, "x") as f:
            root = root_attributes(kind=kind, problem=problem, domain=domain, recipe=recipe,
                                   seed=seed, digest=digest, dtype=dtype, attrs=attrs)
            write_contents(f, root=root, inputs=inputs, targets=targets,
                           input_names=input_names, target_names=target_names, kind=kind,
                           time=time, dtype=dtype, splits=splits, mesh=mesh, fem=fem,
                           family=family)
        commit_own(tmp, path, commit)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return digest


def write_contents(f: h5py.File, *, root: Mapping[str, Any], inputs: np.ndarray | h5py.Dataset,
                   targets: np.ndarray | h5py.Dataset, input_names: Sequence[str],
                   target_names: Sequence[str], kind: str, time: np.ndarray | None,
                   dtype: str, splits: Mapping[str, np.ndarray],
                   mesh: Mapping[str, np.ndarray] | None = None,
                   fem: Mapping[str, Any] | None = None,
                   family: Mapping[str, Any] | None = None) -> None:
    """Fill the open, empty file ``f`` (attributes, arrays, groups) in the format's order."""
    for key, value in root.items():
        f.attrs[key] = value
    for label, arr, names in (("inputs", inputs, input_names),
                              ("targets", targets, target_names)):
        ds = _put(f, label, arr)
        ds.attrs["names"] = np.array([str(s) for s in names], dtype=h5py.string_dtype())
    if kind == "sequence":
        _put(f, "time", np.asarray(time, dtype=dtype))
    group = f.create_group("splits")
    for name in SPLIT_NAMES:
        _put(group, name, np.asarray(splits[name], dtype=np.int64))
    for gname, content in (("mesh", mesh), ("fem", fem)):
        if content is None:
            continue
        group = f.create_group(gname)
        for key, value in content.items():
            if isinstance(value, np.ndarray):
                _put(group, key, value)
            else:
                group.attrs[key] = value
    if family is not None:
        put_tree(f.create_group("family"), family)


def put_tree(group: h5py.Group, content: Mapping[str, Any]) -> None:
    """Write a tree into ``group``: an array becomes a dataset, ``(array, {attr: value})`` a
    dataset with attributes (a tuple of str: a string array), a mapping a subgroup, anything
    else an attribute of ``group``; in the mapping's order."""
    for key, value in content.items():
        if isinstance(value, Mapping):
            put_tree(group.create_group(key), value)
        elif isinstance(value, np.ndarray):
            _put(group, key, value)
        elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], np.ndarray):
            ds = _put(group, key, value[0])
            for name, attr in value[1].items():
                ds.attrs[name] = (np.array([str(s) for s in attr], dtype=h5py.string_dtype())
                                  if isinstance(attr, tuple) else attr)
        else:
            group.attrs[key] = value


__all__ = ["write_dataset", "write_contents", "creation_time", "root_attributes", "put_tree"]
