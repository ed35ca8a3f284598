"""``index.html`` of a ``surrogate uq`` study: estimate ± error against cost, the allocation,
the Sobol bars.

From the record of :func:`~surrogate.uq.study.run_uq` alone (``uq.json``), so a report can be
redrawn from the file. Figures (matplotlib, Agg, saved atomically) per scalar quantity:

- ``convergence_<j>.png``: MFMC and FEM-only Monte Carlo on nested prefixes of the study's
  samples (each a real estimate of that smaller cost), estimate ± 1.96 standard errors
  against seconds of sampling; the run's one-off drawn as a second MFMC curve shifted by it;
- ``cost.png``: the seconds of the pilot, the FEM solves, the surrogate queries and the
  one-off, stacked;
- ``sobol_<j>.png`` (with ``--sobol``): S1 and ST per parameter with their 95 % bootstrap
  intervals, through the surrogate and, on the small sample, through the FEM.

The page's skeleton is evaluate's (:mod:`surrogate.evaluation.report_html`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.atomic_files import write_text_atomic
from surrogate.evaluation.figures import pyplot, save_figure
from surrogate.evaluation.report_html import figure_html, fmt, html_table, note_html, render_page


def _convergence_figure(name: str, entry: dict[str, Any], one_off: float, path: Path) -> None:
    """Estimate ± 95 % against seconds, MFMC and FEM-only MC (and MFMC with the one-off)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    trace = entry["convergence"]
    for key, label, marker in (("high_fidelity_mc", "FEM-only MC", "s"), ("mfmc", "MFMC", "o")):
        seconds = np.array([t["seconds" if key == "mfmc" else "seconds_high"] for t in trace])
        mean = np.array([t[key]["mean"] for t in trace])
        error = 1.959964 * np.array([t[key]["standard_error"] for t in trace])
        ax.errorbar(seconds, mean, yerr=error, marker=marker, capsize=3, label=label)
        if key == "mfmc" and one_off > 0:
            ax.errorbar(seconds + one_off, mean, yerr=error, marker=marker, capsize=3,
                        alpha=0.4, linestyle=":", label="MFMC, one-off counted")
    ax.set_xscale("log")
    ax.set_xlabel("seconds of sampling")
    ax.set_ylabel(f"E[{name}]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)


def _cost_figure(record: dict[str, Any], path: Path) -> None:
    """The seconds of the study, stacked: pilot, FEM solves, surrogate queries, one-off."""
    plt = pyplot()
    seconds = record["seconds"]
    parts = {"pilot": seconds["pilot_high"] + seconds["pilot_surrogate"],
             "FEM solves": seconds["high"], "surrogate queries": seconds["surrogate"],
             "one-off (data + training)": record["one_off_seconds"]["total"]}
    fig, ax = plt.subplots(figsize=(8.4, 1.6))
    left = 0.0
    for label, value in parts.items():
        ax.barh([0], [value], left=left, label=f"{label}: {value:.3g} s")
        left += value
    ax.set_yticks([])
    ax.set_xlabel("seconds")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, path)


def _sobol_figure(name: str, sobol: dict[str, Any], path: Path) -> bool:
    """Bars of S1 and ST per parameter with 95 % intervals; False when constant."""
    entry = sobol["quantities"].get(name)
    if entry is None:
        return False
    fem = (sobol.get("high_fidelity") or {}).get("quantities", {}).get(name)
    series = [("surrogate", entry)] + ([("FEM (small sample)", fem)] if fem else [])
    params = list(entry["S1"])
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.2), sharey=True)
    width = 0.8 / len(series)
    x = np.arange(len(params))
    for ax, kind in zip(axes, ("S1", "ST"), strict=True):
        for i, (label, values) in enumerate(series):
            index = np.array([values[kind][p]["index"] for p in params])
            ci = np.array([values[kind][p]["ci95"] for p in params])
            ax.bar(x + (i - (len(series) - 1) / 2) * width, index, width, label=label,
                   yerr=np.abs(ci.T - index), capsize=2)
        ax.set_xticks(x, params)
        ax.set_title(f"{kind} of {name}", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)
    return True


def _tables(record: dict[str, Any]) -> list[str]:
    """The estimates per quantity and the allocation."""
    rows = []
    for name, entry in record["quantities"].items():
        mfmc, mc, alone = entry["mfmc"], entry["high_fidelity_mc"], entry["surrogate_mc"]
        gain = entry["variance_reduction"]
        rows.append([(fmt(name), "text"), (fmt(mfmc["mean"], ".6g"), ""),
                     (fmt(mfmc["standard_error"], ".2e"), ""), (fmt(mc["mean"], ".6g"), ""),
                     (fmt(mc["standard_error"], ".2e"), ""), (fmt(alone["mean"], ".6g"), ""),
                     (fmt(alone["bias_on_pilot"]["mean"], ".2e"), ""),
                     (fmt(entry["pilot"]["rho"], ".5f"), ""),
                     (fmt(gain["without_one_off"], ".3g"), ""),
                     (fmt(gain["with_one_off"], ".3g"), "")])
    alloc, hf = record["allocation"], record["high_fidelity"]
    return [html_table(["quantity", "MFMC", "± s.e.", "FEM-only MC (K)", "± s.e.",
                        "surrogate alone", "its bias on the pilot", "ρ (pilot)",
                        "variance ÷", "÷ with one-off"], rows),
            note_html("The surrogate alone is biased by its error: reported, never the answer."),
            "<h2>Allocation</h2>",
            html_table(["high fidelity", "K (FEM solves)", "N (surrogate queries)", "r = N/K",
                        "pilot", "set by"],
                       [[(fmt(f"{hf['label']}, {hf['where']}"), "text"),
                         (fmt(alloc["high_samples"]), ""), (fmt(alloc["surrogate_samples"]), ""),
                         (fmt(alloc["ratio"], ".3g"), ""), (fmt(record["pilot"]["samples"]), ""),
                         (fmt(alloc["set_by"]), "")]])]


def write_report(record: dict[str, Any], out: str | Path) -> Path:
    """``index.html`` and its figures in ``out`` for the study ``record``."""
    out = Path(out)
    body = ["<h2>Estimates</h2>", *_tables(record)]
    one_off = float(record["one_off_seconds"]["total"] or 0.0)
    figures = []
    for j, (name, entry) in enumerate(record["quantities"].items()):
        if entry.get("convergence"):
            _convergence_figure(name, entry, one_off, out / f"convergence_{j}.png")
            figures.append({"file": f"convergence_{j}.png", "caption": f"E[{name}] ± 95 % "
                            "against seconds of sampling: nested prefixes of the study's "
                            "samples"})
    body += ["<h2>Estimate against cost</h2>", *map(figure_html, figures)]
    _cost_figure(record, out / "cost.png")
    body += [figure_html({"file": "cost.png", "caption": "Seconds of the study"})]
    if record.get("sobol"):
        bars = [{"file": f"sobol_{j}.png", "caption": f"Sobol indices of {name} (95 %)"}
                for j, name in enumerate(record["quantities"])
                if _sobol_figure(name, record["sobol"], out / f"sobol_{j}.png")]
        body += ["<h2>Sobol indices</h2>", *map(figure_html, bars)]
    if "pvd" in (record.get("field") or {}):
        body.append(f"<h2>Field</h2><p>Open <code>{record['field']['pvd']}</code> in ParaView: "
                    f"{', '.join(record['field']['point_data'])} at "
                    f"{record['field']['nodes']} nodes.</p>")
    path = out / "index.html"
    write_text_atomic(path, render_page(f"uq: {record['family']} run {record['run']}", body))
    return path


__all__ = ["write_report"]
