"""``history.csv``: one row per epoch, floats kept exactly (their repr), missing cells empty."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError
from surrogate.runs.safe_load import read_text

INT_COLUMNS = ("epoch", "depth")
"""Columns read back as int; every other non-empty cell is a float."""


def history_columns(history: Sequence[Mapping[str, Any]]) -> list[str]:
    """Union of the rows' keys in order of first appearance (τ columns of pruned layers stay)."""
    return list(dict.fromkeys(key for row in history for key in row))


def history_to_csv(history: Sequence[Mapping[str, Any]]) -> str:
    """CSV text of the history; floats keep their exact repr, missing cells are empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = history_columns(history)
    writer.writerow(columns)
    for row in history:
        writer.writerow(["" if row.get(c) is None else repr(row[c]) if isinstance(row[c], float)
                         else row[c] for c in columns])
    return out.getvalue()


def history_from_csv(text: str) -> list[dict[str, Any]]:
    """Inverse of :func:`history_to_csv`: numbers as float (int for epoch/depth), empty -> None."""
    rows = []
    for raw in csv.DictReader(io.StringIO(text)):
        if None in raw:
            raise ValueError(f"row {len(rows) + 1} has more cells than the header")
        row: dict[str, Any] = {}
        for key, cell in raw.items():
            if cell is None or cell == "":
                row[key] = None
            elif key in INT_COLUMNS:
                row[key] = int(cell)
            else:
                row[key] = float(cell)
        rows.append(row)
    return rows


def read_history(path: Path) -> list[dict[str, Any]]:
    """``history.csv`` of a run as rows; DataFormatError when missing or malformed."""
    text = read_text(path)
    if not text.strip():
        raise DataFormatError(f"{path}: empty (expected a header row of column names)")
    try:
        return history_from_csv(text)
    except (ValueError, TypeError, csv.Error) as exc:
        raise DataFormatError(f"{path}: not a valid history ({exc})") from None


__all__ = ["history_columns", "history_to_csv", "history_from_csv", "read_history"]
