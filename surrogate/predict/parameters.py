"""The parameters μ of the problems a family surrogate is asked about: checked, ordered, boxed.

A parameter table has one row per problem and one column per parameter of the family. A
CSV header names the columns (in any order; every name must be one of the family's, each
once); a table without names (NPY, headerless CSV) must have the family's columns in the
family's order. :func:`outside_box` says, row by row, how far a μ lies outside the box the
surrogate was trained on. Torch-free.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from surrogate.core.errors import InputError
from surrogate.predict.tables import Table


def parameter_rows(table: Table, names: Sequence[str]) -> np.ndarray:
    """The table's values (B, p) in the order of ``names``; InputError (one line) for unknown,
    missing or repeated column names, a wrong column count, or a non-finite value."""
    names = tuple(names)
    values = table.values
    if table.names is not None:
        given = tuple(table.names)
        unknown = [n for n in given if n not in names]
        missing = [n for n in names if n not in given]
        repeated = sorted({n for n in given if given.count(n) > 1})
        if unknown or missing or repeated:
            parts = [f"unknown {', '.join(unknown)}" if unknown else "",
                     f"missing {', '.join(missing)}" if missing else "",
                     f"repeated {', '.join(repeated)}" if repeated else ""]
            raise InputError(f"{table.path}: parameter columns {'; '.join(p for p in parts if p)}"
                             f" (the family's parameters: {', '.join(names)})")
        values = values[:, [given.index(n) for n in names]]
    elif values.shape[1] != len(names):
        raise InputError(f"{table.path}: {values.shape[1]} columns, expected {len(names)} "
                         f"parameters ({', '.join(names)})")
    finite = np.isfinite(values)
    if not finite.all():
        row, col = (int(i) for i in np.argwhere(~finite)[0])
        raise InputError(f"{table.path}: row {row + 1}, parameter {names[col]}: "
                         f"{values[row, col]} is not a finite number")
    return np.ascontiguousarray(values)


def outside_box(params: np.ndarray, names: Sequence[str], box: np.ndarray) -> list[str]:
    """One line per row of ``params`` (B, p) outside ``box`` (p, 2): each parameter beyond
    its bound, by how much, and as a share of the box's width. Empty when all are inside."""
    params, box = np.asarray(params, dtype=float), np.asarray(box, dtype=float)
    low, high = box[:, 0], box[:, 1]
    below, above = low - params, params - high
    lines = []
    for row in np.flatnonzero(((below > 0) | (above > 0)).any(axis=1)):
        parts = []
        for j in np.flatnonzero((below[row] > 0) | (above[row] > 0)):
            side, bound, by = (("below", low[j], below[row, j]) if below[row, j] > 0
                               else ("above", high[j], above[row, j]))
            parts.append(f"{names[j]} = {params[row, j]:.6g} is {by:.3g} {side} {bound:.6g} "
                         f"({100 * by / (high[j] - low[j]):.3g} % of the box width)")
        lines.append(f"row {row + 1} lies outside the training box: {'; '.join(parts)}")
    return lines


__all__ = ["parameter_rows", "outside_box"]
