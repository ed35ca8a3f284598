"""``surrogate fem ...``: finite-element studies (placeholder until the FEM core lands)."""

import typer


def register(app: typer.Typer) -> None:
    """Attach the ``fem`` command group to ``app``."""
    fem_app = typer.Typer(no_args_is_help=True, help="Finite-element studies.")
    app.add_typer(fem_app, name="fem")
