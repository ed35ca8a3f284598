"""`surrogate gen-data maxwell` and `surrogate info` through Typer's CliRunner (real FEM)."""

import json

import h5py
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from surrogate.cli.commands import data as data_commands
from surrogate.datasets import read_dataset
from surrogate.fem.problems import get_problem

runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True)

    @app.callback()
    def _root() -> None:
        """Test root."""

    data_commands.register(app)
    return app


def test_gen_data_then_info(tmp_path):
    out = tmp_path / "data" / "m.h5"
    args = ["gen-data", "maxwell", "--domain", "cube", "-n", "400", "--seed", "4",
            "--split", "0.5,0.25,0.25", "--dtype", "float32", "-o", str(out)]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    ds = read_dataset(out)
    assert ds.inputs.shape == (400, 7) and ds.inputs.dtype == np.float32
    assert [ds.splits[k].size for k in ("train", "val", "test")] == [200, 100, 100]
    sidecar = json.loads((tmp_path / "data" / "m.h5.json").read_text())
    assert sidecar["content_hash"] == ds.content_hash

    result = runner.invoke(_app(), ["info", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["inputs_shape"] == [400, 7] and summary["recipe"]["seed"] == 4
    assert 0 <= summary["input_ranges"]["x1"]["min"] <= summary["input_ranges"]["x1"]["max"] <= 1

    result = runner.invoke(_app(), ["info", str(out)])
    assert result.exit_code == 0
    for text in ("pointwise", "u1", "train 200", ds.content_hash, "phi"):
        assert text in result.output


def test_gen_data_fem_source_on_the_cylinder(tmp_path):
    out = tmp_path / "f.h5"
    args = ["gen-data", "maxwell", "--domain", "cylinder", "--source", "fem", "--level", "2",
            "-n", "300", "-o", str(out), "--quiet"]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 0, result.output
    ds = read_dataset(out)
    assert ds.recipe["source"] == "fem" and ds.inputs.shape == (300, 7)
    x = ds.inputs[:, :3]
    assert (x[:, 0] ** 2 + x[:, 1] ** 2).max() <= 1.0  # every sample inside the curved mesh
    with h5py.File(out) as fh:
        assert fh["mesh/cells"].shape[1] == 4 and fh["fem/dofs"].ndim == 1
    exact = get_problem("maxwell").u(x)
    rel = np.linalg.norm(ds.targets - exact) / np.linalg.norm(exact)
    assert 1e-3 < rel < 0.15, rel  # a level-2 N0 field: close to u, but not u itself


def test_recipe_file_and_flag_override(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('domain = "cube"\nn = 50\nseed = 9\n')
    out = tmp_path / "r.h5"
    args = ["gen-data", "maxwell", "--recipe", str(recipe), "-n", "30", "-o", str(out), "--quiet"]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 0, result.output
    assert result.output == ""
    ds = read_dataset(out)
    assert ds.inputs.shape[0] == 30 and ds.seed == 9


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--domain", "cubee", "unknown domain 'cubee'"),
    ("--split", "0.8,0.3,0.1", "--split"),
    ("--split", "0.8,0.2", "--split"),
])
def test_bad_options_exit_2_one_line(tmp_path, flag, value, message):
    out = tmp_path / "x.h5"
    args = ["gen-data", "maxwell", "--domain", "cube", "-n", "10", "-o", str(out), flag, value]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_info_on_corrupt_file_one_line(tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_text("not hdf5")
    result = runner.invoke(_app(), ["info", str(bad)])
    assert result.exit_code == 2
    assert "not an HDF5 file" in result.output and len(result.output.strip().splitlines()) == 1


def test_help_has_examples():
    for args in (["gen-data", "maxwell", "--help"], ["info", "--help"]):
        result = runner.invoke(_app(), args)
        assert result.exit_code == 0 and "Example:" in result.output
