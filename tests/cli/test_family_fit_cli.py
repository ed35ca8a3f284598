"""``surrogate fit --inputs pointwise|params|fields`` on a problem-family file, end to end."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
TINY = ["--depth", "2", "--width", "8", "--epochs", "3", "--batch-size", "64", "--quiet"]

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def family_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("family") / "radial.h5"
    result = runner.invoke(app, ["gen-data", "maxwell-family", "--family", "radial",
                                 "--problems", "5", "--points", "30", "--n-volume", "4",
                                 "--n-boundary", "2", "--seed", "1", "-o", str(path),
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def single_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("single") / "maxwell.h5"
    result = runner.invoke(app, ["gen-data", "maxwell", "-n", "60", "-o", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize("kind, width", [("pointwise", 7), ("params", 9), ("fields", 25)])
def test_fit_writes_the_inputs_kind_and_the_family(family_file, tmp_path, kind, width):
    out = tmp_path / kind
    result = runner.invoke(app, ["fit", str(family_file), "--inputs", kind, "--code-size", "3",
                                 "--encoder-width", "5", "-o", str(out), *TINY])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["inputs"] == kind
    assert config["model"]["code_size"] == 3 and config["model"]["encoder_width"] == 5
    assert config["model"]["in_features"] == width
    assert len(config["normalisation"]["input_mean"]) == width
    dataset = config["dataset"]
    assert dataset["family"] == "radial" and len(dataset["param_names"]) == 6
    assert np.shape(dataset["sensors"]["volume_points"]) == (4, 3)
    assert np.shape(dataset["sensors"]["boundary_normals"]) == (2, 3)
    assert dataset["generation_seconds"] > 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["train_seconds"] > 0


@pytest.mark.parametrize("kind", ["params", "fields"])
def test_family_inputs_on_a_single_problem_file_is_one_line_exit_2(single_file, tmp_path,
                                                                    kind):
    result = runner.invoke(app, ["fit", str(single_file), "--inputs", kind, "-o",
                                 str(tmp_path / "r"), *TINY])
    assert result.exit_code == 2
    assert "single problem" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r" / "model.pt").exists()


def test_unknown_inputs_kind_is_exit_2(family_file, tmp_path):
    result = runner.invoke(app, ["fit", str(family_file), "--inputs", "sensors", "-o",
                                 str(tmp_path / "r"), *TINY])
    assert result.exit_code == 2


def test_help_shows_the_family_inputs_panel():
    result = runner.invoke(app, ["fit", "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0
    for text in ("Family inputs", "--inputs", "--encoder-width", "--code-size",
                 "--inputs params"):
        assert text in result.stdout
