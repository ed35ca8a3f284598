"""``index.html`` of a sequence evaluation: the run, one error table, figures, ParaView files.

Same page style as :mod:`surrogate.evaluation.report`; built from the ``evaluation.json`` dict and the
figure list of :func:`surrogate.evaluation.sequence_plots.make_sequence_figures`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import write_text_atomic
from surrogate.evaluation.report import _CSS, _fmt, _table


def set_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Header and one row per set: size, horizon, per-sequence errors, window errors."""
    header = ["set", "sequences", "steps", "t end", "mean", "median", "max", "pooled",
              "trained window", "extrapolated", "source"]
    rows = []
    for name, record in evaluation["sets"].items():
        errors, windows = record["errors"], record.get("windows") or {}
        rows.append([(html.escape(name), "text"), (str(record["sequences"]), ""),
                     (str(record["steps"]), ""), (_fmt(record["time"]["end"], ".4g"), ""),
                     *[(_fmt(errors[k]), "") for k in ("mean", "median", "max", "pooled")],
                     (_fmt((windows.get("trained") or {}).get("pooled")), ""),
                     (_fmt((windows.get("extrapolated") or {}).get("pooled")), ""),
                     (html.escape(record["source"]), "text")])
    return header, rows


def render_sequence_report(evaluation: Mapping[str, Any],
                           figures: Mapping[str, Any] | None = None, *,
                           figure_prefix: str = "") -> str:
    """The HTML page (string); image paths are ``figure_prefix + file``."""
    run = evaluation["run"]
    title = f"Sequence evaluation: {run['arch']} on {run['problem']}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p>Run <code>{html.escape(run['path'])}</code> ({html.escape(run['arch'])}, "
             f"hidden {run['hidden']}, read-out {html.escape(run['readout'])}), trained on "
             f"<code>{html.escape(run['dataset']['path'])}</code> "
             f"({run['dataset']['steps']} steps). Per-sequence relative L² errors "
             f"‖u_NN − u‖ / ‖u‖ in physical units; pooled = ‖U_NN − U‖_F / ‖U‖_F.</p>"]
    for note in evaluation.get("notes", []):
        parts.append(f"<p class='note'>{html.escape(note)}</p>")
    header, rows = set_rows(evaluation)
    parts += ["<h2>Errors per evaluation set</h2>", _table(header, rows)]
    for fig in (figures or {}).get("figures", {}).values():
        src = html.escape(figure_prefix + fig["file"], quote=True)
        parts.append(f"<figure><img src='{src}' alt='{html.escape(fig['caption'])}'>"
                     f"<figcaption>{html.escape(fig['caption'])}</figcaption></figure>")
    vtk = evaluation.get("vtk")
    if vtk:
        parts.append(f"<h2>ParaView files</h2><ul><li><code>{vtk['probes']['pvd']}</code>: "
                     f"probes of sequence {vtk['sample_id']} (E_true, E_pred, E_error)</li>"
                     f"<li><code>{vtk['field']['pvd']}</code>: its FEM field E_h</li></ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_sequence_report(path: str | Path, evaluation: Mapping[str, Any],
                          figures: Mapping[str, Any] | None = None, *,
                          figure_prefix: str = "") -> Path:
    """Write :func:`render_sequence_report` to ``path`` atomically."""
    return write_text_atomic(path, render_sequence_report(evaluation, figures,
                                                          figure_prefix=figure_prefix))


__all__ = ["render_sequence_report", "write_sequence_report", "set_rows"]
