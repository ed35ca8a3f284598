"""``surrogate predict`` end to end through the real app: files, values, bad inputs.

A tiny radial family (6 problems × 40 points) and tiny runs: the separable model and the
`params` ResNet (3 epochs), and a single-problem run.
"""

import h5py
import meshio
import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.evaluation.family.measure import FamilyPredictor
from surrogate.fem.families import get_family
from surrogate.fem.vtk import read_pvd
from surrogate.runs.load import load_run

runner = CliRunner()
TINY = ["--depth", "2", "--width", "8", "--epochs", "3", "--batch-size", "64", "--quiet"]
NAMES = ("k", "a", "b", "alpha", "p", "w")

pytestmark = pytest.mark.usefixtures("single_torch_thread")


def _invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("predict_cli")
    data, single = root / "radial.h5", root / "maxwell.h5"
    for args in (["maxwell-family", "--family", "radial", "--problems", "6", "--points", "40",
                  "--n-volume", "4", "--n-boundary", "2", "--seed", "1", "-o", data],
                 ["maxwell", "-n", "80", "-o", single]):
        result = _invoke("gen-data", *args, "--quiet")
        assert result.exit_code == 0, result.output
    toml = root / "deeponet.toml"
    toml.write_text('[model]\narch = "deeponet"\nbasis = 4\n')
    fits = {"deeponet": [data, "--inputs", "params", "--config", toml],
            "resnet": [data, "--inputs", "params", "--arch", "resnet"],
            "single": [single, "--arch", "resnet"]}
    for name, args in fits.items():
        result = _invoke("fit", *args, "-o", root / name, *TINY)
        assert result.exit_code == 0, result.output
    return {name: root / name for name in fits}


def _params_csv(path, mu, names=NAMES):
    lines = [",".join(names)] + [",".join(repr(float(v)) for v in row) for row in mu]
    path.write_text("\n".join(lines) + "\n")
    return path


def _mu(count, seed=11):
    return get_family("radial").sample(count, seed)


def _one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("arch", ["deeponet", "resnet"])
def test_predict_equals_evaluates_values_and_writes_a_pvd_paraview_reads(runs, tmp_path, arch):
    mu = _mu(5)
    shuffled = [NAMES[i] for i in (3, 0, 5, 1, 4, 2)]  # columns in any order
    csv = _params_csv(tmp_path / "mu.csv", mu[:, [NAMES.index(n) for n in shuffled]], shuffled)
    out, vtk = tmp_path / "u.h5", tmp_path / "vtk"
    result = _invoke("predict", runs[arch], "--params", csv, "--domain", "cube", "--level", "2",
                     "-o", out, "--vtk", vtk)
    assert result.exit_code == 0, result.output
    assert "u of 5 problem(s) at 125 points" in result.stdout
    run = load_run(runs[arch])
    evaluate = FamilyPredictor.from_run("run", run, None)
    family = get_family("radial")
    with h5py.File(out) as fh:
        u, points = fh["u"][()], fh["points"][()]
        np.testing.assert_array_equal(fh["params"][()], mu)
        assert list(fh["params"].attrs["names"]) == list(NAMES)
        assert fh.attrs["run_hash"].startswith("sha256:") and fh.attrs["family"] == "radial"
        assert fh.attrs["dataset_hash"] == run.dataset["content_hash"]
        assert fh["cells"].shape[1] == 4 and u.shape == (5, 125, 3) and u.dtype == np.float32
    expected = np.stack([evaluate(points, family.problem(m)) for m in mu])
    np.testing.assert_allclose(u, expected, rtol=2e-5, atol=2e-6 * np.abs(expected).max())
    entries = read_pvd(vtk / "u.pvd")
    assert [t for t, _ in entries] == [0.0, 1.0, 2.0, 3.0, 4.0]
    for b, (_, name) in enumerate(entries):
        mesh = meshio.read(vtk / name)
        np.testing.assert_allclose(mesh.points, points)
        np.testing.assert_allclose(mesh.point_data["u"], u[b], rtol=1e-6)
        np.testing.assert_allclose(mesh.point_data["u_magnitude"],
                                   np.linalg.norm(u[b], axis=1), rtol=1e-6)


def test_level_0_of_the_cube_is_its_8_corners_and_other_domains_start_at_1(runs, tmp_path):
    """The cube has a level 0 (one cell, 6 tets): predict takes it, with evaluate's values."""
    mu = _mu(2)
    out = tmp_path / "u.h5"
    result = _invoke("predict", runs["resnet"], "--params", _params_csv(tmp_path / "mu.csv", mu),
                     "--domain", "cube", "--level", "0", "-o", out)
    assert result.exit_code == 0, result.output
    assert "u of 2 problem(s) at 8 points (cube level 0 nodes)" in result.stdout
    evaluate = FamilyPredictor.from_run("run", load_run(runs["resnet"]), None)
    family = get_family("radial")
    with h5py.File(out) as fh:
        u, points, cells = fh["u"][()], fh["points"][()], fh["cells"][()]
    assert cells.shape == (6, 4) and u.shape == (2, 8, 3)
    assert sorted(map(tuple, points.tolist())) == [(x, y, z) for x in (0.0, 1.0)
                                                   for y in (0.0, 1.0) for z in (0.0, 1.0)]
    expected = np.stack([evaluate(points, family.problem(m)) for m in mu])
    np.testing.assert_allclose(u, expected, rtol=2e-5, atol=2e-6 * np.abs(expected).max())
    _one_line_error(_invoke("predict", runs["resnet"], "--params", tmp_path / "mu.csv",
                            "--domain", "cylinder", "--level", "0", "-o", tmp_path / "c.h5"),
                    "mesh level must be an integer >= 1, got 0")
    _one_line_error(_invoke("predict", runs["resnet"], "--params", tmp_path / "mu.csv",
                            "--domain", "cube", "--level", "-1", "-o", tmp_path / "c.h5"),
                    "level must be an integer >= 0, got -1")


def test_points_from_csv_npy_and_hdf5_and_float64(runs, tmp_path):
    points = np.random.default_rng(0).uniform(0, 1, (7, 3))
    (tmp_path / "p.csv").write_text("x,y,z\n" + "\n".join(",".join(repr(float(v)) for v in p)
                                                          for p in points))
    np.save(tmp_path / "p.npy", points)
    with h5py.File(tmp_path / "p.h5", "w") as fh:
        fh["probes"] = points
        fh["other"] = np.zeros(2)
    np.save(tmp_path / "mu.npy", _mu(2))
    results = []
    for spec in ("p.csv", "p.npy", "p.h5:probes"):
        out = tmp_path / f"{spec.split('.')[1][:3]}.h5"
        result = _invoke("predict", runs["deeponet"], "--params", tmp_path / "mu.npy",
                         "--points", f"{tmp_path / spec}", "--dtype", "float64", "-o", out)
        assert result.exit_code == 0, result.output
        with h5py.File(out) as fh:
            np.testing.assert_array_equal(fh["points"][()], points)
            assert "cells" not in fh and fh["u"].dtype == np.float64
            results.append(fh["u"][()])
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


def test_a_single_problem_run_predicts_its_own_problem(runs, tmp_path):
    result = _invoke("predict", runs["single"], "--domain", "cube", "--level", "1", "-o",
                     tmp_path / "u.h5", "--json")
    assert result.exit_code == 0, result.output
    with h5py.File(tmp_path / "u.h5") as fh:
        assert fh["u"].shape == (1, 27, 3) and "params" not in fh
    _one_line_error(_invoke("predict", runs["single"], "--params", _params_csv(
        tmp_path / "mu.csv", _mu(1)), "--domain", "cube", "-o", tmp_path / "v.h5"),
        "trained on one problem")


def test_parameters_outside_the_box_warn_per_row_and_strict_refuses(runs, tmp_path):
    mu = _mu(3)
    mu[0, 0] = 2.5  # k: box [0.5, 2]
    mu[2, 4] = -3.0  # p: box [-2, 2]
    csv = _params_csv(tmp_path / "mu.csv", mu)
    result = _invoke("predict", runs["deeponet"], "--params", csv, "--domain", "cube",
                     "--level", "1", "-o", tmp_path / "u.h5")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert "row 1" in warnings[0] and "k = 2.5 is 0.5 above 2" in warnings[0]
    assert "row 3" in warnings[1] and "p = -3 is 1 below -2 (25 % of the box width)" \
        in warnings[1]
    out = tmp_path / "strict.h5"
    _one_line_error(_invoke("predict", runs["deeponet"], "--params", csv, "--domain", "cube",
                            "-o", out, "--strict"), "--strict", "row 1", "1 more row")
    assert not out.exists()


@pytest.mark.parametrize("case, fragment", [
    ("columns", "5 columns, expected 6 parameters"),
    ("nan", "row 2, parameter a: nan is not a finite number"),
    ("unknown", "unknown kappa; missing k"),
    ("missing-file", "no such file"),
    ("text", "is not a number"),
    ("no-points", "either --domain (and --level) or --points"),
    ("both-points", "either --domain (and --level) or --points"),
    ("bad-points", "points need 3 columns"),
    ("no-run", "does not exist"),
    ("suffix", "the output is an HDF5 file"),
])
def test_bad_inputs_are_one_line_and_exit_2(runs, tmp_path, case, fragment):
    good = _params_csv(tmp_path / "mu.csv", _mu(2))
    args = {"params": good, "where": ["--domain", "cube", "--level", "1"],
            "run": runs["deeponet"], "out": tmp_path / "u.h5"}
    if case == "columns":
        np.save(tmp_path / "mu.npy", _mu(2)[:, :5])
        args["params"] = tmp_path / "mu.npy"
    elif case == "nan":
        mu = _mu(2)
        mu[1, 1] = np.nan
        args["params"] = _params_csv(tmp_path / "nan.csv", mu)
    elif case == "unknown":
        args["params"] = _params_csv(tmp_path / "bad.csv", _mu(1), ("kappa", *NAMES[1:]))
    elif case == "missing-file":
        args["params"] = tmp_path / "absent.csv"
    elif case == "text":
        (tmp_path / "text.csv").write_text("k,a,b,alpha,p,w\n1,2,x,1,0,0\n")
        args["params"] = tmp_path / "text.csv"
    elif case == "no-points":
        args["where"] = []
    elif case == "both-points":
        np.save(tmp_path / "p.npy", np.zeros((2, 3)))
        args["where"] += ["--points", tmp_path / "p.npy"]
    elif case == "bad-points":
        np.save(tmp_path / "p.npy", np.zeros((2, 2)))
        args["where"] = ["--points", tmp_path / "p.npy"]
    elif case == "no-run":
        args["run"] = tmp_path / "no-such-run"
    elif case == "suffix":
        args["out"] = tmp_path / "u.csv"
    problems = ["--params", args["params"]]
    result = _invoke("predict", args["run"], *problems, *args["where"], "-o", args["out"])
    _one_line_error(result, fragment)
    assert not (tmp_path / "u.h5").exists()


def test_the_pvd_series_opens_in_vtks_own_reader(runs, tmp_path):
    """ParaView's reader (VTK's vtkPVDReader, through pyvista): one time step per problem."""
    pv = pytest.importorskip("pyvista")
    csv = _params_csv(tmp_path / "mu.csv", _mu(3))
    result = _invoke("predict", runs["deeponet"], "--params", csv, "--domain", "cube",
                     "--level", "1", "-o", tmp_path / "u.h5", "--vtk", tmp_path / "vtk")
    assert result.exit_code == 0, result.output
    reader = pv.get_reader(str(tmp_path / "vtk" / "u.pvd"))
    assert list(reader.time_values) == [0.0, 1.0, 2.0]
    reader.set_active_time_value(2.0)
    mesh = reader.read()[0]
    with h5py.File(tmp_path / "u.h5") as fh:
        np.testing.assert_allclose(mesh.point_data["u"], fh["u"][2], rtol=1e-6)
    assert mesh.n_cells == 48 and {"u", "u_magnitude"} <= set(mesh.array_names)
