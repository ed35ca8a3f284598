"""``surrogate gen-data toy`` end to end: gen-data toy → fit → metrics/summary/info accuracy."""

import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.datasets import read_dataset

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("single_torch_thread")


def _gen(*args: str) -> dict:
    result = runner.invoke(app, ["gen-data", "toy", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_circles_fit_reaches_high_test_accuracy(tmp_path):
    data = tmp_path / "circles.h5"
    summary = _gen("circles", "-o", str(data), "--seed", "0")
    assert summary["splits"] == {"train": 400, "val": 0, "test": 400}
    assert summary["target_names"] == ["class0", "class1"]
    assert read_dataset(data).attrs["classes"] == 2
    tic = time.perf_counter()
    result = runner.invoke(app, ["fit", str(data), "-o", str(tmp_path / "run"), "--depth", "2",
                                 "--width", "16", "--epochs", "150", "--lr", "0.03",
                                 "--batch-size", "400"])  # full batch: about 1 s
    seconds = time.perf_counter() - tic
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    accuracy = metrics["accuracy"]
    assert accuracy["val"] is None and 0.0 <= accuracy["train"] <= 1.0
    # σ = 0.2 on radii 1 and 2: the Bayes accuracy is about 99.4% (seeds 0-4 reach 98.5-99.75%)
    assert accuracy["test"] >= 0.97, (accuracy, seconds)
    assert f"accuracy  train {accuracy['train']:.2%}, test {accuracy['test']:.2%}" in result.stdout

    result = runner.invoke(app, ["info", str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["metrics"]["accuracy"] == accuracy
    result = runner.invoke(app, ["info", str(tmp_path / "run")])
    assert f"accuracy train {accuracy['train']:.2%}" in result.stdout

    # pruning re-measures the accuracy of the pruned network (nothing pruned at tol 0)
    result = runner.invoke(app, ["prune", str(tmp_path / "run"), "--prune-tol", "0", "-q"])
    assert result.exit_code == 0, result.output
    pruned = json.loads((tmp_path / "run-pruned" / "metrics.json").read_text())
    assert pruned["accuracy"] == pytest.approx(accuracy)
    # evaluate compares with FEM: toy runs are refused in one line
    result = runner.invoke(app, ["evaluate", str(tmp_path / "run"), "--levels", "1"])
    assert result.exit_code == 2 and "no FEM baseline" in result.stderr


def test_sine_regression_run_has_null_accuracy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # default output: data/<NAME>.h5
    summary = _gen("sine", "--n-train", "30", "--n-val", "0", "--n-test", "11", "--noise", "0.01")
    assert summary["path"] == "data/sine.h5" and (tmp_path / "data" / "sine.h5.json").is_file()
    assert summary["recipe"]["noise"] == 0.01 and summary["inputs_shape"] == [41, 1]
    result = runner.invoke(app, ["fit", "data/sine.h5", "-o", "run", "--depth", "2",
                                 "--width", "4", "--epochs", "2"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["accuracy"] is None
    assert "accuracy" not in result.stdout


@pytest.mark.parametrize("name", ["spirals", "bands"])
def test_seed_makes_the_file_content_reproducible(tmp_path, name):
    a = _gen(name, "-o", str(tmp_path / "a.h5"), "--seed", "5", "--noise", "0.01")
    b = _gen(name, "-o", str(tmp_path / "b.h5"), "--seed", "5", "--noise", "0.01")
    c = _gen(name, "-o", str(tmp_path / "c.h5"), "--seed", "6", "--noise", "0.01")
    assert a["content_hash"] == b["content_hash"] != c["content_hash"]
    ds = read_dataset(tmp_path / "a.h5")
    assert np.array_equal(ds.targets.sum(axis=1), np.ones(len(ds.targets)))


def test_quiet_prints_nothing_and_recipe_file_is_overridden_by_flags(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "bands"\nn_train = 8\nn_test = 4\nseed = 1\n')
    result = runner.invoke(app, ["gen-data", "toy", "bands", "--recipe", str(recipe),
                                 "--n-test", "12", "-o", str(tmp_path / "b.h5"), "-q"])
    assert result.exit_code == 0 and result.stdout == ""
    ds = read_dataset(tmp_path / "b.h5")
    assert ds.recipe["n_train"] == 8 and ds.recipe["n_test"] == 12 and ds.recipe["seed"] == 1


def test_spirals_with_only_n_train_takes_as_many_validation_points(tmp_path):
    summary = _gen("spirals", "--n-train", "257", "-o", str(tmp_path / "s.h5"))
    assert summary["splits"] == {"train": 257, "val": 257, "test": 512}


@pytest.mark.parametrize(("args", "message"), [
    (["moons"], "unknown toy dataset 'moons'; choose one of: sine, spirals, bands, circles"),
    (["spirals", "--n-val", "3"], "spirals: n_val=3 must be 0 or n_train=513"),
    (["circles", "--n-train", "0"], "recipe n_train=0: expected int >= 1"),
    (["circles", "--noise", "-1"], "recipe noise=-1.0: expected float >= 0"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, message):
    result = runner.invoke(app, ["gen-data", "toy", *args, "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert list(tmp_path.iterdir()) == []


def test_help_has_an_example():
    result = runner.invoke(app, ["gen-data", "toy", "--help"])
    assert result.exit_code == 0
    assert "Example: surrogate gen-data toy circles" in result.stdout
    assert "--n-train" in result.stdout and "--noise" in result.stdout
