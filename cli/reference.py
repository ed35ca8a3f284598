"""The command-line reference, ``docs/cli.md``, generated from the Typer app.

Walks the click command tree of ``surrogate.cli.app.app`` and writes, for every command and
sub-command, its usage line, help text and options (grouped by help panel, with defaults)
as Markdown. Plain text only (Rich markup is resolved as ``--help`` resolves it, no colour
codes) and independent of the terminal width, so the file is the same on every machine.

Run:  python -m surrogate.cli.reference docs/cli.md     (or ``make docs``)
      python -m surrogate.cli.reference --check docs/cli.md   (exit 1 if the file is stale)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
from rich.text import Text

from surrogate.cli.app import app
from surrogate.core.atomic_files import write_text_atomic

DEFAULT_PATH = Path("docs/cli.md")
REGENERATE = "python -m surrogate.cli.reference docs/cli.md"
_HEADER = (
    "# Command-line reference\n\n"
    "Generated from the Typer app by `{command}` (or `make docs`); do not edit by hand.\n"
    "Every command also takes `--help`, which prints the same text on the terminal.\n"
)


def _plain(text: str | None, markup: str | None) -> str:
    """Help text as ``--help`` shows it: Rich markup resolved, no styling."""
    if not text:
        return ""
    return Text.from_markup(text).plain if markup == "rich" else text


def _markup_mode(command: Any) -> str | None:
    return getattr(command, "rich_markup_mode", None)


def _walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """Yield ``(command, context)`` for ``command`` and every visible sub-command, depth first."""
    yield command, ctx
    for name in command.list_commands(ctx) if hasattr(command, "list_commands") else ():
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        yield from _walk(sub, sub.context_class(sub, info_name=name, parent=ctx))


def _cell(text: str) -> str:
    """One Markdown table cell: one line, pipes escaped, HTML-like text outside code literal."""
    parts = text.replace("\n", " ").split("`")
    for i in range(0, len(parts), 2):  # even parts lie outside `code`
        parts[i] = (parts[i].replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
                    .replace("*", "\\*"))
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("|", "\\|")
    return "`".join(parts)


def _code_cell(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def _parameter_rows(command: Any, ctx: Any, markup: str | None) -> dict[str, list[str]]:
    """Table rows of the command's arguments and options, keyed by help panel, in order."""
    arguments: dict[str, list[str]] = {"Arguments": []}
    options: dict[str, list[str]] = {"Options": []}
    for param in command.get_params(ctx):
        is_option = getattr(param, "param_type_name", "") == "option"
        if getattr(param, "hidden", False) or list(param.opts) == ["--help"]:
            continue
        own_help = getattr(param, "help", None) or ""
        record = param.get_help_record(ctx)
        name, full_help = record if record else (param.human_readable_name, own_help)
        # click/Typer append "  [default: ...; required]" to the help: plain text, not markup
        extra = full_help[len(own_help):].strip() if full_help.startswith(own_help) else ""
        description = "  ".join(t for t in (_plain(own_help, markup).strip(), extra) if t)
        panel = getattr(param, "rich_help_panel", None)
        panels = options if is_option else arguments
        panel = panel or ("Options" if is_option else "Arguments")
        panels.setdefault(panel, []).append(
            f"| {_code_cell(name)} | {_cell(description)} |")
    return {panel: rows for panel, rows in {**arguments, **options}.items() if rows}


def _section(command: Any, ctx: Any) -> str:
    """The Markdown of one command: heading, usage and help, sub-commands, option tables."""
    markup = _markup_mode(ctx.find_root().command)
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    help_text = _plain(command.help, markup).strip()
    lines = [f"## `{ctx.command_path}`", "", "```text", f"Usage: {usage}"]
    if help_text:
        lines += ["", help_text]
    lines += ["```", ""]
    names = command.list_commands(ctx) if hasattr(command, "list_commands") else []
    subs = [(n, command.get_command(ctx, n)) for n in names]
    subs = [(n, s) for n, s in subs if s is not None and not s.hidden]
    if subs:
        lines += ["**Commands**", "", "| command | what it does |", "|---|---|"]
        for name, sub in subs:
            summary = _plain(sub.get_short_help_str(limit=10_000), markup)
            lines.append(f"| {_code_cell(name)} | {_cell(summary)} |")
        lines.append("")
    for panel, rows in _parameter_rows(command, ctx, markup).items():
        lines += [f"**{panel}**", "", "| name | description |", "|---|---|", *rows, ""]
    return "\n".join(lines)


def _fem_orders_section() -> str:
    """The one naming of FEM orders (``--fem-order``, ``--truth-fem-order``)."""
    from surrogate.fem.hcurl.registry import naming_table

    return "\n".join([
        "## FEM orders", "",
        "Every option that takes a FEM order (`fem convergence --fem-order`, "
        "`evaluate --fem-order`, `gen-data maxwell-td --fem-order`, "
        "`gen-data maxwell-family --truth-fem-order`) uses NGSolve's numbering of its H(curl) "
        "spaces; releases before it called N0 `1` and the complete-linear space `2` (files "
        "and runs written then are read in their own naming, datasets/FORMAT.md).", "",
        naming_table(), ""])


def render_reference(typer_app: typer.Typer = app) -> str:
    """The whole reference as Markdown text (deterministic)."""
    root = typer.main.get_command(typer_app)
    ctx = root.context_class(root, info_name=typer_app.info.name or "surrogate")
    toc = []
    sections = []
    for command, command_ctx in _walk(root, ctx):
        path = command_ctx.command_path
        anchor = re.sub(r"[^a-z0-9 -]", "", path.lower()).replace(" ", "-")
        toc.append(f"- [`{path}`](#{anchor})")
        sections.append(_section(command, command_ctx))
    text = "\n".join([_HEADER.format(command=REGENERATE), *toc, "", _fem_orders_section(),
                      *sections])
    return text.rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """``[--check] [PATH]``: write the reference to PATH, or exit 1 if PATH differs from it."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    if len(paths) > 1 or any(p.startswith("-") for p in paths):
        print("usage: python -m surrogate.cli.reference [--check] [PATH]", file=sys.stderr)
        return 2
    path = Path(paths[0]) if paths else DEFAULT_PATH
    text = render_reference()
    if check:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            print(f"{path} is stale; regenerate it with: {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
