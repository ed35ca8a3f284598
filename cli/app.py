"""The ``surrogate`` command: one Typer app, one module per verb."""

from __future__ import annotations

from typing import Annotated

import typer

from surrogate import __version__
from surrogate.cli import data_commands, evaluate_commands, fem_commands, train_commands
from surrogate.cli.common import state

app = typer.Typer(
    name="surrogate",
    no_args_is_help=True,
    add_completion=False,
    help="Neural-network surrogates of PDE solutions, held against finite elements.\n\n"
    "Example (data -> surrogate -> errors on a domain it never saw, next to FEM):\n\n"
    "surrogate gen-data maxwell -o data/maxwell.h5\n\n"
    "surrogate fit data/maxwell.h5 --arch frac-dnn -o runs/fdnn\n\n"
    "surrogate evaluate runs/fdnn --domain cube --levels 1-4 --out out/ --vtk out/vtk --report",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"surrogate {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show full tracebacks for errors.")
    ] = False,
) -> None:
    """Neural-network surrogates of PDE solutions, held against finite elements."""
    state.debug = debug


for _module in (fem_commands, data_commands, train_commands, evaluate_commands):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
