"""`surrogate fem convergence` through CliRunner with the real app."""

import json

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()


def test_convergence_table_and_json(tmp_path):
    out = tmp_path / "res" / "conv.json"
    result = runner.invoke(app, ["fem", "convergence", "--domain", "cube", "--levels", "1-3",
                                 "--method", "best", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "N0 best on cube" in result.output and f"wrote {out}" in result.output
    payload = json.loads(out.read_text())
    assert payload["options"] == {"domain": "cube", "levels": [1, 2, 3], "method": "best",
                                  "solver": "auto", "problem": "maxwell"}
    rows = payload["rows"]
    assert [r["level"] for r in rows] == [1, 2, 3]
    assert rows[0]["l2_rate"] is None and rows[2]["curl_l2_rate"] > 0.9
    assert [r["ndofs"] for r in rows] == [98, 604, 4184]
    for r in rows:  # every table line shows the level, DOFs and the errors
        assert f"{r['ndofs']}" in result.output and f"{r['l2_error']:.2e}" in result.output
    assert not list(out.parent.glob(".*tmp"))


def test_convergence_json_quiet_and_solver(tmp_path):
    result = runner.invoke(app, ["fem", "convergence", "--domain", "cylinder", "--levels", "1,2",
                                 "--method", "solve", "--solver", "iterative", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["options"]["solver"] == "iterative"
    assert [r["solver"]["method"] for r in payload["rows"]] == ["minres-block"] * 2
    assert all(r["solver"]["residual"] < 1e-9 for r in payload["rows"])
    quiet = runner.invoke(app, ["fem", "convergence", "--levels", "1", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


@pytest.mark.parametrize("args, message", [
    (["--domain", "torus"], "unknown domain 'torus'"),
    (["--levels", "0-2"], "levels start at 1"),
    (["--levels", "3-1"], "inverted range"),
    (["--levels", "a-b"], "expected e.g. '1-5'"),
    (["--problem", "heat"], "unknown problem 'heat'"),
    (["--method", "galerkin"], "unknown method 'galerkin'; choose one of: best, solve"),
    (["--solver", "gmres"], "unknown solver 'gmres'; choose one of: auto, direct, iterative"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    out = tmp_path / "x.json"
    result = runner.invoke(app, ["fem", "convergence", *args, "--out", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not out.exists()


def test_help_has_example_and_choices():
    result = runner.invoke(app, ["fem", "convergence", "--help"])
    assert result.exit_code == 0
    assert "Example: surrogate fem convergence" in result.output
    assert "[best|solve]" in result.output and "[auto|direct|iterative]" in result.output
