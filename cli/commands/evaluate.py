"""``surrogate evaluate`` and ``surrogate report``: surrogates against FEM on unseen domains,
sequence surrogates on unseen sequences.

The command parses its options, refuses those of the other kind of run (one line), builds the
typed options of the runs' kind and calls :func:`surrogate.evaluation.api.evaluate`, which
validates everything before any output exists and stages the outputs; then it prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import progress_display, user_errors
from surrogate.cli.evaluate_options import (
    FAMILY_ONLY,
    NOT_FAMILY,
    POINTWISE_ONLY,
    SEQUENCE_ONLY,
    DataOpt,
    DeviceChoice,
    DeviceOpt,
    DomainOpt,
    DrawSeedOpt,
    ExtrapolateOpt,
    FemBaseline,
    FemOpt,
    FemOrderOpt,
    FreshOpt,
    HorizonOpt,
    IntorderOpt,
    JsonOpt,
    LevelsOpt,
    MaterialRangeOpt,
    MaterialSeedOpt,
    MaxSeqOpt,
    ProblemOpt,
    ProblemsOpt,
    QuietOpt,
    RunDirs,
    SampleOpt,
    SetOpt,
    SliceOpt,
    SolverChoice,
    SolverOpt,
    TruthLevelOpt,
    VtkEveryOpt,
    VtkOpt,
    family_options,
    pointwise_options,
    sequence_options,
)
from surrogate.core.json_files import json_text


def _flag(name: str) -> str:
    """``slice_`` -> ``--slice``."""
    return "--" + name.rstrip("_").replace("_", "-")


def given_options(ctx: typer.Context, names: tuple[str, ...]) -> list[str]:
    """The flags of ``names`` that were set on the command line (not left at the default)."""
    sources = {name: ctx.get_parameter_source(name) for name in names}
    return [_flag(n) for n, s in sources.items()
            if s is not None and s.name not in ("DEFAULT", "DEFAULT_MAP")]


def check_kind_options(ctx: typer.Context, kind: str) -> None:
    """InputError for options that belong to the other kind of run."""
    from surrogate.core.errors import InputError

    refused = {"sequence": POINTWISE_ONLY + FAMILY_ONLY, "pointwise": SEQUENCE_ONLY + FAMILY_ONLY,
               "family": SEQUENCE_ONLY + NOT_FAMILY}[kind]
    wrong = given_options(ctx, tuple(n for n in refused if n in ctx.params))
    if wrong:
        what = {"sequence": "apply to pointwise runs (FEM baselines on test domains), not to "
                            "this sequence run",
                "family": "do not apply to runs of a problem family"}.get(kind)
        if what is None:
            family = [_flag(n) for n in FAMILY_ONLY]
            what = ("apply to runs of a problem family only" if set(wrong) <= set(family)
                    else "apply to sequence runs only")
        raise InputError(f"{', '.join(wrong)} {what}")


def dispatch_kind(ctx: typer.Context, run_dirs: list[Path]) -> str:
    """The runs' data kind, after refusing options of the other kind (one line, exit 2)."""
    from surrogate.evaluation.api import run_data_kind

    with user_errors():
        kind = run_data_kind(run_dirs)
        check_kind_options(ctx, kind)
    return kind


def _evaluate_and_print(run_dirs: list[Path], make_options: Any, *, problem: str | None,
                        data: Path | None, out: Path, vtk: Path | None, plots: Path | None,
                        report: bool, as_json: bool, quiet: bool) -> None:
    """Shared body of ``evaluate`` and ``report``: typed options, one library call, tables."""
    with user_errors():
        options = make_options()
        from surrogate.evaluation.api import evaluate as run_evaluation

        with progress_display(quiet) as on_progress:
            result = run_evaluation(run_dirs, options, out=out, vtk=vtk, plots=plots,
                                    report=report, problem=problem, data=data,
                                    on_progress=on_progress)
    if as_json:
        typer.echo(json_text(result.summary), nl=False)
        return
    if quiet:
        return
    from surrogate.cli.evaluation_tables import print_result

    print_result(result)


def evaluate(
    ctx: typer.Context,
    run_dirs: RunDirs,
    domain: DomainOpt = None,
    levels: LevelsOpt = "1-4",
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of evaluation.json.")]
    = Path("evaluation"),
    vtk: VtkOpt = None,
    plots: Annotated[Path | None, typer.Option(help="Folder for PNG figures.")] = None,
    report: Annotated[bool, typer.Option("--report", help="Also write OUT/index.html "
                                                          "(figures default to OUT/plots).")]
    = False,
    fem: FemOpt = FemBaseline.best,
    fem_order: FemOrderOpt = "0,1",
    solver: SolverOpt = SolverChoice.auto,
    slice_: SliceOpt = "z=0.5",
    problem: ProblemOpt = None,
    intorder: IntorderOpt = 4,
    device: DeviceOpt = DeviceChoice.cpu,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    data: DataOpt = None,
    set_: SetOpt = None,
    horizon_factor: HorizonOpt = None,
    fresh: FreshOpt = None,
    max_sequences: MaxSeqOpt = None,
    material_seed: MaterialSeedOpt = None,
    material_range: MaterialRangeOpt = None,
    sample: SampleOpt = None,
    vtk_every: VtkEveryOpt = None,
    problems: ProblemsOpt = None,
    extrapolate: ExtrapolateOpt = False,
    truth_level: TruthLevelOpt = None,
    draw_seed: DrawSeedOpt = None,
) -> None:
    """L² errors and timings of surrogates vs Nédélec FEM (N0 and complete linear) on test domains.

    Runs trained on sequence data (lem, cornn, lstm) are evaluated instead on sequences they
    never saw, rebuilt from their dataset's recipe: unseen signals (the test split), unseen
    materials (maxwell-td) and a longer horizon; per-sequence relative L² errors, traces and
    error over time (--plots), probe and FEM field time series (--vtk, maxwell-td).

    Example: surrogate evaluate runs/fdnn runs/resnet --domain cube --levels 1-5 --out out/
    --vtk out/vtk --plots out/plots

    Sequence example: surrogate evaluate runs/lem --horizon-factor 2 --out out/ --plots
    out/plots --vtk out/vtk

    Runs of a problem family (gen-data maxwell-family) are evaluated on K unseen members next
    to Nédélec FEM, N0 and complete linear (errors per problem, median and p90) with the break-even
    count N* = (data generation + training) / (FEM per query − surrogate per query).

    Family example: surrogate evaluate runs/params runs/fields --problems 32 --out out/
    --report
    """
    kind = dispatch_kind(ctx, run_dirs)
    if kind == "family":
        given = given_options(ctx, ("levels",))

        def make_options() -> Any:
            return family_options(problems=problems, extrapolate=extrapolate, domain=domain,
                                  levels=levels if given else None, solver=solver,
                                  intorder=intorder, device=device, truth_level=truth_level,
                                  draw_seed=draw_seed)
    elif kind == "sequence":
        def make_options() -> Any:
            return sequence_options(
                set_=set_, horizon_factor=horizon_factor, fresh=fresh,
                max_sequences=max_sequences, material_seed=material_seed,
                material_range=material_range, sample=sample, vtk_every=vtk_every,
                device=device)
    else:
        def make_options() -> Any:
            return pointwise_options(domain=domain, levels=levels, fem=fem, fem_order=fem_order,
                                     solver=solver, slice_=slice_, intorder=intorder,
                                     device=device)
    _evaluate_and_print(run_dirs, make_options, problem=problem, data=data, out=out, vtk=vtk,
                        plots=plots, report=report, as_json=as_json, quiet=quiet)


def report(
    ctx: typer.Context,
    run_dirs: RunDirs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of index.html.")]
    = Path("report"),
    domain: DomainOpt = None,
    levels: LevelsOpt = "1-4",
    vtk: VtkOpt = None,
    fem: FemOpt = FemBaseline.best,
    fem_order: FemOrderOpt = "0,1",
    solver: SolverOpt = SolverChoice.auto,
    slice_: SliceOpt = "z=0.5",
    problem: ProblemOpt = None,
    intorder: IntorderOpt = 4,
    device: DeviceOpt = DeviceChoice.cpu,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Evaluate runs and write OUT/index.html with the tables and figures (OUT/plots).

    Example: surrogate report runs/* --domain cube --levels 1-4 --out report/
    """
    kind = dispatch_kind(ctx, run_dirs)
    if kind == "family":
        given = given_options(ctx, ("levels",))

        def make_options() -> Any:
            return family_options(domain=domain, levels=levels if given else None,
                                  solver=solver, intorder=intorder, device=device)
    elif kind == "sequence":
        def make_options() -> Any:
            return sequence_options(device=device)
    else:
        def make_options() -> Any:
            return pointwise_options(domain=domain, levels=levels, fem=fem, fem_order=fem_order,
                                     solver=solver, slice_=slice_, intorder=intorder,
                                     device=device)
    _evaluate_and_print(run_dirs, make_options, problem=problem, data=None, out=out, vtk=vtk,
                        plots=out / "plots", report=True, as_json=as_json, quiet=quiet)


def register(app: typer.Typer) -> None:
    """Attach ``evaluate`` and ``report`` to ``app``."""
    app.command("evaluate")(evaluate)
    app.command("report")(report)
