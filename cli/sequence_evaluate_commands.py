"""``surrogate evaluate`` on sequence runs (lem, cornn, lstm trained on ``sequence`` data).

``evaluate`` dispatches on the kind of data its runs were trained on (``config.json``'s
``dataset.kind``), not on the architecture. Options of the other kind are refused in one
line. Outputs are staged like the pointwise ones (temporary sibling folders, moved into place
when complete).
"""

from __future__ import annotations

import json
import os
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, progress_display, user_errors, write_json_atomic


class SetChoice(str, Enum):
    unseen_signals = "unseen-signals"
    unseen_materials = "unseen-materials"
    longer_horizon = "longer-horizon"


DataOpt = Annotated[Path | None, typer.Option(
    "--data", help="Sequence runs: the training dataset, if it moved. \\[default: the path "
    "recorded in the run; its content hash must match]")]
SetOpt = Annotated[list[SetChoice] | None, typer.Option(
    "--set", help="Sequence runs: evaluation set (repeatable). \\[default: every set the "
    "dataset's recipe allows]")]
HorizonOpt = Annotated[float | None, typer.Option(
    help="Sequence runs: longer-horizon length as a multiple of the trained one. "
    "\\[default: 2]")]
FreshOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: also regenerate N new sequences beyond the file (unseen signals; "
    "the other sets use the same ones). \\[default: 0]")]
MaxSeqOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: at most N sequences per set. \\[default: all]")]
MaterialSeedOpt = Annotated[int | None, typer.Option(
    help="Sequence runs (maxwell-td): seed of the new material pool. \\[default: seed + 1]")]
MaterialRangeOpt = Annotated[list[str] | None, typer.Option(
    "--material-range", help="Sequence runs (maxwell-td): range of a new material, "
    "NAME=LOW,HIGH with NAME eps, mu or sigma (repeatable; extrapolates outside training).")]
SampleOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: which unseen-signals sequence --vtk shows. \\[default: 0]")]
VtkEveryOpt = Annotated[int | None, typer.Option(
    help="Sequence runs: write every N-th time step to VTK. \\[default: at most 50 frames]")]

POINTWISE_ONLY = ("domain", "levels", "fem", "solver", "slice_", "problem", "intorder")
SEQUENCE_ONLY = ("data", "set_", "horizon_factor", "fresh", "max_sequences", "material_seed",
                 "material_range", "sample", "vtk_every")


def _flag(name: str) -> str:
    """``slice_`` -> ``--slice``."""
    return "--" + name.rstrip("_").replace("_", "-")


def run_data_kind(run_dirs: list[Path]) -> str:
    """``"sequence"`` or ``"pointwise"``: what the runs were trained on (one kind only).

    Unreadable run directories count as pointwise: that path reports them.
    """
    from surrogate.core.errors import InputError, SurrogateError
    from surrogate.runs.store import read_config

    kinds = []
    for path in run_dirs:
        try:
            kinds.append(str(read_config(path)["dataset"].get("kind", "pointwise")))
        except SurrogateError:
            kinds.append("pointwise")
    if "sequence" not in kinds:
        return "pointwise"
    if len(run_dirs) > 1:
        mixed = "pointwise" in kinds
        raise InputError("runs trained on sequence and on pointwise data cannot be evaluated "
                         "together" if mixed else "evaluate one sequence run at a time")
    return "sequence"


def given_options(ctx: typer.Context, names: tuple[str, ...]) -> list[str]:
    """The flags of ``names`` that were set on the command line (not left at the default)."""
    sources = {name: ctx.get_parameter_source(name) for name in names}
    return [_flag(n) for n, s in sources.items()
            if s is not None and s.name not in ("DEFAULT", "DEFAULT_MAP")]


def check_kind_options(ctx: typer.Context, kind: str) -> None:
    """InputError for options that belong to the other kind of run."""
    from surrogate.core.errors import InputError

    wrong = given_options(ctx, POINTWISE_ONLY if kind == "sequence" else SEQUENCE_ONLY)
    if wrong:
        what = ("apply to pointwise runs (FEM baselines on test domains), not to this "
                "sequence run" if kind == "sequence" else "apply to sequence runs only")
        raise InputError(f"{', '.join(wrong)} {what}")


def dispatch_kind(ctx: typer.Context, run_dirs: list[Path]) -> str:
    """The runs' data kind, after refusing options of the other kind (one line, exit 2)."""
    with user_errors():
        kind = run_data_kind(run_dirs)
        check_kind_options(ctx, kind)
    return kind


# ---------------------------------------------------------------------------------- output


def _sci(value: float | None, spec: str = ".2e") -> str:
    return "–" if value is None else format(value, spec)


def print_sequence_table(result: dict[str, Any]) -> None:
    """One row per set (size, per-sequence errors), then each set's source, windows, seconds."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    run = result["run"]
    table = Table(title=escape(f"relative L² error per sequence, {run['arch']} on "
                               f"{run['problem']} (trained on {run['dataset']['steps']} "
                               f"steps)"), title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("set", "seqs", "steps", "mean", "median", "max", "pooled"):
        table.add_column(header, justify="left" if header == "set" else "right",
                         no_wrap=True)
    for name, record in result["sets"].items():
        errors = record["errors"]
        table.add_row(name, str(record["sequences"]), str(record["steps"]),
                      *[_sci(errors[k]) for k in ("mean", "median", "max", "pooled")])
    console.print(table)
    for name, record in result["sets"].items():
        seconds = record["seconds"]
        console.print(f"{name}: {record['source']} (t ≤ {record['time']['end']:.4g}; "
                      f"generated in {seconds['generate']:.2g} s, predicted in "
                      f"{seconds['predict']:.2g} s)", highlight=False)
        windows = record.get("windows")
        if windows:
            console.print(f"  trained window t ≤ {windows['trained_until']:.4g}: pooled "
                          f"{_sci(windows['trained']['pooled'])}, median "
                          f"{_sci(windows['trained']['median'])}; extrapolated: pooled "
                          f"{_sci(windows['extrapolated']['pooled'])}, median "
                          f"{_sci(windows['extrapolated']['median'])}", highlight=False)
    for note in result.get("notes", []):
        console.print(f"note: {note}", highlight=False)


# ---------------------------------------------------------------------------------- command


def sequence_options(*, set_: list[SetChoice] | None = None,
                     horizon_factor: float | None = None, fresh: int | None = None,
                     max_sequences: int | None = None, material_seed: int | None = None,
                     material_range: list[str] | None = None, sample: int | None = None,
                     vtk_every: int | None = None, device: str = "cpu") -> Any:
    """The typed options (None -> the defaults)."""
    from surrogate.evaluation.sequence import SequenceEvaluationOptions

    return SequenceEvaluationOptions(
        sets=tuple(s.value for s in set_) if set_ else None,
        horizon_factor=2.0 if horizon_factor is None else horizon_factor,
        fresh=fresh or 0, max_sequences=max_sequences, material_seed=material_seed,
        material_ranges=tuple(material_range or ()), sample=sample or 0,
        vtk_every=vtk_every, device=device)


def _validated(run_dir: Path, options: Any, data: Path | None, vtk: Path | None,
               outputs: list[Path | None]) -> tuple[Any, Any]:
    """(run, plan) with every user error raised before any work or output."""
    from surrogate.core.errors import InputError
    from surrogate.core.output_paths import check_output_folder
    from surrogate.evaluation.sequence import prepare
    from surrogate.evaluation.static import resolve_inference_device
    from surrogate.runs.store import load_run

    for out in outputs:
        if out is not None and out.exists() and not out.is_dir():
            raise InputError(f"output {str(out)!r} exists and is not a folder")
        if out is not None:
            check_output_folder(out)
    resolve_inference_device(options.device)
    run = load_run(run_dir)
    return run, prepare(run, options, data_path=data, vtk=vtk is not None)


def evaluate_sequence(run_dir: Path, settings: dict[str, Any], *, data: Path | None,
                      out: Path, vtk: Path | None, plots: Path | None, report: bool,
                      as_json: bool, quiet: bool) -> None:
    """Evaluate one sequence run with the options ``settings`` (see :func:`sequence_options`);
    write evaluation.json (+ VTK, PNGs, index.html) and print the table."""
    from surrogate.cli.evaluate_commands import staged_outputs

    with user_errors():
        options = sequence_options(**settings)
        if report and plots is None:
            plots = out / "plots"
        run, plan = _validated(run_dir, options, data, vtk, [out, vtk, plots])
        from surrogate.evaluation.sequence import evaluate_sequence_run

        finals = [p.resolve() for p in (out, vtk, plots) if p is not None]
        with staged_outputs(finals) as staged, progress_display(quiet) as on_progress:
            evaluation = evaluate_sequence_run(
                run, options, plan=plan, on_progress=on_progress,
                vtk_dir=staged[vtk.resolve()] if vtk is not None else None)
            result = evaluation.to_dict()
            figures = None
            if plots is not None:
                from surrogate.evaluation.sequence_plots import make_sequence_figures

                on_progress(0, 1, "figures")
                figures = make_sequence_figures(evaluation, staged[plots.resolve()])
                result["figures"] = figures
            result["outputs"] = {"out": str(out), "vtk": str(vtk) if vtk else None,
                                 "plots": str(plots) if plots else None,
                                 "report": str(out / "index.html") if report else None}
            if report:
                from surrogate.evaluation.sequence_report import write_sequence_report

                prefix = os.path.relpath(plots.resolve(), out.resolve()) + "/"
                write_sequence_report(staged[out.resolve()] / "index.html", result, figures,
                                      figure_prefix=prefix)
            write_json_atomic(staged[out.resolve()] / "evaluation.json", result)
    if as_json:
        typer.echo(json.dumps(result, indent=2, default=str))
        return
    if quiet:
        return
    print_sequence_table(result)
    written = [str(out / "evaluation.json")]
    if vtk is not None:
        written.append(f"{vtk}/probes.pvd, {vtk}/field.pvd")
    if plots is not None:
        written.append(f"{plots}/*.png")
    if report:
        written.append(str(out / "index.html"))
    console.print("wrote " + ", ".join(written), highlight=False)


__all__ = ["SetChoice", "dispatch_kind", "evaluate_sequence", "sequence_options",
           "run_data_kind", "check_kind_options", "print_sequence_table", "POINTWISE_ONLY",
           "SEQUENCE_ONLY"]
