"""`surrogate evaluate` / `surrogate report` on the real app through CliRunner.

Tiny runs are trained with `surrogate fit` on a tiny `gen-data` dataset (few epochs, width 8).
"""

import json
import shutil
import sys
from pathlib import Path

import meshio
import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.fem.hcurl.registry import installed_backends
from surrogate.fem.vtk import read_pvd

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two tiny runs (resnet with learned τ, frac-dnn with fixed τ = 0.5) of one dataset."""
    root = tmp_path_factory.mktemp("runs")
    data = root / "maxwell.h5"
    result = _invoke("gen-data", "maxwell", "--domain", "cylinder", "-n", "400", "--seed", "1",
                     "-o", data, "--quiet")
    assert result.exit_code == 0, result.output
    out = {}
    for name, extra in (("resnet", ["--arch", "resnet", "--tau", "learned"]),
                        ("fdnn", ["--arch", "frac-dnn", "--tau", "0.5"])):
        result = _invoke("fit", data, *extra, "--width", "8", "--depth", "2", "--epochs", "5",
                         "-o", root / name, "--quiet")
        assert result.exit_code == 0, result.output
        out[name] = root / name
    return out


def _edited_copy(run: Path, dest: Path, **dataset) -> Path:
    """A copy of a run whose recorded dataset description is changed."""
    shutil.copytree(run, dest)
    config = json.loads((dest / "config.json").read_text())
    config["dataset"].update(dataset)
    (dest / "config.json").write_text(json.dumps(config))
    return dest


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_evaluate_writes_json_with_resolved_options_and_prints_tables(runs, tmp_path):
    out = tmp_path / "out"
    result = _invoke("evaluate", runs["resnet"], runs["fdnn"], "--domain", "cube",
                     "--levels", "1-2", "--out", out)
    assert result.exit_code == 0, result.output
    assert "sk0 best" in result.output and "resnet" in result.output
    legend = " ".join(result.output.split())  # the legend line wraps at the console's width
    assert "sk0 = skfem order 0 (N0)" in legend
    payload = json.loads((out / "evaluation.json").read_text())
    assert payload["options"]["levels"] == [1, 2] and payload["options"]["fem"] == "best"
    assert payload["options"]["slice"] == "x3=0.5" and payload["reference"] == "exact"
    assert [(r["domain"], r["level"]) for r in payload["records"]] == [("cube", 1), ("cube", 2)]
    for record in payload["records"]:
        assert set(record["runs"]) == {"resnet", "fdnn"}
        for rec in record["runs"].values():
            assert rec["l2_error"] > 0 and rec["seconds"]["inference"] > 0
            assert rec["inside"]["l2_error"] ** 2 + rec["outside"]["l2_error"] ** 2 == \
                pytest.approx(rec["l2_error"] ** 2, rel=1e-10)
    fem = [r["fem"]["l2_error"] for r in payload["records"]]
    assert fem[1] < fem[0]
    # every installed backend with its default orders: skfem's N0 and complete linear (more
    # accurate per level; N0 stays "fem"), then the other backends' candidates
    assert payload["options"]["fem_orders"] is None and "sk1 best" in result.output
    assert "sk1 = skfem order 1 (complete linear)" in legend
    assert payload["options"]["fem_backends"] is None
    installed = set(installed_backends())
    for record in payload["records"]:
        n0, n2 = record["fem_orders"][:2]
        assert (n0["order"], n2["order"]) == (0, 1) and n0 == record["fem"]
        assert n0["backend"] == n2["backend"] == "skfem"
        assert n2["l2_error"] < n0["l2_error"] and n2["ndofs"] == 2 * n0["ndofs"]
        assert {f["backend"] for f in record["fem_orders"]} == installed
    fastest = payload["fastest_fem_at_equal_error"]["cube"]
    assert set(fastest) == {"resnet", "fdnn"}
    for label, c in fastest.items():
        assert c["surrogate"]["level"] == 2 and c["verdict"]
        assert c["surrogate"]["error"] == payload["records"][1]["runs"][label]["l2_error"]
        assert c["fem"]["backend"] in installed and c["fem"]["level"] in (1, 2)
        assert f"{c['fem']['backend']} order {c['fem']['order']}" in c["verdict"]
        flat = " ".join(result.output.split())  # rich wraps long lines at the terminal width
        assert f"cube, {label}: error" in flat and " ".join(c["verdict"].split()) in flat
    assert payload["runs"]["resnet"]["tau_mode"] == "learned"
    assert len(payload["runs"]["resnet"]["taus"]) == 2
    assert _leftovers(tmp_path) == []


def test_evaluate_json_flag_prints_the_payload(runs, tmp_path):
    result = _invoke("evaluate", runs["fdnn"], "--levels", "1", "--fem-method", "none",
                     "--out", tmp_path / "o", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["records"][0]["fem"] is None
    assert payload["fastest_fem_at_equal_error"]["cube"]["fdnn"]["fem"] is None
    only_n0 = json.loads(_invoke("evaluate", runs["fdnn"], "--levels", "1", "--fem-order", "0",
                                 "--fem-backend", "skfem", "--out", tmp_path / "o1",
                                 "--json").output)
    assert [f["order"] for f in only_n0["records"][0]["fem_orders"]] == [0]
    assert payload["records"][0]["runs"]["fdnn"]["speedup_vs_fem"] is None
    old = _invoke("evaluate", runs["fdnn"], "--levels", "1", "--fem", "none",
                  "--out", tmp_path / "o2", "--json")  # the old spelling, for one release
    assert old.exit_code == 0 and json.loads(old.stdout)["records"][0]["fem"] is None
    assert old.stderr.splitlines() == ["warning: --fem is deprecated; use --fem-method"]


def test_without_ngsolve_the_default_uses_skfem_and_says_so(runs, tmp_path, monkeypatch):
    """A missing ngsolve (import refused): the default compares with skfem only, in a note;
    asking for ngsolve is one line on stderr and exit 2, nothing written."""
    monkeypatch.setitem(sys.modules, "ngsolve", None)
    result = _invoke("evaluate", runs["fdnn"], "--levels", "1", "--out", tmp_path / "o",
                     "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert {f["backend"] for f in payload["records"][0]["fem_orders"]} == {"skfem"}
    note = next(n for n in payload["notes"] if "FEM backends compared" in n)
    assert "skfem only" in note and "pip install 'surrogate[ngsolve]'" in note
    refused = _invoke("evaluate", runs["fdnn"], "--levels", "1", "--fem-backend", "ngsolve",
                      "--out", tmp_path / "n")
    _assert_one_line_error(refused, "ngsolve", "pip install 'surrogate[ngsolve]'")
    assert not (tmp_path / "n").exists()


@pytest.mark.slow
def test_evaluate_with_vtk_plots_and_report(runs, tmp_path):
    out = tmp_path / "out"
    result = _invoke("evaluate", runs["resnet"], runs["fdnn"], "--domain", "cube",
                     "--domain", "ball", "--levels", "1-2", "--fem-backend", "skfem",
                     "--out", out, "--vtk", out / "vtk", "--report", "--quiet")
    assert result.exit_code == 0, result.output
    for domain in ("cube", "ball"):
        entries = read_pvd(out / "vtk" / f"{domain}.pvd")
        assert [level for level, _ in entries] == [1.0, 2.0]
        for _, name in entries:
            mesh = meshio.read(out / "vtk" / name)
            for key in ("u_exact", "u_nn", "u_nn_fdnn", "u_fem", "error_nn", "error_fem",
                        "u_fem1", "error_fem1"):
                assert key in mesh.point_data
            assert mesh.point_data["u_nn"].shape == (len(mesh.points), 3)
            np.testing.assert_allclose(
                mesh.point_data["error_nn"],
                np.linalg.norm(mesh.point_data["u_nn"] - mesh.point_data["u_exact"], axis=1))
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    for name in ("error_vs_h.png", "error_vs_time.png", "training_loss.png", "taus.png",
                 "slice_error.png",
                 "slice_quiver_resnet.png", "slice_quiver_fdnn.png"):
        assert name in pngs
    page = (out / "index.html").read_text()
    assert "src='plots/error_vs_h.png'" in page
    assert "Fastest FEM at equal error" in page and "complete linear error" in page
    payload = json.loads((out / "evaluation.json").read_text())
    assert payload["outputs"]["report"].endswith("index.html")
    assert set(payload["figures"]["figures"]) >= {"error_vs_h", "slice_error"}


def test_report_command_writes_index_html(runs, tmp_path):
    out = tmp_path / "report"
    result = _invoke("report", runs["resnet"], "--levels", "1", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert (out / "index.html").is_file() and (out / "plots" / "error_vs_h.png").is_file()


def _assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_missing_run_directory_exits_2_without_output(runs, tmp_path):
    out = tmp_path / "out"
    result = _invoke("evaluate", runs["resnet"], tmp_path / "nope", "--levels", "1",
                     "--out", out, "--vtk", tmp_path / "vtk")
    _assert_one_line_error(result, "nope", "does not exist")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_run_trained_on_another_problem_exits_2_without_output(runs, tmp_path):
    other = _edited_copy(runs["fdnn"], tmp_path / "runs" / "heat", problem="heat")
    out = tmp_path / "out"
    result = _invoke("evaluate", other, "--problem", "maxwell", "--levels", "1", "--out", out)
    _assert_one_line_error(result, "'heat'", "'maxwell'")
    result = _invoke("evaluate", runs["resnet"], other, "--levels", "1", "--out", out,
                     "--plots", tmp_path / "plots")
    _assert_one_line_error(result, "trained on problem 'heat'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


def test_input_names_not_matching_the_problem_exit_2_without_output(runs, tmp_path):
    bad = _edited_copy(runs["resnet"], tmp_path / "runs" / "renamed",
                       input_names=["x", "y", "z", "f1", "f2", "f3", "phi"])
    out = tmp_path / "out"
    result = _invoke("evaluate", bad, "--levels", "1", "--out", out, "--report")
    _assert_one_line_error(result, "renamed", "takes inputs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


def test_bad_options_exit_2(runs, tmp_path):
    import torch

    cases = [(["--domain", "torus"], "unknown domain"), (["--levels", "3-1"], "inverted"),
             (["--slice", "w=2"], "--slice"), (["--fem-method", "exact"], None),
             (["--fem-order", "7"], "unknown FEM order '7'; choose one of: 0 = N0"),
             (["--fem-order", "2", "--fem-backend", "skfem"],
              "no FEM backend of skfem offers the orders 2"),
             (["--fem-backend", "fenics"], "unknown FEM backend 'fenics'"),
             (["--fem-max-dofs", "0"], "--fem-max-dofs must be >= 1"),
             (["--fem-order", "0,,1"], "comma-separated")]
    if not torch.cuda.is_available():
        cases.append((["--device", "cuda"], "no CUDA device"))
    for args, fragment in cases:
        result = _invoke("evaluate", runs["fdnn"], *args, "--out", tmp_path / "o")
        if fragment is None:  # rejected by Typer's choice check: usage error, exit 2
            assert result.exit_code == 2
        else:
            _assert_one_line_error(result, fragment)
    assert list(tmp_path.iterdir()) == []


def test_failure_during_evaluation_leaves_no_partial_output(runs, tmp_path, monkeypatch):
    from surrogate.core.errors import SolverError
    from surrogate.evaluation.static import measure as evaluation

    real = evaluation.run_record
    calls = []

    def failing(*args, **kwargs):  # a failed candidate solve is left out with a note, so
        calls.append(1)  # the stand-in failure hits the surrogate's part of level 2
        if len(calls) == 2:  # level 1 done (its .vtu written), level 2 fails
            raise SolverError("CG did not converge (stand-in failure)")
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "run_record", failing)
    keep = tmp_path / "out"
    keep.mkdir()
    (keep / "notes.txt").write_text("user file")
    result = _invoke("evaluate", runs["fdnn"], "--levels", "1-2", "--fem-backend", "skfem",
                     "--out", keep, "--vtk", tmp_path / "vtk", "--plots", keep / "plots")
    _assert_one_line_error(result, "did not converge")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert sorted(p.name for p in keep.iterdir()) == ["notes.txt"]


def test_rerun_into_an_existing_folder_keeps_unrelated_files(runs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("user file")
    for _ in range(2):
        result = _invoke("evaluate", runs["fdnn"], "--levels", "1", "--out", out, "--quiet")
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["evaluation.json", "notes.txt"]
    assert _leftovers(tmp_path) == []


REPO = Path(__file__).resolve().parents[2]


def _git_ignored(path: str) -> bool:
    """Whether git ignores ``path`` (relative to the repository root)."""
    import subprocess

    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", "--no-index", path],
                          capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


def test_default_output_folders_are_ignored_by_git_but_the_package_is_not():
    import inspect

    from surrogate.cli.commands.evaluate import evaluate, report

    for command in (evaluate, report):
        default = inspect.signature(command).parameters["out"].default
        assert _git_ignored(f"{default.as_posix()}/evaluation.json"), default
    assert not _git_ignored("surrogate/evaluation/api.py")
    assert not _git_ignored("surrogate/evaluation/report.py")


@pytest.mark.slow
def test_python_evaluate_reproduces_the_cli_report(runs, tmp_path):
    """One library call writes what `surrogate evaluate --report` writes, with equal errors."""
    import surrogate
    from surrogate.evaluation.static.options import EvaluationOptions

    args = ["--domain", "cube", "--levels", "1-2", "--fem-method", "solve", "--fem-order", "0"]
    cli_out = tmp_path / "cli"
    result = _invoke("evaluate", runs["resnet"], runs["fdnn"], *args, "--out", cli_out,
                     "--report", "-q")
    assert result.exit_code == 0, result.output
    api_out = tmp_path / "api"
    done = surrogate.evaluate([runs["resnet"], runs["fdnn"]],
                              EvaluationOptions(domains=("cube",), levels=(1, 2), fem="solve",
                                                fem_orders=(0,)),
                              out=api_out, report=True)
    assert done.kind == "pointwise" and done.files["report"] == api_out / "index.html"

    def files(root: Path) -> list[str]:
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

    assert files(api_out) == files(cli_out)
    assert "index.html" in files(api_out) and "plots/error_vs_h.png" in files(api_out)
    cli, api = (json.loads((o / "evaluation.json").read_text()) for o in (cli_out, api_out))
    assert [r["runs"]["fdnn"]["l2_error"] for r in done.summary["records"]] == \
        [r["runs"]["fdnn"]["l2_error"] for r in api["records"]]
    assert api["options"] == cli["options"]
    for a, c in zip(api["records"], cli["records"], strict=True):
        assert a["fem"]["l2_error"] == pytest.approx(c["fem"]["l2_error"], rel=1e-12)
        for label in ("resnet", "fdnn"):
            assert a["runs"][label]["l2_error"] == pytest.approx(c["runs"][label]["l2_error"],
                                                                 rel=1e-12)


def test_python_evaluate_refuses_options_of_the_other_kind(runs, tmp_path):
    from surrogate.core.errors import InputError
    from surrogate.evaluation.api import evaluate
    from surrogate.evaluation.sequence.options import SequenceEvaluationOptions

    with pytest.raises(InputError, match="give EvaluationOptions"):
        evaluate([runs["fdnn"]], SequenceEvaluationOptions(), out=tmp_path / "x")
    with pytest.raises(InputError, match="data applies to sequence runs"):
        evaluate([runs["fdnn"]], data=tmp_path / "d.h5", out=tmp_path / "x")
    assert not (tmp_path / "x").exists()
