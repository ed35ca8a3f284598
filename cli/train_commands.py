"""``surrogate fit`` and ``surrogate prune``: training and pruning of surrogates."""

from __future__ import annotations

import json
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
    write_json_atomic,
)


# Choices are spelled out here so that ``surrogate --help`` does not import torch;
# tests/cli/test_fit_cli.py checks them against surrogate.models.registry.
class Arch(str, Enum):
    resnet = "resnet"
    frac_dnn = "frac-dnn"
    densenet = "densenet"
    implicit_resnet = "implicit-resnet"
    ck_net = "ck-net"
    ode_net = "ode-net"
    lem = "lem"
    cornn = "cornn"
    lstm = "lstm"


class ActivationName(str, Enum):
    smooth_relu = "smooth-relu"
    relu = "relu"
    tanh = "tanh"
    softplus = "softplus"


class HorizonMode(str, Enum):
    penalty = "penalty"
    exact = "exact"


class Damping(str, Enum):
    implicit = "implicit"
    explicit = "explicit"


class Readout(str, Enum):
    sequence = "sequence"
    last = "last"


class Optimizer(str, Enum):
    adam = "adam"
    sgd = "sgd"
    lbfgs = "lbfgs"


class Schedule(str, Enum):
    cosine = "cosine"
    step = "step"
    plateau = "plateau"
    none = "none"


class Device(str, Enum):
    cpu = "cpu"
    cuda = "cuda"
    auto = "auto"


class DType(str, Enum):
    float32 = "float32"
    float64 = "float64"


def _value(option: Any) -> Any:
    return option.value if isinstance(option, Enum) else option


def resolve_fit_options(config_file: Path | None, model_flags: dict[str, Any],
                        train_flags: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Config file values overridden by the flags that were given -> (model, train) dicts."""
    from surrogate.training.config import parse_tau, read_toml, split_run_config

    model, train = split_run_config(read_toml(config_file)) if config_file else ({}, {})
    flags = {k: _value(v) for k, v in model_flags.items() if v is not None}
    if "tau" in flags:
        flags["tau"] = parse_tau(flags["tau"])
    model.update(flags)
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
        f"τ {tau}, {metrics['parameter_count']} parameters",
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
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Run directory to write. "
                                             "\\[default: runs/<arch>]")] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", help="TOML file with [model] and [train] tables (or one flat table); "
        "flags given here override it.")] = None,
    arch: Annotated[Arch | None, typer.Option(help="Architecture. \\[default: resnet]")] = None,
    depth: Annotated[int | None, typer.Option(help="Number of τ-steps (hidden layers). "
                                              "\\[default: 2]")] = None,
    width: Annotated[int | None, typer.Option(help="Hidden width. \\[default: 50]")] = None,
    tau: Annotated[str | None, typer.Option(
        help="'learned' (one step per layer) or a fixed step > 0. \\[default: learned]")] = None,
    tau_init: Annotated[float | None, typer.Option(help="Initial learned step. "
                                                   "\\[default: 0.1]")] = None,
    tau_min: Annotated[float | None, typer.Option(help="Lower bound of learned steps. "
                                                  "\\[default: 1e-6]")] = None,
    gamma: Annotated[float | None, typer.Option(
        help="frac-dnn: fractional order γ in (0, 1) \\[default: 0.5]; cornn: oscillation "
        "frequency γ > 0 of eq. 2.3 \\[default: 2.7].")] = None,
    activation: Annotated[ActivationName | None, typer.Option(
        help="Activation σ. \\[default: smooth-relu]")] = None,
    theta: Annotated[float | None, typer.Option(help="θ in [0, 1] of implicit-resnet "
                                                "(0.5 = trapezoidal). \\[default: 0.5]")] = None,
    solver_tol: Annotated[float | None, typer.Option(help="Tolerance of the implicit layer "
                                                     "solve. \\[default: 1e-6]")] = None,
    solver_max_iter: Annotated[int | None, typer.Option(help="Iteration cap of the implicit "
                                                        "layer solve. \\[default: 100]")] = None,
    order: Annotated[int | None, typer.Option(help="Order k of ck-net (k = 1: ResNet). "
                                              "\\[default: 2]")] = None,
    cubic: Annotated[float | None, typer.Option(help="Cubic damping γ̃ >= 0 of ode-net. "
                                                "\\[default: 0.1]")] = None,
    multistep: Annotated[bool | None, typer.Option(
        "--multistep/--no-multistep", help="ode-net: two-step variant with trainable k_l. "
        "\\[default: off]")] = None,
    step_lipschitz: Annotated[float | None, typer.Option(
        help="Bound c > 0 on τ^k‖W‖₂ of every hidden step (resnet, ck-net; c < 1: invertible "
        "ResNet steps). \\[default: off]")] = None,
    skew_weights: Annotated[bool | None, typer.Option(
        "--skew-weights/--no-skew-weights", help="Hidden layers use W = A − Aᵀ (purely "
        "imaginary spectrum; resnet, implicit-resnet). \\[default: off]")] = None,
    time_horizon: Annotated[float | None, typer.Option(help="Final time T = Σ τ "
                                                       "(optional).")] = None,
    horizon_mode: Annotated[HorizonMode | None, typer.Option(
        help="Enforce Σ τ = T by a penalty or exactly. \\[default: penalty]")] = None,
    hidden: Annotated[int | None, typer.Option(
        help="lem, cornn, lstm: hidden units m (pointwise archs use --width). "
        "\\[default: 32]")] = None,
    dt: Annotated[float | None, typer.Option(
        help="lem, cornn: time step Δt > 0 (the initial value with --learn-dt). "
        "\\[default: lem 1, cornn 0.042]")] = None,
    learn_dt: Annotated[bool | None, typer.Option(
        "--learn-dt/--no-learn-dt", help="lem, cornn: learn one Δt_i = softplus(ρ_i) > 0 per "
        "hidden unit. \\[default: off]")] = None,
    damping: Annotated[Damping | None, typer.Option(
        help="cornn: damping −Δt ε z taken at the new step (implicit) or the old one "
        "(explicit). \\[default: implicit]")] = None,
    epsilon: Annotated[float | None, typer.Option(
        help="cornn: damping ε > 0 of eq. 2.3. \\[default: 4.7]")] = None,
    readout: Annotated[Readout | None, typer.Option(
        help="Sequence archs: linear read-out at every step (seq-to-seq) or at the last step "
        "(seq-to-one). \\[default: last when the dataset's targets hold one time step, else "
        "sequence]")] = None,
    optimizer: Annotated[Optimizer | None, typer.Option(help="Optimiser (sgd = steepest "
                                                        "descent). \\[default: adam]")] = None,
    lr: Annotated[float | None, typer.Option(help="Learning rate. \\[default: 0.01]")] = None,
    lr_min: Annotated[float | None, typer.Option(help="Final lr of the cosine schedule, floor "
                                                 "of plateau. \\[default: 0]")] = None,
    momentum: Annotated[float | None, typer.Option(help="SGD momentum. \\[default: 0]")] = None,
    schedule: Annotated[Schedule | None, typer.Option(help="LR schedule per epoch. "
                                                      "\\[default: cosine]")] = None,
    epochs: Annotated[int | None, typer.Option(help="Maximum epochs. \\[default: 4000]")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Mini-batch size (rows; whole sequences "
                                                   "on sequence data); 0 = full batch. "
                                                   "\\[default: full batch]")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of initialisation and shuffling. "
                                             "\\[default: 0]")] = None,
    lambda1: Annotated[float | None, typer.Option(help="λ₁: weight/bias penalty (eq. 2.4). "
                                                  "\\[default: 0]")] = None,
    lambda2: Annotated[float | None, typer.Option(help="λ₂: τ penalty. \\[default: 0]")] = None,
    beta: Annotated[float | None, typer.Option(help="β: bias ordering penalty (eq. 2.5). "
                                               "\\[default: 0]")] = None,
    horizon_weight: Annotated[float | None, typer.Option(
        help="Weight of the soft time horizon (Σ τ − T)². \\[default: 0]")] = None,
    smoothness: Annotated[float | None, typer.Option(
        help="Weight of the penalty on consecutive layers' weight differences. "
        "\\[default: 0]")] = None,
    patience: Annotated[int | None, typer.Option(help="Early stopping after this many epochs "
                                                 "without val improvement. \\[default: off]")]
    = None,
    checkpoint_every: Annotated[int | None, typer.Option(help="Checkpoint every N epochs. "
                                                         "\\[default: 100]")] = None,
    device: Annotated[Device | None, typer.Option(help="cpu, cuda or auto. \\[default: cpu]")]
    = None,
    dtype: Annotated[DType | None, typer.Option(help="Float type. \\[default: float32]")] = None,
    nproc: Annotated[int | None, typer.Option(
        help="Train data-parallel on N processes of this machine (DistributedDataParallel: gloo "
        "on CPU, nccl on CUDA, one GPU each); the shortcut of torchrun --nproc-per-node N -m "
        "surrogate fit .... \\[default: 1]", min=1)] = None,
    bf16: Annotated[bool | None, typer.Option(
        "--bf16/--no-bf16", help="Forward passes under bfloat16 autocast (needs --dtype "
        "float32). \\[default: off]")] = None,
    prune_every: Annotated[int | None, typer.Option(help="Prune layers with τ < --prune-tol "
                                                    "every K epochs. \\[default: off]")] = None,
    prune_tol: Annotated[float | None, typer.Option(help="Pruning tolerance. \\[default: 0.05]")]
    = None,
    grad_clip: Annotated[float | None, typer.Option(help="Clip the gradient norm. "
                                                    "\\[default: off]")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out from its "
                                         "checkpoint.")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing run in "
                                            "--out (its files are removed before training "
                                            "starts).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print metrics as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]
    = False,
) -> None:
    """Train a surrogate on a dataset and write a run directory (model.pt, config.json, ...).

    Pointwise datasets train the τ-stepping networks (resnet, frac-dnn, ...); sequence
    datasets train lem, cornn or lstm (--hidden, --dt, --learn-dt, --damping, --gamma,
    --epsilon, --readout) on whole sequences, normalised per channel; the τ-layer penalties
    and pruning (--lambda1, --lambda2, --beta, --horizon-weight, --smoothness,
    --prune-every) apply to pointwise archs only.

    Example: surrogate fit data/maxwell.h5 --arch frac-dnn --tau learned -o runs/fdnn

    Sequence example: surrogate fit data/fhn.h5 --arch lem --hidden 32 --learn-dt
    --batch-size 32 --grad-clip 1 --epochs 200 -o runs/lem

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
                       "skew_weights": skew_weights}
        model_flags |= {"hidden": hidden, "dt": dt, "learn_dt": learn_dt, "damping": damping,
                        "epsilon": epsilon, "readout": readout}
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
        from surrogate.runs.store import json_safe

        typer.echo(json.dumps(json_safe({"path": str(run.path), **run.metrics}), indent=2))
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
        write_json_atomic(out / "prune.json", report)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    elif not quiet:
        _print_prune_report(report)


def register(app: typer.Typer) -> None:
    """Attach ``fit`` and ``prune`` to ``app``."""
    app.command("fit")(fit)
    app.command("prune")(prune)
