"""Figures that hold surrogates against FEM of every evaluated order: error against time.

Plain data in (the ``evaluation.json`` dict), one PNG out, matplotlib on Agg.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.evaluation.figures import pyplot, save_figure

_ORDER_STYLE = {0: ("k", "s", "N0"), 1: ("C3", "^", "complete linear")}


def _style(order: int) -> tuple[str, str, str]:
    from surrogate.fem.hcurl.registry import order_name

    return _ORDER_STYLE.get(order, ("C7", "v", order_name(order)))


def fem_order_series(rows: list[Mapping[str, Any]], order: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, L² error, seconds) of the FEM of ``order`` over a domain's records (no reference)."""
    pts = [(r["h"], f["l2_error"], (f.get("seconds") or {}).get("total", np.nan))
           for r in rows for f in r.get("fem_orders") or []
           if f.get("order") == order and f.get("l2_error")]
    if not pts:
        return np.array([]), np.array([]), np.array([])
    h, err, sec = np.array(pts, dtype=float).T
    return h, err, sec


def add_higher_order_lines(ax, rows: list[Mapping[str, Any]], orders: list[int]) -> None:
    """Error-vs-h lines of the FEM orders above 0 (N0), labelled with their observed rate."""
    for order in orders:
        h, err, _ = fem_order_series(rows, order)
        if len(h) == 0:
            continue
        color, marker, name = _style(order)
        if len(h) > 1:
            name += f" (rate {np.polyfit(np.log(h), np.log(err), 1)[0]:.2f})"
        ax.loglog(h, err, "-", color=color, marker=marker, lw=2, label=name)


def plot_error_vs_time(evaluation: Mapping[str, Any], path: str | Path) -> Path:
    """L² error against wall time (log–log), one panel per domain: every FEM order over the
    levels (basis + assembly + solve) and every run (u_NN at each level's nodes); the fastest
    FEM at a run's error is the leftmost FEM point below that run's marker."""
    plt = pyplot()
    records = evaluation["records"]
    domains = list(dict.fromkeys(r["domain"] for r in records))
    orders = sorted({int(f["order"]) for r in records for f in r.get("fem_orders") or []})
    labels = list(evaluation["runs"])
    fig, axes = plt.subplots(1, len(domains), figsize=(5.5 * len(domains), 4.5), squeeze=False)
    for ax, domain in zip(axes[0], domains, strict=True):
        rows = sorted((r for r in records if r["domain"] == domain), key=lambda r: r["h"])
        for order in orders:
            _, err, sec = fem_order_series(rows, order)
            if len(err):
                color, marker, name = _style(order)
                ax.loglog(sec, err, "-", color=color, marker=marker, lw=2, label=name)
        for i, label in enumerate(labels):
            err = [r["runs"][label]["l2_error"] for r in rows]
            sec = [r["runs"][label]["seconds"]["field_on_mesh"] for r in rows]
            ax.loglog(sec, err, "o--", color=f"C{i % 10}", mfc="none", label=f"NN {label}")
        ax.set_xlabel("wall time mesh → field [s]")
        ax.set_ylabel(r"$\|u - \cdot\|_{L^2(\tilde\Omega)}$")
        ax.set_title(f"error against time on the {domain}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, path)


__all__ = ["add_higher_order_lines", "fem_order_series", "plot_error_vs_time"]
