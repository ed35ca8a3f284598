"""``surrogate gen-data fitzhugh-nagumo`` and ``gen-data adding`` end to end (tiny sizes)."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.datasets import read_dataset

runner = CliRunner()


def _gen(command: str, *args: str) -> dict:
    result = runner.invoke(app, ["gen-data", command, *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_adding_end_to_end_with_info_and_validate(tmp_path):
    out = tmp_path / "adding.h5"
    summary = _gen("adding", "--length", "64", "--n-train", "10", "--n-val", "2", "--n-test",
                   "3", "--seed", "4", "-o", str(out))
    assert summary["inputs_shape"] == [15, 64, 2] and summary["targets_shape"] == [15, 1, 1]
    assert summary["readout"] == "last" and summary["recipe"]["length"] == 64
    assert json.loads((tmp_path / "adding.h5.json").read_text()) == summary
    ds = read_dataset(out)
    assert np.array_equal(ds.inputs[..., 1].sum(axis=1), np.full(15, 2.0))
    result = runner.invoke(app, ["info", str(out)])
    assert result.exit_code == 0 and "targets (15, 1, 1): sum" in result.stdout
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output
    again = _gen("adding", "-T", "64", "--n-train", "10", "--n-val", "2", "--n-test", "3",
                 "--seed", "4", "-o", str(tmp_path / "again.h5"))
    assert again["content_hash"] == summary["content_hash"]


def test_fitzhugh_nagumo_recipe_file_flags_and_quiet(tmp_path):
    recipe = tmp_path / "fhn.toml"
    recipe.write_text("[recipe]\nt_end = 20.0\nsteps = 50\nn_train = 4\nseed = 2\n")
    out = tmp_path / "fhn.h5"
    result = runner.invoke(app, ["gen-data", "fitzhugh-nagumo", "--recipe", str(recipe),
                                 "--n-val", "1", "--n-test", "2", "-o", str(out), "-q"])
    assert result.exit_code == 0 and result.stdout == ""
    ds = read_dataset(out)
    assert ds.inputs.shape == ds.targets.shape == (7, 50, 1) and ds.readout == "sequence"
    assert (ds.recipe["t_end"], ds.recipe["n_train"], ds.recipe["n_val"]) == (20.0, 4, 1)
    assert ds.seed == 2 and ds.input_names == ("v",) and ds.target_names == ("v_next",)
    np.testing.assert_allclose(ds.time, np.arange(50) * 0.4)
    result = runner.invoke(app, ["info", str(out), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["problem"] == "fitzhugh-nagumo"
    result = runner.invoke(app, ["gen-data", "fitzhugh-nagumo", "--recipe", str(recipe),
                                 "--n-val", "0", "--n-test", "0", "-o", str(out)])
    assert result.exit_code == 0 and f"wrote {out} (fitzhugh-nagumo: train 4" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["adding", "--length", "1"], "recipe length=1: expected int >= 2"),
    (["adding", "--n-val", "-1"], "recipe n_val=-1: expected int >= 0"),
    (["fitzhugh-nagumo", "--n-train", "0"], "recipe n_train=0: expected int >= 1"),
    (["fitzhugh-nagumo", "--steps", "0"], "recipe steps=0: expected int >= 1"),
    (["adding", "--length", "ten"], "Invalid value for '--length'"),
])
def test_bad_values_are_one_line_exit_2_and_write_nothing(tmp_path, args, message):
    result = runner.invoke(app, ["gen-data", *args, "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2
    if "Invalid value" in message:  # click's usage error (one line in the installed command)
        assert message in result.output
    else:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0], result.stderr
    assert list(tmp_path.iterdir()) == []


def test_bad_recipe_file_value_is_one_line(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text("rtol = 0.0\n")
    result = runner.invoke(app, ["gen-data", "fitzhugh-nagumo", "--recipe", str(recipe),
                                 "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2 and "recipe rtol=0.0: expected float > 0" in result.stderr


@pytest.mark.parametrize(("command", "example"), [
    ("fitzhugh-nagumo", "Example: surrogate gen-data fitzhugh-nagumo -o data/fhn.h5"),
    ("adding", "Example: surrogate gen-data adding --length 5000"),
])
def test_help_has_an_example(command, example):
    result = runner.invoke(app, ["gen-data", command, "--help"])
    assert result.exit_code == 0 and example in result.stdout
    assert "--n-train" in result.stdout and "--seed" in result.stdout
