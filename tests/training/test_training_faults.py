"""Divergent training is caught in the epoch it happens and reported with the last good epoch;
interrupt signals are held to the epoch's end; a run whose final files were cut off is
finished by ``resume``."""

import math
import re

import pytest
import torch

import surrogate.runs.save as runs_save
from surrogate.core.errors import SolverError
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.runs.load import load_run
from surrogate.training.loop import TrainingInterrupted, fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")
DIVERGING = {"optimizer": "sgd", "lr": 1e5, "schedule": "none", "epochs": 200}


@pytest.fixture(scope="module")
def maxwell_file(tmp_path_factory):
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("data") / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=240, seed=3), path)
    return path


@pytest.fixture(scope="module")
def no_val_file(tmp_path_factory):
    """Only a training split: no validation loss looks at the parameters after a step."""
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("data") / "train-only.h5"
    generate_dataset(MaxwellRecipe(n=240, seed=3, split=(1.0, 0.0, 0.0)), path)
    return path


def small(**kwargs):
    return {"arch": "resnet", "width": 8, "depth": 4, **kwargs}


@pytest.mark.parametrize("dataset", ["maxwell_file", "no_val_file"])
def test_divergence_is_reported_in_its_epoch_with_the_last_good_one(dataset, request,
                                                                    tmp_path):
    data = request.getfixturevalue(dataset)
    seen = []
    out = tmp_path / "nan"
    with pytest.raises(SolverError) as info:
        fit(data, small(), {**DIVERGING, "checkpoint_every": 1}, out,
            on_epoch=lambda record: seen.append(record))
    message = str(info.value)
    bad = int(re.search(r"not finite at epoch (\d+)", message).group(1))
    # every epoch before the bad one finished with finite numbers and a finite state ...
    assert [row["epoch"] for row in seen] == list(range(1, bad))
    assert all(math.isfinite(v) for row in seen for v in row.values() if v is not None)
    state = load_checkpoint(out / "checkpoint.pt")
    assert state["epoch"] == bad - 1
    assert all(torch.isfinite(v).all() for v in state["model"].values())
    # ... and the message names it with its losses (one line)
    last = seen[-1]
    assert f"last good epoch {bad - 1}: train loss {last['train_loss']:.3e}" in message
    assert "\n" not in message and not (out / "model.pt").exists()


def test_divergence_without_a_checkpoint_says_so(maxwell_file, tmp_path):
    with pytest.raises(SolverError, match=r"last good epoch \d+.*no checkpoint had been "
                                          r"written yet"):
        fit(maxwell_file, small(), {**DIVERGING, "checkpoint_every": 1000}, tmp_path / "n")
    assert not (tmp_path / "n" / "checkpoint.pt").exists()


def test_run_files_cut_off_at_the_end_are_written_by_resume(maxwell_file, tmp_path,
                                                           monkeypatch):
    train = {"epochs": 4, "checkpoint_every": 100, "dtype": "float64"}
    full = fit(maxwell_file, small(), train, tmp_path / "full")
    real_save_run = runs_save.save_run

    def interrupted_save_run(*args, **kwargs):
        raise KeyboardInterrupt

    import surrogate.training.loop as training

    monkeypatch.setattr(training, "save_run", interrupted_save_run)
    with pytest.raises(TrainingInterrupted) as info:
        fit(maxwell_file, small(), train, tmp_path / "cut")
    assert info.value.epoch == 4 and info.value.checkpoint.is_file()
    assert sorted(p.name for p in (tmp_path / "cut").iterdir()) == ["checkpoint.pt"]
    monkeypatch.setattr(training, "save_run", real_save_run)
    resumed = fit(maxwell_file, None, None, tmp_path / "cut", resume=True)
    assert [r["train_loss"] for r in resumed.history] == [r["train_loss"] for r in full.history]
    assert load_run(tmp_path / "cut").metrics["stop_reason"] == "completed"


def test_a_step_to_non_finite_weights_is_caught_in_that_epoch(no_val_file, tmp_path,
                                                              monkeypatch):
    """The training loss is taken before each step; a step that overflows the weights is
    still caught in its own epoch (no validation split to notice it)."""
    import surrogate.training.loop as training

    real_epoch = training.train_epoch

    def overflowing_step(state, config, x, y, reduction):
        result = real_epoch(state, config, x, y, reduction)
        if state.epoch == 3:
            with torch.no_grad():
                next(state.model.parameters()).view(-1)[0] = math.inf
        return result

    monkeypatch.setattr(training, "train_epoch", overflowing_step)
    with pytest.raises(SolverError, match=r"a parameter is not finite at epoch 3 \(last good "
                                          r"epoch 2: train loss"):
        fit(no_val_file, small(), {"epochs": 10, "checkpoint_every": 1}, tmp_path / "w")
    assert load_checkpoint(tmp_path / "w" / "checkpoint.pt")["epoch"] == 2


def test_a_failed_implicit_solve_names_its_epoch_and_the_kept_checkpoint(maxwell_file,
                                                                        tmp_path, monkeypatch):
    """A SolverError of the implicit layer's forward solve in epoch 3 is reported like
    divergence: the epoch, the last good epoch and the checkpoint kept, in one line."""
    import surrogate.models.implicit_layer as implicit_layer

    real_solve = implicit_layer.solve_implicit_step
    failing = {"now": False}

    def solve(x, weight, bias, h, theta, activation, tol, max_iter, layer=1):
        if failing["now"]:  # the real solver, allowed no iteration: a genuine SolverError
            return real_solve(x, weight, bias, h, theta, activation, 1e-30, 0, layer)
        return real_solve(x, weight, bias, h, theta, activation, tol, max_iter, layer)

    monkeypatch.setattr(implicit_layer, "solve_implicit_step", solve)
    seen = []

    def on_epoch(record):
        seen.append(record)
        failing["now"] = record["epoch"] == 2

    out = tmp_path / "implicit"
    model = small(arch="implicit-resnet", tau=0.5, depth=3)
    with pytest.raises(SolverError) as info:
        fit(maxwell_file, model, {"epochs": 10, "checkpoint_every": 1}, out, on_epoch=on_epoch)
    message = str(info.value)
    assert message.startswith(f"implicit solve failed at epoch 3 (last good epoch 2: train "
                              f"loss {seen[-1]['train_loss']:.3e}")
    assert "layer 1: nonlinear solve did not converge in 0 iterations" in message
    assert message.endswith(f"kept the last good checkpoint {out / 'checkpoint.pt'} (epoch 2)")
    assert "\n" not in message and not (out / "model.pt").exists()
    assert load_checkpoint(out / "checkpoint.pt")["epoch"] == 2
