"""``surrogate gen-data maxwell-td --workers/--scheduler/--dask-cluster/--resume`` (CliRunner)."""

import hashlib
import sys

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
N0 = ["--fem-backend", "skfem", "--fem-order", "0", "--substeps", "1", "--no-richardson"]
TINY = ["--level", "1", "-n", "12", "--steps", "12", "--dt", "0.2", "--probes", "2",
        "--n-materials", "12", "--seed", "4", "-q", *N0]  # the fast N0 path


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 2_000)  # 1-row blocks


def _gen(out, *args):
    return runner.invoke(app, ["gen-data", "maxwell-td", *TINY, "-o", str(out), *args])


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_workers_write_the_serial_file_and_an_interrupt_resumes_to_it(tmp_path, monkeypatch):
    assert _gen(tmp_path / "serial.h5").exit_code == 0
    result = _gen(tmp_path / "pool.h5", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert _sha256(tmp_path / "pool.h5") == _sha256(tmp_path / "serial.h5")

    from surrogate.datasets.sequence import maxwell_td_stream

    calls, rows = [0], maxwell_td_stream.sample_rows

    def interrupted(*args):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return rows(*args)

    monkeypatch.setattr(maxwell_td_stream, "sample_rows", interrupted)
    out = tmp_path / "resumed.h5"
    result = _gen(out)
    assert result.exit_code == 130
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "kept 2/12 samples in" in lines[0], result.stderr
    assert lines[0].endswith("continue with --resume") and not out.exists()
    monkeypatch.setattr(maxwell_td_stream, "sample_rows", rows)
    result = _gen(out, "--resume")
    assert result.exit_code == 0, result.output
    assert _sha256(out) == _sha256(tmp_path / "serial.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "pool.h5", "pool.h5.json", "resumed.h5", "resumed.h5.json", "serial.h5",
        "serial.h5.json"]


@pytest.mark.parametrize("args, message", [
    (["--workers", "2", "--dask-cluster", "local:2"], "choose one of --workers, --dask-cluster"),
    (["--dask-cluster", "local"], "--dask-cluster 'local': expected local:N with N >= 1"),
    (["--scheduler", "host:8786"], "expected an address like tcp://host:8786"),
])
def test_bad_executor_flags_are_one_line_exit_2(tmp_path, args, message):
    result = _gen(tmp_path / "x.h5", *args)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert list(tmp_path.iterdir()) == []


def test_dask_flags_without_dask_name_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    for flag, value in (("--scheduler", "tcp://127.0.0.1:8786"), ("--dask-cluster", "local:2")):
        result = _gen(tmp_path / "x.h5", flag, value)
        assert result.exit_code == 2
        assert result.stderr.strip() == ("error: Dask is not installed: pip install "
                                         "surrogate[distributed]")


def test_help_shows_the_scale_out_flags_with_examples():
    result = runner.invoke(app, ["gen-data", "maxwell-td", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())  # the terminal width wraps lines
    for flag in ("--workers", "--scheduler", "--dask-cluster", "--resume", "--workers 2",
                 "--scheduler tcp://head:8786 --resume"):
        assert flag in text
