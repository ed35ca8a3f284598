"""Usage errors of the installed command: one line on stderr, exit code 2, no usage box."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "surrogate", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "fragment"), [
    (("fit", "data.h5", "--arch", "transformer"), "'transformer' is not one of"),
    (("fitt",), "No such command 'fitt'"),
    (("fit",), "Missing argument"),
    (("fit", "data.h5", "--depth", "two"), "Invalid value for '--depth'"),
    (("evaluate", "runs/x", "--no-such-flag"), "No such option"),
])
def test_usage_error_is_one_line_exit_2(args, fragment):
    result = _run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and fragment in lines[0]
    assert "--help" in lines[0] and "Traceback" not in result.stderr


def test_help_and_version_still_exit_0():
    assert _run("--version").returncode == 0
    result = _run("validate", "--help")
    assert result.returncode == 0 and "Example" in result.stdout
