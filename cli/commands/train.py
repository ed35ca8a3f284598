"""``surrogate fit`` and ``surrogate prune``: training and pruning of surrogates (``prune``'s
options: :class:`~surrogate.training.prune_options.PruneOptions`).

``fit``'s options are generated from the typed configs (:mod:`surrogate.cli.config_options`):
one option per field of every registered architecture's config (each scoped to the
architectures that have it) and of :class:`~surrogate.training.config.TrainConfig`. Adding an
architecture to :mod:`surrogate.models.registry` adds its options here, with nothing to edit.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import interrupt_exit, progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.cli.training_summaries import print_fit_summary, print_prune_report
from surrogate.core.json_files import json_text, write_json_file

RUN_PANEL = "Run control"


def model_group() -> OptionGroup:
    """The model options: one scope per registered architecture, chosen by ``--arch``."""
    from surrogate.models.registry import ARCHITECTURES, architectures_for

    return OptionGroup(
        "model", {name: entry.config for name, entry in ARCHITECTURES.items()}, noun="arch",
        dispatch="arch", default_scope="resnet",
        dispatch_doc="Architecture: pointwise (" + ", ".join(architectures_for("pointwise"))
        + ") or sequence (" + ", ".join(architectures_for("sequence")) + ").")


def train_group() -> OptionGroup:
    """The training options: the fields of TrainConfig."""
    from surrogate.training.config import TrainConfig

    return OptionGroup("train", {"train": TrainConfig})


def resolve_fit_options(config_file: Path | None, options: GivenOptions
                        ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Config file values overridden by the options given -> (model, train) dicts.

    A model option of another architecture than the chosen one (``--arch``, else the config
    file's, else resnet) is an InputError naming the architectures it applies to.
    """
    from surrogate.core.toml_files import read_toml
    from surrogate.training.config import parse_tau, split_run_config

    model, train = split_run_config(read_toml(config_file)) if config_file else ({}, {})
    arch = options.scope("model")
    if arch is not None:
        model["arch"] = arch
    flags = options.fields(model_group(), model.get("arch", "resnet"))
    if "tau" in flags:
        flags["tau"] = parse_tau(flags["tau"])
    model.update(flags)
    train.update(options.fields(train_group()))
    if train.get("batch_size") == 0:
        train["batch_size"] = None
    return model, train


def _run_dir(data: Path, out: Path | None, model: dict[str, Any], resume: bool) -> Path:
    """Where the run goes: ``--out``, else ``runs/<arch>``; with ``--resume`` the run to
    continue (:func:`surrogate.cli.resume_lookup.run_to_resume`)."""
    from surrogate.cli.resume_lookup import check_stored_arch, new_run_dir, run_to_resume
    from surrogate.core.errors import InputError

    if resume:
        others = sorted(set(model) - {"arch"})
        if others:
            raise InputError(f"--resume continues the stored model; drop the model options "
                             f"({', '.join(others)})")
        if out is None:
            return run_to_resume(data, model.get("arch"))
        if "arch" in model:
            check_stored_arch(out, model["arch"])
        return out
    return out if out is not None else new_run_dir(str(model.get("arch", "resnet")))


def _train(data: Path, model: dict[str, Any], train: dict[str, Any], out: Path, *,
           resume: bool, overwrite: bool, quiet: bool) -> Any:
    """Launch the processes (``--nproc``) and train; the run, or None on ranks other than 0."""
    from surrogate.training.distributed import launched_world_size, process_group

    world = launched_world_size()
    if world == 1 and train.get("nproc", 1) > 1:
        _launch(train["nproc"])
    reporting = os.environ.get("RANK", "0") == "0"  # of several processes, rank 0 reports
    from surrogate.training.loop import TrainingInterrupted
    from surrogate.training.loop import fit as fit_run

    try:
        with process_group(), progress_display(quiet or not reporting) as on_progress:
            run = fit_run(data, {} if resume else model, train or None, out, resume=resume,
                          overwrite=overwrite, on_progress=on_progress)
    except TrainingInterrupted as stop:
        processes = f" --nproc {world}" if world > 1 else ""
        where = (f"checkpoint {stop.checkpoint} (epoch {stop.epoch}); continue with "
                 f"`surrogate fit {data} -o {out} --resume{processes}`" if stop.checkpoint
                 else "no checkpoint written yet")
        raise interrupt_exit(where) from None
    return run if reporting else None


def fit(
    data: Annotated[Path, typer.Argument(help="Dataset file (.h5) from `surrogate gen-data`.")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Run directory to write. "
                                             "\\[default: runs/<arch>; with --resume the run "
                                             "of DATA under runs/]",
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
    *,
    options: GivenOptions,
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
        model, train = resolve_fit_options(config, options)
        if not data.is_file():
            from surrogate.core.errors import DataFormatError

            raise DataFormatError(f"dataset {data} does not exist" if not data.exists()
                                  else f"dataset {data} is not a file")
        out = _run_dir(data, out, model, resume)
        run = _train(data, model, train, out, resume=resume, overwrite=overwrite, quiet=quiet)
    if run is None:
        return
    if as_json:
        typer.echo(json_text({"path": str(run.path), **run.metrics}), nl=False)
    elif not quiet:
        print_fit_summary(run)


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


def prune_group() -> OptionGroup:
    """The pruning options: the fields of PruneOptions."""
    from surrogate.training.prune_options import PruneOptions

    return OptionGroup("prune", {"prune": PruneOptions})


def prune(
    run_dir: Annotated[Path, typer.Argument(help="Run directory written by `surrogate fit`.")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Directory of the pruned run. "
                                             "\\[default: <run_dir>-pruned]")] = None,
    data: Annotated[Path | None, typer.Option(help="The run's dataset, if it has moved "
                                              "(its content hash must match).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing run in "
                                            "--out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
    *,
    options: GivenOptions,
) -> None:
    """Delete layers with negligible τ, re-evaluate, write the pruned run (+ prune.json).

    Example: surrogate prune runs/resnet --prune-tol 0.05 -o runs/resnet-pruned
    """
    out = out if out is not None else run_dir.with_name(run_dir.name + "-pruned")
    with user_errors():
        from surrogate.training.prune_options import PruneOptions
        from surrogate.training.pruning import prune_run

        typed = PruneOptions(**options.fields(prune_group()))
        report = prune_run(run_dir, typed.prune_tol, out, data=data, overwrite=overwrite)
        write_json_file(out / "prune.json", report)
    if as_json:
        typer.echo(json_text(report), nl=False)
    elif not quiet:
        print_prune_report(report)


def register(app: typer.Typer) -> None:
    """Attach ``fit`` (its options from the registry as it is now) and ``prune`` to ``app``."""
    app.command("fit")(command_with_options(fit, [model_group(), train_group()]))
    app.command("prune")(command_with_options(prune, [prune_group()]))
