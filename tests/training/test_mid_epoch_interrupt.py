"""An interrupt stops training at the next mini-batch; resume continues the epoch exactly."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

import surrogate.training.epoch as epoch_module
from surrogate.cli.app import app
from surrogate.datasets import read_dataset
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.training.loop import TrainingInterrupted, fit

from .conftest import gen_data

SIGNAL_TO_EXIT_S = 10.0  # batch schedulers give 30 s between SIGTERM and SIGKILL
FIT = ["--inputs", "params", "--depth", "2", "--width", "16", "--batch-size", "4",
       "--epochs", "2", "--checkpoint-every", "1", "--dtype", "float64", "--seed", "7", "-q"]


def _surrogate(*args, **kwargs):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return [sys.executable, "-m", "surrogate", *map(str, args)], env


@pytest.fixture(scope="module")
def family_file(tmp_path_factory):
    """A small radial family: 8 problems × 400 points (640 mini-batches of 4 per epoch)."""
    path = tmp_path_factory.mktemp("family") / "radial.h5"
    gen_data(path, "maxwell-family", "--family", "radial", "--problems", 8, "--points", 400,
             "--n-volume", 4, "--n-boundary", 2, "--seed", 2)  # in process: only fits signalled
    return path


def _weights(run_dir: Path) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "model.pt", weights_only=True)


def _losses(history):
    return [{k: v for k, v in row.items() if k != "seconds"} for row in history]


def test_interrupt_in_a_mini_batch_checkpoints_its_position_and_resumes_exactly(
        family_file, tmp_path, monkeypatch, single_torch_thread):
    model = {"arch": "resnet", "inputs": "params", "width": 8, "depth": 2}
    train = {"epochs": 2, "batch_size": 64, "dtype": "float64", "seed": 5}
    full = fit(family_file, model, train, tmp_path / "full")
    forward_passes = 0
    real_autocast = epoch_module.autocast

    def interrupt_in_batch_7_of_epoch_2(config, device):  # once per mini-batch
        nonlocal forward_passes
        forward_passes += 1
        if forward_passes == len_epoch + 7:
            os.kill(os.getpid(), signal.SIGINT)  # held until the mini-batch is done
        return real_autocast(config, device)

    len_epoch = -(-len(read_dataset(family_file).splits["train"]) // 64)
    monkeypatch.setattr(epoch_module, "autocast", interrupt_in_batch_7_of_epoch_2)
    with pytest.raises(TrainingInterrupted) as info:
        fit(family_file, model, train, tmp_path / "cut")
    monkeypatch.setattr(epoch_module, "autocast", real_autocast)
    assert (info.value.epoch, info.value.batches) == (1, 7)
    payload = load_checkpoint(info.value.checkpoint)
    assert payload["epoch"] == 1 and len(payload["history"]) == 1
    assert payload["partial_epoch"]["batches"] == 7
    resumed = fit(family_file, None, None, tmp_path / "cut", resume=True)
    assert _losses(resumed.history) == _losses(full.history)
    for name, tensor in full.model.state_dict().items():
        assert torch.equal(resumed.model.state_dict()[name], tensor), name
    assert resumed.metrics["wall_time_s"] == pytest.approx(
        sum(row["seconds"] for row in resumed.history), rel=1e-9)


@pytest.mark.slow
def test_sigterm_during_a_family_fit_ends_it_within_seconds_and_resume_matches(family_file,
                                                                                tmp_path):
    reference = tmp_path / "reference"  # in this process: only the signalled fit needs one
    done = CliRunner().invoke(app, ["fit", str(family_file), "-o", str(reference), *FIT])
    assert done.exit_code == 0, done.output

    out = tmp_path / "cut"
    command, env = _surrogate("fit", family_file, "-o", out, *FIT)
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "checkpoint.pt").exists():  # epoch 1 done: epoch 2 is running
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.005)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    gone = time.monotonic() - sent
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert gone <= SIGNAL_TO_EXIT_S, f"{gone:.1f} s from SIGTERM to exit"
    payload = load_checkpoint(out / "checkpoint.pt")
    assert payload["epoch"] == 1 and payload["partial_epoch"]["batches"] >= 1, err

    done = CliRunner().invoke(app, ["fit", str(family_file), "-o", str(out), "--resume", "-q"])
    assert done.exit_code == 0, done.output
    expected, got = _weights(reference), _weights(out)
    assert expected.keys() == got.keys()
    for name, tensor in expected.items():
        assert tensor.dtype == torch.float64 and torch.equal(got[name], tensor), name
