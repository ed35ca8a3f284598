"""Figures that hold surrogates against FEM of every evaluated backend and order: error
against time, and the FEM lines beyond N0 in error against h.

Plain data in (the ``evaluation.json`` dict), one PNG out, matplotlib on Agg.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.evaluation.figures import backend_line, fixed_margins, pyplot, save_figure
from surrogate.evaluation.static.fem_columns import fem_at, fem_columns, fem_key, fem_label

_ORDER_STYLE = {0: ("k", "s"), 1: ("C3", "^"), 2: ("C4", "v"), 3: ("C5", "D"), 4: ("C6", "P")}


def _style(key: tuple[str, int]) -> tuple[str, str, str]:
    """(colour, marker, line style) of a (backend, order): colour and marker by order, line
    style by backend (solid for the own one)."""
    backend, order = key
    color, marker = _ORDER_STYLE.get(order, ("C7", "x"))
    return color, marker, backend_line(backend)


def fem_order_series(rows: list[Mapping[str, Any]], key: tuple[str, int]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, L² error, seconds) of the FEM (backend, order) ``key`` over a domain's records (no
    reference, no level above ``--fem-max-dofs``)."""
    pts = []
    for r in rows:
        fem = fem_at(r, key)
        if fem.get("l2_error"):
            pts.append((r["h"], fem["l2_error"], (fem.get("seconds") or {}).get("total", np.nan)))
    if not pts:
        return np.array([]), np.array([]), np.array([])
    h, err, sec = np.array(pts, dtype=float).T
    return h, err, sec


def add_higher_order_lines(ax, rows: list[Mapping[str, Any]]) -> None:
    """Error-vs-h lines of every FEM (backend, order) but the first (N0), labelled with their
    observed rate."""
    for fem in fem_columns(rows)[1:]:
        key = fem_key(fem)
        h, err, _ = fem_order_series(rows, key)
        if len(h) == 0:
            continue
        color, marker, line = _style(key)
        name = fem_label(fem)
        if len(h) > 1:
            name += f" (rate {np.polyfit(np.log(h), np.log(err), 1)[0]:.2f})"
        ax.loglog(h, err, line, color=color, marker=marker, lw=2, label=name)


def plot_error_vs_time(evaluation: Mapping[str, Any], path: str | Path) -> Path:
    """L² error against wall time (log–log), one panel per domain: every FEM (backend, order)
    over the levels (mesh → u_h) and every run (u_NN at each level's nodes); the fastest FEM
    at a run's error is the leftmost FEM point below that run's marker."""
    plt = pyplot()
    records = evaluation["records"]
    domains = list(dict.fromkeys(r["domain"] for r in records))
    labels = list(evaluation["runs"])
    fig, axes = plt.subplots(1, len(domains), figsize=(5.5 * len(domains), 4.5), squeeze=False)
    for ax, domain in zip(axes[0], domains, strict=True):
        rows = sorted((r for r in records if r["domain"] == domain), key=lambda r: r["h"])
        for fem in fem_columns(rows):
            key = fem_key(fem)
            _, err, sec = fem_order_series(rows, key)
            if len(err):
                color, marker, line = _style(key)
                ax.loglog(sec, err, line, color=color, marker=marker, lw=2,
                          label=fem_label(fem))
        for i, label in enumerate(labels):
            err = [r["runs"][label]["l2_error"] for r in rows]
            sec = [r["runs"][label]["seconds"]["field_on_mesh"] for r in rows]
            ax.loglog(sec, err, "o--", color=f"C{(i + 7) % 10}", mfc="none", label=f"NN {label}")
        ax.set_xlabel("wall time mesh → field [s]")
        ax.set_ylabel(r"$\|u - \cdot\|_{L^2(\tilde\Omega)}$")
        ax.set_title(f"error against time on the {domain}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fixed_margins(fig)
    return save_figure(fig, path)


__all__ = ["add_higher_order_lines", "fem_order_series", "plot_error_vs_time"]
