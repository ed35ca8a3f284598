"""``surrogate serve RUN``: a UM-Bridge server of the run's ``surrogate`` and ``fem`` models.

Its options are the fields of :class:`~surrogate.uq.options.ServeOptions` (generated); it
calls :func:`~surrogate.uq.server.serve`; no numerics here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options


def serve_group() -> OptionGroup:
    """The server's options: the fields of ServeOptions."""
    from surrogate.uq.options import ServeOptions

    return OptionGroup("serve", {"serve": ServeOptions})


def serve(
    run: Annotated[Path, typer.Argument(help="A family run (what `surrogate fit` wrote).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No start-up line.")] = False,
    *,
    options: GivenOptions,
) -> None:
    """Serve the surrogate and a FEM of reference to UQ tools (UM-Bridge).

    Two models, `surrogate` and `fem`: input the family's parameters, output the quantities
    (--qoi); `fem` solves with --fem-backend/--fem-order/--fem-level. Any UM-Bridge client
    (MUQ, QMCPy, tinyDA, PyMC) calls them; stop with Ctrl-C or --max-seconds.

    Example: surrogate serve runs/family --qoi energy --port 4242   (then, in Python:
    umbridge.HTTPModel("http://localhost:4242", "surrogate")([[1, 1, 1, 1, 0, 0]]))
    """
    with user_errors():
        from surrogate.uq.options import ServeOptions
        from surrogate.uq.server import serve as serve_models

        typed = ServeOptions(**options.fields(serve_group()))

        def ready(url: str) -> None:
            if not quiet:
                typer.echo(f"serving the models surrogate and fem at {url} (UM-Bridge)",
                           err=True)

        serve_models(run, typed, ready)


def register(app: typer.Typer) -> None:
    """Attach ``serve`` to ``app``."""
    app.command("serve")(command_with_options(serve, [serve_group()]))
