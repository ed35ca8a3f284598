"""What ``evaluate`` prints: the run kind's tables (:attr:`RunKind.tables`), skipped figures and
the files written. Nothing here knows a kind."""

from __future__ import annotations

from typing import Any

from surrogate.cli.common import console, err_console


def print_blocks(blocks: list[Any]) -> None:
    """Print terminal blocks (:mod:`surrogate.evaluation.terminal_tables`): a str is one plain
    line, a Table a rich table (highlighted cells green)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    from surrogate.evaluation.terminal_tables import Cell

    for block in blocks:
        if isinstance(block, str):
            console.print(block, highlight=False, markup=False)
            continue
        table = RichTable(title=escape(block.title), title_justify="left", box=box.SIMPLE_HEAD)
        for column in block.columns:
            table.add_column(escape(column.header), justify=column.align, no_wrap=block.no_wrap)
        for row in block.rows:
            table.add_row(*[f"[green]{escape(c.text)}[/]" if isinstance(c, Cell) and c.highlight
                            else escape(c.text if isinstance(c, Cell) else c) for c in row])
        console.print(table)


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


__all__ = ["print_blocks", "print_result"]
