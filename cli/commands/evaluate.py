"""``surrogate evaluate`` and ``surrogate report``: surrogates against FEM on unseen domains,
sequence surrogates on unseen sequences, family surrogates on unseen problems.

The options are generated from the options classes of the run kinds
(:data:`surrogate.evaluation.run_kinds.RUN_KINDS`), each scoped to the kinds that have it: the
command finds the runs' kind, refuses an option of another kind (one line), builds the kind's
typed options and calls :func:`surrogate.evaluation.api.evaluate`, which validates everything
before any output exists and stages the outputs; then it prints the kind's tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text

RunDirs = Annotated[list[Path], typer.Argument(help="Run directories written by `surrogate fit`.")]
VtkOpt = Annotated[Path | None, typer.Option(help="Folder for .vtu/.pvd files (ParaView).")]
ProblemOpt = Annotated[
    str | None, typer.Option(help="Pointwise runs: the problem to evaluate on; every run must "
                                  "have been trained on it. \\[default: the runs' problem]")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no tables.")]


def evaluation_group() -> OptionGroup:
    """The evaluation options: one scope per run kind, its options class."""
    from surrogate.evaluation.run_kinds import RUN_KINDS

    return OptionGroup("evaluation", {name: kind.options for name, kind in RUN_KINDS.items()},
                       refusal="{flags} {verb} to {scopes} runs, not to these {scope} runs")


def _evaluate_and_print(run_dirs: list[Path], options: GivenOptions, *, out: Path,
                        vtk: Path | None, plots: Path | None, report: bool,
                        inputs: dict[str, Path | str | None], as_json: bool,
                        quiet: bool) -> None:
    """The body of ``evaluate`` and ``report``: the runs' kind, its typed options, one library
    call, the kind's tables."""
    with user_errors():
        from surrogate.evaluation.api import evaluate as run_evaluation
        from surrogate.evaluation.run_kinds import kind_of_runs

        kind = kind_of_runs(run_dirs)
        typed = kind.options(**options.fields(evaluation_group(), kind.name))
        with progress_display(quiet) as on_progress:
            result = run_evaluation(run_dirs, typed, out=out, vtk=vtk, plots=plots,
                                    report=report, on_progress=on_progress, **inputs)
    if as_json:
        typer.echo(json_text(result.summary), nl=False)
    elif not quiet:
        from surrogate.cli.evaluation_tables import print_result

        print_result(result)


def evaluate(
    run_dirs: RunDirs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of evaluation.json.")]
    = Path("evaluation"),
    vtk: VtkOpt = None,
    plots: Annotated[Path | None, typer.Option(help="Folder for PNG figures.")] = None,
    report: Annotated[bool, typer.Option("--report", help="Also write OUT/index.html "
                                                          "(figures default to OUT/plots).")]
    = False,
    problem: ProblemOpt = None,
    data: Annotated[Path | None, typer.Option(
        "--data", help="Sequence runs: the training dataset, if it moved. \\[default: the "
        "path recorded in the run; its content hash must match]")] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    *,
    options: GivenOptions,
) -> None:
    """L² errors and timings of surrogates vs Nédélec FEM (every installed backend, its orders)
    on test domains.

    Runs trained on sequence data (lem, cornn, lstm) are evaluated instead on sequences they
    never saw, rebuilt from their dataset's recipe: unseen signals (the test split), unseen
    materials (maxwell-td; maxwell-nl: amplitudes and varistors, --material-range
    amplitude=2,3 beyond training) and a longer horizon; per-sequence relative L² errors,
    traces and error over time (--plots), probe and FEM field time series (--vtk,
    maxwell-td); for maxwell-td and maxwell-nl the FEM verdict (--fem-candidates: the fastest
    FEM at the surrogate's error and N*).

    Example: surrogate evaluate runs/fdnn runs/resnet --domain cube --levels 1-5 --out out/
    --vtk out/vtk --plots out/plots

    Sequence example: surrogate evaluate runs/lem --horizon-factor 2 --out out/ --plots
    out/plots --vtk out/vtk

    Runs of a problem family (gen-data maxwell-family) are evaluated on K unseen members next
    to Nédélec FEM of every chosen backend and order (--fem-backend, --fem-order; errors per
    problem, median and p90) with the break-even count N* = (data generation + training) /
    (FEM per query − surrogate per query).

    Family example: surrogate evaluate runs/params runs/fields --problems 32 --out out/
    --report
    """
    _evaluate_and_print(run_dirs, options, out=out, vtk=vtk, plots=plots, report=report,
                        inputs={"problem": problem, "data": data}, as_json=as_json,
                        quiet=quiet)


def report(
    run_dirs: RunDirs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of index.html.")]
    = Path("report"),
    vtk: VtkOpt = None,
    problem: ProblemOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    *,
    options: GivenOptions,
) -> None:
    """Evaluate runs and write OUT/index.html with the tables and figures (OUT/plots).

    Example: surrogate report runs/* --domain cube --levels 1-4 --out report/
    """
    _evaluate_and_print(run_dirs, options, out=out, vtk=vtk, plots=out / "plots", report=True,
                        inputs={"problem": problem}, as_json=as_json, quiet=quiet)


def register(app: typer.Typer) -> None:
    """Attach ``evaluate`` and ``report`` (options from the run kinds' options) to ``app``."""
    app.command("evaluate")(command_with_options(evaluate, [evaluation_group()]))
    app.command("report")(command_with_options(report, [evaluation_group()]))
