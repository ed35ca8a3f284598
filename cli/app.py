"""The ``surrogate`` command: one Typer app, one module per verb."""

from __future__ import annotations

import inspect
import os
import re
import sys
from typing import Annotated

import typer

from surrogate import __version__
from surrogate.cli.commands import data, evaluate, fem, mesh, predict, serve, train, uq, validate
from surrogate.cli.common import (
    install_interrupt_handlers,
    interrupt_exit,
    interrupt_exit_code,
    state,
)

HELP = ("Neural-network surrogates of PDE solutions, held against finite elements.\n\n"
        "Example (data -> surrogate -> errors on a domain it never saw, next to FEM):\n\n"
        "surrogate gen-data maxwell -o data/maxwell.h5\n\n"
        "surrogate fit data/maxwell.h5 --arch frac-dnn -o runs/fdnn\n\n"
        "surrogate evaluate runs/fdnn --domain cube --levels 1-4 --out out/ --vtk out/vtk "
        "--report")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"surrogate {__version__}")
        raise typer.Exit()


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
    state.interrupt_reported = False  # one interrupt line per command (also in-process)


def build_app() -> typer.Typer:
    """The ``surrogate`` app, its generated options taken from the registries as they are now
    (an architecture registered before this call has its options in ``fit``)."""
    built = typer.Typer(name="surrogate", no_args_is_help=True, add_completion=False, help=HELP)
    built.callback()(_root)
    for module in (fem, data, train, evaluate, predict, validate, mesh, uq, serve):
        module.register(built)
    _reflow_command_help(built)
    return built


def reflowed(doc: str) -> str:
    """``doc`` with the lines of each sentence joined: Rich keeps a docstring's line breaks,
    so a paragraph wrapped at 100 columns in the source would wrap again, raggedly, on an
    80-column terminal; joined, Rich wraps it once at the terminal's width. A line that ends
    a sentence (".") keeps its break, so one-line items stay lines."""
    return re.sub(r"(?<![.\n])\n(?!\n)", " ", inspect.cleandoc(doc))


def _reflow_command_help(typer_app: typer.Typer) -> None:
    """Every command's help (its docstring unless given) as :func:`reflowed` text, in the
    app and its sub-apps (``fem``, ``gen-data``, ``mesh``)."""
    for info in typer_app.registered_commands:
        doc = info.help if info.help is not None else inspect.getdoc(info.callback)
        if doc:
            info.help = reflowed(doc)
    for group in typer_app.registered_groups:
        _reflow_command_help(group.typer_instance)


app = build_app()


def _click_exceptions() -> tuple[type, type, type]:
    """(ClickException, NoArgsIsHelpError, Abort) as the installed Typer raises them.

    Typer >= 0.20 vendors click as ``typer._click`` (Abort then lives in ``typer.exceptions``);
    older Typer raises click's own classes.
    """
    try:
        from typer._click.exceptions import ClickException, NoArgsIsHelpError
        from typer.exceptions import Abort
    except ImportError:
        from click.exceptions import Abort, ClickException, NoArgsIsHelpError
    return ClickException, NoArgsIsHelpError, Abort


def _run_app() -> int | str | None:
    """Run the Typer app; a usage error (unknown option or choice) is one line, exit 2."""
    click_exception, no_args_is_help, abort = _click_exceptions()
    try:
        result = app(standalone_mode=False)
    except no_args_is_help as exc:
        exc.show()  # `surrogate` alone prints the help
        return exc.exit_code
    except click_exception as exc:
        command = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "surrogate"
        typer.echo(f"error: {exc.format_message()} (see `{command} --help`)", err=True)
        return exc.exit_code
    except abort:
        return 130  # a KeyboardInterrupt outside the commands (Typer maps Ctrl-C to Abort)
    return result if isinstance(result, int) else 0


def main() -> None:
    """Console-script entry point: SIGINT/SIGTERM end a command with one line and 130/143.

    A KeyboardInterrupt that escapes the commands' own handling (e.g. during start-up) is
    turned into exit code 130 by Typer; it is mapped here to the signal that came. Once the
    command has ended, further interrupt signals are ignored: its outputs are complete.
    Usage errors (unknown options, invalid choices) are printed as one line, exit code 2.
    """
    import signal

    install_interrupt_handlers()
    code: int | str | None = 0
    try:
        try:
            code = _run_app()
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, signal.SIG_IGN)
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # Typer turns it into SystemExit(130); kept for safety
        code = 130
    except Exception:
        if state.interrupt_signal is None or state.debug:
            raise
        code = 130  # a consequence of the interrupt (see common.user_errors)
    if state.interrupt_signal is not None and code in (130, interrupt_exit_code()):
        interrupt_exit()  # prints the line unless the command did
        sys.stdout.flush()
        sys.stderr.flush()
        # not sys.exit: after a KeyboardInterrupt raised during start-up imports, CPython was
        # seen to end the process by SIGINT (status -2) at finalisation, whatever the code
        os._exit(interrupt_exit_code())
    sys.exit(code)


if __name__ == "__main__":
    main()
