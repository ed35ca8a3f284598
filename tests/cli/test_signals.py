"""SIGINT / SIGTERM at random moments of the real command line (a subprocess each time).

For ``gen-data``, ``fit`` and ``evaluate`` a reference run measures the command's duration T;
then the signal is sent at seeded random moments spread over [0, 1.1 T] (one per stratum, so
start-up, work and writing all get hit), alternating SIGTERM and SIGINT. Afterwards:

- the exit code is 0 (finished first) or 128 + signal with exactly one line on stderr;
  a signal that arrives before the entry point installed its handlers (checked in
  /proc/PID/status just before sending) may still end the process the default way;
- every final file is absent or complete (``read_dataset`` with its hash / ``load_run`` /
  ``evaluation.json``), a summary belongs to its dataset, a replaced output is the new one
  whole, and no temporary file or folder is left under the output folders;
- an interrupted ``fit`` leaves a checkpoint that ``--resume`` finishes into the same run as
  the uninterrupted reference (identical loss history).

``SURROGATE_SIGNAL_SEED`` changes the moments (default 2024).
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.datasets import read_dataset

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="needs Linux /proc to see when handlers are installed")

SEED = int(os.environ.get("SURROGATE_SIGNAL_SEED", "2024"))
POINTS = 3
SIGNALS = (signal.SIGTERM, signal.SIGINT)
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
FIT = ["--depth", "2", "--width", "8", "--epochs", "60", "--checkpoint-every", "7",
       "--batch-size", "64", "--seed", "3", "-q"]


def _command(*args) -> list[str]:
    return [sys.executable, "-m", "surrogate", *[str(a) for a in args]]


def _run(*args) -> float:
    """Run the CLI to the end; return its wall time."""
    tic = time.perf_counter()
    done = subprocess.run(_command(*args), env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - tic


def _handler_installed(pid: int) -> bool:
    """True once the process catches SIGTERM (the entry point installs both handlers at once)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(int(line.split()[1], 16) for line in status.splitlines()
                  if line.startswith("SigCgt:"))
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def _default_signals() -> None:
    """In the child: the default dispositions of a foreground command (a test run started in
    the background of a shell script would pass SIGINT on as ignored)."""
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def _interrupt(args, delay: float, sig: signal.Signals) -> tuple[int, str]:
    """Start the CLI, send ``sig`` after ``delay`` seconds (unless it ended), check the exit."""
    proc = subprocess.Popen(_command(*args), env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)
    try:
        proc.wait(timeout=delay)
        ready = True  # ended before the signal: it must have succeeded
    except subprocess.TimeoutExpired:
        ready = _handler_installed(proc.pid)
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    lines = err.strip().splitlines()
    where = f"{args[0]} {sig.name} after {delay:.2f} s: rc {proc.returncode}, stderr {err!r}"
    print(where)  # shown for a failing test (and with -s)
    if proc.returncode == 0:
        return 0, where
    if ready or proc.returncode == 128 + sig:
        assert proc.returncode == 128 + sig, where
        assert len(lines) == 1 and lines[0].startswith(f"interrupted ({sig.name})"), where
    else:  # killed during interpreter start-up, before any output could exist
        assert proc.returncode in (-sig, 1), where
    return proc.returncode, where


def _moments(duration: float, rng: random.Random) -> list[float]:
    """One random moment in each of POINTS equal slices of [0, 1.1 · duration]."""
    span = 1.1 * duration / POINTS
    return [span * (k + rng.random()) for k in range(POINTS)]


def _leftovers(folder: Path) -> list[str]:
    """Temporary files or folders (hidden names, *.tmp) anywhere under ``folder``."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.startswith(".") or p.name.endswith(".tmp"))


@pytest.fixture(scope="module")
def rng():
    return random.Random(SEED)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("signals") / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=600, seed=5), path)
    return path


@pytest.fixture(scope="module")
def reference_run(dataset):
    """The uninterrupted fit (and its duration) that interrupted ones must reproduce."""
    out = dataset.parent / "reference"
    duration = _run("fit", dataset, "-o", out, *FIT)
    return out, duration


@pytest.mark.slow
def test_gen_data_keeps_the_old_dataset_or_writes_the_new_one_whole(tmp_path, rng):
    out = tmp_path / "data" / "maxwell.h5"
    summary = out.with_name(out.name + ".json")
    args = ["gen-data", "maxwell", "-n", "30000", "--source", "fem", "--level", "2", "-q"]
    duration = _run(*args, "--seed", "0", "-o", out)
    for k, delay in enumerate(_moments(duration, rng)):
        before = read_dataset(out).content_hash
        rc, where = _interrupt([*args, "--seed", str(k + 1), "-o", out], delay,
                               SIGNALS[k % 2])
        data = read_dataset(out, verify_hash=True)  # complete and intact: old or new
        if data.content_hash != before:
            assert data.seed == k + 1, where
        elif rc == 0:
            pytest.fail(f"finished but the dataset was not replaced: {where}")
        if summary.exists():
            assert json.loads(summary.read_text())["content_hash"] == data.content_hash, where
        assert _leftovers(out.parent) == [], where


@pytest.mark.slow
def test_fit_leaves_a_complete_run_or_a_checkpoint_that_resumes_to_the_same_run(
        dataset, reference_run, tmp_path, rng):
    from surrogate.runs.checkpoints import load_checkpoint
    from surrogate.runs.load import load_run

    reference, duration = reference_run
    expected = [row["train_loss"] for row in load_run(reference).history]
    run_files = ("model.pt", "config.json", "metadata.json", "history.csv", "metrics.json")
    for k, delay in enumerate(_moments(duration, rng)):
        out = tmp_path / f"run{k}"
        rc, where = _interrupt(["fit", dataset, "-o", out, *FIT], delay, SIGNALS[k % 2])
        present = [name for name in run_files if (out / name).exists()]
        assert present in ([], list(run_files)), where  # a run appears whole or not at all
        if out.exists():
            assert _leftovers(out) == [], where
        if (out / "checkpoint.pt").exists():
            load_checkpoint(out / "checkpoint.pt")  # complete and loadable
            if not present:  # resumed in this process: only the signalled fits need one
                done = CliRunner().invoke(app, ["fit", str(dataset), "-o", str(out),
                                                "--resume", "-q"])
                assert done.exit_code == 0, done.output
        elif out.exists():
            assert not present, where
        if rc == 0 or (out / "checkpoint.pt").exists():
            run = load_run(out)
            assert [row["train_loss"] for row in run.history] == expected, where
            assert _leftovers(out) == [], where


@pytest.mark.slow
def test_evaluate_keeps_the_old_output_folder_or_writes_the_new_one_whole(
        reference_run, tmp_path, rng):
    run, _ = reference_run
    out = tmp_path / "eval" / "out"
    args = ["evaluate", run, "--domain", "cube", "--levels", "1-2", "--fem-method", "best",
            "--fem-order", "1", "-q", "--vtk", tmp_path / "eval" / "vtk"]
    duration = _run(*args, "--out", out, "--intorder", "3")
    for k, delay in enumerate(_moments(duration, rng)):
        fresh = tmp_path / "eval" / f"fresh{k}"
        target = out if k % 2 else fresh  # replace a complete output, or write a new one
        before = json.loads((out / "evaluation.json").read_text())
        rc, where = _interrupt([*args, "--out", target, "--intorder", "4"], delay,
                               SIGNALS[k % 2])
        if target.exists():
            result = json.loads((target / "evaluation.json").read_text())
            assert [(r["domain"], r["level"]) for r in result["records"]] == [
                ("cube", 1), ("cube", 2)], where
            if target == out and result != before:
                assert result["options"]["intorder"] == 4, where
        else:
            assert rc != 0, where
        assert _leftovers(tmp_path / "eval") == [], where
