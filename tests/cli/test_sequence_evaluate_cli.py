"""``surrogate evaluate`` on a sequence run through the real app: gen-data maxwell-td → fit
lem → evaluate with --plots, --vtk and --report; options of the other kind of run, bad values
and another dataset exit 2 with one line; --help shows a sequence example."""

import json

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.fem.vtk import read_pvd

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("single_torch_thread")
N0 = ["--fem-backend", "skfem", "--fem-order", "0", "--substeps", "1", "--no-richardson"]
TINY = ["--level", "1", "-n", "6", "--steps", "12", "--dt", "0.1", "--probes", "2",
        "--n-materials", "2", "--delay", "0.3,0.8", "--split", "0.5,0.25,0.25",
        *N0]  # the fast N0 path


def _invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def seq_run(tmp_path_factory):
    """gen-data maxwell-td (6 sequences of 13 steps) and a 2-epoch LEM run on it."""
    root = tmp_path_factory.mktemp("seq_eval_cli")
    result = _invoke("gen-data", "maxwell-td", *TINY, "--seed", "5", "-o", root / "mtd.h5",
                     "-q")
    assert result.exit_code == 0, result.output
    result = _invoke("fit", root / "mtd.h5", "--arch", "lem", "--hidden", "4", "--epochs", "2",
                     "-o", root / "run", "-q")
    assert result.exit_code == 0, result.output
    return root


def _one_line_error(result, message):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], lines


def test_evaluate_a_sequence_run_end_to_end(seq_run, tmp_path):
    out = tmp_path / "out"
    result = _invoke("evaluate", seq_run / "run", "--out", out, "--vtk", out / "vtk",
                     "--report", "--fresh", "1", "--vtk-every", "4", "--fem-candidates",
                     "skfem:0:2:1", "--fem-cache", tmp_path / "fem")
    assert result.exit_code == 0, result.output
    assert "relative L² error per sequence, lem on maxwell-td" in result.stdout
    assert "FEM verdict on unseen-signals (known material)" in result.stdout
    words = " ".join(result.stdout.split())  # the terminal wraps long lines
    assert "never: for a known material the FEM answers a new signal by one" in words
    assert len(list((tmp_path / "fem").glob("*.npz"))) >= 2
    assert "trained window t ≤ 1.2" in result.stdout
    payload = json.loads((out / "evaluation.json").read_text())
    assert payload["kind"] == "sequence" and payload["options"]["fresh"] == 1
    assert list(payload["sets"]) == ["unseen-signals", "unseen-materials", "longer-horizon"]
    assert payload["sets"]["longer-horizon"]["steps"] == 25
    assert payload["sets"]["unseen-signals"]["sequences"] == 2
    one_off = payload["sets"]["unseen-signals"]["fem_verdict"]["one_off_seconds"]
    assert one_off["generation"] > 0 and one_off["training"] > 0
    assert one_off["total"] == pytest.approx(one_off["generation"] + one_off["training"])
    assert payload["threads"]["torch"] >= 1 and payload["timings"]["total"] > 0
    assert [t for t, _ in read_pvd(out / "vtk" / "probes.pvd")] == pytest.approx(
        [0, 0.4, 0.8, 1.2])
    assert (out / "vtk" / "field.pvd").is_file()
    for fig in payload["figures"]["figures"].values():
        assert (out / "plots" / fig["file"]).stat().st_size > 0
    page = (out / "index.html").read_text()
    assert "unseen-materials" in page and "plots/error_over_time.png" in page
    assert "<h2>FEM verdict</h2>" in page
    assert not [p.name for p in tmp_path.rglob("*") if p.name.startswith(".")]


def test_json_output_and_a_chosen_set(seq_run, tmp_path):
    result = _invoke("evaluate", seq_run / "run", "--out", tmp_path / "o", "--set",
                     "longer-horizon", "--horizon-factor", "1.5", "--json",
                     "--fem-candidates", "none")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert list(payload["sets"]) == ["longer-horizon"]
    assert "fem_verdict" not in payload["sets"]["longer-horizon"]
    assert payload["sets"]["longer-horizon"]["steps"] == 19


@pytest.mark.parametrize("args, message", [
    (["--levels", "1-2"], "--levels applies to pointwise, family runs, not to these sequence runs"),
    (["--domain", "cube", "--fem-method", "solve"], "--domain applies to pointwise, family runs"),
    (["--horizon-factor", "1"], "--horizon-factor must be a number > 1"),
    (["--material-range", "rho=1,2"], "expected NAME=LOW,HIGH"),
    (["--sample", "9", "--vtk", "V"], "--sample 9: expected 0 <= sample < 1"),
    (["--set", "unseen-materials", "--vtk", "V"], "add --set unseen-signals"),
    (["--fem-candidates", "ngsolve:4:2"], "--fem-candidates 'ngsolve:4:2': expected "
     "backend:order:level:substeps"),
    (["--fem-candidates", "skfem:3:2:1"], "the skfem time-domain backend offers orders (0,)"),
])
def test_bad_sequence_options_exit_2_with_one_line(seq_run, tmp_path, args, message):
    args = [str(tmp_path / a) if a == "V" else a for a in args]
    result = _invoke("evaluate", seq_run / "run", "--out", tmp_path / "o", *args)
    _one_line_error(result, message)
    assert not (tmp_path / "o").exists()


def test_another_dataset_and_two_runs_are_refused(seq_run, tmp_path):
    other = tmp_path / "other.h5"
    assert _invoke("gen-data", "maxwell-td", *TINY, "--seed", "6", "-o", other,
                   "-q").exit_code == 0
    result = _invoke("evaluate", seq_run / "run", "--data", other, "--out", tmp_path / "o")
    _one_line_error(result, "is not the dataset run")
    result = _invoke("evaluate", seq_run / "run", seq_run / "run", "--out", tmp_path / "o")
    _one_line_error(result, "evaluate one sequence run at a time")


def test_sequence_options_are_refused_for_pointwise_runs(tmp_path):
    data = tmp_path / "maxwell.h5"
    assert _invoke("gen-data", "maxwell", "-n", "40", "-o", data, "-q").exit_code == 0
    result = _invoke("fit", data, "--arch", "resnet", "--width", "4", "--depth", "1",
                     "--epochs", "1", "-o", tmp_path / "run", "-q")
    assert result.exit_code == 0, result.output
    result = _invoke("evaluate", tmp_path / "run", "--horizon-factor", "3", "--fresh", "2",
                     "--out", tmp_path / "o")
    _one_line_error(result, "--horizon-factor, --fresh apply to sequence runs, not to these "
                    "pointwise runs")


def test_help_shows_a_sequence_example():
    result = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "Sequence example: surrogate evaluate runs/lem" in result.stdout
    assert "--horizon-factor" in result.stdout and "--material-range" in result.stdout
