"""The tables ``surrogate evaluate`` prints for runs of a problem family: error distributions
over the unseen problems next to the FEM, and the break-even queries N* with every term."""

from __future__ import annotations

from typing import Any

from surrogate.cli.common import console

REGIONS = {"relative_error": "whole", "inside": "in Ω_train", "outside": "out Ω_train",
           "near_interface": "near interface", "away_from_interface": "away"}


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.3g}%"


def _num(value: float | None, spec: str = ".3g") -> str:
    return "–" if value is None else format(value, spec)


def print_family_tables(result: dict[str, Any]) -> None:
    """Per test domain: median / p90 relative L² errors of the FEM rows and of each surrogate
    (finest mesh), then N* for the median problem per run and query kind."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    draw = result["draw"]
    where = (f"box widened by {draw['widen']:.0%} per side" if draw.get("widen")
             else "training box")
    finest = max(result["options"]["levels"])
    console.print(f"{result['family']}: {draw['problems']} unseen problems ({where}, seed "
                  f"{draw['seed']}); reference: {result['truth']}", highlight=False)
    for domain, rows in result["error_table"].items():
        regions = [k for k in REGIONS if any(k in r["errors"] for r in rows)]
        table = Table(title=escape(f"relative L² error on {domain}, median / p90 over "
                                   "problems (green: above the best surrogate's median)"),
                      title_justify="left", box=box.SIMPLE_HEAD)
        for header in ("source", "DOFs", "s (median)", *[REGIONS[k] for k in regions]):
            table.add_column(escape(header), justify="left" if header == "source" else "right")
        per_level = "near_interface" in regions  # the band is 2h: compare on each mesh
        shown = [r for r in rows if r["kind"] == "fem" or per_level or r["level"] == finest]
        best = min((r["errors"]["relative_error"]["median"] for r in shown
                    if r["kind"] == "surrogate"
                    and r["errors"]["relative_error"]["median"] is not None), default=None)
        for r in shown:
            median = r["errors"]["relative_error"]["median"]
            beaten = r["kind"] == "fem" and None not in (best, median) and best < median
            cells = [f"{_pct(r['errors'][k]['median'])} / {_pct(r['errors'][k]['p90'])}"
                     for k in regions]
            name = escape(r["source"] if r["kind"] == "fem" else
                          f"{r['source']} (NN, L{r['level']} mesh)")
            table.add_row(name, _num(r.get("ndofs"), "d") if r.get("ndofs") else "–",
                          _num((r.get("seconds") or {}).get("median")),
                          *[f"[green]{c}[/]" if beaten else c for c in cells])
        console.print(table)
        _print_break_even(result, domain)
    for note in result.get("notes", []):
        console.print(f"note: {note}", highlight=False)


def _print_break_even(result: dict[str, Any], domain: str) -> None:
    """N* = one-off / (FEM per query − surrogate per query): per run and query kind, the
    median problem's sentence with every term, then the distribution over the problems."""
    from surrogate.evaluation.family.economics import median_all_text

    console.print(f"break-even queries N* on {domain}: one-off (data generation + training) / "
                  "(FEM − surrogate per query), for the problem of median surrogate error",
                  highlight=False)
    for label, by_domain in result["break_even_queries"].items():
        entry = by_domain[domain]
        for kind, q in entry["queries"].items():
            m = q["median_problem"]
            console.print(
                f"  {label}, {q.get('what', kind)}, error {_pct(m['surrogate_error'])}: "
                f"{m['text']}; over all problems: median {median_all_text(q)} (never = ∞); over "
                f"those that break even: median {_num(q['n_star']['median'], '.4g')}, p90 "
                f"{_num(q['n_star']['p90'], '.4g')}; never on "
                f"{q['problems_never_break_even']}/{len(q['per_problem'])}", highlight=False,
                markup=False)



__all__ = ["print_family_tables"]
