"""The terminal tables of a sequence evaluation, as data.

One row per evaluation set (sequences, steps, per-sequence relative L² errors), then per set
its source, time span, seconds and the trained / extrapolated windows, then (maxwell-td) per
set the FEM verdict: every FEM candidate's error and seconds next to the surrogate's, and per
query kind the fastest FEM at equal error with N*; then the notes.
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


def verdict_table(name: str, verdict: Mapping[str, Any]) -> Table:
    """One set's FEM candidates (``*``: the data's own FEM) and the surrogate: median error,
    set-up (once per mesh), factorisation + impulse run per material, seconds per signal one
    at a time and per sequence in a batch."""
    from surrogate.evaluation.sequence.fem_verdict import duration

    rows = []
    for row in verdict["candidates"]:
        seconds = row["seconds"]
        rows.append((row["fem"] + ("*" if row["own"] else ""), str(row["dofs"]),
                     sci(row["error"]["median"]), duration(row["setup_seconds"]),
                     duration(seconds["material"]), duration(seconds["convolution_one"]),
                     duration(seconds["convolution_batch"])))
    surrogate = verdict["surrogate"]
    rows.append(("surrogate", "–", sci(surrogate["error"]), "–", "–",
                 duration(surrogate["seconds"]["one"]), duration(surrogate["seconds"]["batch"])))
    return Table(f"FEM verdict on {name} ({verdict['kind']}), error: median relative L²",
                 (Column("FEM", "left"), Column("DOFs"), Column("error"), Column("set-up"),
                  Column("material"), Column("signal"), Column("batch/seq")),
                 tuple(rows), no_wrap=True)


def verdict_lines(verdict: Mapping[str, Any]) -> list[str]:
    """Per query kind the fastest FEM at the surrogate's error and N* (or "never", why)."""
    lines = ["  *: the data's FEM (error 0 by construction); FEM = backend:order:level:"
             "substeps, r: Richardson in time"]
    lines += [f"  {entry['what']}: {entry['text']}" for entry in verdict["queries"].values()]
    from surrogate.evaluation.sequence.fem_verdict import OWN_NOTE

    return lines + [f"  note: {note}" for note in verdict.get("notes", ()) if note != OWN_NOTE]


def verdict_blocks(summary: Mapping[str, Any]) -> list[Block]:
    """The FEM verdict of every set that has one (maxwell-td runs)."""
    blocks: list[Block] = []
    for name, record in summary["sets"].items():
        verdict = record.get("fem_verdict")
        if verdict:
            blocks += [verdict_table(name, verdict), *verdict_lines(verdict)]
    return blocks


def sequence_tables(summary: Mapping[str, Any]) -> list[Block]:
    """Every block ``surrogate evaluate`` prints for a sequence run, in order."""
    return [set_table(summary), *set_lines(summary), *verdict_blocks(summary), *notes(summary)]


__all__ = ["STATISTICS", "sequence_tables", "set_lines", "set_table", "verdict_blocks",
           "verdict_lines", "verdict_table"]
