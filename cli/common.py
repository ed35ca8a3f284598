"""What every command shares: the console, one-line user errors, interrupts, progress.

Interrupts: :func:`install_interrupt_handlers` (called by the entry point) makes SIGTERM raise
KeyboardInterrupt like Ctrl-C, so that cleanup runs (atomic writers remove their temporary
files, ``fit`` checkpoints), and remembers which signal came; the command then ends with one
line and exit code 128 + signal number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import typer
from rich.console import Console

from surrogate.core.errors import SurrogateError

console = Console()
err_console = Console(stderr=True)


class _State:
    """Global flags: ``--debug`` (set by the app callback) and the interrupt seen, if any."""

    debug: bool = False
    interrupt_signal: int | None = None
    interrupt_reported: bool = False


state = _State()

ProgressCallback = Callable[[int, int, str], None]


def fail(message: str) -> typer.Exit:
    """Print one line on stderr and return the exit-code-2 exception to raise."""
    from rich.markup import escape  # a message's own brackets (surrogate[distributed]) stay

    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False,
                      soft_wrap=True)
    return typer.Exit(code=2)


def os_error_message(exc: OSError) -> str:
    """One line for an OSError met while reading or writing: the path, the reason, the code."""
    reason = exc.strerror or (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{reason}{f' ({code})' if code and code not in reason else ''}"


IMPORT_RETRY_S = 0.05
"""While a module is being imported, an interrupt is asked again after this many seconds."""


def _importing(frame: Any) -> bool:
    """True when ``frame`` runs inside an import (a frame of importlib's bootstrap above it)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _on_interrupt_signal(signum: int, frame: Any) -> None:
    """Handler of SIGINT and SIGTERM: remember the first signal, raise KeyboardInterrupt.

    Not inside an import: extension modules that import Python code from C++ (torch's
    pybind11 initialisation) abort the whole process (SIGABRT) on an exception there. The
    signal is then sent again shortly, until the import has finished.
    """
    if state.interrupt_signal is None:
        state.interrupt_signal = signum
    if _importing(frame):
        threading.Timer(IMPORT_RETRY_S, os.kill, (os.getpid(), signum)).start()
        return
    raise KeyboardInterrupt


def install_interrupt_handlers() -> None:
    """SIGINT and SIGTERM raise KeyboardInterrupt (cleanup runs); see the module docstring."""
    from surrogate.core.interrupts import on_interrupt_signals

    state.interrupt_signal, state.interrupt_reported = None, False
    on_interrupt_signals(_on_interrupt_signal)


def interrupt_exit_code() -> int:
    """128 + the signal that interrupted the command (130 when it is unknown: Ctrl-C)."""
    return 128 + (state.interrupt_signal or signal.SIGINT)


def interrupt_exit(detail: str | None = None) -> typer.Exit:
    """Print the one interrupt line (once) and return the Exit to raise (130 / 143)."""
    if not state.interrupt_reported:
        name = signal.Signals(state.interrupt_signal or signal.SIGINT).name
        err_console.print(f"interrupted ({name}){f': {detail}' if detail else ''}",
                          style="yellow", highlight=False, soft_wrap=True)
        state.interrupt_reported = True
    return typer.Exit(code=interrupt_exit_code())


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn toolkit errors and OSErrors (disk full, read-only folder, ...) into one line and
    exit code 2 (traceback kept with ``--debug``); an interrupt into one line and 130/143."""
    try:
        yield
    except SurrogateError as exc:
        if state.debug:
            raise
        raise fail(str(exc)) from None
    except OSError as exc:
        if state.debug:
            raise
        raise fail(os_error_message(exc)) from None
    except KeyboardInterrupt:
        raise interrupt_exit() from None
    except Exception:
        # after an interrupt signal, any error is its consequence: Python wraps a
        # KeyboardInterrupt raised in some places (e.g. RuntimeError from __set_name__
        # while a class is created during an import)
        if state.interrupt_signal is None or state.debug:
            raise
        raise interrupt_exit() from None


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
