"""Fixtures shared by the training tests."""

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app


def gen_data(path, *args) -> None:
    """Write a dataset with the command line, in this process (no torch import to pay again)."""
    result = CliRunner().invoke(app, ["gen-data", *map(str, args), "-o", str(path), "--quiet"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="session")
def data_file(tmp_path_factory):
    """A 60-sample Maxwell dataset written by the command line (read only: one per session)."""
    path = tmp_path_factory.mktemp("data") / "maxwell.h5"
    gen_data(path, "maxwell", "-n", "60")
    return path
