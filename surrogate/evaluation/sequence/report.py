"""The sequence section of ``index.html``: the run, one error table, figures, ParaView files.

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
    parts += [figure_html(fig, figure_prefix)
              for fig in (figures or {}).get("figures", {}).values()]
    vtk = evaluation.get("vtk")
    if vtk:
        parts.append(f"<h2>ParaView files</h2><ul><li><code>{vtk['probes']['pvd']}</code>: "
                     f"probes of sequence {vtk['sample_id']} (E_true, E_pred, E_error)</li>"
                     f"<li><code>{vtk['field']['pvd']}</code>: its FEM field E_h</li></ul>")
    return parts


__all__ = ["sequence_section", "sequence_title", "set_rows"]
