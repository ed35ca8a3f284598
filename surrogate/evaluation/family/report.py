"""The family section of ``index.html``: runs, error distributions, break-even queries, Pareto.

Built from the ``evaluation.json`` dict of :func:`surrogate.evaluation.family.summary.summarise`
and the figure list of :func:`surrogate.evaluation.family.plots.make_family_figures`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from surrogate.core.equal_error import COARSEST_NOTE
from surrogate.evaluation.family.economics import median_all_text
from surrogate.evaluation.report_html import Cell, figure_html, fmt, html_table, note_html

REGION_NAMES = {"relative_error": "whole", "inside": "inside Ω_train",
                "outside": "outside Ω_train", "near_interface": "near interface",
                "away_from_interface": "away from interface"}


def family_title(evaluation: Mapping[str, Any]) -> str:
    """Page title of a family evaluation."""
    return f"Surrogates of the {evaluation.get('family')} family on unseen problems"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.3g} %"


def distribution_rows(rows: list[Mapping[str, Any]], finest: int
                      ) -> tuple[list[str], list[list[Cell]]]:
    """Median / p90 relative L² error per region: every FEM row, each surrogate on the finest
    mesh (on every mesh with an interface band), the FEM rows the best surrogate beats marked."""
    regions = [k for k in REGION_NAMES if any(k in r["errors"] for r in rows)]
    header = ["source", "DOFs", "median s"] + [f"{REGION_NAMES[k]} median / p90"
                                               for k in regions]
    best = [r for r in rows if r["kind"] == "surrogate" and r["level"] == finest]
    best_median = min((r["errors"]["relative_error"]["median"] for r in best
                       if r["errors"]["relative_error"]["median"] is not None), default=None)
    table: list[list[Cell]] = []
    per_level = "near_interface" in regions  # the band is 2h: compare on each level's mesh
    for r in rows:
        if r["kind"] == "surrogate" and r["level"] != finest and not per_level:
            continue
        median = r["errors"]["relative_error"]["median"]
        beaten = (r["kind"] == "fem" and best_median is not None and median is not None
                  and best_median < median)
        name = (r["source"] if r["kind"] == "fem" else
                f"{r['source']} (surrogate, L{r['level']} mesh)")
        row: list[Cell] = [(html.escape(name), "text"), (fmt(r.get("ndofs")), ""),
                           (fmt((r.get("seconds") or {}).get("median"), ".3g"), "")]
        for k in regions:
            d = r["errors"].get(k) or {}
            row.append((f"{_pct(d.get('median'))} / {_pct(d.get('p90'))}",
                        "better" if beaten else ""))
        table.append(row)
    return header, table


def break_even_rows(evaluation: Mapping[str, Any], domain: str
                    ) -> tuple[list[str], list[list[Cell]]]:
    """Every term of N* for the median problem, per run and query kind."""
    header = ["run", "query", "surrogate error",
              "FEM at equal error (backend, order, level, DOFs)", "FEM s/query",
              "surrogate s/query", "generation s", "training s", "N* (median problem)",
              "N* median over all (never = ∞)", "N* median / p90 where it breaks even",
              "never"]
    rows: list[list[Cell]] = []
    for label, by_domain in evaluation["break_even_queries"].items():
        table = by_domain[domain]
        one_off = table["one_off_seconds"]
        for q in table["queries"].values():
            m = q["median_problem"]
            fem = m.get("fem") or {}
            bound = " (lower bound)" if m["fem_lower_bound"] else ""
            if m.get("fem_at_coarsest_level"):
                bound += f" ({COARSEST_NOTE})"
            n_star = "never" if m["n_star"] is None else (
                ("≤ " if m["n_star_upper_bound"] else "") + f"{m['n_star']:.4g}")
            rows.append([
                (html.escape(label), "text"), (html.escape(q["what"]), "text"),
                (_pct(m["surrogate_error"]), ""),
                (html.escape(str(fem.get("label", "–"))) + bound, "text"),
                (fmt(m["fem_seconds"], ".3g"), ""), (fmt(m["surrogate_seconds"], ".3g"), ""),
                (fmt(one_off["generation"], ".4g"), ""), (fmt(one_off["training"], ".4g"), ""),
                (n_star, "better" if m["n_star"] is not None else ""),
                (median_all_text(q), ""),
                (f"{fmt(q['n_star']['median'], '.4g')} / {fmt(q['n_star']['p90'], '.4g')}", ""),
                (f"{q['problems_never_break_even']}/{len(q['per_problem'])}", ""),
            ])
    return header, rows



def runs_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the run table."""
    header = ["run", "arch", "inputs", "training problems", "path"]
    rows = [[(html.escape(label), "text"), (fmt(info.get("arch")), "text"),
             (fmt(info.get("inputs")), "text"), (fmt(info.get("training_problems")), ""),
             (f"<code>{html.escape(str(info.get('path', '')))}</code>", "text")]
            for label, info in evaluation["runs"].items()]
    return header, rows


def family_section(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                   *, figure_prefix: str = "") -> list[str]:
    """The page body of a family evaluation (image paths are ``figure_prefix + file``)."""
    opts, draw = evaluation.get("options", {}), evaluation.get("draw", {})
    widen = draw.get("widen") or 0.0
    where = (f"the parameter box widened by {widen:.0%} per side (extrapolation)" if widen
             else "the training parameter box")
    parts = [f"<p>{draw.get('problems')} unseen problems of <code>"
             f"{html.escape(str(evaluation.get('family')))}</code> drawn from {where} "
             f"(seed {draw.get('seed')}); test domains "
             f"{html.escape(', '.join(opts.get('domains') or []))}, levels "
             f"{html.escape(', '.join(map(str, opts.get('levels') or [])))}; reference: "
             f"{html.escape(str(evaluation.get('truth')))}.</p>"]
    parts += [note_html(note) for note in evaluation.get("notes", [])]
    header, rows = runs_rows(evaluation)
    parts += ["<h2>Runs</h2>", html_table(header, rows)]
    finest = max(opts.get("levels") or [1])
    for domain, table in evaluation["error_table"].items():
        parts.append(f"<h2>Relative L² errors over the unseen problems on "
                     f"{html.escape(domain)} (green: FEM rows the best surrogate beats)</h2>")
        header, rows = distribution_rows(table, finest)
        parts.append(html_table(header, rows))
        parts.append(f"<h2>Break-even queries N* on {html.escape(domain)}: one-off (data "
                     "generation + training) / (FEM per query − surrogate per query)</h2>")
        header, rows = break_even_rows(evaluation, domain)
        parts.append(html_table(header, rows))
    figs = (figures or {}).get("figures", {})
    if figs:
        parts.append("<h2>Error against time per query</h2>")
        parts += [figure_html(fig, figure_prefix) for fig in figs.values()]
    parts += [note_html(line) for line in (figures or {}).get("skipped", [])]
    return parts


__all__ = ["break_even_rows", "distribution_rows", "family_section", "family_title",
           "runs_rows"]
