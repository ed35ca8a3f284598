"""Fixtures shared by the training tests."""

import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    """A 60-sample Maxwell dataset written by the command line."""
    path = tmp_path_factory.mktemp("data") / "maxwell.h5"
    done = subprocess.run([sys.executable, "-m", "surrogate", "gen-data", "maxwell", "-n", "60",
                           "-o", str(path), "--quiet"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return path
