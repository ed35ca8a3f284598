"""The sequence section of ``index.html``: the run, one error table, the FEM verdict
(maxwell-td: per set the FEM candidates next to the surrogate, and N* per query kind),
figures, ParaView files.

Built from the ``evaluation.json`` dict and the figure list of
:func:`surrogate.evaluation.sequence.plots.make_sequence_figures`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from surrogate.evaluation.report_html import Cell, figure_html, fmt, html_table, note_html


def sequence_title(evaluation: Mapping[str, Any]) -> str:
    """``Sequence evaluation: <arch> on <problem>``."""
    run = evaluation["run"]
    return f"Sequence evaluation: {run['arch']} on {run['problem']}"


def set_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[Cell]]]:
    """Header and one row per set: size, horizon, per-sequence errors, window errors."""
    header = ["set", "sequences", "steps", "t end", "mean", "median", "max", "pooled",
              "trained window", "extrapolated", "source"]
    rows = []
    for name, record in evaluation["sets"].items():
        errors, windows = record["errors"], record.get("windows") or {}
        rows.append([(html.escape(name), "text"), (str(record["sequences"]), ""),
                     (str(record["steps"]), ""), (fmt(record["time"]["end"], ".4g"), ""),
                     *[(fmt(errors[k]), "") for k in ("mean", "median", "max", "pooled")],
                     (fmt((windows.get("trained") or {}).get("pooled")), ""),
                     (fmt((windows.get("extrapolated") or {}).get("pooled")), ""),
                     (html.escape(record["source"]), "text")])
    return header, rows


def verdict_html(evaluation: Mapping[str, Any]) -> list[str]:
    """Per set with a ``fem_verdict``: its candidates table and one sentence per query kind."""
    from surrogate.evaluation.sequence.fem_verdict import duration

    parts = []
    header = ["FEM", "method", "DOFs", "error (median)", "set-up", "per material",
              "per signal", "per sequence in a batch"]
    for name, record in evaluation["sets"].items():
        verdict = record.get("fem_verdict")
        if not verdict:
            continue
        rows = [[(html.escape(r["fem"]), "text"), (html.escape(r["method"]), "text"),
                 (str(r["dofs"]), ""), (fmt(r["error"]["median"]), ""),
                 (duration(r["setup_seconds"]), ""), (duration(r["seconds"]["material"]), ""),
                 (duration(r["seconds"]["convolution_one"]), ""),
                 (duration(r["seconds"]["convolution_batch"]), "")]
                for r in verdict["candidates"]]
        surrogate = verdict["surrogate"]
        rows.append([("surrogate", "text"), ("", "text"), ("", ""),
                     (fmt(surrogate["error"]), ""), ("", ""), ("", ""),
                     (duration(surrogate["seconds"]["one"]), ""),
                     (duration(surrogate["seconds"]["batch"]), "")])
        parts += [f"<h3>{html.escape(name)} ({html.escape(verdict['kind'])})</h3>",
                  html_table(header, rows)]
        parts += [f"<p>{html.escape(q['what'])}: {html.escape(q['text'])}</p>"
                  for q in verdict["queries"].values()]
        parts += [note_html(note) for note in verdict.get("notes", [])]
    if parts:
        parts.insert(0, "<h2>FEM verdict</h2><p>The fastest FEM whose median per-sequence "
                     "error is not larger than the surrogate's, and the break-even count N* = "
                     "(data generation + training) / (FEM − surrogate per query).</p>")
    return parts


def sequence_section(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                     *, figure_prefix: str = "") -> list[str]:
    """The page body of a sequence evaluation (image paths are ``figure_prefix + file``)."""
    run = evaluation["run"]
    parts = [f"<p>Run <code>{html.escape(run['path'])}</code> ({html.escape(run['arch'])}, "
             f"hidden {run['hidden']}, read-out {html.escape(run['readout'])}), trained on "
             f"<code>{html.escape(run['dataset']['path'])}</code> "
             f"({run['dataset']['steps']} steps). Per-sequence relative L² errors "
             f"‖u_NN − u‖ / ‖u‖ in physical units; pooled = ‖U_NN − U‖_F / ‖U‖_F.</p>"]
    parts += [note_html(note) for note in evaluation.get("notes", [])]
    header, rows = set_rows(evaluation)
    parts += ["<h2>Errors per evaluation set</h2>", html_table(header, rows)]
    parts += verdict_html(evaluation)
    parts += [figure_html(fig, figure_prefix)
              for fig in (figures or {}).get("figures", {}).values()]
    vtk = evaluation.get("vtk")
    if vtk:
        parts.append(f"<h2>ParaView files</h2><ul><li><code>{vtk['probes']['pvd']}</code>: "
                     f"probes of sequence {vtk['sample_id']} (E_true, E_pred, E_error)</li>"
                     f"<li><code>{vtk['field']['pvd']}</code>: its FEM field E_h</li></ul>")
    return parts


__all__ = ["sequence_section", "sequence_title", "set_rows", "verdict_html"]
