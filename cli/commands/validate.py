"""``surrogate validate FILE|RUN_DIR``: a full check that lists every problem found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import user_errors
from surrogate.core.errors import DataFormatError


def validate(
    path: Annotated[Path, typer.Argument(help="A dataset file (.h5) or a run directory.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {path, kind, ok, problems} as JSON.")
    ] = False,
) -> None:
    """Fully check a dataset file or a run directory; print OK or every problem, one a line.

    A dataset: schema, content hash, shapes, finiteness, splits. A run: config sections and
    types, model.pt loadable weights-only with every tensor finite and shaped as the model
    config builds it, metrics/metadata/history readable, the dataset hash recorded.
    Exit code 0: valid; 1: problems found; 2: PATH is missing or neither file nor folder.

    Example: surrogate validate data/maxwell.h5   (or: surrogate validate runs/fdnn --json)
    """
    with user_errors():
        if not path.exists():
            raise DataFormatError(f"{path} does not exist")
        if path.is_dir():
            from surrogate.runs.validate import validate_run

            kind, problems = "run", validate_run(path)
        elif path.is_file():
            from surrogate.datasets import validate_dataset

            kind, problems = "dataset", validate_dataset(path)
        else:
            raise DataFormatError(f"{path} is neither a file nor a directory")
    if as_json:
        typer.echo(json.dumps({"path": str(path), "kind": kind, "ok": not problems,
                               "problems": problems}, indent=2))
    else:
        for line in problems or ["OK"]:
            typer.echo(line)
    if problems:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    """Attach ``validate`` to ``app``."""
    app.command("validate")(validate)
