"""``surrogate fit`` and ``surrogate prune``: training and pruning of surrogates."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import (
    console,
    interrupt_exit,
    progress_display,
    user_errors,
)
from surrogate.core.json_files import json_text, write_json_file
from surrogate.core.typed_config import option_help, option_panel
from surrogate.models.config import ACTIVATION_NAMES, HORIZON_MODES, INPUT_KINDS
from surrogate.models.registry import all_architecture_names, architectures_for
from surrogate.models.sequence_config import (
    DAMPING_MODES,
    READOUT_MODES,
    CoRNNConfig,
    LEMConfig,
)
from surrogate.models.stepping_configs import (
    CkNetConfig,
    FractionalDNNConfig,
    ImplicitResNetConfig,
    ODENetConfig,
    ResNetConfig,
)
from surrogate.training.config import DEVICES, DTYPES, OPTIMIZERS, SCHEDULES, TrainConfig


def _choices(name: str, values: list[str] | tuple[str, ...]) -> type[Enum]:
    """A ``str`` Enum of ``values`` (so that ``--help`` lists them)."""
    return Enum(name, {v.replace("-", "_"): v for v in values}, type=str)


Arch = _choices("Arch", all_architecture_names())
ActivationName = _choices("ActivationName", ACTIVATION_NAMES)
HorizonMode = _choices("HorizonMode", HORIZON_MODES)
InputKind = _choices("InputKind", INPUT_KINDS)
Damping = _choices("Damping", DAMPING_MODES)
Readout = _choices("Readout", READOUT_MODES)
Optimizer = _choices("Optimizer", OPTIMIZERS)
Schedule = _choices("Schedule", SCHEDULES)
Device = _choices("Device", DEVICES)
DType = _choices("DType", DTYPES)
RUN_PANEL = "Run control"


def _option(config: type, name: str, *declarations: str, doc: str | None = None,
            **extra: Any) -> Any:
    """A ``typer.Option`` whose help, default shown and panel come from a config field."""
    return typer.Option(*declarations, help=option_help(config, name, doc),
                        rich_help_panel=option_panel(config, name), **extra)


def _value(option: Any) -> Any:
    return option.value if isinstance(option, Enum) else option


def resolve_fit_options(config_file: Path | None, model_flags: dict[str, Any],
                        train_flags: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Config file values overridden by the flags that were given -> (model, train) dicts.

    ``model_flags["cornn_gamma"]`` (``--cornn-gamma``) becomes coRNN's ``gamma``; ``--gamma``
    is the fractional order of frac-dnn only.
    """
    from surrogate.core.errors import InputError
    from surrogate.core.toml_files import read_toml
    from surrogate.training.config import parse_tau, split_run_config

    model, train = split_run_config(read_toml(config_file)) if config_file else ({}, {})
    flags = {k: _value(v) for k, v in model_flags.items() if v is not None}
    if "tau" in flags:
        flags["tau"] = parse_tau(flags["tau"])
    cornn_gamma = flags.pop("cornn_gamma", None)
    model.update(flags)
    arch = model.get("arch", "resnet")
    if arch == "cornn" and "gamma" in flags:
        raise InputError("--gamma is the fractional order of frac-dnn; coRNN's γ is "
                         "--cornn-gamma")
    if cornn_gamma is not None:
        if arch != "cornn":
            raise InputError(f"--cornn-gamma applies to arch cornn only, not {arch!r}")
        model["gamma"] = cornn_gamma
    train.update({k: _value(v) for k, v in train_flags.items() if v is not None})
    if train.get("batch_size") == 0:
        train["batch_size"] = None
    return model, train


def _print_sequence_fit_summary(run: Any) -> None:
    """Summary of a sequence run: model, epochs, per-sequence and pooled errors, Δt."""
    metrics = run.metrics
    config = run.model_config
    dt = "learned" if config.learn_dt else f"{config.dt:g}"
    lines = [
        f"[bold]{run.path}[/]  {config.arch} hidden {config.hidden}, Δt {dt}, read-out "
        f"{config.readout}, {metrics['parameter_count']} parameters",
        f"epochs  {metrics['epochs_run']} ({metrics['stop_reason']}), "
        f"{metrics['wall_time_s']:.1f} s training",
        "relative L² error per sequence (mean / median)  " + ", ".join(
            f"{name} {value['mean']:.3e} / {value['median']:.3e}"
            for name, value in metrics["sequence_relative_l2_error"].items() if value),
        "relative L² error pooled  " + ", ".join(
            f"{name} {value:.3e}" for name, value in metrics["relative_l2_error"].items()
            if value is not None),
    ]
    if metrics.get("dt"):
        lines.append("Δt min / mean / max  " + " / ".join(
            f"{metrics['dt'][key]:.4g}" for key in ("dt_min", "dt_mean", "dt_max")))
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def _print_fit_summary(run: Any) -> None:
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


def fit(
    data: Annotated[Path, typer.Argument(help="Dataset file (.h5) from `surrogate gen-data`.")],
    arch: Annotated[Arch | None, typer.Option(
        help="Architecture: pointwise (" + ", ".join(architectures_for("pointwise"))
        + ") or sequence (" + ", ".join(architectures_for("sequence"))
        + "). \\[default: resnet]", rich_help_panel=option_panel(ResNetConfig, "width"))] = None,
    depth: Annotated[int | None, _option(ResNetConfig, "depth")] = None,
    width: Annotated[int | None, _option(ResNetConfig, "width")] = None,
    activation: Annotated[ActivationName | None, _option(ResNetConfig, "activation")] = None,
    tau: Annotated[str | None, _option(ResNetConfig, "tau")] = None,
    tau_init: Annotated[float | None, _option(ResNetConfig, "tau_init")] = None,
    tau_min: Annotated[float | None, _option(ResNetConfig, "tau_min")] = None,
    time_horizon: Annotated[float | None, _option(ResNetConfig, "time_horizon")] = None,
    horizon_mode: Annotated[HorizonMode | None, _option(ResNetConfig, "horizon_mode")] = None,
    step_lipschitz: Annotated[float | None, _option(
        ResNetConfig, "step_lipschitz", doc="resnet, ck-net: bound c > 0 on τ^k‖W‖₂ of every "
        "hidden step (c < 1: invertible ResNet steps).")] = None,
    gamma: Annotated[float | None, _option(FractionalDNNConfig, "gamma")] = None,
    theta: Annotated[float | None, _option(ImplicitResNetConfig, "theta")] = None,
    solver_tol: Annotated[float | None, _option(ImplicitResNetConfig, "solver_tol")] = None,
    solver_max_iter: Annotated[int | None, _option(ImplicitResNetConfig,
                                                   "solver_max_iter")] = None,
    skew_weights: Annotated[bool | None, _option(
        ResNetConfig, "skew_weights", "--skew-weights/--no-skew-weights",
        doc="resnet, implicit-resnet: hidden layers use W = A − Aᵀ (purely imaginary "
        "spectrum).")] = None,
    quadratic_output: Annotated[bool | None, _option(
        ResNetConfig, "quadratic_output", "--quadratic-output/--no-quadratic-output")] = None,
    inputs: Annotated[InputKind | None, _option(ResNetConfig, "inputs")] = None,
    encoder_width: Annotated[int | None, _option(ResNetConfig, "encoder_width")] = None,
    code_size: Annotated[int | None, _option(ResNetConfig, "code_size")] = None,
    order: Annotated[int | None, _option(CkNetConfig, "order")] = None,
    cubic: Annotated[float | None, _option(ODENetConfig, "cubic")] = None,
    multistep: Annotated[bool | None, _option(ODENetConfig, "multistep",
                                              "--multistep/--no-multistep")] = None,
    hidden: Annotated[int | None, _option(LEMConfig, "hidden")] = None,
    dt: Annotated[float | None, _option(LEMConfig, "dt")] = None,
    learn_dt: Annotated[bool | None, _option(LEMConfig, "learn_dt",
                                             "--learn-dt/--no-learn-dt")] = None,
    readout: Annotated[Readout | None, _option(LEMConfig, "readout")] = None,
    cornn_gamma: Annotated[float | None, _option(CoRNNConfig, "gamma", "--cornn-gamma")] = None,
    epsilon: Annotated[float | None, _option(CoRNNConfig, "epsilon")] = None,
    damping: Annotated[Damping | None, _option(CoRNNConfig, "damping")] = None,
    optimizer: Annotated[Optimizer | None, _option(TrainConfig, "optimizer")] = None,
    lr: Annotated[float | None, _option(TrainConfig, "lr")] = None,
    lr_min: Annotated[float | None, _option(TrainConfig, "lr_min")] = None,
    momentum: Annotated[float | None, _option(TrainConfig, "momentum")] = None,
    schedule: Annotated[Schedule | None, _option(TrainConfig, "schedule")] = None,
    epochs: Annotated[int | None, _option(TrainConfig, "epochs")] = None,
    batch_size: Annotated[int | None, _option(TrainConfig, "batch_size")] = None,
    grad_clip: Annotated[float | None, _option(TrainConfig, "grad_clip")] = None,
    lambda1: Annotated[float | None, _option(TrainConfig, "lambda1")] = None,
    lambda2: Annotated[float | None, _option(TrainConfig, "lambda2")] = None,
    beta: Annotated[float | None, _option(TrainConfig, "beta")] = None,
    horizon_weight: Annotated[float | None, _option(TrainConfig, "horizon_weight")] = None,
    smoothness: Annotated[float | None, _option(TrainConfig, "smoothness")] = None,
    prune_every: Annotated[int | None, _option(TrainConfig, "prune_every")] = None,
    prune_tol: Annotated[float | None, _option(TrainConfig, "prune_tol")] = None,
    seed: Annotated[int | None, _option(TrainConfig, "seed")] = None,
    patience: Annotated[int | None, _option(TrainConfig, "patience")] = None,
    checkpoint_every: Annotated[int | None, _option(TrainConfig, "checkpoint_every")] = None,
    device: Annotated[Device | None, _option(TrainConfig, "device")] = None,
    dtype: Annotated[DType | None, _option(TrainConfig, "dtype")] = None,
    bf16: Annotated[bool | None, _option(TrainConfig, "bf16", "--bf16/--no-bf16")] = None,
    nproc: Annotated[int | None, _option(TrainConfig, "nproc", min=1)] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Run directory to write. "
                                             "\\[default: runs/<arch>]",
                                             rich_help_panel=RUN_PANEL)] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", help="TOML file with \\[model] and \\[train] tables (or one flat table); "
        "flags given here override it.", rich_help_panel=RUN_PANEL)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out from its "
                                         "checkpoint.", rich_help_panel=RUN_PANEL)] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing run in "
                                            "--out (its files are removed before training "
                                            "starts).", rich_help_panel=RUN_PANEL)] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print metrics as JSON.",
                                          rich_help_panel=RUN_PANEL)] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.",
                                        rich_help_panel=RUN_PANEL)] = False,
) -> None:
    """Train a surrogate on a dataset and write a run directory (model.pt, config.json, ...).

    Pointwise datasets train the τ-stepping networks (resnet, frac-dnn, ...); sequence
    datasets train lem, cornn or lstm (--hidden, --dt, --learn-dt, --damping, --cornn-gamma,
    --epsilon, --readout) on whole sequences, normalised per channel; the τ-layer penalties
    and pruning (--lambda1, --lambda2, --beta, --horizon-weight, --smoothness,
    --prune-every) apply to pointwise archs only.

    Example: surrogate fit data/maxwell.h5 --arch frac-dnn --tau learned -o runs/fdnn

    Sequence example: surrogate fit data/fhn.h5 --arch lem --hidden 32 --learn-dt
    --batch-size 32 --grad-clip 1 --epochs 200 -o runs/lem

    Problem-family example (one network for every member, told μ; or --inputs fields):
    surrogate fit data/family.h5 --inputs params --activation tanh -o runs/family

    Data-parallel example (2 processes; or torchrun --nproc-per-node 2 -m surrogate fit ...):
    surrogate fit data/maxwell.h5 --nproc 2 --batch-size 1024 -o runs/ddp
    """
    with user_errors():
        model_flags = {"arch": arch, "depth": depth, "width": width, "tau": tau,
                       "tau_init": tau_init, "tau_min": tau_min, "gamma": gamma,
                       "activation": activation, "time_horizon": time_horizon,
                       "horizon_mode": horizon_mode, "theta": theta, "solver_tol": solver_tol,
                       "solver_max_iter": solver_max_iter, "order": order, "cubic": cubic,
                       "multistep": multistep, "step_lipschitz": step_lipschitz,
                       "skew_weights": skew_weights, "quadratic_output": quadratic_output,
                       "inputs": inputs,
                       "encoder_width": encoder_width, "code_size": code_size}
        model_flags |= {"hidden": hidden, "dt": dt, "learn_dt": learn_dt, "damping": damping,
                        "epsilon": epsilon, "readout": readout, "cornn_gamma": cornn_gamma}
        train_flags = {"optimizer": optimizer, "lr": lr, "lr_min": lr_min, "momentum": momentum,
                       "schedule": schedule, "epochs": epochs, "batch_size": batch_size,
                       "seed": seed, "lambda1": lambda1, "lambda2": lambda2, "beta": beta,
                       "horizon_weight": horizon_weight, "smoothness": smoothness,
                       "patience": patience,
                       "checkpoint_every": checkpoint_every, "device": device, "dtype": dtype,
                       "prune_every": prune_every, "prune_tol": prune_tol,
                       "grad_clip": grad_clip, "nproc": nproc, "bf16": bf16}
        model, train = resolve_fit_options(config, model_flags, train_flags)
        if not data.is_file():
            from surrogate.core.errors import DataFormatError

            raise DataFormatError(f"dataset {data} does not exist" if not data.exists()
                                  else f"dataset {data} is not a file")
        if resume and model:
            from surrogate.core.errors import InputError

            raise InputError(f"--resume continues the stored model; drop the model options "
                             f"({', '.join(sorted(model))})")
        out = out if out is not None else Path("runs") / str(model.get("arch", "resnet"))
        from surrogate.training.distributed import launched_world_size, process_group

        world = launched_world_size()
        if world == 1 and train.get("nproc", 1) > 1:
            _launch(train["nproc"])
        reporting = os.environ.get("RANK", "0") == "0"  # of several processes, rank 0 reports
        from surrogate.training.loop import TrainingInterrupted
        from surrogate.training.loop import fit as fit_run

        try:
            with process_group(), progress_display(quiet or not reporting) as on_progress:
                run = fit_run(data, model, train or None, out, resume=resume,
                              overwrite=overwrite, on_progress=on_progress)
        except TrainingInterrupted as stop:
            processes = f" --nproc {world}" if world > 1 else ""
            where = (f"checkpoint {stop.checkpoint} (epoch {stop.epoch}); continue with "
                     f"`surrogate fit {data} -o {out} --resume{processes}`" if stop.checkpoint
                     else "no checkpoint written yet")
            raise interrupt_exit(where) from None
    if not reporting:
        return
    if as_json:
        typer.echo(json_text({"path": str(run.path), **run.metrics}), nl=False)
    elif not quiet:
        _print_fit_summary(run)


def _launch(nproc: int) -> None:
    """Run this ``surrogate fit`` command line as ``nproc`` processes; exit with their code."""
    from surrogate.cli.common import fail, state
    from surrogate.core.errors import InputError
    from surrogate.training.launch import launch_processes

    argv = sys.argv[1:]
    if "fit" not in argv:
        raise InputError("--nproc relaunches the `surrogate fit` command line; from Python "
                         "use torchrun --nproc-per-node N -m surrogate fit ...")
    result = launch_processes(nproc, argv)
    if result.message:
        raise fail(result.message)
    state.interrupt_reported = True  # rank 0 has said why it stopped
    raise typer.Exit(code=result.exit_code)


def _print_prune_report(report: dict[str, Any]) -> None:
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


def prune(
    run_dir: Annotated[Path, typer.Argument(help="Run directory written by `surrogate fit`.")],
    tol: Annotated[float, typer.Option(help="Delete hidden layers with learned τ < tol.")]
    = 0.05,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Directory of the pruned run. "
                                             "\\[default: <run_dir>-pruned]")] = None,
    data: Annotated[Path | None, typer.Option(help="The run's dataset, if it has moved "
                                              "(its content hash must match).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing run in "
                                            "--out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
) -> None:
    """Delete layers with negligible τ, re-evaluate, write the pruned run (+ prune.json).

    Example: surrogate prune runs/resnet --tol 0.05 -o runs/resnet-pruned
    """
    out = out if out is not None else run_dir.with_name(run_dir.name + "-pruned")
    with user_errors():
        from surrogate.training.pruning import prune_run

        report = prune_run(run_dir, tol, out, data=data, overwrite=overwrite)
        write_json_file(out / "prune.json", report)
    if as_json:
        typer.echo(json_text(report), nl=False)
    elif not quiet:
        _print_prune_report(report)


def register(app: typer.Typer) -> None:
    """Attach ``fit`` and ``prune`` to ``app``."""
    app.command("fit")(fit)
    app.command("prune")(prune)
