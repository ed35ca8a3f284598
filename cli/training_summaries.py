"""What ``fit`` and ``prune`` print: the run's summary and the pruning report."""

from __future__ import annotations

from typing import Any

from surrogate.cli.common import console


def _sequence_error_lines(per_sequence: dict[str, Any], pooled: dict[str, Any]) -> list[str]:
    """One line per split (narrow terminals keep each whole): per-sequence mean / median and
    the pooled error."""
    lines = []
    for name in dict.fromkeys([*per_sequence, *pooled]):
        value, total = per_sequence.get(name), pooled.get(name)
        if not value and total is None:
            continue
        cells = ([f"{value['mean']:.3e} / {value['median']:.3e}"] if value else []) + \
            ([f"pooled {total:.3e}"] if total is not None else [])
        lines.append(f"  {name:<5} " + ", ".join(cells))
    return lines


def _print_sequence_fit_summary(run: Any) -> None:
    """Summary of a sequence run: model, epochs, per-sequence and pooled errors, Δt."""
    metrics = run.metrics
    config = run.model_config
    dt = "learned" if config.learn_dt else f"{config.dt:g}"
    linear = (f", linear response (bank of {config.linear_response})"
              if getattr(config, "linear_response", 0) else "")
    lines = [
        f"[bold]{run.path}[/]  {config.arch} hidden {config.hidden}, Δt {dt}, read-out "
        f"{config.readout}{linear}, {metrics['parameter_count']} parameters",
        f"epochs  {metrics['epochs_run']} ({metrics['stop_reason']}), "
        f"{metrics['wall_time_s']:.1f} s training",
        "relative L² error per sequence (mean / median), pooled",
        *_sequence_error_lines(metrics["sequence_relative_l2_error"],
                               metrics["relative_l2_error"]),
    ]
    if metrics.get("dt"):
        lines.append("Δt min / mean / max  " + " / ".join(
            f"{metrics['dt'][key]:.4g}" for key in ("dt_min", "dt_mean", "dt_max")))
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def print_fit_summary(run: Any) -> None:
    """Summary of a run: model, epochs, errors, τ (sequence runs: their own summary)."""
    if run.dataset.get("kind") == "sequence":
        _print_sequence_fit_summary(run)
        return
    metrics = run.metrics
    errors = metrics["relative_l2_error"]
    config = run.model_config
    tau = "learned" if config.tau is None else f"fixed {config.tau:g}"
    lines = [
        f"[bold]{run.path}[/]  {config.arch} depth {config.depth} × width {config.width}, "
        f"τ {tau}, {metrics['parameter_count']} parameters"
        + (f", inputs {config.inputs}" if config.inputs != "pointwise" else ""),
        f"epochs  {metrics['epochs_run']} ({metrics['stop_reason']}), "
        f"{metrics['wall_time_s']:.1f} s training",
        "relative L² error  " + ", ".join(
            f"{name} {value:.3e}" for name, value in errors.items() if value is not None),
        "τ  " + " ".join(f"{t:.4g}" for t in metrics["taus"]),
    ]
    if metrics.get("accuracy"):
        lines.insert(3, "accuracy  " + ", ".join(
            f"{name} {value:.2%}" for name, value in metrics["accuracy"].items()
            if value is not None))
    for event in metrics.get("pruning") or []:
        lines.append(f"pruned at epoch {event['epoch']}: layers {event['removed_layers']}")
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def print_prune_report(report: dict[str, Any]) -> None:
    """The pruning report: layers removed, errors before and after, τ before and after."""
    from rich.table import Table

    console.print(f"[bold]{report['source']}[/] -> [bold]{report['output']}[/]: pruned at "
                  f"tol {report['tol']:g}, removed layers {report['removed_layers'] or 'none'}, "
                  f"depth {report['depth_before']} -> {report['depth_after']}",
                  highlight=False, soft_wrap=True)
    table = Table("split", "rel. L² error before", "after", "change")
    before, after = report["relative_l2_error_before"], report["relative_l2_error_after"]
    for split, value in before.items():
        if value is None:
            continue
        change = (after[split] - value) / value if value else float("nan")
        table.add_row(split, f"{value:.4e}", f"{after[split]:.4e}", f"{change:+.2%}")
    console.print(table)
    console.print("τ before  " + " ".join(f"{t:.3g}" for t in report["taus_before"]),
                  highlight=False)
    console.print("τ after   " + " ".join(f"{t:.3g}" for t in report["taus_after"]),
                  highlight=False)


__all__ = ["print_fit_summary", "print_prune_report"]
