"""The static (pointwise) section of ``index.html``: runs, errors, in/out split, timings.

Built from the ``evaluation.json`` dict and the figure list of
:func:`surrogate.evaluation.static.plots.make_figures`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from surrogate.evaluation.report_html import Cell, figure_html, fmt, html_table, note_html
from surrogate.evaluation.static.fem_columns import fem_at, fem_columns, fem_key, fem_label

TITLE = "Surrogate evaluation"


def static_title(evaluation: Mapping[str, Any]) -> str:
    """Page title of a static evaluation."""
    return TITLE


def _extra_fem(evaluation: Mapping[str, Any]) -> list[tuple[tuple[str, int], str]]:
    """(key, name) of every FEM (backend, order) evaluated beyond the first (the N0
    baseline), e.g. [(("skfem", 1), "complete linear")]."""
    columns = fem_columns(evaluation["records"])
    return [(fem_key(f), fem_label(f)) for f in columns[1:]]


def error_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the main error table (a run's cell is marked where it beats N0);
    higher FEM orders get their own DOFs and error columns."""
    labels = list(evaluation["runs"])
    extra = _extra_fem(evaluation)
    header = ["domain", "level", "h", "N0 DOFs", "N0 error"]
    for _, name in extra:
        header += [f"{name} DOFs", f"{name} error"]
    header += [f"{label}" for label in labels]
    rows = []
    for r in evaluation["records"]:
        fem = r.get("fem") or {}
        fem_err = fem.get("l2_error")
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), ""),
               (fmt(r["h"], ".4f"), ""), (fmt(fem.get("ndofs")), ""),
               (fmt(fem_err) if not fem.get("is_reference") else "reference", "")]
        for key, _ in extra:
            higher = fem_at(r, key)
            row += [(fmt(higher.get("ndofs")), ""), (fmt(higher.get("l2_error")), "")]
        for label in labels:
            err = r["runs"][label]["l2_error"]
            better = fem_err is not None and err is not None and err < fem_err
            row.append((fmt(err), "better" if better else ""))
        rows.append(row)
    return header, rows


def split_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the in-distribution / extrapolation table: per run the relative
    L² error inside / outside its training domain, and the volume fraction inside."""
    labels = list(evaluation["runs"])
    trainings = list(dict.fromkeys(evaluation["runs"][k].get("training_domain") for k in labels))
    header = ["domain", "level"] + [f"vol. in {name}" for name in trainings]
    header += [f"{label} in / out" for label in labels]
    rows = []
    for r in evaluation["records"]:
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), "")]
        row += [(fmt(r["inside_fraction"].get(name), ".1%"), "") for name in trainings]
        for label in labels:
            rec = r["runs"][label]
            row.append((f"{fmt(rec['inside']['relative_error'], '.2e')} / "
                        f"{fmt(rec['outside']['relative_error'], '.2e')}", ""))
        rows.append(row)
    return header, rows


def timing_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the timing table: FEM assembly + solve vs surrogate inference."""
    labels = list(evaluation["runs"])
    extra = _extra_fem(evaluation)
    header = ["domain", "level", "nodes", "quad. points", "N0 [s]", "solver"]
    for _, name in extra:
        header += [f"{name} [s]", f"{name} solver"]
    header += [f"{label} [s] (speed-up): nodes | quad. points" for label in labels]
    rows = []
    for r in evaluation["records"]:
        fem = r.get("fem") or {}
        seconds = (fem.get("seconds") or {}).get("total")
        solver = (fem.get("solver") or {}).get("method")
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), ""),
               (str(r["n_nodes"]), ""), (str(r["n_quadrature"]), ""),
               (fmt(seconds, ".3f"), ""), (fmt(solver), "")]
        for key, _ in extra:
            higher = fem_at(r, key)
            row += [(fmt((higher.get("seconds") or {}).get("total"), ".3f"), ""),
                    (fmt((higher.get("solver") or {}).get("method")), "")]
        for label in labels:
            rec = r["runs"][label]
            parts = []
            for key, speed in (("field_on_mesh", "speedup_vs_fem"),
                               ("inference", "speedup_vs_fem_quadrature")):
                text = fmt(rec["seconds"].get(key), ".4f")
                if rec.get(speed) is not None:
                    text += f" ({rec[speed]:.0f}×)"
                parts.append(text)
            row.append((" | ".join(parts), ""))
        rows.append(row)
    return header, rows


def fastest_fem_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Per domain and run: its error and time next to the fastest FEM at that error (any
    evaluated backend, level and order: its label names backend, order, level and DOFs), and
    the plain verdict."""
    header = ["domain", "run", "run error", "run [s]", "fastest FEM at equal error",
              "FEM error", "FEM [s]", "verdict"]
    rows = []
    for domain, by_run in (evaluation.get("fastest_fem_at_equal_error") or {}).items():
        for label, c in by_run.items():
            fem = c.get("fem") or {}
            name = fem.get("label", "–") + (" (most accurate; none reaches)"
                                             if c.get("lower_bound") and fem else "")
            rows.append([(html.escape(domain), "text"), (html.escape(label), "text"),
                         (fmt(c["surrogate"]["error"]), ""),
                         (fmt(c["surrogate"]["seconds"], ".4f"), ""),
                         (html.escape(name), "text"), (fmt(fem.get("error")), ""),
                         (fmt(fem.get("seconds"), ".4f"), ""),
                         (html.escape(c["verdict"]), "text")])
    return header, rows


def runs_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the run table: architecture, size, τ mode and τ values."""
    header = ["run", "arch", "depth × width", "τ", "bias ordering", "τ per layer", "path"]
    rows = []
    for label, info in evaluation["runs"].items():
        taus = info.get("taus")
        rows.append([
            (html.escape(label), "text"), (fmt(info.get("arch")), "text"),
            (f"{fmt(info.get('depth'))} × {fmt(info.get('width'))}", ""),
            (fmt(info.get("tau_mode")), "text"), (fmt(info.get("bias_ordering")), "text"),
            (", ".join(f"{t:.2f}" for t in taus) if taus else "–", "text"),
            (f"<code>{html.escape(str(info.get('path', '')))}</code>", "text"),
        ])
    return header, rows


def static_section(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                   *, figure_prefix: str = "") -> list[str]:
    """The page body of a static evaluation (image paths are ``figure_prefix + file``)."""
    parts = []
    opts = evaluation.get("options", {})
    reference = evaluation.get("reference", "exact")
    parts.append(
        f"<p>Problem <code>{html.escape(str(evaluation.get('problem')))}</code>; test domains "
        f"{html.escape(', '.join(opts.get('domains', [])))}; levels "
        f"{html.escape(', '.join(map(str, opts.get('levels', []))))}; FEM baseline "
        f"<code>{html.escape(str(opts.get('fem')))}</code>; errors integrated by quadrature "
        f"of order {html.escape(str(opts.get('intorder')))} on each test mesh.</p>")
    if reference == "exact":
        parts.append("<p>Reference: the exact solution.</p>")
    else:
        parts.append(f"<p class='note'><b>No exact solution:</b> errors are measured against "
                     f"the {html.escape(reference)} of each domain; at that level the FEM error "
                     "is not reported (it is the reference), and coarser levels are compared "
                     "on the part of the domain the finest mesh covers.</p>")
    parts += [note_html(note) for note in evaluation.get("notes", [])]
    sections = [
        ("Runs", runs_rows(evaluation)),
        ("Absolute L² errors ‖u − ·‖ on the test domains (green: surrogate below the N0 "
         "baseline)", error_rows(evaluation)),
        ("In-distribution vs extrapolation: relative L² errors inside / outside each run's "
         "training domain, and the test domain's volume fraction inside it",
         split_rows(evaluation)),
        ("Wall time: FEM mesh → u_h vs surrogate inference on the quadrature points",
         timing_rows(evaluation)),
        ("Fastest FEM at equal error: among every evaluated backend, level and order, the FEM "
         "whose L² error is at most the run's (finest level), with the least time mesh → u_h",
         fastest_fem_rows(evaluation)),
    ]
    for heading, (header, rows) in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(html_table(header, rows))
    figs = (figures or {}).get("figures", {})
    if figs:
        parts.append("<h2>Figures</h2>")
        parts += [figure_html(fig, figure_prefix) for fig in figs.values()]
    parts += [note_html(line) for line in (figures or {}).get("skipped", [])]
    vtk = evaluation.get("vtk")
    if vtk:
        parts.append("<h2>ParaView files</h2><ul>")
        for domain, coll in vtk["collections"].items():
            parts.append(f"<li>{html.escape(domain)}: <code>{html.escape(coll['pvd'])}</code> "
                         f"(one time step per level)</li>")
        parts.append("</ul>")
    return parts


__all__ = ["TITLE", "error_rows", "fastest_fem_rows", "runs_rows", "split_rows", "static_section",
           "static_title", "timing_rows"]
