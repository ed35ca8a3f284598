"""JSON files the CLI writes are strict JSON: NaN and ±inf become null (issue 16)."""

import json
import math

from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()


def _strict(text: str):
    """``json.loads`` that refuses the NaN/Infinity extensions Python's json accepts."""

    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_results_are_written_as_null(tmp_path, monkeypatch):
    import surrogate.fem.convergence as convergence

    rows = [{"level": 1, "ndofs": 98, "l2_error": math.nan, "l2_rate": None},
            {"level": 2, "ndofs": 604, "l2_error": math.inf, "l2_rate": -math.inf}]
    monkeypatch.setattr(convergence, "convergence_study", lambda *args, **kwargs: rows)
    out = tmp_path / "conv.json"
    result = runner.invoke(app, ["fem", "convergence", "--levels", "1-2", "--out", str(out),
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    payload = _strict(out.read_text())
    assert payload["rows"] == [{"level": 1, "ndofs": 98, "l2_error": None, "l2_rate": None},
                               {"level": 2, "ndofs": 604, "l2_error": None, "l2_rate": None}]
    assert out.read_text().endswith("}\n") and not list(tmp_path.glob(".*tmp"))
