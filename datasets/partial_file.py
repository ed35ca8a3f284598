"""The partial file of a streamed generation: rows written so far, checked on ``--resume``.

``.<name>.partial`` next to the output (never the output's own name) is an HDF5 file in SWMR
mode (single writer, libver latest): every append is resize, write, flush, so a reader sees a
consistent file even after the writer was killed (``h5py.File(..., swmr=True)``). It holds

- root attributes ``format = "surrogate-partial"``, ``version``, ``recipe`` (the resolved
  recipe as JSON, sorted keys), ``package_version`` (a resume needs the same);
- one group per table (``samples``: ``inputs``, ``targets`` in sample order; optionally
  ``cache``: ``key``, ``value``, intermediate results a generator may keep, e.g. the impulse
  response of a material), each table with ``block_rows`` and ``checksums``: the sha256 of
  each block of rows (its columns' little-endian C-ordered bytes), written after the block.

Resume (:meth:`PartialFile.open`): the recipe must be the same; blocks are re-hashed in order
and kept up to the first one whose checksum is missing or wrong; they are copied into a fresh
partial file that replaces the old one (a killed SWMR writer leaves a file that can be read,
not reopened for writing), and the generation continues from there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.version import __version__

PARTIAL_FORMAT = "surrogate-partial"
PARTIAL_VERSION = 1


def partial_path(path: str | os.PathLike) -> Path:
    """The partial file of output ``path``: ``.<name>.partial`` in the same folder."""
    path = Path(path)
    return path.parent / f".{path.name}.partial"


@dataclass(frozen=True)
class Table:
    """An append-only table: ``columns`` maps name -> (row shape, dtype); ``max_rows`` rows."""

    columns: dict[str, tuple[tuple[int, ...], str]]
    max_rows: int
    block_rows: int


def block_checksum(block: Mapping[str, np.ndarray], columns: Mapping[str, Any]) -> bytes:
    """sha256 hex (64 ASCII bytes) of a block's columns, in column order."""
    digest = hashlib.sha256()
    for name, (_, dtype) in columns.items():
        arr = np.ascontiguousarray(block[name], dtype=np.dtype(dtype).newbyteorder("<"))
        digest.update(memoryview(arr).cast("B") if arr.size else b"")
    return digest.hexdigest().encode("ascii")


def _differences(stored: Any, wanted: Mapping[str, Any]) -> str:
    """The recipe keys whose values differ (for the one-line resume error)."""
    if not isinstance(stored, dict):
        return "no readable recipe"
    keys = sorted(k for k in set(stored) | set(wanted) if stored.get(k) != wanted.get(k))
    return "differs in " + ", ".join(keys)


class PartialFile:
    """An open partial file (SWMR writer) with its tables and the rows each holds."""

    def __init__(self, path: Path, handle: h5py.File, tables: Mapping[str, Table]) -> None:
        self.path, self._file, self.tables = path, handle, dict(tables)

    # ------------------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike, recipe: Mapping[str, Any],
             tables: Mapping[str, Table], resume: bool) -> tuple[PartialFile, dict[str, int]]:
        """Create ``path`` (replacing any old one), or with ``resume`` continue the one there.

        Returns the open file and, per table, the rows kept from before (0 when new).
        InputError (one line) when the old file is unreadable or holds another recipe.
        """
        path = Path(path)
        source = None
        if resume and path.exists():
            source = _open_for_reading(path)
        try:
            kept = _verified_rows(source, path, recipe, tables) if source is not None else {}
            tmp = path.parent / f"{path.name}.{secrets.token_hex(4)}.tmp"
            partial = None
            try:
                partial = cls(path, _create(tmp, recipe, tables), tables)
                for name, rows in kept.items():
                    partial._copy(name, source, rows)
                os.replace(tmp, path)
            except BaseException:
                if partial is not None:
                    partial.close()
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
        finally:
            if source is not None:
                source.close()
        return partial, {name: kept.get(name, 0) for name in tables}

    # ------------------------------------------------------------------------------ rows

    def rows(self, table: str) -> int:
        """Rows of ``table`` written and checksummed."""
        spec, group = self.tables[table], self._file[table]
        return min(group["checksums"].shape[0] * spec.block_rows, spec.max_rows,
                   *(group[c].shape[0] for c in spec.columns))

    def append(self, table: str, block: Mapping[str, np.ndarray]) -> None:
        """Append one block (``block_rows`` rows; the last block of the table may be shorter)."""
        spec, group = self.tables[table], self._file[table]
        start = group[next(iter(spec.columns))].shape[0]
        count = len(next(iter(block.values())))
        for name, (shape, dtype) in spec.columns.items():
            data = np.asarray(block[name], dtype=dtype)
            if data.shape != (count, *shape):
                raise ValueError(f"{table}/{name}: block of shape {data.shape}, expected "
                                 f"({count}, {', '.join(map(str, shape))})")
            group[name].resize(start + count, axis=0)
            group[name][start:start + count] = data
        self._file.flush()  # the rows reach the file before their checksum
        checksums = group["checksums"]
        checksums.resize(checksums.shape[0] + 1, axis=0)
        checksums[-1] = block_checksum(block, spec.columns)
        self._file.flush()

    def read(self, table: str, column: str, start: int = 0, stop: int | None = None
             ) -> np.ndarray:
        """Rows ``start:stop`` of ``table/column``."""
        return self._file[table][column][start:stop]

    def close(self) -> None:
        """Close the file (it stays on disk)."""
        with contextlib.suppress(Exception):
            self._file.close()

    def _copy(self, table: str, source: h5py.File, rows: int) -> None:
        """Copy the first ``rows`` verified rows of ``table`` from ``source``, block by block."""
        step = self.tables[table].block_rows
        for start in range(0, rows, step):
            self.append(table, {c: source[table][c][start:min(start + step, rows)]
                                for c in self.tables[table].columns})


def _open_for_reading(path: Path) -> h5py.File:
    """Open an old partial file read-only (also one whose writer was killed)."""
    try:
        return h5py.File(path, "r", libver="latest", swmr=True)
    except (OSError, ValueError) as exc:
        reason = " ".join(str(exc).split())
        raise InputError(f"cannot resume from {path}: unreadable ({reason}); delete it to "
                         "start over") from None


def _verified_rows(source: h5py.File, path: Path, recipe: Mapping[str, Any],
                   tables: Mapping[str, Table]) -> dict[str, int]:
    """Rows per table whose blocks match their checksums (up to the first bad block)."""
    try:
        stored = json.loads(source.attrs.get("recipe", "null"))
    except (TypeError, ValueError):
        stored = None
    if source.attrs.get("format") != PARTIAL_FORMAT or stored != json.loads(
            json.dumps(dict(recipe), sort_keys=True)):
        raise InputError(f"cannot resume from {path}: it was written for another recipe "
                         f"({_differences(stored, recipe)}); drop --resume to start over")
    written_by = source.attrs.get("package_version")
    if written_by != __version__:  # other code may compute other bits
        raise InputError(f"cannot resume from {path}: written by surrogate {written_by}, this "
                         f"is {__version__}; drop --resume to start over")
    kept: dict[str, int] = {}
    for name, spec in tables.items():
        kept[name] = 0
        if name not in source:
            continue
        group = source[name]
        try:
            if int(group.attrs["block_rows"]) != spec.block_rows or any(
                    group[c].shape[1:] != shape for c, (shape, _) in spec.columns.items()):
                raise InputError(f"cannot resume from {path}: its {name} table has another "
                                 "layout; drop --resume to start over")
            lengths = [group[c].shape[0] for c in spec.columns]
            for index, expected in enumerate(group["checksums"][:]):
                start = index * spec.block_rows
                stop = min(start + spec.block_rows, spec.max_rows)
                if stop > min(lengths):
                    break
                block = {c: group[c][start:stop] for c in spec.columns}
                if block_checksum(block, spec.columns) != bytes(expected):
                    break
                kept[name] = stop
        except (KeyError, OSError, ValueError) as exc:
            if isinstance(exc, InputError):
                raise
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise InputError(f"cannot resume from {path}: unreadable {name} table ({reason}); "
                             "delete it to start over") from None
    return kept


def _create(path: Path, recipe: Mapping[str, Any], tables: Mapping[str, Table]) -> h5py.File:
    """A new partial file with empty tables, switched to SWMR writing."""
    handle = h5py.File(path, "x", libver="latest")
    try:
        handle.attrs["format"] = PARTIAL_FORMAT
        handle.attrs["version"] = PARTIAL_VERSION
        handle.attrs["recipe"] = json.dumps(dict(recipe), sort_keys=True)
        handle.attrs["package_version"] = __version__
        for name, spec in tables.items():
            group = handle.create_group(name)
            group.attrs["block_rows"] = spec.block_rows
            for column, (shape, dtype) in spec.columns.items():
                group.create_dataset(column, shape=(0, *shape), maxshape=(spec.max_rows, *shape),
                                     chunks=(spec.block_rows, *shape), dtype=dtype,
                                     track_times=False)
            blocks = max(1, -(-spec.max_rows // spec.block_rows))
            group.create_dataset("checksums", shape=(0,), maxshape=(blocks,),
                                 chunks=(min(blocks, 1024),), dtype="S64", track_times=False)
        handle.swmr_mode = True
    except BaseException:
        handle.close()
        raise
    return handle


__all__ = ["PartialFile", "Table", "partial_path", "block_checksum", "PARTIAL_FORMAT"]
