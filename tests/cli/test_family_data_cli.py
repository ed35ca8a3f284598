"""``surrogate gen-data maxwell-family``: workers and resume give the serial file, bad input."""

import json

import h5py
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
TINY = ["--family", "inclusion", "--problems", "4", "--points", "30", "--truth-mesh", "level",
        "--truth-level", "1", "--seed", "2", "-q"]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 2_000)  # 25-row blocks


def _gen(out, *args):
    return runner.invoke(app, ["gen-data", "maxwell-family", *TINY, "-o", str(out), *args])


def assert_same_bytes(a, b):
    """Byte-identical files; the measured generation time is in the JSON summary only."""
    with h5py.File(a, "r") as f:
        assert "generation_seconds" not in f.attrs
    assert a.read_bytes() == b.read_bytes()
    summary = json.loads(a.with_name(a.name + ".json").read_text())
    assert summary["generation_seconds"] > 0


@pytest.mark.slow
def test_workers_and_resume_write_the_serial_file(tmp_path, monkeypatch):
    assert _gen(tmp_path / "serial.h5").exit_code == 0
    result = _gen(tmp_path / "pool.h5", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert_same_bytes(tmp_path / "serial.h5", tmp_path / "pool.h5")

    from surrogate.datasets.family import maxwell_family as family

    calls, rows = [0], family.problem_rows

    def interrupted(*args):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return rows(*args)

    monkeypatch.setattr(family, "problem_rows", interrupted)
    out = tmp_path / "resumed.h5"
    result = _gen(out)
    assert result.exit_code == 130
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "kept 50/120 samples in" in lines[0], result.stderr
    assert not out.exists()
    monkeypatch.setattr(family, "problem_rows", rows)
    result = _gen(out, "--resume")
    assert result.exit_code == 0, result.output
    assert_same_bytes(tmp_path / "serial.h5", out)
    assert not (tmp_path / ".resumed.h5.partial").exists()


@pytest.mark.parametrize("args, toml, message", [
    (["--problems", "2"], None, "need at least 3 problems"),
    (["--sampler", "grid"], None, "unknown sampler 'grid'"),
    (["--truth-mesh", "fitted"], None, "family 'radial' has no fitted geometry"),
    (["--family", "inclusion", "--truth-level", "2"], None,
     "truth_level applies to truth_mesh 'level' only"),
    (["--family", "inclusion", "--truth-mesh", "level", "--truth-maxh", "0.3"], None,
     "truth_maxh applies to truth_mesh 'fitted' only"),
    ([], "box = [[2.0, 1.0], [0.5, 2], [0.5, 2], [0.5, 1.5], [-2, 2], [-1, 1]]\n",
     "parameter box is empty or inverted for k"),
    ([], "box = [[1.0, 1.0], [0.5, 2], [0.5, 2], [0.5, 1.5], [-2, 2], [-1, 1]]\n",
     "parameter box is empty or inverted for k"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, args, toml, message):
    if toml is not None:
        (tmp_path / "r.toml").write_text('family = "radial"\n' + toml)
        args = [*args, "--recipe", str(tmp_path / "r.toml")]
    out = tmp_path / "x.h5"
    result = runner.invoke(app, ["gen-data", "maxwell-family", "--problems", "3", "--points",
                                 "5", *args, "-o", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not out.exists()


def test_an_unknown_family_is_refused_with_the_registry_names(tmp_path):
    result = runner.invoke(app, ["gen-data", "maxwell-family", "--family", "nope", "-o",
                                 str(tmp_path / "x.h5")])
    assert result.exit_code == 2 and "'nope' is not one of 'radial', 'inclusion'" in \
        " ".join(result.output.replace("│", " ").split())
    (tmp_path / "r.toml").write_text('family = "nope"\n')
    result = runner.invoke(app, ["gen-data", "maxwell-family", "--recipe",
                                 str(tmp_path / "r.toml"), "-o", str(tmp_path / "x.h5")])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: unknown family 'nope'; choose one of: radial, " \
        "inclusion"


def test_family_help_names_the_registered_families():
    from surrogate.fem.families.registry import family_names

    result = runner.invoke(app, ["gen-data", "maxwell-family", "--help"],
                           env={"COLUMNS": "300"})
    assert "--family" in result.stdout and "|".join(family_names()) in result.stdout


def test_help_lists_the_flags_and_examples():
    result = runner.invoke(app, ["gen-data", "maxwell-family", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for flag in ("--family", "--problems", "--points", "--sampler", "--workers",
                 "--dask-cluster", "--resume", "Example: surrogate gen-data maxwell-family"):
        assert flag in text
