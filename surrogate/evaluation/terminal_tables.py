"""What ``surrogate evaluate`` prints, as data: tables and lines of plain text.

A run kind's ``tables(summary)`` (:mod:`surrogate.evaluation.run_kind`) turns its
``evaluation.json`` dict into a list of blocks; one generic printer in ``cli/`` shows any
kind. Text is plain (no markup); a :class:`Cell` with ``highlight`` is shown in colour (a
surrogate better than the FEM it is held against, or a FEM a surrogate beats).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class Column:
    """A column header and its alignment."""

    header: str
    align: Literal["left", "right"] = "right"


@dataclass(frozen=True)
class Cell:
    """A cell's text, shown highlighted (green on a terminal) when ``highlight``."""

    text: str
    highlight: bool = False


@dataclass(frozen=True)
class Table:
    """A titled table: ``rows[i][j]`` is the text (or :class:`Cell`) under ``columns[j]``.

    ``no_wrap``: keep every cell on one line (narrow terminals truncate instead).
    """

    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[str | Cell, ...], ...]
    no_wrap: bool = False


Block = Table | str
"""One printed block: a table, or a line of text."""


def sci(value: float | None, spec: str = ".2e") -> str:
    """A number in ``spec`` (scientific by default); None -> an en dash."""
    return "–" if value is None else format(value, spec)


def percent(value: float | None) -> str:
    """A fraction as a percentage with 3 significant digits; None -> an en dash."""
    return "–" if value is None else f"{100 * value:.3g}%"


def short_domain(domain: str) -> str:
    """A table header's domain: a built-in name, or a mesh file's name without its folder."""
    return Path(domain).stem if ("/" in domain or "\\" in domain or "." in domain) else domain


def notes(summary: Mapping[str, Any]) -> list[str]:
    """The summary's notes as ``note: ...`` lines."""
    return [f"note: {note}" for note in summary.get("notes", [])]


__all__ = ["Block", "Cell", "Column", "Table", "notes", "percent", "sci",
           "short_domain"]
