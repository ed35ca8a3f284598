"""What ``surrogate evaluate`` prints, as data: tables and lines of plain text.

A run kind's ``tables(summary)`` (:mod:`surrogate.evaluation.run_kind`) turns its
``evaluation.json`` dict into a list of blocks; one generic printer in ``cli/`` shows any
kind at the terminal's width (a table wider than the terminal is split into column groups,
each repeating the first column; no cell is cut). Text is plain (no markup); a :class:`Cell`
with ``highlight`` is shown in colour (a surrogate better than the FEM it is held against, or
a FEM a surrogate beats). FEM rows carry short labels (:func:`fem_short_label`, "ng2")
explained by a legend line (:func:`fem_legend`); the long names stay in ``evaluation.json``
and the HTML report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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

    ``no_wrap``: keep every cell on one line, the first column's too (the printer never
    cuts a cell: a table wider than the terminal is split into column groups).
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


METHOD_LEGEND = {"best": "best approximation", "solve": "mixed solve"}
"""The FEM methods of table rows ("sk0 best", "ng3 solve") in words."""


def fem_short_label(backend: str, order: int) -> str:
    """A FEM (backend, order) in a terminal table: the backend's shortest prefix of at least
    two letters that no other registered backend shares, then the order ("sk0", "ng3")."""
    from surrogate.fem.hcurl.registry import FEM_BACKENDS

    others = [name for name in FEM_BACKENDS if name != backend]
    size = 2
    while size < len(backend) and any(name.startswith(backend[:size]) for name in others):
        size += 1
    return f"{backend[:size]}{int(order)}"


def fem_legend(keys: Iterable[tuple[str, int]], methods: Iterable[str] = ()) -> str:
    """The legend line under a table with FEM rows: each short label's backend, order and
    space ("ng2 = ngsolve order 2 (complete quadratic)"), then the methods named in rows."""
    from surrogate.fem.hcurl.registry import ORDER_NAMES

    names = {row.order: row.name for row in ORDER_NAMES}
    labels = [f"{fem_short_label(b, k)} = {b} order {k}"
              + (f" ({names[int(k)]})" if int(k) in names else "")
              for b, k in dict.fromkeys((str(b), int(k)) for b, k in keys)]
    words = [f"{m} = {METHOD_LEGEND[m]}" for m in dict.fromkeys(methods) if m in METHOD_LEGEND]
    return "FEM: " + ", ".join(labels) + ("; " + ", ".join(words) if words else "")


def notes(summary: Mapping[str, Any]) -> list[str]:
    """The summary's notes as ``note: ...`` lines."""
    return [f"note: {note}" for note in summary.get("notes", [])]


__all__ = ["METHOD_LEGEND", "Block", "Cell", "Column", "Table", "fem_legend",
           "fem_short_label", "notes", "percent", "sci", "short_domain"]
