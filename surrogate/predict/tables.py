"""Numeric tables a user hands to ``predict``: CSV (optional header), NPY, HDF5. Torch-free.

:func:`read_table` returns the values (n, d) float64 and the column names of a CSV header
(None for NPY, HDF5 and a CSV without one). Every problem is an InputError of one line
naming the file: a missing or unreadable file, ragged or non-numeric rows, an empty table.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from surrogate.core.errors import InputError

CSV_SUFFIXES = (".csv", ".txt")
NPY_SUFFIXES = (".npy",)
HDF5_SUFFIXES = (".h5", ".hdf5")


@dataclass(frozen=True)
class Table:
    """Values (n, d) float64 and the header's column names (None when the file has none)."""

    values: np.ndarray
    names: tuple[str, ...] | None
    path: Path


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _read_csv(path: Path) -> Table:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [[cell.strip() for cell in row] for row in csv.reader(fh) if any(row)]
    if not rows:
        raise InputError(f"{path}: the table is empty")
    names = None
    if any(_number(cell) is None for cell in rows[0]):
        names, rows = tuple(rows[0]), rows[1:]
        if not rows:
            raise InputError(f"{path}: the table has a header but no rows")
    width = len(names) if names is not None else len(rows[0])
    values = np.empty((len(rows), width), dtype=np.float64)
    for i, row in enumerate(rows):
        line = i + 1 + (names is not None)
        if len(row) != width:
            raise InputError(f"{path}: line {line} has {len(row)} columns, expected {width}")
        for j, cell in enumerate(row):
            number = _number(cell)
            if number is None:
                raise InputError(f"{path}: line {line}, column {j + 1}: {cell!r} is not a "
                                 "number")
            values[i, j] = number
    return Table(values, names, path)


def _read_npy(path: Path) -> Table:
    try:
        values = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a readable .npy array ({exc})") from None
    if values.dtype.kind not in "biuf":
        raise InputError(f"{path}: holds {values.dtype} values, expected numbers")
    return Table(np.asarray(values, dtype=np.float64), None, path)


def _read_hdf5(path: Path, dataset: str | None) -> Table:
    import h5py

    try:
        with h5py.File(path, "r") as fh:
            if dataset is None:
                found = [k for k, v in fh.items() if isinstance(v, h5py.Dataset)]
                if len(found) != 1:
                    raise InputError(f"{path}: name the dataset (FILE.h5:NAME); top-level "
                                     f"datasets: {', '.join(found) or 'none'}")
                dataset = found[0]
            if dataset not in fh or not isinstance(fh[dataset], h5py.Dataset):
                raise InputError(f"{path}: no dataset {dataset!r}")
            values = np.asarray(fh[dataset][()])
    except OSError as exc:
        raise InputError(f"{path}: not a readable HDF5 file ({exc})") from None
    if values.dtype.kind not in "biuf":
        raise InputError(f"{path}:{dataset} holds {values.dtype} values, expected numbers")
    return Table(np.asarray(values, dtype=np.float64), None, path)


def read_table(spec: str | os.PathLike, *, hdf5: bool = False) -> Table:
    """The table in ``spec``: ``FILE.csv`` / ``.txt`` (header optional), ``FILE.npy``, and with
    ``hdf5`` ``FILE.h5[:DATASET]`` (the only top-level dataset when none is named).

    One row per record; a 1-D NPY or HDF5 array is one row. InputError otherwise.
    """
    text = os.fspath(spec)
    dataset = None
    if hdf5 and ":" in text and Path(text.rsplit(":", 1)[0]).suffix.lower() in HDF5_SUFFIXES:
        text, dataset = text.rsplit(":", 1)
    path = Path(text)
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else
                         f"{path}: not a file")
    suffix = path.suffix.lower()
    if suffix in CSV_SUFFIXES:
        table = _read_csv(path)
    elif suffix in NPY_SUFFIXES:
        table = _read_npy(path)
    elif hdf5 and suffix in HDF5_SUFFIXES:
        table = _read_hdf5(path, dataset)
    else:
        kinds = CSV_SUFFIXES + NPY_SUFFIXES + (HDF5_SUFFIXES if hdf5 else ())
        raise InputError(f"{path}: unknown table format {suffix or '(no suffix)'!r}; use "
                         f"{', '.join(kinds)}")
    values = table.values[None, :] if table.values.ndim == 1 else table.values
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] == 0:
        raise InputError(f"{path}: expected a table of rows (n, d), got shape "
                         f"{table.values.shape}")
    return Table(values, table.names, path)


__all__ = ["Table", "read_table", "CSV_SUFFIXES", "NPY_SUFFIXES", "HDF5_SUFFIXES"]
