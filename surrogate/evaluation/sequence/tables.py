"""The terminal tables of a sequence evaluation, as data.

One row per evaluation set (sequences, steps, per-sequence relative L² errors), then per set
its source, time span, seconds and the trained / extrapolated windows, then the notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from surrogate.evaluation.terminal_tables import Block, Column, Table, notes, sci

STATISTICS = ("mean", "median", "max", "pooled")


def set_table(summary: Mapping[str, Any]) -> Table:
    """Per-sequence relative L² errors of every set."""
    run = summary["run"]
    rows = tuple((name, str(record["sequences"]), str(record["steps"]),
                  *[sci(record["errors"][k]) for k in STATISTICS])
                 for name, record in summary["sets"].items())
    return Table(f"relative L² error per sequence, {run['arch']} on {run['problem']} (trained "
                 f"on {run['dataset']['steps']} steps)",
                 (Column("set", "left"), Column("seqs"), Column("steps"),
                  *(Column(k) for k in STATISTICS)), rows, no_wrap=True)


def set_lines(summary: Mapping[str, Any]) -> list[str]:
    """Each set's source and seconds, and its trained / extrapolated windows."""
    lines = []
    for name, record in summary["sets"].items():
        seconds = record["seconds"]
        lines.append(f"{name}: {record['source']} (t ≤ {record['time']['end']:.4g}; generated "
                     f"in {seconds['generate']:.2g} s, predicted in {seconds['predict']:.2g} s)")
        windows = record.get("windows")
        if windows:
            lines.append(f"  trained window t ≤ {windows['trained_until']:.4g}: pooled "
                         f"{sci(windows['trained']['pooled'])}, median "
                         f"{sci(windows['trained']['median'])}; extrapolated: pooled "
                         f"{sci(windows['extrapolated']['pooled'])}, median "
                         f"{sci(windows['extrapolated']['median'])}")
    return lines


def sequence_tables(summary: Mapping[str, Any]) -> list[Block]:
    """Every block ``surrogate evaluate`` prints for a sequence run, in order."""
    return [set_table(summary), *set_lines(summary), *notes(summary)]


__all__ = ["STATISTICS", "sequence_tables", "set_lines", "set_table"]
