"""Data-parallel ``fit``: shards, the loss weighting, and a real 2-process gloo run on CPU."""

import json
import os
import subprocess
import sys

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.training.ddp import row_loss_sum, step_rows
from surrogate.training.distributed import DistributedContext, shard_rows, shard_size
from surrogate.training.epoch import data_loss

pytestmark = pytest.mark.usefixtures("single_torch_thread")
FIT = ["--depth", "2", "--width", "6", "--epochs", "15", "--dtype", "float64", "--lr", "0.02",
       "--seed", "5", "-q"]


@pytest.mark.parametrize("n, world", [(10, 3), (7, 2), (2, 2), (64, 4)])
def test_shards_hold_every_row_once(n, world):
    shards = [shard_rows(n, DistributedContext(r, r, world), seed=9, epoch=3)
              for r in range(world)]
    rows = torch.cat(shards)
    assert sorted(rows.tolist()) == list(range(n))
    assert [len(s) for s in shards] == [shard_size(n, r, world) for r in range(world)]
    again = shard_rows(n, DistributedContext(0, 0, world), seed=9, epoch=3)
    assert torch.equal(again, shards[0])  # the same on every call: the epoch and seed decide
    if n > 8:
        other = shard_rows(n, DistributedContext(0, 0, world), seed=9, epoch=4)
        assert not torch.equal(other, shards[0])  # set_epoch reshuffles


@pytest.mark.parametrize("n, world, batch", [(10, 3, 4), (11, 2, 10), (9, 4, None), (5, 2, 1)])
def test_scaled_local_losses_average_to_the_global_batch_gradient(n, world, batch):
    """What DDP computes (the mean over ranks of each rank's gradient) is the gradient of J
    on the union of the ranks' batches, whatever their sizes (empty ones included)."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)
                              ).double()
    x, y = torch.randn(n, 3, dtype=torch.float64), torch.randn(n, 2, dtype=torch.float64)
    shards = [shard_rows(n, DistributedContext(r, r, world), seed=1, epoch=0)
              for r in range(world)]
    local, totals = step_rows(n, DistributedContext(0, 0, world), batch)
    assert sum(totals) == n
    for k, total in enumerate(totals):
        grads, union = [], []
        for shard in shards:
            index = shard[k * local:(k + 1) * local]
            union.append(index)
            net.zero_grad()
            (row_loss_sum(net(x[index]), y[index]) * (world / total)).backward()
            grads.append([p.grad.clone() for p in net.parameters()])
        mean = [sum(g[i] for g in grads) / world for i in range(len(grads[0]))]
        index = torch.cat(union)
        assert len(index) == total
        net.zero_grad()
        data_loss(net(x[index]), y[index]).backward()
        for got, want in zip(mean, (p.grad for p in net.parameters()), strict=True):
            torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-14)


def test_sequence_row_losses_average_over_time_steps():
    prediction, target = torch.randn(4, 7, 3), torch.randn(4, 7, 3)
    torch.testing.assert_close(row_loss_sum(prediction, target) / 4,
                               data_loss(prediction, target))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("ddp") / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=203, seed=2), path)  # 163 training rows: unequal shards
    return path


@pytest.mark.skipif(not torch.distributed.is_available(), reason="no torch.distributed")
@pytest.mark.slow
def test_two_process_gloo_fit_equals_one_process(data, tmp_path):
    from surrogate.runs.load import load_run
    from surrogate.training.loop import fit

    single = fit(data, {"depth": 2, "width": 6},
                 {"epochs": 15, "dtype": "float64", "lr": 0.02, "seed": 5}, tmp_path / "one")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "surrogate", "fit", str(data), "-o",
                           str(tmp_path / "two"), "--nproc", "2", *FIT], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""  # -q: nothing from any rank
    run = load_run(tmp_path / "two")  # a plain run: no DDP needed to load it
    state = torch.load(tmp_path / "two" / "model.pt", weights_only=True)
    assert not any(key.startswith("module.") for key in state)
    for key, value in single.model.state_dict().items():
        torch.testing.assert_close(state[key], value, rtol=0, atol=1e-6)
    assert [r["train_loss"] for r in run.history] == pytest.approx(
        [r["train_loss"] for r in single.history], rel=1e-9)
    config = json.loads((tmp_path / "two" / "config.json").read_text())
    assert config["train"]["nproc"] == 2 and config["train"]["bf16"] is False
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == sorted(
        p.name for p in (tmp_path / "one").iterdir())
    with pytest.raises(InputError, match=r"trained with 2 process\(es\); resume it with as "
                                         r"many \(--nproc 2\), not 1"):
        fit(data, None, {"epochs": 20}, tmp_path / "two", resume=True)


def test_bf16_trains_and_is_recorded(data, tmp_path):
    from surrogate.training.loop import fit

    run = fit(data, {"depth": 2, "width": 6}, {"epochs": 3, "bf16": True}, tmp_path / "bf16")
    assert run.train_config["bf16"] is True and run.metrics["epochs_run"] == 3
    with pytest.raises(InputError, match="bf16 autocast needs dtype float32"):
        fit(data, {"depth": 2}, {"epochs": 3, "bf16": True, "dtype": "float64"}, tmp_path / "x")


def test_fit_help_shows_nproc_and_bf16():
    from typer.testing import CliRunner

    from surrogate.cli.app import app

    result = CliRunner().invoke(app, ["fit", "--help"])
    text = " ".join(result.stdout.split())
    assert "--nproc" in text and "--bf16" in text and "torchrun --nproc-per-node" in text
    assert "surrogate fit data/maxwell.h5 --nproc 2" in text
