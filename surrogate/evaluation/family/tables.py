"""The terminal tables of a family evaluation, as data.

Per test domain: median / p90 relative L² errors over the unseen problems of the FEM rows
and of each surrogate (finest mesh; every mesh when the near-interface band is reported),
then the break-even queries N* = one-off / (FEM per query − surrogate per query) per run and
query kind with every term. FEM rows carry short labels ("ng2 solve L3") explained by a legend
line under the first table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from surrogate.evaluation.family.economics import median_all_text
from surrogate.evaluation.terminal_tables import (
    Block,
    Cell,
    Column,
    Table,
    fem_legend,
    fem_short_label,
    notes,
    percent,
)

REGIONS = {"relative_error": "whole", "inside": "in Ω_train", "outside": "out Ω_train",
           "near_interface": "near interface", "away_from_interface": "away"}


def _num(value: float | None, spec: str = ".3g") -> str:
    return "–" if value is None else format(value, spec)


def draw_line(summary: Mapping[str, Any]) -> str:
    """The family, the unseen draw and the reference."""
    draw = summary["draw"]
    where = (f"box widened by {draw['widen']:.0%} per side" if draw.get("widen")
             else "training box")
    return (f"{summary['family']}: {draw['problems']} unseen problems ({where}, seed "
            f"{draw['seed']}); reference: {summary['truth']}")


def _has_key(row: Mapping[str, Any]) -> bool:
    """Whether a FEM row names its order (rows of an older evaluation.json only a source)."""
    return row["kind"] == "fem" and "order" in row


def _fem_key(row: Mapping[str, Any]) -> tuple[str, int]:
    from surrogate.fem.hcurl.registry import OWN_BACKEND

    return str(row.get("backend") or OWN_BACKEND), int(row["order"])


def source_name(row: Mapping[str, Any]) -> str:
    """A row's name: ``ng2 solve L3`` for a FEM (its source in older files), ``ng3 solve
    fitted maxh 0.35`` for one on the member's fitted mesh, ``params (NN, L3 mesh)`` for a
    surrogate."""
    if row["kind"] != "fem":
        return f"{row['source']} (NN, L{row['level']} mesh)"
    if not _has_key(row):
        return row["source"]
    where = row.get("mesh") or f"L{row['level']}"
    return f"{fem_short_label(*_fem_key(row))} {row.get('method', 'solve')} {where}"


def legend_line(summary: Mapping[str, Any]) -> str | None:
    """What the FEM rows' short labels and methods stand for (None: no such row)."""
    rows = [r for table in summary["error_table"].values() for r in table if _has_key(r)]
    if not rows:
        return None
    return fem_legend([_fem_key(r) for r in rows], [str(r.get("method", "solve")) for r in rows])


def error_table(summary: Mapping[str, Any], domain: str) -> Table:
    """Median / p90 errors per source on ``domain``; FEM cells are highlighted where the best
    surrogate's median is below theirs."""
    rows = summary["error_table"][domain]
    finest = max(summary["options"]["levels"])
    regions = [k for k in REGIONS if any(k in r["errors"] for r in rows)]
    per_level = "near_interface" in regions  # the band is 2h: compare on each mesh
    shown = [r for r in rows if r["kind"] == "fem" or per_level or r["level"] == finest]
    best = min((r["errors"]["relative_error"]["median"] for r in shown
                if r["kind"] == "surrogate"
                and r["errors"]["relative_error"]["median"] is not None), default=None)
    out = []
    for r in shown:
        median = r["errors"]["relative_error"]["median"]
        beaten = r["kind"] == "fem" and None not in (best, median) and best < median
        out.append((source_name(r), _num(r.get("ndofs"), "d") if r.get("ndofs") else "–",
                    _num((r.get("seconds") or {}).get("median")),
                    *[Cell(f"{percent(r['errors'][k]['median'])} / "
                           f"{percent(r['errors'][k]['p90'])}", beaten) for k in regions]))
    return Table(f"relative L² error on {domain}, median / p90 over problems (green: above "
                 "the best surrogate's median)",
                 (Column("source", "left"), Column("DOFs"), Column("s (median)"),
                  *(Column(REGIONS[k]) for k in regions)), tuple(out))


def break_even_lines(summary: Mapping[str, Any], domain: str) -> list[str]:
    """Per run and query kind on ``domain``: the median problem's N* sentence with every term,
    then the distribution over the problems."""
    lines = [f"break-even queries N* on {domain}: one-off (data generation + training) / "
             "(FEM − surrogate per query), for the problem of median surrogate error"]
    for label, by_domain in summary["break_even_queries"].items():
        for kind, q in by_domain[domain]["queries"].items():
            m = q["median_problem"]
            lines.append(
                f"  {label}, {q.get('what', kind)}, error {percent(m['surrogate_error'])}: "
                f"{m['text']}; over all problems: median {median_all_text(q)} (never = ∞); over "
                f"those that break even: median {_num(q['n_star']['median'], '.4g')}, p90 "
                f"{_num(q['n_star']['p90'], '.4g')}; never on "
                f"{q['problems_never_break_even']}/{len(q['per_problem'])}")
        lines += fem_per_method_lines(label, by_domain[domain].get("fem_per_method", {}))
    return lines


def fem_per_method_lines(label: str, methods: Mapping[str, Any]) -> list[str]:
    """Per FEM backend and order: the median time of its fastest level at the run's
    per-problem errors, on how many problems it reaches them."""
    if not methods:
        return []
    cells = [f"{_method_name(name, m)} {_num(m['seconds']['median'])} s "
             f"({m['reached']}/{m['problems']})"
             for name, m in sorted(methods.items(),
                                   key=lambda kv: kv[1]["seconds"]["median"] or float("inf"))]
    return [f"  {label}, FEM at its per-problem error, median time by backend and order "
            f"(problems reached): " + "; ".join(cells)]


def _method_name(name: str, method: Mapping[str, Any]) -> str:
    """A FEM method's short label ("ng2") where the entry names its backend and order."""
    if "backend" in method and "order" in method:
        fitted = " fitted" if method.get("fitted") else ""
        return fem_short_label(str(method["backend"]), int(method["order"])) + fitted
    return name


def family_tables(summary: Mapping[str, Any]) -> list[Block]:
    """Every block ``surrogate evaluate`` prints for family runs, in order."""
    blocks: list[Block] = [draw_line(summary)]
    legend = legend_line(summary)
    for domain in summary["error_table"]:
        blocks.append(error_table(summary, domain))
        if legend is not None:
            blocks.append(legend)
            legend = None  # once, under the first table
        blocks += break_even_lines(summary, domain)
    return blocks + notes(summary)


__all__ = ["REGIONS", "break_even_lines", "draw_line", "error_table", "family_tables",
           "fem_per_method_lines", "legend_line", "source_name"]
