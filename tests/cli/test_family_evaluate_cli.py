"""``surrogate evaluate`` on runs of a problem family, end to end through the real app.

A tiny radial file (J's generator) and two tiny runs (params and fields inputs, 3 epochs);
K = 3 unseen problems, cube levels 1–2.
"""

import json
import shutil

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
TINY = ["--depth", "2", "--width", "8", "--epochs", "3", "--batch-size", "64", "--quiet"]
FAST = ["--problems", "3", "--levels", "1-2", "--fem-backend", "skfem"]  # ngsolve: see the
# backend test below (test_every_family_candidate_records_its_backend)

pytestmark = [pytest.mark.usefixtures("single_torch_thread"), pytest.mark.slow]


def _invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def family_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("family_eval")
    data = root / "radial.h5"
    result = _invoke("gen-data", "maxwell-family", "--family", "radial", "--problems", "6",
                     "--points", "40", "--n-volume", "4", "--n-boundary", "2", "--seed", "1",
                     "-o", data, "--quiet")
    assert result.exit_code == 0, result.output
    runs = {}
    for kind in ("params", "fields"):
        result = _invoke("fit", data, "--inputs", kind, "--code-size", "3", "--encoder-width",
                         "5", "-o", root / kind, *TINY)
        assert result.exit_code == 0, result.output
        runs[kind] = root / kind
    return runs


def _with_dataset(src, dst, **changes):
    """A copy of run ``src`` whose config.json dataset section has ``changes`` (None: drop)."""
    shutil.copytree(src, dst)
    config = json.loads((dst / "config.json").read_text())
    for key, value in changes.items():
        if value is None:
            config["dataset"].pop(key, None)
        else:
            config["dataset"][key] = value
    (dst / "config.json").write_text(json.dumps(config))
    return dst


def test_evaluate_family_writes_break_even_report_and_pareto(family_runs, tmp_path):
    out = tmp_path / "out"
    result = _invoke("evaluate", family_runs["params"], family_runs["fields"], *FAST,
                     "-o", out, "--report")
    assert result.exit_code == 0, result.output
    assert "break-even queries" in result.output and "N*" in result.output
    summary = json.loads((out / "evaluation.json").read_text())
    assert summary["kind"] == "family" and summary["family"] == "radial"
    assert summary["draw"]["problems"] == 3 and summary["draw"]["widen"] == 0.0
    assert len(summary["problems"]) == 3
    assert summary["runs"]["params"]["problems"] == 6
    assert summary["runs"]["params"]["training_problems"] == 6  # ⌊0.1 × 6⌋ = 0 val, test
    for label in ("params", "fields"):
        table = summary["break_even_queries"][label]["cube"]
        assert table["one_off_seconds"]["generation"] > 0
        assert table["one_off_seconds"]["training"] > 0
        for kind in ("field", "probes"):
            median = table["queries"][kind]["median_problem"]
            for term in ("surrogate_error", "surrogate_seconds", "fem_seconds", "fem",
                         "fem_lower_bound", "one_off_seconds", "n_star"):
                assert term in median
            assert median["fem"]["label"].startswith(f"{median['fem']['backend']} order ")
    sources = {r["source"] for r in summary["error_table"]["cube"]}
    assert {"N0 mixed solve L1", "N0 mixed solve L2", "complete linear mixed solve L2",
            "N0 best approx. L2", "params", "fields"} <= sources
    assert (out / "plots" / "pareto_cube.png").stat().st_size > 1000
    page = (out / "index.html").read_text()
    assert "Break-even queries" in page and "pareto_cube.png" in page


def test_every_family_candidate_records_its_backend(family_runs, tmp_path):
    """--fem-backend skfem,ngsolve: each FEM record key, error-table row, Pareto point and
    break-even verdict names its backend."""
    pytest.importorskip("ngsolve")
    result = _invoke("evaluate", family_runs["params"], "--problems", "2", "--levels", "1",
                     "--fem-backend", "skfem,ngsolve", "-o", tmp_path / "b", "--json",
                     "--quiet")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "b" / "evaluation.json").read_text())
    assert summary["options"]["fem_backends"] == ["skfem", "ngsolve"]
    for problem in summary["problems"]:
        [level] = problem["domains"]["cube"]["levels"]
        assert set(level["fem"]["solve"]) == {"skfem:0", "skfem:1", "ngsolve:0", "ngsolve:1",
                                              "ngsolve:2", "ngsolve:3"}
        assert set(level["fem"]["best"]) == {"skfem:0", "skfem:1"}  # ngsolve only solves
    rows = [r for r in summary["error_table"]["cube"] if r["kind"] == "fem"]
    assert {(r["backend"], r["order"]) for r in rows if r["method"] == "solve"} == {
        ("skfem", 0), ("skfem", 1), ("ngsolve", 0), ("ngsolve", 1), ("ngsolve", 2),
        ("ngsolve", 3)}
    assert "ngsolve: complete quadratic mixed solve L1" in {r["source"] for r in rows}
    assert {p["backend"] for p in summary["pareto"]["cube"]["fem"]} == {"skfem", "ngsolve"}
    for query in summary["break_even_queries"]["params"]["cube"]["queries"].values():
        for entry in query["per_problem"]:
            fem = entry["fem"]
            assert fem["backend"] in ("skfem", "ngsolve") and fem["level"] == 1
            assert fem["label"].startswith(f"{fem['backend']} order {fem['order']}, level 1")
            assert f"({fem['dofs']} DOFs)" in fem["label"]


def test_extrapolate_widens_the_box(family_runs, tmp_path):
    result = _invoke("evaluate", family_runs["params"], "--problems", "1", "--levels", "1",
                     "--extrapolate", "-o", tmp_path / "x", "--json", "--quiet")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "x" / "evaluation.json").read_text())
    assert summary["draw"]["widen"] == 0.25
    assert summary["options"]["extrapolate"] is True


def test_draw_seed_draws_other_problems(family_runs, tmp_path):
    params = {}
    for name, extra in (("default", []), ("seed7", ["--draw-seed", "7"])):
        result = _invoke("evaluate", family_runs["params"], "--problems", "2", "--levels", "1",
                         *extra, "-o", tmp_path / name, "--json", "--quiet")
        assert result.exit_code == 0, result.output
        summary = json.loads((tmp_path / name / "evaluation.json").read_text())
        params[name] = [p["params"] for p in summary["problems"]]
        assert summary["draw"]["seed"] == (2 if name == "default" else 7)  # data seed 1 + 1
    assert params["default"] != params["seed7"]


@pytest.mark.parametrize("case", ["problems0", "two_families", "beside_single", "fem_flag",
                                  "problems_on_single", "truth_level_exact",
                                  "draw_seed_on_single", "truth_level_fitted",
                                  "fitted_maxh_on_radial", "fitted_maxh_bad"])
def test_bad_input_is_one_line_exit_2(family_runs, tmp_path, case):
    params = family_runs["params"]
    if case == "problems0":
        args = [params, "--problems", "0"]
    elif case == "two_families":
        args = [params, _with_dataset(params, tmp_path / "incl", family="inclusion")]
    elif case == "beside_single":
        args = [params, _with_dataset(params, tmp_path / "single", family=None)]
    elif case == "fem_flag":
        args = [params, "--fem-method", "solve"]
    elif case == "truth_level_exact":  # radial has a closed form: no FEM truth to refine
        args = [params, "--truth-level", "4"]
    elif case == "truth_level_fitted":  # data on the fitted truth: judged by it, no level
        args = [_with_dataset(params, tmp_path / "fitted", family="inclusion",
                              truth_fem_order=3, truth_mesh="fitted", truth_maxh=0.25),
                "--truth-level", "4"]
    elif case == "fitted_maxh_on_radial":  # radial has no fitted geometry
        args = [params, "--fem-fitted-maxh", "0.5"]
    elif case == "fitted_maxh_bad":
        args = [params, "--fem-fitted-maxh", "0.5,big"]
    elif case == "draw_seed_on_single":
        args = [_with_dataset(params, tmp_path / "single", family=None), "--draw-seed", "3"]
    else:
        args = [_with_dataset(params, tmp_path / "single", family=None), "--problems", "3"]
    result = _invoke("evaluate", *args, "-o", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()
    if case == "truth_level_fitted":
        assert "--truth-level applies to a level truth" in result.output
    if case.startswith("fitted_maxh"):
        assert "--fem-fitted-maxh" in result.output
