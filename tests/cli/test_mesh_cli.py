"""`surrogate mesh generate|check` and mesh files as --domain through CliRunner."""

import json
import sys
from pathlib import Path

import meshio
import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
CYLINDER_MSH = ROOT / "tests" / "data" / "gmsh_cylinder.msh"
TET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])


def _one_line_exit_2(result, *needles):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert all(n in lines[0] for n in needles), lines[0]


def test_generate_makes_a_mesh_that_check_and_fem_accept(tmp_path):
    pytest.importorskip("gmsh")
    out = tmp_path / "cyl.msh"
    result = runner.invoke(app, ["mesh", "generate", str(ROOT / "examples/geometry/cylinder.geo"),
                                 "-o", str(out), "--h", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["tetrahedra"] > 50 and out.is_file() and not list(tmp_path.glob(".*"))
    check = runner.invoke(app, ["mesh", "check", str(out), "--json"])
    assert check.exit_code == 0, check.output
    facts = json.loads(check.output)
    assert facts["tetrahedra"] == summary["tetrahedra"] and facts["regions"] == [1]
    assert abs(facts["volume"] - np.pi) < 0.15 * np.pi  # h = 0.5 polygon inscribed in r = 1


def test_generate_without_gmsh_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gmsh", None)  # `import gmsh` raises ImportError
    result = runner.invoke(app, ["mesh", "generate", str(ROOT / "examples/geometry/cylinder.geo"),
                                 "-o", str(tmp_path / "x.msh")])
    _one_line_exit_2(result, "pip install 'surrogate[meshing]'")


def test_generate_refuses_a_bad_geo_in_one_line(tmp_path):
    pytest.importorskip("gmsh")
    geo = tmp_path / "bad.geo"
    geo.write_text("this is not gmsh;\n")
    result = runner.invoke(app, ["mesh", "generate", str(geo), "-o", str(tmp_path / "x.msh")])
    _one_line_exit_2(result, "bad.geo")
    assert not (tmp_path / "x.msh").exists()


def test_fem_convergence_on_a_mesh_file(tmp_path):
    result = runner.invoke(app, ["fem", "convergence", "--domain", str(CYLINDER_MSH),
                                 "--levels", "1-2", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert rows[1]["l2_rate"] >= 0.9 and rows[1]["n_tets"] == 8 * rows[0]["n_tets"]


def _malformed(tmp_path, case):
    p, t = TET.copy(), [[0, 1, 2, 3]]
    if case == "nan":
        p[2, 2] = np.nan
    elif case == "duplicate":
        p, t = np.vstack([p, p[3], [1, 1, 1]]), [[0, 1, 2, 3], [1, 2, 4, 5]]
    elif case == "degenerate":
        p[3] = [0.3, 0.3, 0.0]
    elif case == "inverted":
        p, t = np.vstack([p, [0.2, 0.2, 0.5]]), [[0, 1, 2, 3], [1, 2, 3, 4]]
    elif case == "disconnected":
        p, t = np.vstack([p, p + 5]), [[0, 1, 2, 3], [4, 5, 6, 7]]
    path = tmp_path / f"{case}.msh"
    cells = [("tetra", np.array(t))] if case != "empty" else [("triangle", np.array([[0, 1, 2]]))]
    meshio.write(path, meshio.Mesh(p, cells), file_format="gmsh")
    return path


@pytest.mark.parametrize("case", ["nan", "duplicate", "degenerate", "inverted", "disconnected",
                                  "empty", "truncated"])
def test_each_malformed_mesh_ends_in_one_line_exit_2(tmp_path, case):
    path = _malformed(tmp_path, "nan" if case == "truncated" else case)
    if case == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    for argv in (["fem", "convergence", "--domain", str(path), "--levels", "1"],
                 ["mesh", "check", str(path)],
                 ["gen-data", "maxwell", "--domain", str(path), "-n", "10",
                  "-o", str(tmp_path / "d.h5")]):
        _one_line_exit_2(runner.invoke(app, argv), str(path))


def test_unknown_suffix_and_missing_file(tmp_path):
    _one_line_exit_2(runner.invoke(app, ["mesh", "check", str(tmp_path / "part.stl")]),
                     "unknown mesh file suffix '.stl'")
    _one_line_exit_2(runner.invoke(app, ["fem", "convergence", "--domain",
                                         str(tmp_path / "none.msh")]), "no such mesh file")


def test_gen_data_on_a_mesh_file_samples_inside_it(tmp_path):
    out = tmp_path / "d.h5"
    result = runner.invoke(app, ["gen-data", "maxwell", "--domain", str(CYLINDER_MSH), "-n",
                                 "200", "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    from surrogate.datasets import read_dataset

    data = read_dataset(out)
    x = data.inputs[:, :3]
    assert np.all(np.hypot(x[:, 0], x[:, 1]) <= 1 + 1e-12) and x[:, 2].min() >= 0
