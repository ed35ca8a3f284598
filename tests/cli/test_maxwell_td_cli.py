"""``surrogate gen-data maxwell-td`` through Typer's CliRunner (real FEM, tiny sizes)."""

import json
import sys

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from surrogate.cli.commands import data as data_commands
from surrogate.cli.commands import validate as validate_commands
from surrogate.datasets import read_dataset
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.fem.hcurl.registry import backend_installed

runner = CliRunner()
N0 = ["--fem-backend", "skfem", "--fem-order", "0", "--substeps", "1", "--no-richardson"]
TINY = ["--level", "1", "-n", "6", "--steps", "12", "--dt", "0.2", "--probes", "2",
        "--n-materials", "2", *N0]  # the fast N0 path


def _app() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True)

    @app.callback()
    def _root() -> None:
        """Test root."""

    data_commands.register(app)
    validate_commands.register(app)
    return app


def test_gen_data_maxwell_td_then_info_and_validate(tmp_path):
    out = tmp_path / "data" / "mtd.h5"
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", *TINY, "--signal", "bandlimited",
                                    "--seed", "3", "--dtype", "float32", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "6 sequences × 13 steps, 2 probes" in result.output
    ds = read_dataset(out)
    assert ds.kind == "sequence" and ds.inputs.shape == (6, 13, 4)
    assert ds.targets.shape == (6, 13, 6) and ds.inputs.dtype == np.float32
    assert ds.recipe["signal"] == "bandlimited" and ds.recipe["seed"] == 3
    sidecar = json.loads((tmp_path / "data" / "mtd.h5.json").read_text())
    assert sidecar["content_hash"] == ds.content_hash

    result = runner.invoke(_app(), ["info", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["kind"] == "sequence" and summary["problem"] == "maxwell-td"
    assert summary["input_names"] == ["s", "eps", "mu", "sigma"]
    result = runner.invoke(_app(), ["info", str(out)])
    assert result.exit_code == 0 and "E3_p1" in result.output

    result = runner.invoke(_app(), ["validate", str(out)])
    assert result.exit_code == 0 and result.output.strip() == "OK"


def test_recipe_file_is_overridden_by_flags_and_json_prints_the_summary(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('[recipe]\nlevel = 1\nn = 4\nsteps = 10\nprobes = 1\nn_materials = 1\n'
                      'eps = [1.0, 1.0]\nprobe_points = [[0.3, 0.4, 0.5]]\nseed = 9\n'
                      'fem_backend = "skfem"\nfem_order = 0\nsubsteps = 1\nrichardson = false\n')
    out = tmp_path / "r.h5"
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", "--recipe", str(recipe),
                                    "--steps", "8", "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["inputs_shape"] == [4, 9, 4] and summary["recipe"]["seed"] == 9
    assert summary["recipe"]["probe_points"] == [[0.3, 0.4, 0.5]]
    assert {k: summary["recipe"][k] for k in N0_TD_SETTINGS} == N0_TD_SETTINGS
    assert summary["input_ranges"]["eps"]["min"] == summary["input_ranges"]["eps"]["max"] == 1.0


def test_quiet_prints_nothing(tmp_path):
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", *TINY, "-q",
                                    "-o", str(tmp_path / "q.h5")])
    assert result.exit_code == 0 and result.stdout == ""


@pytest.mark.parametrize(("args", "message"), [
    (["--eps", "2,1"], "recipe eps='2,1': expected 'low,high'"),
    (["--sigma", "-1,0"], "recipe sigma='-1,0'"),
    (["-n", "0"], "recipe n=0: expected int >= 1"),
    (["--dt", "0"], "recipe dt=0.0: expected a finite number > 0"),
    (["--probe-points", "0.5,0.5"], "recipe probe_points='0.5,0.5'"),
    (["--domain", "moon"], "unknown domain 'moon'"),
    (["--source-centre", "5,5,5"], "source centre [5.0, 5.0, 5.0] lies outside the cube"),
])
def test_bad_values_are_one_line_exit_2_and_write_nothing(tmp_path, args, message):
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", *TINY, *args,
                                    "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_defaults_without_ngsolve_are_one_line_naming_the_extra(tmp_path, monkeypatch):
    """The defaults use ngsolve (order 5): without it, exit 2 and one line saying what to
    install, nothing written; the N0 path (skfem) still works."""
    monkeypatch.setitem(sys.modules, "ngsolve", None)  # as if not installed
    assert not backend_installed("ngsolve")
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", "-n", "2", "--steps", "4",
                                    "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'surrogate[ngsolve]'" in lines[0], result.stderr
    assert "the ngsolve FEM backend needs ngsolve, which is not installed" in lines[0]
    assert list(tmp_path.iterdir()) == []
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", *TINY, "-q",
                                    "-o", str(tmp_path / "n0.h5")])
    assert result.exit_code == 0, result.output


def test_help_has_an_example():
    result = runner.invoke(_app(), ["gen-data", "maxwell-td", "--help"])
    assert result.exit_code == 0
    assert "Example: surrogate gen-data maxwell-td" in result.stdout
    assert "--n-materials" in result.stdout and "--probe-points" in result.stdout
