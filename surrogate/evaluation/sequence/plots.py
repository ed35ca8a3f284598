"""Figures of a sequence evaluation as PNG files (matplotlib, Agg backend).

Per set: predicted vs true traces of the best, median and worst sequence (by per-sequence
error) at the 2–3 output channels of largest RMS (seq-to-seq runs), or predicted vs true
targets (seq-to-one runs); one figure of the relative error over time of every set (median
and the band up to the 90th percentile over the sequences, log scale, T_train marked on the
longer horizon).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.evaluation.figures import pyplot, save_figure

AXIS_UNITS = {
    "maxwell-td": ("time t (nondimensional, Δt = {dt:g})", "nondimensional"),
    "fitzhugh-nagumo": ("time t (model time units, Δt = {dt:g})", "model units"),
    "adding": ("step n", "dimensionless"),
}
"""Per recipe kind: the time-axis label and the unit of the outputs (the problems are
nondimensional)."""
DEFAULT_UNITS = ("time t (dataset units)", "dataset units")
MAX_CHANNELS = 3


def axis_units(recipe_kind: str | None, dt: float | None) -> tuple[str, str]:
    """(time-axis label, output unit) of a recipe kind."""
    label, unit = AXIS_UNITS.get(str(recipe_kind), DEFAULT_UNITS)
    return label.format(dt=dt if dt is not None else float("nan")), unit


def pick_sequences(errors: np.ndarray) -> list[tuple[int, str]]:
    """Rows of the best, median and worst sequence by error (fewer when there are fewer)."""
    order = np.argsort(errors, kind="stable")
    picks = {"best": int(order[0]), "median": int(order[len(order) // 2]),
             "worst": int(order[-1])}
    seen: dict[int, str] = {}
    for label, row in picks.items():
        seen.setdefault(row, label)
    return [(row, label) for row, label in seen.items()]


def pick_channels(target: np.ndarray, limit: int = MAX_CHANNELS) -> list[int]:
    """The ``limit`` output channels of (N, T, k) with the largest RMS, in column order."""
    rms = np.sqrt(np.mean(np.asarray(target) ** 2, axis=(0, 1)))
    return sorted(np.argsort(-rms, kind="stable")[:limit].tolist())


def plot_traces(result: Any, names: Sequence[str], path: str | Path, *, time_label: str,
                unit: str) -> Path:
    """One panel per channel: true (solid) vs predicted (dashed) traces of the best, median
    and worst sequence (one colour each)."""
    plt = pyplot()
    record, times = result.record, result.set.time
    rows = pick_sequences(np.asarray(record["per_sequence"]))
    channels = pick_channels(result.target)
    fig, axes = plt.subplots(1, len(channels), figsize=(4.6 * len(channels), 3.9),
                             squeeze=False)
    for channel, ax in zip(channels, axes[0], strict=True):
        for k, (row, label) in enumerate(rows):
            name = (f"{label}: seq. {int(result.set.samples[row])}, "
                    f"err {record['per_sequence'][row]:.1e}")
            ax.plot(times, result.target[row, :, channel], "-", color=f"C{k}", lw=1.4,
                    label=f"{name} (true)")
            ax.plot(times, result.prediction[row, :, channel], "--", color=f"C{k}", lw=1.4,
                    label="predicted")
        _mark_trained(ax, record)
        ax.set_xlabel(time_label)
        ax.set_ylabel(f"{names[channel]} ({unit})")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{result.set.name}: true (solid) vs predicted (dashed)", fontsize=11)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.14, top=0.88, wspace=0.3)
    return save_figure(fig, path)


def plot_targets(result: Any, names: Sequence[str], path: str | Path, *, unit: str) -> Path:
    """Seq-to-one: predicted vs true target of every sequence, with the line y = x."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.8, 4.5))
    true, predicted = result.target.reshape(len(result.target), -1), \
        result.prediction.reshape(len(result.prediction), -1)
    for k in range(true.shape[1]):
        ax.plot(true[:, k], predicted[:, k], "o", ms=3, alpha=0.6, label=names[k])
    low, high = float(min(true.min(), predicted.min())), float(max(true.max(), predicted.max()))
    ax.plot([low, high], [low, high], "k-", lw=1, label="y = x")
    ax.set_xlabel(f"true ({unit})")
    ax.set_ylabel(f"predicted ({unit})")
    ax.set_title(f"{result.set.name}: read-out after the last step", fontsize=10)
    ax.legend(fontsize=8)
    fig.subplots_adjust(left=0.16, right=0.97, bottom=0.12, top=0.92)
    return save_figure(fig, path)


def _mark_trained(ax: Any, record: Mapping[str, Any]) -> None:
    """A vertical line at the end of the trained window (longer horizon only)."""
    windows = record.get("windows")
    if windows:
        ax.axvline(windows["trained_until"], color="0.5", ls=":", lw=1.2,
                   label="end of trained window")


def plot_error_over_time(records: Mapping[str, Mapping[str, Any]], path: str | Path, *,
                         time_label: str) -> Path:
    """One panel per set: median of r_i(t) and the band up to its 90th percentile, log y."""
    plt = pyplot()
    names = [n for n, r in records.items() if r.get("error_over_time")]
    fig, axes = plt.subplots(1, len(names), figsize=(4.8 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        curve = records[name]["error_over_time"]
        t = np.asarray(curve["time"], float)
        median, p90 = np.asarray(curve["median"], float), np.asarray(curve["p90"], float)
        floor = np.finfo(float).tiny
        ax.fill_between(t, np.maximum(median, floor), np.maximum(p90, floor), color="C0",
                        alpha=0.25, label="median … 90th percentile")
        ax.plot(t, np.maximum(median, floor), "C0-", lw=1.5, label="median")
        _mark_trained(ax, records[name])
        ax.set_yscale("log")
        ax.set_xlabel(time_label)
        ax.set_ylabel("relative error ‖u_NN(t) − u(t)‖ / rms‖u‖ (–)")
        ax.set_title(f"{name} ({records[name]['sequences']} sequences)", fontsize=10)
        ax.legend(fontsize=8)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.14, top=0.9, wspace=0.35)
    return save_figure(fig, path)


def make_sequence_figures(evaluation: Any, plots_dir: str | Path) -> dict[str, Any]:
    """Write every figure of a :class:`~surrogate.evaluation.sequence.measure.SequenceEvaluation`.

    Returns ``{"figures": {key: {"file", "caption"}}, "skipped": []}`` (file names relative
    to ``plots_dir``), as :func:`surrogate.evaluation.static.plots.make_figures` does.
    """
    plots_dir = Path(plots_dir)
    run = evaluation.run
    names = run["dataset"]["target_names"]
    figures: dict[str, dict[str, str]] = {}
    records = {n: r.record for n, r in evaluation.results.items()}
    first = next(iter(records.values()))
    time_label, unit = axis_units(run.get("recipe_kind"), first["time"]["dt"])
    for name, result in evaluation.results.items():
        path = plots_dir / f"traces_{name}.png"
        if result.prediction.ndim == 3:
            plot_traces(result, names, path, time_label=time_label, unit=unit)
            caption = (f"{name}: true (solid) and predicted (dashed) traces of the best, median "
                       f"and worst sequence at the channels of largest RMS.")
        else:
            plot_targets(result, names, path, unit=unit)
            caption = f"{name}: predicted vs true target of every sequence (seq-to-one)."
        figures[f"traces:{name}"] = {"file": path.name, "caption": caption}
    if any(r.get("error_over_time") for r in records.values()):
        path = plot_error_over_time(records, plots_dir / "error_over_time.png",
                                    time_label=time_label)
        figures["error_over_time"] = {
            "file": path.name,
            "caption": "Relative error over time per set: median over the sequences and the band "
                       "up to the 90th percentile; dotted: end of the trained window."}
    return {"figures": figures, "skipped": []}


__all__ = ["make_sequence_figures", "plot_traces", "plot_targets", "plot_error_over_time",
           "pick_sequences", "pick_channels", "axis_units", "AXIS_UNITS"]
