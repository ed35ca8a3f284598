"""What every command shares: the console, one-line user errors, progress, JSON output."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from surrogate.atomic_files import write_text_atomic
from surrogate.errors import SurrogateError

console = Console()
err_console = Console(stderr=True)


class _State:
    """Global flags set by the app callback (``--debug``)."""

    debug: bool = False


state = _State()

ProgressCallback = Callable[[int, int, str], None]


def fail(message: str) -> typer.Exit:
    """Print one line on stderr and return the exit-code-2 exception to raise."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn toolkit errors into one line and exit code 2 (traceback kept with ``--debug``)."""
    try:
        yield
    except SurrogateError as exc:
        if state.debug:
            raise
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        err_console.print("interrupted", style="yellow")
        raise typer.Exit(code=130) from None


@contextlib.contextmanager
def progress_display(quiet: bool = False) -> Iterator[ProgressCallback]:
    """Yield a ``(done, total, description)`` callback backed by a rich progress bar.

    Silent when ``quiet`` or when stderr is not a terminal.
    """
    if quiet or not sys.stderr.isatty():
        yield lambda done, total, description: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, description: str) -> None:
            bar.update(task, completed=done, total=total, description=description)

        yield update


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON to ``path`` through a temporary file and a rename."""
    write_text_atomic(path, json.dumps(payload, indent=2, default=_json_default) + "\n")


def _json_default(value: Any) -> Any:
    """Convert numpy scalars/arrays and paths for ``json.dump``."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def parse_levels(text: str) -> list[int]:
    """Parse ``"1-5"``, ``"3"`` or ``"1,2,4"`` into a sorted list of levels ≥ 1."""
    from surrogate.errors import InputError

    try:
        if "-" in text:
            lo_s, hi_s = text.split("-", 1)
            lo, hi = int(lo_s), int(hi_s)
            if hi < lo:
                raise InputError(f"--levels {text!r}: inverted range (end {hi} < start {lo})")
            levels = list(range(lo, hi + 1))
        else:
            levels = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"--levels {text!r}: expected e.g. '1-5', '3' or '1,2,4'") from None
    if not levels:
        raise InputError(f"--levels {text!r}: no level given")
    if levels[0] < 1:
        raise InputError(f"--levels {text!r}: levels start at 1")
    return levels
