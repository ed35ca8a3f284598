"""``surrogate predict RUN``: u of a trained surrogate for given problems at given points.

Parses, builds a :class:`~surrogate.predict.to_files.PredictionRequest`, calls
:func:`~surrogate.predict.to_files.predict_to_files` and prints; no numerics here.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import err_console, progress_display, user_errors
from surrogate.core.json_files import json_text


class Device(str, Enum):
    cpu = "cpu"
    cuda = "cuda"
    auto = "auto"


class Precision(str, Enum):
    float32 = "float32"
    float64 = "float64"


def predict(
    run: Annotated[Path, typer.Argument(help="A run directory (what `surrogate fit` wrote).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HDF5 file to write (.h5).")]
    = Path("prediction.h5"),
    params: Annotated[Path | None, typer.Option(
        help="Problems of a family run, one row per problem: the family's parameters (CSV "
             "with a header naming them, any order, or NPY in the family's order); for a "
             "`fields` run, its sensor values in the run's sensor order.")] = None,
    domain: Annotated[str | None, typer.Option(
        help="Predict at the nodes of this domain's mesh: a built-in domain or a mesh file "
             "(.msh, .vtu, ...).")] = None,
    level: Annotated[int, typer.Option(help="Refinement level of --domain's mesh.", min=1)]
    = 3,
    points: Annotated[str | None, typer.Option(
        help="Predict at these points: CSV (x1,x2,x3 or x,y,z header optional), NPY or "
             "FILE.h5[:DATASET], one point per row.")] = None,
    vtk: Annotated[Path | None, typer.Option(
        help="Also write a ParaView series here: u.pvd with one .vtu per problem (u, |u|).")]
    = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Refuse parameters outside the training box (default: warn per "
                         "row).")] = False,
    device: Annotated[Device, typer.Option(help="Where the network runs.")] = Device.cpu,
    dtype: Annotated[Precision, typer.Option(help="Float type of the computation and of u.")]
    = Precision.float32,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]
    = False,
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
        from surrogate.predict.to_files import PredictionRequest, predict_to_files

        request = PredictionRequest(run=run, out=out, params=params,
                                    domain=domain, level=level, points=points, vtk=vtk,
                                    strict=strict, device=device.value, dtype=dtype.value)

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
    app.command("predict")(predict)
