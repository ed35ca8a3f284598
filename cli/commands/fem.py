"""``surrogate fem ...``: finite-element studies (convergence of Nédélec approximations).

The options of ``fem convergence`` are generated from
:class:`~surrogate.fem.convergence_options.ConvergenceOptions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text, write_json_file


def convergence_group() -> OptionGroup:
    """The study's options: the fields of ConvergenceOptions (backends, orders, methods and
    solvers listed from the FEM registry as it is when the app is built)."""
    from surrogate.fem.convergence_options import ConvergenceOptions

    return OptionGroup("convergence", {"convergence": ConvergenceOptions})


# --fem-backend/--fem-order/--fem-method/--solver are plain strings with the registry's choices as
# metavar (listed by --help) and are checked by ConvergenceOptions: a bad value then gives one
# line on stderr and exit 2 like every other bad input, not click's multi-line usage panel, and
# a backend registered after import is accepted.
def convergence(
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Also write the results as JSON here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no table.")] = False,
    *,
    options: GivenOptions,
) -> None:
    """Errors and observed rates of Nédélec approximations of the exact solution, by level.

    Example: surrogate fem convergence --domain cube --levels 1-3 --fem-backend ngsolve
    --fem-order 2 --fem-method solve --out conv.json
    """

    from surrogate import __version__
    from surrogate.fem.convergence_options import ConvergenceOptions, run_convergence_study

    with user_errors():
        study = ConvergenceOptions(**options.fields(convergence_group()))
        with progress_display(quiet) as on_progress:
            rows = run_convergence_study(study, on_progress)
        payload = {"study": "fem-convergence", "version": __version__,
                   "options": study.record(), "rows": rows}
        if out is not None:
            write_json_file(out, payload)
    if as_json:
        typer.echo(json_text(payload), nl=False)
    elif not quiet:
        _print_table(study.record(), rows)
        if out is not None:
            console.print(f"wrote {out}", highlight=False, soft_wrap=True)


def _fmt_rate(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.2f}"


def _print_table(options: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Rich table: one line per level (the residuals and stage timings are in the JSON); one
    space between columns, so that 7-digit DOFs and the longest solver name fit 80 columns."""
    from rich import box
    from rich.table import Table

    from surrogate.fem.hcurl.registry import FemMethod

    space = FemMethod(options["backend"], options["order"]).label
    table = Table(title=f"{space} {options['method']} on {options['domain']} "
                        f"({options['problem']})",
                  box=box.SIMPLE_HEAD, padding=0, pad_edge=False)
    for name in ("lvl", "h", "DOFs", "L² err", "rate", "curl err", "rate", "s", "solver", "its"):
        table.add_column(name, justify="right", no_wrap=True)
    for r in rows:
        s = r["solver"]
        table.add_row(str(r["level"]), f"{r['h']:.3g}", str(r["ndofs"]), f"{r['l2_error']:.2e}",
                      _fmt_rate(r["l2_rate"]), f"{r['curl_l2_error']:.2e}",
                      _fmt_rate(r["curl_l2_rate"]), f"{r['seconds']:.1f}", s["method"],
                      str(s["iterations"]))
    console.print(table)


def register(app: typer.Typer) -> None:
    """Attach the ``fem`` command group (``convergence``) to ``app``."""
    fem_app = typer.Typer(no_args_is_help=True, help="Finite-element studies.")
    fem_app.command("convergence")(command_with_options(convergence, [convergence_group()]))
    app.add_typer(fem_app, name="fem")
