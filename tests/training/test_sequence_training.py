"""``fit`` on sequence datasets: LEM, coRNN and LSTM learn a causal moving average through the
same loop and run directory; exact resume of an LEM run; seq-to-one read-out on an adding
problem; per-sequence metrics against numpy; run round trip, validate, gradient clipping;
kind mismatches and τ-layer options refused in one line."""

import json

import numpy as np
import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.datasets.writer import write_dataset
from surrogate.runs.load import load_run
from surrogate.runs.safe_load import load_weights_only
from surrogate.runs.validate import validate_run
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

N, T, WINDOW = 40, 12, 3
SPLITS = {"train": np.arange(0, 24), "val": np.arange(24, 32), "test": np.arange(32, 40)}


def moving_average_data(seed=0):
    """Inputs (N, T, 2): a random signal u and 10 u + 3 (another scale, so the per-channel
    statistics differ); targets (N, T, 1): the causal mean of u over WINDOW steps."""
    u = np.random.default_rng(seed).normal(size=(N, T))
    cumsum = np.cumsum(np.pad(u, ((0, 0), (WINDOW, 0))), axis=1)
    average = (cumsum[:, WINDOW:] - cumsum[:, :-WINDOW]) / WINDOW
    return np.stack([u, 10.0 * u + 3.0], axis=-1), average[..., None]


def adding_data(seed=0, steps=10):
    """The adding problem: inputs (N, T, 2) = (values in [0, 1], markers at two steps), target
    the sum of the two marked values; returned as (inputs, sums (N,), cumulative marked sums
    (N, T, 1))."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(size=(N, steps))
    markers = np.zeros((N, steps))
    first = rng.integers(0, steps // 2, N)
    second = rng.integers(steps // 2, steps, N)
    markers[np.arange(N), first] = markers[np.arange(N), second] = 1.0
    running = np.cumsum(values * markers, axis=1)
    return np.stack([values, markers], axis=-1), running[:, -1], running[..., None]


def write_sequences(path, inputs, targets, **attrs):
    write_dataset(path, inputs=inputs, targets=targets,
                  input_names=[f"u{i}" for i in range(inputs.shape[-1])],
                  target_names=[f"y{i}" for i in range(targets.shape[-1])], splits=SPLITS,
                  problem="signal", domain="time", recipe={"kind": "test"}, seed=0,
                  kind="sequence", time=np.arange(inputs.shape[1], dtype=float),
                  attrs=attrs or None)
    return path


@pytest.fixture(scope="module")
def ma_file(tmp_path_factory):
    return write_sequences(tmp_path_factory.mktemp("seq") / "ma.h5", *moving_average_data())


@pytest.fixture(scope="module")
def lem_run(ma_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "lem"
    return fit(ma_file, {"arch": "lem", "hidden": 8, "learn_dt": True},
               {"epochs": 30, "lr": 0.02, "batch_size": 8, "grad_clip": 1.0}, out)


def losses(history):
    return [[v for k, v in row.items() if k != "seconds"] for row in history]


# ------------------------------------------------------------------------------- learning


def test_lem_learns_the_moving_average_and_logs_its_learned_steps(lem_run):
    history = lem_run.history
    assert history[-1]["train_loss"] < history[0]["train_loss"] / 8
    assert {"grad_norm", "dt_min", "dt_mean", "dt_max"} <= set(history[-1])
    assert not any(k.startswith(("tau_", "depth")) for k in history[-1])
    assert 0 < history[-1]["dt_min"] <= history[-1]["dt_mean"] <= history[-1]["dt_max"]
    assert lem_run.metrics["dt"]["dt_mean"] == history[-1]["dt_mean"]
    assert lem_run.metrics["readout"] == "sequence" and lem_run.model_config.readout == "sequence"


@pytest.mark.parametrize("arch, options, factor", [
    ("cornn", {"dt": 0.5, "gamma": 1.0, "epsilon": 2.0}, 4),
    ("lstm", {}, 5),
])
def test_cornn_and_lstm_learn_the_moving_average(ma_file, tmp_path, arch, options, factor):
    run = fit(ma_file, {"arch": arch, "hidden": 8, **options},
              {"epochs": 30, "lr": 0.02, "batch_size": 8, "grad_clip": 1.0}, tmp_path / arch)
    assert run.history[-1]["train_loss"] < run.history[0]["train_loss"] / factor
    assert "dt_mean" not in run.history[-1] and "grad_norm" in run.history[-1]
    assert run.predict(moving_average_data(1)[0][:3]).shape == (3, T, 1)


# -------------------------------------------------------------------------------- resume


def test_lem_resume_reproduces_the_uninterrupted_run_bit_for_bit(ma_file, tmp_path):
    model = {"arch": "lem", "hidden": 6, "learn_dt": True}
    train = {"epochs": 6, "batch_size": 8, "grad_clip": 0.5, "dtype": "float64",
             "checkpoint_every": 100, "patience": 50}
    full = fit(ma_file, model, train, tmp_path / "full")

    def stop_at_3(record):
        if record["epoch"] == 3:
            raise KeyboardInterrupt

    from surrogate.training.loop import TrainingInterrupted

    with pytest.raises(TrainingInterrupted) as info:
        fit(ma_file, model, train, tmp_path / "cut", on_epoch=stop_at_3)
    assert info.value.epoch == 3 and info.value.checkpoint.is_file()
    resumed = fit(ma_file, None, None, tmp_path / "cut", resume=True)
    assert losses(resumed.history) == losses(full.history) and len(resumed.history) == 6
    full_state, resumed_state = full.model.state_dict(), resumed.model.state_dict()
    assert full_state.keys() == resumed_state.keys()
    assert all(torch.equal(full_state[k], resumed_state[k]) for k in full_state)


def test_sigint_is_deferred_to_the_epoch_end_of_a_sequence_run(ma_file, tmp_path):
    import os
    import signal

    from surrogate.runs.checkpoints import load_checkpoint
    from surrogate.training.loop import TrainingInterrupted

    def press_ctrl_c(record):
        if record["epoch"] == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(TrainingInterrupted) as info:
        fit(ma_file, {"arch": "lstm", "hidden": 4}, {"epochs": 5, "checkpoint_every": 100},
            tmp_path / "c", on_epoch=press_ctrl_c)
    payload = load_checkpoint(info.value.checkpoint)
    assert payload["epoch"] == 2 and payload["model_config"]["arch"] == "lstm"
    assert not (tmp_path / "c" / "model.pt").exists()


def test_a_diverging_sequence_run_stops_in_one_line(ma_file, tmp_path):
    from surrogate.core.errors import SolverError

    with pytest.raises(SolverError, match="not finite at epoch 1") as info:
        fit(ma_file, {"arch": "cornn", "hidden": 4}, {"epochs": 3, "optimizer": "sgd",
                                                      "lr": 1e30}, tmp_path / "d")
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------- seq-to-one


def test_seq_to_one_readout_learns_the_adding_problem(tmp_path):
    inputs, sums, _ = adding_data()
    path = write_sequences(tmp_path / "adding.h5", inputs, sums[:, None, None], readout="last")
    run = fit(path, {"arch": "lem", "hidden": 8},
              {"epochs": 40, "lr": 0.02, "batch_size": 8}, tmp_path / "run")
    assert run.model_config.readout == "last"  # the default for targets with one step
    assert run.history[-1]["train_loss"] < run.history[0]["train_loss"] / 10
    test_inputs = inputs[SPLITS["test"]]
    prediction = load_run(tmp_path / "run").predict(test_inputs)
    assert prediction.shape == (8, 1)
    errors = np.abs(prediction[:, 0] - sums[SPLITS["test"]]) / np.abs(sums[SPLITS["test"]])
    summary = run.metrics["sequence_relative_l2_error"]["test"]
    assert summary["mean"] == pytest.approx(errors.mean(), rel=1e-12)
    assert summary["median"] == pytest.approx(np.median(errors), rel=1e-12)


def test_readout_last_on_seq_to_seq_data_predicts_the_final_step(tmp_path):
    inputs, sums, running = adding_data(seed=1)
    path = write_sequences(tmp_path / "running.h5", inputs, running)
    run = fit(path, {"arch": "lstm", "hidden": 4, "readout": "last"}, {"epochs": 3},
              tmp_path / "run")
    assert run.predict(inputs[:5]).shape == (5, 1)
    norm = json.loads((tmp_path / "run" / "config.json").read_text())["normalisation"]
    assert norm["target_mean"] == pytest.approx([sums[SPLITS["train"]].mean()], rel=1e-12)


# ----------------------------------------------------------------- metrics, files, validate


def test_per_sequence_metrics_equal_a_direct_numpy_computation(lem_run, ma_file):
    inputs, targets = moving_average_data()
    for split, index in SPLITS.items():
        prediction = lem_run.predict(inputs[index])
        diff = np.linalg.norm((prediction - targets[index]).reshape(len(index), -1), axis=1)
        per_sequence = diff / np.linalg.norm(targets[index].reshape(len(index), -1), axis=1)
        summary = lem_run.metrics["sequence_relative_l2_error"][split]
        pooled = np.linalg.norm(prediction - targets[index]) / np.linalg.norm(targets[index])
        assert summary["mean"] == pytest.approx(per_sequence.mean(), rel=1e-12)
        assert summary["median"] == pytest.approx(np.median(per_sequence), rel=1e-12)
        assert summary["max"] == pytest.approx(per_sequence.max(), rel=1e-12)
        assert summary["pooled"] == pytest.approx(pooled, rel=1e-12)
        assert lem_run.metrics[f"{split}_relative_l2_error"] == summary["pooled"]
        rmse = np.sqrt(np.mean((prediction - targets[index]) ** 2))  # the LEM paper's L² error
        assert summary["rmse"] == pytest.approx(rmse, rel=1e-12)
        assert lem_run.metrics["rmse"][split] == summary["rmse"]
        assert summary["sequences"] == len(index)
    for key in ("parameter_count", "wall_time_s", "epochs_run", "device", "dtype",
                "num_threads"):
        assert key in lem_run.metrics


def test_sequence_run_files_round_trip_and_validate(lem_run):
    path = lem_run.path
    state = load_weights_only(path / "model.pt", "a state_dict", missing="missing")
    assert set(state) == set(lem_run.model.state_dict())
    config = json.loads((path / "config.json").read_text())
    assert config["model"]["arch"] == "lem" and config["model"]["hidden"] == 8
    assert config["dataset"]["kind"] == "sequence"
    train_inputs = moving_average_data()[0][SPLITS["train"]].reshape(-1, 2)
    assert config["normalisation"]["input_mean"] == pytest.approx(train_inputs.mean(0),
                                                                  rel=1e-12)
    assert config["normalisation"]["input_std"] == pytest.approx(train_inputs.std(0), rel=1e-12)
    loaded = load_run(path)
    x = moving_average_data(seed=5)[0][:7]
    assert np.array_equal(loaded.predict(x), lem_run.predict(x))
    assert np.allclose(loaded.predict(x, batch_size=2), lem_run.predict(x), rtol=1e-5,
                       atol=1e-6)  # other batch shapes round float32 differently
    assert validate_run(path) == []


def test_a_huge_configured_hidden_size_is_refused_before_building(lem_run, tmp_path):
    import shutil

    from surrogate.core.errors import DataFormatError

    run_dir = tmp_path / "huge"
    shutil.copytree(lem_run.path, run_dir)
    config = json.loads((run_dir / "config.json").read_text())
    config["model"]["hidden"] = 10**7  # building it would need terabytes
    (run_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataFormatError, match="lem needs at least"):
        load_run(run_dir)
    assert any("has shape" in problem for problem in validate_run(run_dir))


def test_gradient_clipping_bounds_the_step_of_a_sequence_model(ma_file, tmp_path):
    clip, lr = 1e-3, 1.0
    run = fit(ma_file, {"arch": "cornn", "hidden": 6}, {"epochs": 1, "optimizer": "sgd",
                                                         "lr": lr, "grad_clip": clip,
                                                         "schedule": "none"}, tmp_path / "c")
    from surrogate.training.data import build_initial_model
    from surrogate.training.device import seed_streams

    initial = build_initial_model(run.model_config, seed_streams(0)[0])  # what fit started from
    step = torch.cat([(a.detach() - b.detach()).flatten() for a, b in
                      zip(run.model.parameters(), initial.parameters(), strict=True)])
    assert run.history[0]["grad_norm"] > 10 * clip  # clipping was active
    assert 0 < float(step.norm()) <= lr * clip * (1 + 1e-5)


# ------------------------------------------------------------------------------- refusals


def test_kind_mismatch_is_one_line_naming_both(ma_file, tmp_path):
    with pytest.raises(InputError, match="arch 'resnet' trains on pointwise.*sequence") as info:
        fit(ma_file, {"arch": "resnet"}, {"epochs": 1}, tmp_path / "a")
    assert "\n" not in str(info.value) and "lem" in str(info.value)
    pointwise = tmp_path / "points.h5"
    write_dataset(pointwise, inputs=np.zeros((6, 2)) + np.arange(6)[:, None],
                  targets=np.ones((6, 1)), input_names=["a", "b"], target_names=["y"],
                  splits={"train": np.arange(4), "val": np.arange(4, 5), "test": np.arange(5, 6)},
                  problem="p", domain="d", recipe={"kind": "test"}, seed=0)
    with pytest.raises(InputError, match="arch 'lem' trains on sequence.*pointwise") as info:
        fit(pointwise, {"arch": "lem"}, {"epochs": 1}, tmp_path / "b")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("train", [{"lambda1": 1e-3}, {"lambda2": 1.0}, {"beta": 1.0},
                                   {"horizon_weight": 1.0}, {"smoothness": 0.1},
                                   {"prune_every": 5}])
def test_tau_layer_penalties_and_pruning_are_refused_for_sequence_archs(ma_file, tmp_path,
                                                                         train):
    name = next(iter(train))
    with pytest.raises(InputError, match=f"arch 'cornn' has no τ-layers: {name} must") as info:
        fit(ma_file, {"arch": "cornn"}, {"epochs": 1, **train}, tmp_path / "r")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "r" / "checkpoint.pt").exists()


def test_sequence_readout_needs_a_target_at_every_step(tmp_path):
    inputs, sums, _ = adding_data()
    path = write_sequences(tmp_path / "adding.h5", inputs, sums[:, None, None], readout="last")
    with pytest.raises(InputError, match="readout 'sequence' predicts every step"):
        fit(path, {"arch": "lem", "readout": "sequence"}, {"epochs": 1}, tmp_path / "r")
    with pytest.raises(InputError, match="unknown sequence model config key"):
        fit(path, {"arch": "lem", "width": 8}, {"epochs": 1}, tmp_path / "r")
