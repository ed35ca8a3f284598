"""`surrogate fem convergence` through CliRunner with the real app."""

import json
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()


def test_convergence_table_and_json(tmp_path):
    out = tmp_path / "res" / "conv.json"
    result = runner.invoke(app, ["fem", "convergence", "--domain", "cube", "--levels", "1-3",
                                 "--fem-method", "best", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "skfem order 0 (N0) best on cube" in result.output and f"wrote {out}" in result.output
    payload = json.loads(out.read_text())
    assert payload["options"] == {"domain": "cube", "levels": [1, 2, 3], "backend": "skfem",
                                  "order": 0, "method": "best", "solver": "auto",
                                  "problem": "maxwell", "threads": 1}
    rows = payload["rows"]
    assert [r["level"] for r in rows] == [1, 2, 3]
    assert rows[0]["l2_rate"] is None and rows[2]["curl_l2_rate"] > 0.9
    assert [r["ndofs"] for r in rows] == [98, 604, 4184]
    for r in rows:  # every table line shows the level, DOFs and the errors
        assert f"{r['ndofs']}" in result.output and f"{r['l2_error']:.2e}" in result.output
    assert not list(out.parent.glob(".*tmp"))


def test_convergence_json_quiet_and_solver(tmp_path):
    result = runner.invoke(app, ["fem", "convergence", "--domain", "cylinder", "--levels", "1,2",
                                 "--fem-method", "solve", "--solver", "iterative", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["options"]["solver"] == "iterative"
    assert [r["solver"]["method"] for r in payload["rows"]] == ["minres-block"] * 2
    assert all(r["solver"]["residual"] < 1e-9 for r in payload["rows"])
    quiet = runner.invoke(app, ["fem", "convergence", "--levels", "1", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_convergence_order_1_rates_through_the_cli():
    """Order 1 (complete linear): L² rate ≈ 2, curl rate ≈ 1 on the cube, 2 DOFs per edge."""
    result = runner.invoke(app, ["fem", "convergence", "--fem-order", "1", "--levels", "1-3",
                                 "--fem-method", "solve", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    rows = payload["rows"]
    assert payload["options"]["order"] == 1 and [r["order"] for r in rows] == [1, 1, 1]
    assert [r["ndofs"] for r in rows] == [196, 1208, 8368]
    assert min(r["l2_rate"] for r in rows[1:]) >= 1.9
    assert all(0.9 <= r["curl_l2_rate"] <= 1.2 for r in rows[1:])
    assert rows[0]["solver"]["method"] == "direct-split"
    table = runner.invoke(app, ["fem", "convergence", "--fem-order", "1", "--levels", "1"])
    assert "skfem order 1 (complete linear) best on cube" in table.output


def test_ngsolve_complete_quadratic_reaches_n0_level_5s_error_on_level_1():
    """`--fem-backend ngsolve --fem-order 2` (complete quadratic): ≤ 0.17 % relative L² on the
    cube's level 1 (N0 level 5's error) and observed L² rates ≥ 2.8 over levels 1–3."""
    pytest.importorskip("ngsolve")
    result = runner.invoke(app, ["fem", "convergence", "--domain", "cube", "--levels", "1-3",
                                 "--fem-backend", "ngsolve", "--fem-order", "2", "--fem-method",
                                 "solve", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    rows = payload["rows"]
    assert payload["options"]["backend"] == "ngsolve" and payload["options"]["order"] == 2
    assert rows[0]["relative_l2_error"] <= 0.0017
    assert min(r["l2_rate"] for r in rows[1:]) >= 2.8
    assert all(r["solver"]["threads"] == 1 and r["solver"]["residual"] < 1e-9 for r in rows)


def test_asking_for_a_missing_ngsolve_is_one_line_and_exit_2(monkeypatch):
    monkeypatch.setitem(sys.modules, "ngsolve", None)
    result = runner.invoke(app, ["fem", "convergence", "--fem-backend", "ngsolve", "--fem-order",
                                 "2", "--fem-method", "solve", "--levels", "1"])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'surrogate[ngsolve]'" in lines[0], result.stderr
    plain = runner.invoke(app, ["fem", "convergence", "--levels", "1", "--quiet"])
    assert plain.exit_code == 0


@pytest.mark.parametrize("args, message", [
    (["--fem-order", "2"], "unknown FEM order 2 for the skfem backend; choose one of: 0 = N0, "
                           "1 = complete linear"),
    (["--fem-backend", "fenics"], "unknown FEM backend 'fenics'"),
    (["--fem-order", "two"], "unknown FEM order 'two'"),
    (["--fem-threads", "0"], "--fem-threads must be an integer >= 1"),
    (["--backend", "skfem", "--fem-backend", "skfem"], "--backend and --fem-backend are one "
                                                       "option"),
    (["--domain", "torus"], "unknown domain 'torus'"),
    (["--domain", "cylinder", "--levels", "0-2"], "mesh level must be an integer >= 1"),
    (["--levels", "-1"], "expected e.g. '1-5'"),
    (["--levels", "3-1"], "inverted range"),
    (["--levels", "a-b"], "expected e.g. '1-5'"),
    (["--problem", "heat"], "unknown problem 'heat'"),
    (["--fem-method", "galerkin"], "unknown method 'galerkin'; choose one of: best, solve"),
    (["--solver", "gmres"], "unknown solver 'gmres'; choose one of: auto, direct, iterative"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    out = tmp_path / "x.json"
    result = runner.invoke(app, ["fem", "convergence", *args, "--out", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines()
             if line.strip() and not line.startswith("warning:")]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not out.exists()


def test_old_spellings_work_with_one_deprecation_line_each():
    """--backend/--order/--threads/--method: the --fem-* options for one release, a notice
    each."""
    old = runner.invoke(app, ["fem", "convergence", "--backend", "skfem", "--order", "1",
                              "--threads", "1", "--levels", "1", "--method", "solve", "--json"])
    new = runner.invoke(app, ["fem", "convergence", "--fem-backend", "skfem", "--fem-order", "1",
                              "--fem-threads", "1", "--levels", "1", "--fem-method", "solve",
                              "--json"])
    assert old.exit_code == 0 and new.exit_code == 0, old.output
    assert old.stderr.splitlines() == [f"warning: --{name} is deprecated; use --fem-{name}"
                                       for name in ("method", "backend", "order", "threads")]
    assert new.stderr == ""
    old_rows, new_rows = json.loads(old.stdout)["rows"], json.loads(new.stdout)["rows"]
    assert json.loads(old.stdout)["options"] == json.loads(new.stdout)["options"]
    assert [r["ndofs"] for r in old_rows] == [r["ndofs"] for r in new_rows] == [196]
    assert old_rows[0]["l2_error"] == pytest.approx(new_rows[0]["l2_error"], rel=1e-12)


def test_the_table_fits_80_columns(monkeypatch):
    """Title and rows of the table within 80 columns, the worst case of every column too."""
    from surrogate.cli.commands import fem

    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, ["fem", "convergence", "--levels", "1-2", "--fem-order", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.rstrip("\n").splitlines()
    assert "skfem order 1 (complete linear) best on cube (maxwell)" in result.stdout
    assert lines and max(len(line.rstrip()) for line in lines) <= 80
    row = {"level": 5, "h": 0.03125, "ndofs": 9_999_999, "l2_error": 1.2e-10, "l2_rate": 4.99,
           "curl_l2_error": 3.3e-9, "curl_l2_rate": -1.02, "seconds": 12345.6,
           "solver": {"method": "iterative-split", "iterations": 12345}}
    options = {"backend": "ngsolve", "order": 4, "method": "solve", "problem": "maxwell",
               "domain": "examples/geometry/torus_section.msh"}
    with fem.console.capture() as captured:
        fem._print_table(options, [row])
    text = captured.get()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "9999999" in text and "iterative-split" in text and "12345.6" in text


def test_help_has_example_and_choices():
    result = runner.invoke(app, ["fem", "convergence", "--help"])
    assert result.exit_code == 0
    assert "Example: surrogate fem convergence" in result.output
    command = typer.main.get_command(app).commands["fem"].commands["convergence"]
    metavars = {param.opts[0]: param.metavar for param in command.params}
    assert metavars["--fem-method"] == "[best|solve]"
    assert metavars["--solver"] == "[auto|direct|iterative|monolithic]"  # the registry's
    assert metavars["--fem-backend"] == "[skfem|ngsolve]"
    assert metavars["--fem-order"] == "[0|1|2|3|4]"
    assert "[skfem|ngsolve]" in result.output and "[0|1|2|3|4]" in result.output
    helps = {param.opts[0]: param.help or "" for param in command.params}
    for old in ("backend", "order", "threads", "method"):
        assert f"Formerly --{old} (deprecated)" in helps[f"--fem-{old}"]
    hidden = sorted(opt for param in command.params if param.hidden for opt in param.opts)
    assert hidden == ["--backend", "--method", "--order", "--threads"]  # accepted, not listed


def test_the_cube_has_a_level_0_and_its_rate_to_level_1():
    """Level 0 (6 tets) is the cube's coarsest mesh: the study starts there, N0's L² rate."""
    result = runner.invoke(app, ["fem", "convergence", "--levels", "0-1", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [row["level"] for row in rows] == [0, 1]
    assert rows[0]["ndofs"] == 19 and rows[1]["l2_rate"] == pytest.approx(0.80, abs=0.02)
