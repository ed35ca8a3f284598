"""``index.html``: the tables and figures of an evaluation on one page.

Plain HTML with inline CSS, no JavaScript; images by paths relative to the page's folder.
Built from the ``evaluation.json`` dict and the figure list of ``surrogate.evaluation.plots.make_figures``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import write_text_atomic

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
td.better { background: #e5f5e0; } .note { background: #fff8e1; padding: 0.5em 1em; }
figure { display: inline-block; margin: 0.5em; max-width: 100%; vertical-align: top; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #555; max-width: 700px; }
code { background: #f6f6f6; padding: 0 0.2em; }
"""


def _fmt(value: Any, spec: str = ".3e") -> str:
    """Number -> text; None -> an en dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return format(value, spec)
    return html.escape(str(value))


def _table(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]]) -> str:
    """An HTML table; each cell is (text, css class)."""
    head = "".join(f'<th class="{"text" if i < 1 else ""}">{html.escape(h)}</th>'
                   for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td class="{cls}">{text}</td>' for text, cls in row)
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def error_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Header and rows of the main error table (a run's cell is marked where it beats N0)."""
    labels = list(evaluation["runs"])
    header = ["domain", "level", "h", "N0 DOFs", "N0 error"]
    header += [f"{label}" for label in labels]
    rows = []
    for r in evaluation["records"]:
        fem = r.get("fem") or {}
        fem_err = fem.get("l2_error")
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), ""),
               (_fmt(r["h"], ".4f"), ""), (_fmt(fem.get("ndofs")), ""),
               (_fmt(fem_err) if not fem.get("is_reference") else "reference", "")]
        for label in labels:
            err = r["runs"][label]["l2_error"]
            better = fem_err is not None and err is not None and err < fem_err
            row.append((_fmt(err), "better" if better else ""))
        rows.append(row)
    return header, rows


def split_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Header and rows of the in-distribution / extrapolation table: per run the relative
    L² error inside / outside its training domain, and the volume fraction inside."""
    labels = list(evaluation["runs"])
    trainings = list(dict.fromkeys(evaluation["runs"][k].get("training_domain") for k in labels))
    header = ["domain", "level"] + [f"vol. in {name}" for name in trainings]
    header += [f"{label} in / out" for label in labels]
    rows = []
    for r in evaluation["records"]:
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), "")]
        row += [(_fmt(r["inside_fraction"].get(name), ".1%"), "") for name in trainings]
        for label in labels:
            rec = r["runs"][label]
            row.append((f"{_fmt(rec['inside']['relative_error'], '.2e')} / "
                        f"{_fmt(rec['outside']['relative_error'], '.2e')}", ""))
        rows.append(row)
    return header, rows


def timing_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Header and rows of the timing table: FEM assembly + solve vs surrogate inference."""
    labels = list(evaluation["runs"])
    header = ["domain", "level", "nodes", "quad. points", "N0 [s]", "solver"]
    header += [f"{label} [s] (speed-up): nodes | quad. points" for label in labels]
    rows = []
    for r in evaluation["records"]:
        fem = r.get("fem") or {}
        seconds = (fem.get("seconds") or {}).get("total")
        solver = (fem.get("solver") or {}).get("method")
        row = [(html.escape(r["domain"]), "text"), (str(r["level"]), ""),
               (str(r["n_nodes"]), ""), (str(r["n_quadrature"]), ""),
               (_fmt(seconds, ".3f"), ""), (_fmt(solver), "")]
        for label in labels:
            rec = r["runs"][label]
            parts = []
            for key, speed in (("field_on_mesh", "speedup_vs_fem"),
                               ("inference", "speedup_vs_fem_quadrature")):
                text = _fmt(rec["seconds"].get(key), ".4f")
                if rec.get(speed) is not None:
                    text += f" ({rec[speed]:.0f}×)"
                parts.append(text)
            row.append((" | ".join(parts), ""))
        rows.append(row)
    return header, rows


def runs_rows(evaluation: Mapping[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Header and rows of the run table: architecture, size, τ mode and τ values."""
    header = ["run", "arch", "depth × width", "τ", "bias ordering", "τ per layer", "path"]
    rows = []
    for label, info in evaluation["runs"].items():
        taus = info.get("taus")
        rows.append([
            (html.escape(label), "text"), (_fmt(info.get("arch")), "text"),
            (f"{_fmt(info.get('depth'))} × {_fmt(info.get('width'))}", ""),
            (_fmt(info.get("tau_mode")), "text"), (_fmt(info.get("bias_ordering")), "text"),
            (", ".join(f"{t:.2f}" for t in taus) if taus else "–", "text"),
            (f"<code>{html.escape(str(info.get('path', '')))}</code>", "text"),
        ])
    return header, rows


def render_report(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                  *, title: str = "Surrogate evaluation", figure_prefix: str = "") -> str:
    """The HTML page (string). ``figures`` is the dict of ``make_figures``; image paths are
    ``figure_prefix + file`` (relative to the page)."""
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>"]
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
    for note in evaluation.get("notes", []):
        parts.append(f"<p class='note'>{html.escape(note)}</p>")
    sections = [
        ("Runs", runs_rows(evaluation)),
        ("Absolute L² errors ‖u − ·‖ on the test domains (green: surrogate below the N0 "
         "baseline)", error_rows(evaluation)),
        ("In-distribution vs extrapolation: relative L² errors inside / outside each run's "
         "training domain, and the test domain's volume fraction inside it",
         split_rows(evaluation)),
        ("Wall time: N0 basis + assembly + solve vs surrogate inference on the quadrature "
         "points", timing_rows(evaluation)),
    ]
    for heading, (header, rows) in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(_table(header, rows))
    figs = (figures or {}).get("figures", {})
    if figs:
        parts.append("<h2>Figures</h2>")
        for fig in figs.values():
            src = html.escape(figure_prefix + fig["file"], quote=True)
            parts.append(f"<figure><img src='{src}' alt='{html.escape(fig['caption'])}'>"
                         f"<figcaption>{html.escape(fig['caption'])}</figcaption></figure>")
    for line in (figures or {}).get("skipped", []):
        parts.append(f"<p class='note'>{html.escape(line)}</p>")
    vtk = evaluation.get("vtk")
    if vtk:
        parts.append("<h2>ParaView files</h2><ul>")
        for domain, coll in vtk["collections"].items():
            parts.append(f"<li>{html.escape(domain)}: <code>{html.escape(coll['pvd'])}</code> "
                         f"(one time step per level)</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(path: str | Path, evaluation: Mapping[str, Any],
                 figures: Mapping[str, Any] | None = None, *, title: str = "Surrogate evaluation",
                 figure_prefix: str = "") -> Path:
    """Write :func:`render_report` to ``path`` (usually ``index.html``) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render_report(evaluation, figures, title=title, figure_prefix=figure_prefix)
    write_text_atomic(path, text)
    return path


__all__ = ["render_report", "write_report", "error_rows", "split_rows", "timing_rows",
           "runs_rows"]
