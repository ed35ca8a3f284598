"""``surrogate predict RUN``: u of a trained surrogate for given problems at given points.

Its options are the fields of :class:`~surrogate.predict.options.PredictOptions` (generated,
:mod:`surrogate.cli.config_options`); it builds a
:class:`~surrogate.predict.to_files.PredictionRequest`, calls
:func:`~surrogate.predict.to_files.predict_to_files` and prints; no numerics here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import err_console, progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text


def predict_group() -> OptionGroup:
    """The prediction options: the fields of PredictOptions."""
    from surrogate.predict.options import PredictOptions

    return OptionGroup("predict", {"predict": PredictOptions})


def predict(
    run: Annotated[Path, typer.Argument(help="A run directory (what `surrogate fit` wrote).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HDF5 file to write (.h5).")]
    = Path("prediction.h5"),
    vtk: Annotated[Path | None, typer.Option(
        help="Also write a ParaView series here: u.pvd with one .vtu per problem (u, |u|).")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]
    = False,
    *,
    options: GivenOptions,
) -> None:
    """Evaluate a trained surrogate: u for every problem at every point, written to HDF5.

    A family run takes the problems from --params (sensor values for a `fields` run); a
    single-problem run predicts its own problem. Parameters outside the box the run was
    trained on are warned about row by row (--strict refuses them). The file holds u
    (problems × points × 3), the points (and mesh cells), the inputs and the run's hash.

    Example: surrogate predict runs/family --params mu.csv --domain cube --level 3 -o u.h5
    --vtk out/u   (mu.csv: a header `k,a,b,alpha,p,w`, then one problem per line)
    """
    with user_errors():
        from surrogate.predict.options import PredictOptions
        from surrogate.predict.to_files import PredictionRequest, predict_to_files

        typed = PredictOptions(**options.fields(predict_group()))
        request = PredictionRequest(run=run, out=out, options=typed, vtk=vtk)

        def warn(line: str) -> None:
            from rich.markup import escape

            err_console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False,
                              soft_wrap=True)

        with progress_display(quiet) as on_progress:
            summary = predict_to_files(request, on_progress=on_progress, warn=warn)
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        vtk_part = f"; ParaView: {summary['vtk']}" if "vtk" in summary else ""
        typer.echo(f"wrote {summary['output']}: u of {summary['problems']} problem(s) at "
                   f"{summary['points']} points ({summary['points_source']}) in "
                   f"{summary['seconds']:.3g} s{vtk_part}")


def register(app: typer.Typer) -> None:
    """Attach ``predict`` to ``app``."""
    app.command("predict")(command_with_options(predict, [predict_group()]))
