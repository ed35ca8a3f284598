"""The terminal tables of a static (pointwise) evaluation, as data.

From the ``evaluation.json`` dict: errors, the in/out split and timings with one row per
source (the FEM of each order, each run) and one column per test domain and level, so that
many runs stay readable (FEM rows by short label, "sk0 best", with a legend line under the
errors); then the fastest FEM at each run's error, the reference and notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from surrogate.evaluation.static.fem_columns import fem_at, fem_columns, fem_key
from surrogate.evaluation.terminal_tables import (
    Block,
    Cell,
    Column,
    Table,
    fem_legend,
    fem_short_label,
    notes,
    sci,
    short_domain,
)


def _fem_name(fem: Mapping[str, Any]) -> str:
    """``sk0 best`` (skfem's N0, best approximation), ``ng2 solve`` (NGSolve's complete
    quadratic, mixed solve): :func:`legend_line` says which is which."""
    return f"{fem_short_label(*fem_key(fem))} {fem.get('method', 'none')}"


def _baseline(records: list[Mapping[str, Any]]) -> str:
    """The short label of the FEM a run is held against (each record's ``fem``)."""
    fem = next((r["fem"] for r in records if r.get("fem")), None)
    return "N0" if fem is None else _fem_name(fem)


def legend_line(summary: Mapping[str, Any]) -> str:
    """What each FEM row's short label and method stand for."""
    columns = fem_columns(summary["records"])
    return fem_legend([fem_key(fem) for fem in columns],
                      [str(fem.get("method", "none")) for fem in columns])


def _table(title: str, headers: list[str], rows: list[tuple[str | Cell, ...]]) -> Table:
    return Table(title, (Column("", "left"), *(Column(h) for h in headers)), tuple(rows))


def _fem_rows(records: list[Mapping[str, Any]], value: Any) -> list[tuple[str | Cell, ...]]:
    """One row per FEM (backend, order): ``value(fem_record)`` per column."""
    return [(_fem_name(fem), *[value(fem_at(r, fem_key(fem))) for r in records])
            for fem in fem_columns(records)]


def error_table(summary: Mapping[str, Any]) -> Table:
    """Absolute L² errors; a run's cell is highlighted where it is below the baseline FEM's
    (N0: each record's ``fem``)."""
    records, labels = summary["records"], list(summary["runs"])
    rows = _fem_rows(records, lambda fem: "reference" if fem.get("is_reference")
                     else sci(fem.get("l2_error")))
    fem_errors = [(r.get("fem") or {}).get("l2_error") for r in records]
    for label in labels:
        cells = []
        for r, fem_error in zip(records, fem_errors, strict=True):
            error = r["runs"][label]["l2_error"]
            cells.append(Cell(sci(error), fem_error is not None and error is not None
                              and error < fem_error))
        rows.append((label, *cells))
    return _table(f"absolute L² error ‖u − ·‖ on the test domains (green: below "
                  f"{_baseline(records)})",
                  [f"{short_domain(r['domain'])} L{r['level']}\nh={r['h']:.3g}"
                   for r in records], rows)


def split_table(summary: Mapping[str, Any]) -> Table:
    """Relative L² errors inside and outside the training domain: two rows per run."""
    records = summary["records"]
    rows = [(f"{label} {side}", *[sci(r["runs"][label][side]["relative_error"], ".1e")
                                  for r in records])
            for label in summary["runs"] for side in ("inside", "outside")]
    return _table("relative L² error inside / outside the training domain",
                  [f"{short_domain(r['domain'])} L{r['level']}" for r in records], rows)


def inside_line(summary: Mapping[str, Any]) -> str:
    """The volume fraction inside the training domain, on the finest level of each domain."""
    records = summary["records"]
    fractions = {f"{short_domain(r['domain'])} L{r['level']}": r["inside_fraction"]
                 for r in records}
    finest = list(fractions.items())[-len({r["domain"] for r in records}):]
    inside = "; ".join(f"{k}: " + ", ".join(f"{v:.0%} in {d}" for d, v in f.items())
                       for k, f in finest)
    return f"volume inside the training domain (finest levels): {inside}"


def _times(factor: float) -> str:
    """A speed-up: 3 significant digits, whole from 100 to 10⁶ ("20×", "1234×")."""
    return f"{factor:.0f}×" if 100 <= factor < 1e6 else f"{factor:.3g}×"


def timing_table(summary: Mapping[str, Any]) -> Table:
    """Wall times: each FEM order's total, each run's field on the mesh and at the quadrature
    points with the speed-up over the baseline FEM (N0)."""
    records = summary["records"]
    rows = _fem_rows(records, lambda fem: sci((fem.get("seconds") or {}).get("total"), ".3g"))
    for label in summary["runs"]:
        for key, speed, what in (("field_on_mesh", "speedup_vs_fem", "nodes"),
                                 ("inference", "speedup_vs_fem_quadrature", "quad. pts")):
            cells = []
            for r in records:
                rec = r["runs"][label]
                cells.append(sci(rec["seconds"][key], ".2g")
                             + (f" ({_times(rec[speed])})" if rec.get(speed) is not None else ""))
            rows.append((f"{label} ({what})", *cells))
    return _table(f"wall time [s]: FEM mesh → u_h vs the NN field at the mesh nodes "
                  f"and the NN at every quadrature point "
                  f"({summary.get('inference_device', 'cpu')}); speed-up over "
                  f"{_baseline(records)} in brackets",
                  [f"{short_domain(r['domain'])} L{r['level']}\n{r['n_nodes']} nodes\n"
                   f"{r['n_quadrature']} pts" for r in records], rows)


def fastest_fem_lines(summary: Mapping[str, Any]) -> list[str]:
    """Per test domain and run: the fastest FEM (any backend, level and order) at the run's
    error, its time next to the run's, and the plain verdict."""
    lines = []
    for domain, by_run in (summary.get("fastest_fem_at_equal_error") or {}).items():
        for label, c in by_run.items():
            sur, fem = c["surrogate"], c["fem"]
            head = (f"{domain}, {label}: error {sci(sur['error'])} (level {sur.get('level')}) "
                    f"in {sur['seconds']:.2g} s")
            if fem is None:
                lines.append(f"{head}; {c['verdict']}")
                continue
            what = "most accurate FEM" if c["lower_bound"] else "fastest FEM at equal error"
            dofs = "" if "DOFs" in fem["label"] else f"{fem['dofs']} DOFs, "  # older labels
            lines.append(f"{head}; {what}: {fem['label']}, {fem['seconds']:.3g} s "
                         f"({dofs}error {sci(fem['error'])}) — {c['verdict']}")
    return lines


def static_tables(summary: Mapping[str, Any]) -> list[Block]:
    """Every block ``surrogate evaluate`` prints for pointwise runs, in order."""
    blocks: list[Block] = [error_table(summary)]
    if fem_columns(summary["records"]):
        blocks.append(legend_line(summary))
    blocks += [split_table(summary), inside_line(summary), timing_table(summary),
               *fastest_fem_lines(summary)]
    if summary["reference"] != "exact":
        blocks.append(f"reference: {summary['reference']} (no exact solution)")
    return blocks + notes(summary)


__all__ = ["error_table", "fastest_fem_lines", "inside_line", "legend_line", "split_table",
           "static_tables", "timing_table"]
