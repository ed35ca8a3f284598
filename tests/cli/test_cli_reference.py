"""docs/cli.md is the generated CLI reference: current, complete and terminal-independent."""

from pathlib import Path

import typer.main

from surrogate.cli.app import app
from surrogate.cli.reference import REGENERATE, main, render_reference

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_is_current():
    current = DOCS.read_text(encoding="utf-8") if DOCS.is_file() else ""
    assert current == render_reference(), f"docs/cli.md is stale; run: {REGENERATE}"


def _command_paths(command, prefix):
    yield prefix
    for name, sub in getattr(command, "commands", {}).items():
        if not sub.hidden:
            yield from _command_paths(sub, f"{prefix} {name}")


def test_every_command_and_option_is_documented():
    text = render_reference()
    root = typer.main.get_command(app)
    paths = list(_command_paths(root, "surrogate"))
    assert "surrogate gen-data maxwell" in paths and "surrogate fit" in paths
    for path in paths:
        assert f"## `{path}`" in text and f"Usage: {path} " in text
    fit = text.split("## `surrogate fit`")[1].split("\n## ")[0]
    arch = next(line for line in fit.splitlines() if line.startswith("| `--arch <"))
    assert "frac-dnn\\|" in arch or "\\|frac-dnn" in arch
    assert "[default: 4000]" in fit  # --epochs


def test_output_is_plain_and_independent_of_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    wide = render_reference()
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert render_reference() == wide
    assert "\x1b[" not in wide and "\\[" not in wide


def test_check_mode_reports_a_stale_file(tmp_path, capsys):
    path = tmp_path / "cli.md"
    assert main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == render_reference()
    assert main(["--check", str(path)]) == 0
    path.write_text("# old\n", encoding="utf-8")
    assert main(["--check", str(path)]) == 1
    assert REGENERATE in capsys.readouterr().err
