"""What ``evaluate`` prints: the run kind's tables (:attr:`RunKind.tables`), skipped figures and
the files written, at the console's width. Nothing here knows a kind."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from surrogate.cli.common import console, err_console


def _rich_table(block: Any, columns: list[int]) -> Any:
    """The rich table of ``block``'s ``columns`` (indices): numbers never wrap; the first
    column may (unless ``no_wrap``); highlighted cells green."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    from surrogate.evaluation.terminal_tables import Cell

    table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for j in columns:
        column = block.columns[j]
        table.add_column(escape(column.header), justify=column.align,
                         no_wrap=block.no_wrap or j > 0)
    for row in block.rows:
        cells = [row[j] for j in columns]
        table.add_row(*[f"[green]{escape(c.text)}[/]" if isinstance(c, Cell) and c.highlight
                        else escape(c.text if isinstance(c, Cell) else c) for c in cells])
    return table


def _natural_width(table: Any, out: Console) -> int:
    """The width ``table`` takes when nothing wraps (not clamped to the terminal)."""
    from rich.measure import Measurement

    return Measurement.get(out, out.options.update(max_width=10_000), table).maximum


def column_groups(block: Any, out: Console) -> list[list[int]]:
    """``block``'s columns in groups that each fit ``out``'s width with the first column
    repeated: every column when the table fits, else as many as fit per group (at least one)."""
    if len(block.columns) < 2:
        return [list(range(len(block.columns)))]
    groups: list[list[int]] = [[]]
    for j in range(1, len(block.columns)):
        if groups[-1] and _natural_width(_rich_table(block, [0, *groups[-1], j]),
                                         out) > out.width:
            groups.append([])
        groups[-1].append(j)
    return [[0, *group] for group in groups]


def print_blocks(blocks: list[Any], out: Console | None = None) -> None:
    """Print terminal blocks (:mod:`surrogate.evaluation.terminal_tables`) on ``out`` (default:
    the console, as wide as the terminal or ``COLUMNS``): a str is one plain line; a Table its
    title as a line, then the table and a blank line, split into column groups where it is
    wider than the console (the first column repeated, no cell cut)."""
    out = console if out is None else out
    for block in blocks:
        if isinstance(block, str):
            out.print(block, highlight=False, markup=False)
            continue
        if block.title:
            out.print(block.title, highlight=False, markup=False)
        groups = column_groups(block, out)
        for part, columns in enumerate(groups):
            if part:
                out.print(f"(continued, {part + 1} of {len(groups)})", highlight=False,
                          markup=False)
            out.print(_rich_table(block, columns))
            out.print()


def print_result(result: Any) -> None:
    """The tables of an :class:`~surrogate.evaluation.api.EvaluationResult`, skipped figures
    (stderr) and the files written."""
    from surrogate.evaluation.run_kinds import get_run_kind

    kind = get_run_kind(result.kind)
    print_blocks(kind.tables(result.summary))
    for line in (result.figures or {}).get("skipped", []):
        err_console.print(line, style="yellow", highlight=False)
    files = result.files
    vtk, plots = files.get("vtk"), files.get("plots")
    written = [str(files["evaluation"])]
    if vtk is not None and kind.vtk_files:
        written.append(", ".join(f"{vtk}/{name}" for name in kind.vtk_files))
    if plots is not None:
        written.append(f"{plots}/*.png")
    if files.get("report") is not None:
        written.append(str(files["report"]))
    console.print("wrote " + ", ".join(written), highlight=False)


__all__ = ["column_groups", "print_blocks", "print_result"]
