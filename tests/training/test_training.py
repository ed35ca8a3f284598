"""Training loop: typed config, normalisation, exact resume, τ positivity, deep nets from
small τ, non-finite detection, Ctrl-C checkpoints, early stopping, pruning in training."""

import math
import os
import re
import signal

import numpy as np
import pytest
import torch

from surrogate.core.errors import InputError, SolverError
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import architectures_for, build_model, config_from_dict
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.runs.load import load_run
from surrogate.training.config import TrainConfig, parse_tau, split_run_config
from surrogate.training.device import resolve_device
from surrogate.training.epoch import data_loss
from surrogate.training.loop import TrainingInterrupted, fit
from surrogate.training.optimiser import make_optimizer

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def maxwell_file(tmp_path_factory):
    """A small dataset of the paper's problem (eq. 7.2) on the cylinder."""
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    path = tmp_path_factory.mktemp("data") / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=240, seed=3), path)
    return path


def small(arch="resnet", **kwargs):
    return {"arch": arch, "width": 8, "depth": 3, **kwargs}


def losses(history):
    keys = [k for k in history[0] if k not in ("seconds",)]
    return [[row.get(k) for k in keys] for row in history]


# ------------------------------------------------------------------------------- TrainConfig


def test_train_config_round_trips_through_dict_and_toml():
    config = TrainConfig(optimizer="sgd", lr=0.1234567890123, momentum=0.5, batch_size=32,
                         patience=7, prune_every=3, grad_clip=1.5, dtype="float64")
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert TrainConfig.from_toml(config.to_toml()) == config
    assert TrainConfig.from_toml(TrainConfig().to_toml()) == TrainConfig()


@pytest.mark.parametrize("bad", [{"optimizer": "rmsprop"}, {"lr": 0}, {"lr": float("nan")},
                                 {"epochs": 0}, {"batch_size": 0}, {"schedule": "linear"},
                                 {"device": "tpu"}, {"dtype": "float16"}, {"beta": -1},
                                 {"momentum": 1.0}, {"patience": True}, {"nope": 1}])
def test_train_config_rejects_bad_values(bad):
    with pytest.raises(InputError):
        TrainConfig.from_dict(bad)


def test_run_config_file_splits_tables_and_parses_tau():
    model, train = split_run_config({"model": {"arch": "frac-dnn", "tau": "learned"},
                                     "train": {"lr": 0.1}, "depth": 4, "epochs": 9})
    assert model == {"arch": "frac-dnn", "tau": None, "depth": 4}
    assert train == {"lr": 0.1, "epochs": 9}
    assert parse_tau("0.25") == 0.25
    for bad in ("abc", "-1", "0", "nan"):
        with pytest.raises(InputError):
            parse_tau(bad)
    with pytest.raises(InputError):
        split_run_config({"colour": "red"})


def test_cuda_request_without_cuda_is_an_input_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    with pytest.raises(InputError):
        resolve_device("cuda")
    assert resolve_device("auto").type == "cpu"


# ----------------------------------------------------------------------------- normalisation


def test_normalisation_standardises_train_split_and_guards_constant_columns():
    rng = np.random.default_rng(0)
    inputs = rng.normal(3.0, 2.0, (500, 4))
    inputs[:, 2] = 7.0  # constant column: std would be 0
    targets = rng.normal(-1.0, 5.0, (500, 2))
    norm = Normalisation.fit(inputs, targets)
    scaled = norm.normalise_inputs(inputs)
    assert np.allclose(scaled[:, [0, 1, 3]].mean(0), 0, atol=1e-12)
    assert np.allclose(scaled[:, [0, 1, 3]].std(0), 1, atol=1e-12)
    assert norm.input_std[2] == 1.0 and np.all(scaled[:, 2] == 0.0)
    assert np.allclose(norm.denormalise_targets(norm.normalise_targets(targets)), targets,
                       rtol=0, atol=1e-12)
    again = Normalisation.from_dict(norm.to_dict())
    assert all(np.array_equal(getattr(again, k), getattr(norm, k)) for k in norm.to_dict())


# --------------------------------------------------------------------------------- the loop


@pytest.mark.parametrize("train", [
    {"optimizer": "adam", "batch_size": 50, "schedule": "cosine", "lambda1": 1e-4, "beta": 1.0},
    {"optimizer": "lbfgs", "lr": 1.0, "schedule": "plateau", "step_every": 1},
], ids=["adam-minibatch", "lbfgs"])
def test_resume_reproduces_the_uninterrupted_history(maxwell_file, tmp_path, train):
    train = {"epochs": 8, "dtype": "float64", "checkpoint_every": 100, "patience": 50, **train}
    full = fit(maxwell_file, small("frac-dnn"), train, tmp_path / "full")

    def stop_at_3(record):
        if record["epoch"] == 3:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted) as info:
        fit(maxwell_file, small("frac-dnn"), train, tmp_path / "cut", on_epoch=stop_at_3)
    assert info.value.epoch == 3 and info.value.checkpoint.is_file()
    resumed = fit(maxwell_file, None, None, tmp_path / "cut", resume=True)
    assert losses(resumed.history) == losses(full.history)
    assert len(resumed.history) == 8
    x = np.random.default_rng(1).normal(size=(20, 7))
    assert np.array_equal(resumed.predict(x), full.predict(x))


def test_resume_may_extend_epochs_but_not_change_the_optimiser(maxwell_file, tmp_path):
    fit(maxwell_file, small(), {"epochs": 3}, tmp_path / "r")
    with pytest.raises(InputError, match="lr"):
        fit(maxwell_file, None, {"lr": 0.5, "epochs": 5}, tmp_path / "r", resume=True)
    with pytest.raises(InputError, match="already ran"):
        fit(maxwell_file, None, None, tmp_path / "r", resume=True)
    run = fit(maxwell_file, None, {"epochs": 5}, tmp_path / "r", resume=True)
    assert [row["epoch"] for row in run.history] == [1, 2, 3, 4, 5]


def test_sigint_is_deferred_to_the_epoch_end_and_checkpointed(maxwell_file, tmp_path):
    def press_ctrl_c(record):
        if record["epoch"] == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(TrainingInterrupted) as info:
        fit(maxwell_file, small(), {"epochs": 6, "checkpoint_every": 100}, tmp_path / "c",
            on_epoch=press_ctrl_c)
    payload = load_checkpoint(info.value.checkpoint)
    assert payload["epoch"] == 2 and len(payload["history"]) == 2
    assert not (tmp_path / "c" / "model.pt").exists()


@pytest.mark.parametrize("optimizer", ["adam", "sgd", "lbfgs"])
@pytest.mark.parametrize("lr", [1e2, 1e6])
def test_steps_stay_positive_under_absurd_learning_rates(optimizer, lr):
    torch.manual_seed(0)
    model = build_model(config_from_dict({"arch": "frac-dnn", "in_features": 7,
                                          "out_features": 3, "width": 6, "depth": 4})).double()
    opt = make_optimizer(model.parameters(), TrainConfig(optimizer=optimizer, lr=lr))
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 7, generator=gen, dtype=torch.float64)
    y = torch.randn(64, 3, generator=gen, dtype=torch.float64)

    def closure():
        opt.zero_grad()
        loss = data_loss(model(x), y)
        loss.backward()
        return loss

    for step in range(3):
        opt.step(closure)
        params_finite = all(torch.isfinite(p).all() for p in model.parameters())
        if step == 0:
            assert params_finite  # one step from a finite state stays finite
        if params_finite:
            taus = model.taus()
            assert (taus >= model.config.tau_min).all() and (taus > 0).all()


@pytest.mark.parametrize("arch", ["frac-dnn", "resnet"])
def test_depth_32_from_small_steps_stays_finite(maxwell_file, tmp_path, arch):
    run = fit(maxwell_file, {"arch": arch, "depth": 32, "width": 12, "tau_init": 1e-3},
              {"epochs": 40, "lr": 1e-2}, tmp_path / arch)
    for row in run.history:
        assert all(math.isfinite(v) for k, v in row.items() if v is not None)
    assert run.history[-1]["train_loss"] < run.history[0]["train_loss"]
    assert all(math.isfinite(t) and t > 0 for t in run.metrics["taus"])
    assert math.isfinite(run.metrics["test_relative_l2_error"])


def test_non_finite_loss_stops_with_the_epoch_and_keeps_last_good_checkpoint(maxwell_file,
                                                                           tmp_path):
    out = tmp_path / "nan"
    with pytest.raises(SolverError, match=r"not finite at epoch (\d+)") as info:
        fit(maxwell_file, small(depth=4), {"optimizer": "sgd", "lr": 1e5, "schedule": "none",
                                           "epochs": 200, "checkpoint_every": 1}, out)
    bad_epoch = int(re.search(r"epoch (\d+)", str(info.value)).group(1))
    payload = load_checkpoint(out / "checkpoint.pt")
    assert payload["epoch"] == bad_epoch - 1
    assert f"checkpoint {out / 'checkpoint.pt'} (epoch {bad_epoch - 1})" in str(info.value)
    assert all(torch.isfinite(v).all() for v in payload["model"].values())
    assert not (out / "model.pt").exists()


def test_early_stopping_keeps_the_best_val_weights(maxwell_file, tmp_path):
    run = fit(maxwell_file, small(), {"epochs": 300, "lr": 0.3, "schedule": "none",
                                      "patience": 3, "dtype": "float64"}, tmp_path / "es")
    assert run.metrics["stop_reason"] == "early-stopping"
    val = [row["val_loss"] for row in run.history]
    best = int(np.argmin(val))
    assert run.metrics["best_epoch"] == best + 1
    assert len(val) == best + 1 + 3
    loaded = load_run(tmp_path / "es")
    from surrogate.datasets import read_dataset

    dataset = read_dataset(maxwell_file)
    inputs, targets = dataset.split("val")
    norm = loaded.normalisation
    pred = norm.normalise_targets(loaded.predict(inputs))
    j = 0.5 * np.mean(np.sum((pred - norm.normalise_targets(targets)) ** 2, axis=1))
    assert j == pytest.approx(val[best], rel=1e-10)


@pytest.mark.parametrize("arch", architectures_for("pointwise"))
def test_every_registered_architecture_trains_through_the_generic_interface(maxwell_file,
                                                                             tmp_path, arch):
    run = fit(maxwell_file, small(arch, tau_init=0.05), {"epochs": 30, "lambda1": 1e-5,
                                                         "lambda2": 1e-5, "beta": 1.0},
              tmp_path / arch)
    assert run.history[-1]["train_loss"] < run.history[0]["train_loss"]
    assert {"tau_0", "tau_2", "grad_norm_0", "grad_norm_output", "lr"} <= set(run.history[0])


def test_pruning_during_training_logs_when_each_layer_went(maxwell_file, tmp_path):
    run = fit(maxwell_file, small(depth=4), {"epochs": 20, "lr": 0.1, "lambda2": 100.0,
                                             "prune_every": 4, "prune_tol": 0.05},
              tmp_path / "p")
    events = run.metrics["pruning"]
    assert events, "strong τ penalty should shrink steps below the tolerance"
    removed = [layer for e in events for layer in e["removed_layers"]]
    assert 0 not in removed and set(removed) <= {1, 2, 3}
    assert run.model_config.depth == 4 - len(removed)
    for event in events:
        assert all(t < 0.05 for t in event["removed_taus"])
        after = [row for row in run.history if row["epoch"] > event["epoch"]]
        for layer in event["removed_layers"]:
            assert all(f"tau_{layer}" not in row for row in after)
    assert load_run(tmp_path / "p").model_config.depth == run.model_config.depth


def test_densenet_cannot_prune_during_training(maxwell_file, tmp_path):
    with pytest.raises(InputError, match="densenet"):
        fit(maxwell_file, small("densenet"), {"epochs": 2, "prune_every": 1}, tmp_path / "d")


def test_existing_run_is_not_overwritten_by_accident(maxwell_file, tmp_path):
    fit(maxwell_file, small(), {"epochs": 1}, tmp_path / "o")
    with pytest.raises(InputError, match="--resume"):
        fit(maxwell_file, small(), {"epochs": 1}, tmp_path / "o")
    fit(maxwell_file, small(), {"epochs": 2}, tmp_path / "o", overwrite=True)
    assert len(load_run(tmp_path / "o").history) == 2
