"""The bare command line: help and version."""

import subprocess
import sys

from typer.testing import CliRunner

from surrogate import __version__
from surrogate.cli.app import app

runner = CliRunner()


def test_version_prints_package_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "fem" in result.output


def test_python_dash_m_works():
    out = subprocess.run(
        [sys.executable, "-m", "surrogate", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert __version__ in out.stdout


def test_root_import_does_not_load_torch():
    code = "import sys, surrogate.cli.app; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_help_paragraphs_wrap_once_at_the_terminal_width():
    """Docstring lines are joined within a sentence (Rich would keep each source break and
    wrap again at 80 columns); a line ending a sentence keeps its break."""
    from surrogate.cli.app import reflowed

    assert reflowed("a b\n  c d.\n  e f\n\n  g\n  h") == "a b c d.\ne f\n\ng h"
    result = CliRunner().invoke(app, ["predict", "--help"], env={"COLUMNS": "80"})
    lines = [line.strip(" │") for line in result.output.splitlines()]
    assert "A family run takes the problems from --params (sensor values for a `fields`" in lines
    assert all(len(line) <= 80 for line in result.output.splitlines())
