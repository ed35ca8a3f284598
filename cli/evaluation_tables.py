"""The tables ``surrogate evaluate`` prints: one layout per kind of run, one "wrote" line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from surrogate.cli.common import console, err_console


def _short(domain: str) -> str:
    """A table header's domain: a built-in name, or a mesh file's name without its folder."""
    return Path(domain).stem if ("/" in domain or "\\" in domain or "." in domain) else domain


def _sci(value: float | None, spec: str = ".2e") -> str:
    return "–" if value is None else format(value, spec)


def print_pointwise_tables(result: dict[str, Any]) -> None:
    """Errors, in/out split and timings as rich tables: one row per source (N0, each run),
    one column per test domain and level, so that many runs stay readable."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    records, labels = result["records"], list(result["runs"])

    def table(title: str, headers: list[str]) -> Table:
        t = Table(title=escape(title), title_justify="left", box=box.SIMPLE_HEAD)
        t.add_column("")
        for header in headers:
            t.add_column(escape(header), justify="right")
        return t

    first = next((r["fem"] for r in records if r.get("fem")), None)
    fem_name = _fem_name(first) if first else "N0 none"
    extra = [_fem_name(f) for f in (next((r["fem_orders"] for r in records
                                          if r.get("fem_orders")), None) or [])[1:]]
    errors = table("absolute L² error ‖u − ·‖ on the test domains (green: below N0)",
                   [f"{_short(r['domain'])} L{r['level']}\nh={r['h']:.3g}" for r in records])
    fem_errors = [(r.get("fem") or {}).get("l2_error") for r in records]
    if any(r.get("fem") for r in records):
        errors.add_row(fem_name, *["reference" if (r.get("fem") or {}).get("is_reference")
                                   else _sci(e) for r, e in zip(records, fem_errors,
                                                                strict=True)])
    for k, name in enumerate(extra, start=1):  # higher orders, one row each
        errors.add_row(name, *[_sci(_order_rec(r, k).get("l2_error")) for r in records])
    for label in labels:
        cells = []
        for r, fem_err in zip(records, fem_errors, strict=True):
            err = r["runs"][label]["l2_error"]
            text = _sci(err)
            cells.append(f"[green]{text}[/]" if fem_err is not None and err is not None
                         and err < fem_err else text)
        errors.add_row(escape(label), *cells)
    console.print(errors)

    split = table("relative L² error inside / outside the training domain",
                  [f"{_short(r['domain'])} L{r['level']}" for r in records])
    for label in labels:
        split.add_row(escape(label), *[
            f"{_sci(r['runs'][label]['inside']['relative_error'], '.1e')} / "
            f"{_sci(r['runs'][label]['outside']['relative_error'], '.1e')}" for r in records])
    console.print(split)
    fractions = {f"{_short(r['domain'])} L{r['level']}": r["inside_fraction"] for r in records}
    inside = "; ".join(f"{k}: " + ", ".join(f"{v:.0%} in {d}" for d, v in f.items())
                       for k, f in list(fractions.items())[-len(set(r['domain']
                                                                    for r in records)):])
    console.print(f"volume inside the training domain (finest levels): {inside}",
                  highlight=False)

    timing = table(f"wall time [s]: N0 basis+assembly+solve vs the NN field at the mesh nodes "
                   f"and the NN at every quadrature point "
                   f"({result.get('inference_device', 'cpu')}); speed-up over N0 in brackets",
                   [f"{_short(r['domain'])} L{r['level']}\n{r['n_nodes']} nodes\n"
                    f"{r['n_quadrature']} pts" for r in records])
    if any(r.get("fem") for r in records):
        timing.add_row(fem_name, *[_sci(((r.get("fem") or {}).get("seconds") or {}).get("total"),
                                        ".3g") for r in records])
    for k, name in enumerate(extra, start=1):
        timing.add_row(name, *[_sci((_order_rec(r, k).get("seconds") or {}).get("total"), ".3g")
                               for r in records])
    for label in labels:
        for key, speed, what in (("field_on_mesh", "speedup_vs_fem", "nodes"),
                                 ("inference", "speedup_vs_fem_quadrature", "quad. pts")):
            cells = []
            for r in records:
                rec = r["runs"][label]
                cells.append(_sci(rec["seconds"][key], ".2g")
                             + (f" ({rec[speed]:.3g}×)" if rec.get(speed) is not None else ""))
            timing.add_row(f"{escape(label)} ({what})", *cells)
    console.print(timing)
    print_fastest_fem(result)
    if result["reference"] != "exact":
        console.print(f"reference: {result['reference']} (no exact solution)", highlight=False)
    for note in result.get("notes", []):
        console.print(f"note: {note}", highlight=False)


def _fem_name(fem: dict[str, Any]) -> str:
    """``N0 best`` for order 0, ``complete linear best`` for order 1."""
    from surrogate.fem.hcurl.registry import order_name

    return f"{order_name(int(fem.get('order', 0)))} {fem.get('method', 'none')}"


def _order_rec(record: dict[str, Any], k: int) -> dict[str, Any]:
    orders = record.get("fem_orders") or []
    return orders[k] if k < len(orders) else {}


def print_fastest_fem(result: dict[str, Any]) -> None:
    """Per test domain and run: the fastest FEM (any level and order) at the run's error, its
    time next to the run's, and the plain verdict."""
    from rich.markup import escape

    for domain, by_run in (result.get("fastest_fem_at_equal_error") or {}).items():
        for label, c in by_run.items():
            sur, fem = c["surrogate"], c["fem"]
            head = (f"{domain}, {escape(label)}: error {_sci(sur['error'])} (level "
                    f"{sur.get('level')}) in {sur['seconds']:.2g} s")
            if fem is None:
                console.print(f"{head}; {c['verdict']}", highlight=False)
                continue
            what = "most accurate FEM" if c["lower_bound"] else "fastest FEM at equal error"
            console.print(f"{head}; {what}: {fem['label']}, {fem['seconds']:.3g} s "
                          f"({fem['dofs']} DOFs, error {_sci(fem['error'])}) — "
                          f"{c['verdict']}", highlight=False)


def print_sequence_table(result: dict[str, Any]) -> None:
    """One row per set (size, per-sequence errors), then each set's source, windows, seconds."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    run = result["run"]
    table = Table(title=escape(f"relative L² error per sequence, {run['arch']} on "
                               f"{run['problem']} (trained on {run['dataset']['steps']} "
                               f"steps)"), title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("set", "seqs", "steps", "mean", "median", "max", "pooled"):
        table.add_column(header, justify="left" if header == "set" else "right",
                         no_wrap=True)
    for name, record in result["sets"].items():
        errors = record["errors"]
        table.add_row(name, str(record["sequences"]), str(record["steps"]),
                      *[_sci(errors[k]) for k in ("mean", "median", "max", "pooled")])
    console.print(table)
    for name, record in result["sets"].items():
        seconds = record["seconds"]
        console.print(f"{name}: {record['source']} (t ≤ {record['time']['end']:.4g}; "
                      f"generated in {seconds['generate']:.2g} s, predicted in "
                      f"{seconds['predict']:.2g} s)", highlight=False)
        windows = record.get("windows")
        if windows:
            console.print(f"  trained window t ≤ {windows['trained_until']:.4g}: pooled "
                          f"{_sci(windows['trained']['pooled'])}, median "
                          f"{_sci(windows['trained']['median'])}; extrapolated: pooled "
                          f"{_sci(windows['extrapolated']['pooled'])}, median "
                          f"{_sci(windows['extrapolated']['median'])}", highlight=False)
    for note in result.get("notes", []):
        console.print(f"note: {note}", highlight=False)


def print_result(result: Any) -> None:
    """The tables of an :class:`~surrogate.evaluation.api.EvaluationResult`, skipped figures
    (stderr) and the files written."""
    summary, files = result.summary, result.files
    if result.kind == "sequence":
        print_sequence_table(summary)
    elif result.kind == "family":
        from surrogate.cli.family_tables import print_family_tables

        print_family_tables(summary)
    else:
        print_pointwise_tables(summary)
    for line in (result.figures or {}).get("skipped", []):
        err_console.print(line, style="yellow", highlight=False)
    vtk, plots = files.get("vtk"), files.get("plots")
    written = [str(files["evaluation"])]
    if vtk is not None:
        written.append(f"{vtk}/probes.pvd, {vtk}/field.pvd" if result.kind == "sequence"
                       else f"{vtk}/*.pvd")
    if plots is not None:
        written.append(f"{plots}/*.png")
    if files.get("report") is not None:
        written.append(str(files["report"]))
    console.print("wrote " + ", ".join(written), highlight=False)


__all__ = ["print_fastest_fem", "print_pointwise_tables", "print_result", "print_sequence_table"]
