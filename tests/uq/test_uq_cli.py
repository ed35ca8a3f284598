"""``surrogate uq RUN`` through the real app (here beside the UQ tests for their shared tiny
run): a study writes uq.json; bad input is one line on stderr and exit code 2."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

pytestmark = pytest.mark.usefixtures("single_torch_thread")
runner = CliRunner()
CHEAP = ["--fem-order", "0", "--fem-level", "1", "--domain", "cylinder", "--pilot", "5"]


def _invoke(*args):
    return runner.invoke(app, ["uq", *map(str, args)])


def test_a_study_writes_uq_json(radial_run, tmp_path):
    out = tmp_path / "uq"
    result = _invoke(radial_run.path, "--qoi", "energy", "--qoi", "probe:0.2,0.1,0.5",
                     "--qoi", "field",
                     "--rse", "0.2", "--seed", "4", *CHEAP, "--sobol", "--sobol-samples", "256",
                     "--sobol-fem-samples", "4",
                     "-o", out)
    assert result.exit_code == 0, result.output
    record = json.loads((out / "uq.json").read_text())
    assert record["format"] == "surrogate-uq" and record["family"] == "radial"
    assert record["high_fidelity"]["label"] == "skfem order 0 (N0)"
    assert record["high_fidelity"]["chosen_by"]["source"] == "default and options"
    assert list(record["quantities"]) == ["energy"] + [f"probe:0.2,0.1,0.5:u{c}"
                                                       for c in (1, 2, 3)]
    assert record["options"]["seed"] == 4 and record["pilot"]["samples"] == 5
    assert record["distribution"]["k"]["distribution"] == "uniform"
    assert "E[energy] = " in result.output and "wrote " in result.output
    sobol = record["sobol"]
    assert sobol["model"] == "surrogate" and sobol["evaluations"] == 256 * 8
    assert list(sobol["quantities"]) == list(record["quantities"])
    energy = sobol["quantities"]["energy"]
    assert set(energy["S1"]) == {"k", "a", "b", "alpha", "p", "w"}
    assert all(-0.2 < energy["S1"][p]["index"] <= energy["ST"][p]["index"] + 0.1
               for p in energy["S1"])
    fem = sobol["high_fidelity"]
    assert fem["base_samples"] == 4 and fem["evaluations"] == 4 * 8
    assert set(fem["quantities"]) == set(fem["surrogate_on_same_sample"]) == set(sobol[
        "quantities"])
    assert all(0.0 <= d[k] for d in fem["largest_difference"].values() if d for k in d)
    assert "Sobol S1/ST of energy (surrogate): k " in result.output
    assert "FEM on 4 rows: k " in result.output
    field = record["field"]
    assert field["pvd"] == "field.pvd" and field["nodes"] == 57  # the cylinder's level 1
    assert "field: mean and standard deviation of u at 57 nodes" in result.output
    import meshio

    mesh = meshio.read(out / field["vtu"])
    assert set(mesh.point_data) == set(field["point_data"]) and len(mesh.points) == 57
    assert np.isfinite(mesh.point_data["u_mean"]).all()
    assert (mesh.point_data["u_std_surrogate"] >= 0).all()
    assert record["quantities"]["energy"]["standard_deviation"]["surrogate"] > 0
    page = (out / "index.html").read_text()
    assert "Allocation" in page and "Sobol indices" in page and "field.pvd" in page
    for figure in ("convergence_0.png", "cost.png", "sobol_0.png"):
        assert (out / figure).stat().st_size > 1000 and figure in page
    trace = record["quantities"]["energy"]["convergence"]
    assert trace[-1]["k"] == record["allocation"]["high_samples"]
    assert trace[-1]["mfmc"] == record["quantities"]["energy"]["mfmc"]


def test_a_distribution_file_is_used_and_checked(radial_run, tmp_path):
    dist = tmp_path / "dist.toml"
    dist.write_text('[k]\ndistribution = "truncnorm"\na = -2.0\nb = 2.0\nloc = 1.2\n'
                    'scale = 0.2\n[alpha]\ndistribution = "norm"\nloc = 1.0\nscale = 0.3\n')
    result = _invoke(radial_run.path, "--rse", "0.5", "--dist", dist, *CHEAP, "--json")
    assert result.exit_code == 0, result.output
    assert "parameter alpha: " in result.stderr and "outside the training box" in result.stderr
    record = json.loads(result.stdout)
    assert record["distribution"]["k"] == {"distribution": "truncnorm", "a": -2.0, "b": 2.0,
                                           "loc": 1.2, "scale": 0.2}
    refused = _invoke(radial_run.path, "--rse", "0.5", "--dist", dist, "--strict", *CHEAP)
    _one_line_error(refused, "parameter alpha: ")


def _one_line_error(result, fragment):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0], \
        result.stderr


@pytest.mark.parametrize("args, fragment", [
    (["--qoi", "energie", "--rse", "0.1"], "unknown quantity 'energie'"),
    (["--budget", "1e-6"], "too small for the pilot"),
    (["--rse", "0.1", "--fem-backend", "nosuch"], "unknown FEM backend 'nosuch'"),
    (["--rse", "0.1", "--fem-order", "7"], "unknown FEM order 7"),
    (["--rse", "0.1", "--fem-level", "0", "--domain", "cylinder"], "FEM level 0"),
    ([], "give either --rse"),
    (["--rse", "0.1", "--evaluation", "nosuch.json"], "not a family evaluation.json"),
    (["--rse", "0.1", "--fem-backend", "ngsolve", "--fem-maxh", "0.5"],
     "no fitted geometry"),
    (["--rse", "0.1", "--fem-maxh", "-1"], "--fem-maxh"),
])
def test_bad_input_is_one_line_exit_2(radial_run, args, fragment):
    _one_line_error(_invoke(radial_run.path, *args), fragment)
