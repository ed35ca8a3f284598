"""Streamed generation: rows arrive in sample order and go to disk as they come.

A streamed generator (:class:`StreamedDataset`) states its header (names, splits, mesh, ...)
and row shapes up front and produces its rows in blocks, in sample order, computing the
expensive parts on any executor (:func:`surrogate.datasets.parallel.ordered_map`). This
process alone writes: each block is appended to the partial file
(:mod:`surrogate.datasets.partial_file`) with its checksum; when all rows are there the final
file is written from the partial one in whole chunks, in order, with the same layout as
:func:`~surrogate.datasets.writer.write_dataset`, then renamed into place. The final file is
therefore the same bytes whatever the executor, the number of workers, the order in which
they finished, or how many times the generation was interrupted and resumed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.errors import InputError
from surrogate.datasets.format import DTYPES, SPLIT_NAMES
from surrogate.datasets.generator_output import ProgressCallback
from surrogate.datasets.hashing import ContentHasher, family_hash_arrays
from surrogate.datasets.partial_file import PartialFile, Table, partial_path
from surrogate.datasets.trusted_files import commit_own
from surrogate.datasets.writer import root_attributes, write_contents

BLOCK_BYTES = 1 << 20  # rows per checksum block: about 1 MiB of inputs + targets


class GenerationInterrupted(KeyboardInterrupt):
    """Ctrl-C / SIGTERM during a streamed generation; ``rows`` of ``n`` kept in ``partial``."""

    def __init__(self, partial: Path | None, rows: int, n: int) -> None:
        super().__init__(f"generation interrupted after {rows} of {n} samples")
        self.partial, self.rows, self.n = partial, rows, n


class ResultCache:
    """Intermediate results kept in the partial file (``key`` -> array), reloaded on resume."""

    def __init__(self, partial: PartialFile | None, rows: int) -> None:
        self._partial = partial
        self.values: dict[int, np.ndarray] = {}
        if partial is not None and rows:
            keys = partial.read("cache", "key", 0, rows)
            values = partial.read("cache", "value", 0, rows)
            self.values = {int(k): v for k, v in zip(keys, values, strict=True)}

    def put(self, key: int, value: np.ndarray) -> None:
        """Keep ``value`` under ``key`` (in memory, and on disk when there is a cache table)."""
        self.values[int(key)] = value
        if self._partial is not None:
            self._partial.append("cache", {"key": np.array([key]), "value": value[None]})


RowProducer = Callable[[int, int, ResultCache], Iterator[tuple[np.ndarray, np.ndarray]]]


@dataclass(frozen=True)
class StreamedDataset:
    """What a streamed generator writes (see :func:`write_streamed`).

    ``produce(start, block_rows, cache)`` yields (inputs, targets) blocks of ``block_rows``
    rows (the last one may be shorter) for samples ``start, start + 1, ...`` up to ``n``;
    ``cache_shape`` (row shape of float64 intermediate results, or None) adds a cache table
    of at most ``cache_rows`` entries to the partial file.
    """

    n: int
    input_shape: tuple[int, ...]
    target_shape: tuple[int, ...]
    input_names: tuple[str, ...]
    target_names: tuple[str, ...]
    splits: dict[str, np.ndarray]
    problem: str
    domain: str
    recipe: dict[str, Any]
    seed: int
    produce: RowProducer
    dtype: str = "float64"
    kind: str = "sequence"
    time: np.ndarray | None = None
    mesh: dict[str, np.ndarray] | None = None
    fem: dict[str, Any] | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    cache_shape: tuple[int, ...] | None = None
    cache_rows: int = 0
    family: dict[str, Any] | None = None

    def block_rows(self) -> int:
        """Rows per checksummed block: about :data:`BLOCK_BYTES` of inputs and targets."""
        itemsize = np.dtype(self.dtype).itemsize
        row = itemsize * (int(np.prod(self.input_shape)) + int(np.prod(self.target_shape)))
        return min(self.n, max(1, BLOCK_BYTES // max(1, row)))

    def tables(self) -> dict[str, Table]:
        """The partial file's tables: samples, and the cache when there is one."""
        tables = {"samples": Table({"inputs": (self.input_shape, self.dtype),
                                    "targets": (self.target_shape, self.dtype)},
                                   self.n, self.block_rows())}
        if self.cache_shape is not None and self.cache_rows > 0:
            tables["cache"] = Table({"key": ((), "int64"), "value": (self.cache_shape, "float64")},
                                    self.cache_rows, 1)
        return tables


def _checked_block(data: StreamedDataset, inputs: np.ndarray, targets: np.ndarray
                   ) -> dict[str, np.ndarray]:
    """The block in the stored dtype; InputError on non-finite values (as the writer does)."""
    block = {"inputs": np.asarray(inputs, dtype=data.dtype),
             "targets": np.asarray(targets, dtype=data.dtype)}
    for label, arr in block.items():
        if not np.all(np.isfinite(arr)):
            raise InputError(f"{label} contain NaN or inf values")
    return block


def write_streamed(data: StreamedDataset, path: str | os.PathLike, *, resume: bool = False,
                   commit: Callable[[Path, Path], None] | None = None,
                   on_progress: ProgressCallback | None = None) -> str:
    """Generate ``data`` into ``path`` through its partial file; return the content hash.

    ``resume`` continues from the verified rows of an earlier, interrupted run of the same
    recipe (or starts afresh when there is none). An interrupt raises
    :class:`GenerationInterrupted` and keeps the partial file (unless it holds nothing); any
    other error keeps it too. ``commit(tmp, path)`` renames the finished file into place.
    """
    if data.dtype not in DTYPES:
        raise InputError(f"unknown dtype {data.dtype!r}; choose one of: {', '.join(DTYPES)}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    where = partial_path(path)
    progress = on_progress or (lambda done, total, description: None)
    progress(0, data.n, "checking the partial file" if resume else "starting")
    partial, kept = PartialFile.open(where, data.recipe, data.tables(), resume)
    try:
        start = kept["samples"]
        cache = ResultCache(partial if "cache" in partial.tables else None, kept.get("cache", 0))
        for inputs, targets in data.produce(start, data.block_rows(), cache):
            partial.append("samples", _checked_block(data, inputs, targets))
        if partial.rows("samples") != data.n:
            raise RuntimeError(f"the generator produced {partial.rows('samples')} of "
                               f"{data.n} rows")
    except KeyboardInterrupt:
        rows = partial.rows("samples")
        cached = partial.rows("cache") if "cache" in partial.tables else 0
        partial.close()
        if rows == 0 and cached == 0:  # nothing worth keeping
            with contextlib.suppress(FileNotFoundError):
                os.unlink(where)
            raise GenerationInterrupted(None, 0, data.n) from None
        raise GenerationInterrupted(where, rows, data.n) from None
    except BaseException:
        partial.close()
        raise
    partial.close()
    progress(data.n, data.n, "writing the dataset file")
    try:
        digest = finish_file(data, where, path, commit)
    except KeyboardInterrupt:
        raise GenerationInterrupted(where, data.n, data.n) from None
    with contextlib.suppress(FileNotFoundError):
        os.unlink(where)
    return digest


def finish_file(data: StreamedDataset, source: Path, path: Path,
                commit: Callable[[Path, Path], None] | None = None) -> str:
    """Write the dataset file from the complete partial file ``source`` (see the module)."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    n = data.n
    for name in SPLIT_NAMES:
        idx = np.asarray(data.splits[name])
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise InputError(f"split {name!r} has indices outside [0, {n})")
    try:
        with h5py.File(source, "r", libver="latest") as rows, h5py.File(tmp, "x") as f:
            inputs, targets = rows["samples"]["inputs"], rows["samples"]["targets"]
            digest = streamed_hash({"inputs": inputs, "targets": targets,
                                    **family_hash_arrays(data.family)})
            root = root_attributes(kind=data.kind, problem=data.problem, domain=data.domain,
                                   recipe=data.recipe, seed=data.seed, digest=digest,
                                   dtype=data.dtype, attrs=data.attrs)
            write_contents(f, root=root, inputs=inputs, targets=targets,
                           input_names=data.input_names, target_names=data.target_names,
                           kind=data.kind, time=data.time, dtype=data.dtype, splits=data.splits,
                           mesh=data.mesh, fem=data.fem, family=data.family)
        commit_own(tmp, path, commit)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return digest


def streamed_hash(arrays: Mapping[str, h5py.Dataset], block_bytes: int = 8 << 20) -> str:
    """:func:`~surrogate.datasets.hashing.content_hash` of on-disk arrays, read in blocks."""
    hasher = ContentHasher()
    for name, array in arrays.items():
        hasher.start(name, array.dtype, array.shape)
        row = array.dtype.itemsize * int(np.prod(array.shape[1:], dtype=np.int64))
        step = max(1, block_bytes // max(1, row))
        for start in range(0, array.shape[0], step):
            hasher.update(array[start:start + step])
    return hasher.value()


__all__ = ["StreamedDataset", "ResultCache", "GenerationInterrupted", "write_streamed",
           "finish_file", "streamed_hash", "BLOCK_BYTES"]
