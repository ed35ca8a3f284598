"""Run directories: exact save/load round trip, plain state_dicts only, atomic files,
normalisation inside predict, summaries without torch."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from surrogate.core.errors import DataFormatError, InputError
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import build_model, config_from_dict
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.runs.history import history_from_csv, history_to_csv
from surrogate.runs.load import load_run, run_summary
from surrogate.runs.predict import predict_array, predict_sequences
from surrogate.runs.save import save_run

DATASET = {"path": "/nowhere/maxwell.h5", "content_hash": "sha256:" + "0" * 64,
           "problem": "maxwell", "domain": "cylinder",
           "input_names": ["x1", "x2", "x3", "f1", "f2", "f3", "phi"],
           "target_names": ["u1", "u2", "u3"], "recipe": {"kind": "maxwell", "n": 10}}


pytestmark = pytest.mark.usefixtures("single_torch_thread")


class Payload:
    """A class torch's weights_only unpickler must refuse (stands in for a crafted pickle)."""

    def __reduce__(self):
        return (print, ("pwned",))


def make_run(tmp_path, arch="frac-dnn", dtype=torch.float64, name="run"):
    torch.manual_seed(0)
    model = build_model(config_from_dict({"arch": arch, "in_features": 7, "out_features": 3,
                                          "width": 5, "depth": 3})).to(dtype)
    rng = np.random.default_rng(0)
    norm = Normalisation.fit(rng.normal(2, 3, (50, 7)), rng.normal(-1, 4, (50, 3)))
    history = [{"epoch": 1, "train_loss": 0.1 + 1e-17, "val_loss": 1 / 3, "tau_0": 0.1},
               {"epoch": 2, "train_loss": 2.0 ** -40, "val_loss": None, "tau_0": 0.2}]
    path = save_run(tmp_path / name, model=model, train_config={"epochs": 2, "dtype": "x"},
                    normalisation=norm, dataset=DATASET, history=history,
                    metrics={"test_relative_l2_error": 0.5, "epochs_run": 2})
    return path, model, norm, history


@pytest.mark.parametrize("arch", ["resnet", "frac-dnn", "densenet"])
def test_save_load_gives_identical_outputs_in_float64(tmp_path, arch):
    path, model, norm, history = make_run(tmp_path, arch)
    run = load_run(path)
    x = np.random.default_rng(1).normal(size=(101, 7))
    with torch.no_grad():
        direct = model(torch.as_tensor(norm.normalise_inputs(x))).numpy()
    expected = norm.denormalise_targets(direct)
    assert np.array_equal(run.predict(x), expected)
    # other batch sizes change only the BLAS blocking (rounding level)
    np.testing.assert_allclose(run.predict(x, batch_size=7), expected, rtol=1e-13, atol=1e-13)
    assert next(run.model.parameters()).dtype == torch.float64
    assert run.model_config == model.config and not run.model.training
    assert run.history == history
    assert run.dataset == DATASET and run.metrics["epochs_run"] == 2


def test_model_file_is_a_plain_state_dict(tmp_path):
    path, model, _, _ = make_run(tmp_path)
    state = torch.load(path / "model.pt", weights_only=True)
    assert type(state) is dict and set(state) == set(model.state_dict())
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    assert not list(path.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_predict_applies_the_normalisation(tmp_path):
    path, _, norm, _ = make_run(tmp_path)
    run = load_run(path)
    with torch.no_grad():
        run.model.output.weight.zero_()  # network output 0 -> prediction = target mean
    out = run.predict(np.zeros((4, 7)))
    assert np.array_equal(out, np.tile(norm.target_mean, (4, 1)))
    with pytest.raises(InputError):
        run.predict(np.zeros((4, 6)))
    with pytest.raises(InputError):
        run.predict(np.full((2, 7), np.nan))


def test_predict_of_no_rows_is_empty_and_keeps_the_training_flag(tmp_path):
    path, model, norm, _ = make_run(tmp_path)
    model.train()
    assert predict_array(model, norm, np.zeros((0, 7))).shape == (0, 3)
    assert predict_array(model, norm, np.ones((5, 7)), batch_size=2).shape == (5, 3)
    assert model.training


@pytest.mark.parametrize("readout", ["sequence", "last"])
def test_sequence_prediction_is_the_chunked_forward_pass(readout):
    torch.manual_seed(0)
    config = config_from_dict({"arch": "lem", "in_features": 2, "out_features": 1,
                               "hidden": 4, "readout": readout})
    model = build_model(config).double()
    rng = np.random.default_rng(2)
    x, y = rng.normal(1, 2, (7, 5, 2)), rng.normal(-3, 0.5, (7, 5, 1))
    norm = Normalisation.fit(x, y)
    with torch.no_grad():
        chunks = [model(torch.as_tensor(norm.normalise_inputs(x[i:i + 3]))).numpy()
                  for i in range(0, 7, 3)]
    expected = norm.denormalise_targets(np.concatenate(chunks))
    assert expected.shape == ((7, 5, 1) if readout == "sequence" else (7, 1))
    assert np.array_equal(predict_array(model, norm, x, batch_size=3), expected)
    assert np.array_equal(predict_sequences(model, norm, x, batch_size=3), expected)
    with pytest.raises(InputError, match="batch_size"):
        predict_sequences(model, norm, x, batch_size=0)


@pytest.mark.parametrize("content", [
    lambda: {"output.weight": Payload()},  # crafted pickle with a callable
    lambda: [torch.zeros(2)],  # weights-only object, but not a state_dict
    lambda: {"output.weight": torch.zeros(3, 5), "oops": 1.0},
])
def test_model_file_that_is_not_a_plain_state_dict_is_refused(tmp_path, content):
    path, _, _, _ = make_run(tmp_path)
    with (path / "model.pt").open("wb") as fh:
        torch.save(content(), fh)
    with pytest.raises(DataFormatError, match="model.pt"):
        load_run(path)


def test_state_dict_of_another_shape_is_refused(tmp_path):
    path, _, _, _ = make_run(tmp_path)
    config = json.loads((path / "config.json").read_text())
    config["model"]["width"] = 6
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataFormatError, match="shape"):
        load_run(path)


def test_truncated_or_missing_files_are_data_format_errors(tmp_path):
    path, _, _, _ = make_run(tmp_path)
    data = (path / "model.pt").read_bytes()
    (path / "model.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFormatError):
        load_run(path)
    with pytest.raises(DataFormatError, match="does not exist"):
        load_run(tmp_path / "missing")
    (path / "config.json").unlink()
    with pytest.raises(DataFormatError, match="config.json"):
        load_run(path)
    with pytest.raises(DataFormatError):
        load_checkpoint(path / "checkpoint.pt")


def test_history_csv_round_trips_floats_exactly():
    history = [{"epoch": 1, "train_loss": 0.1 + 2e-17, "tau_3": 1e-300, "depth": 4},
               {"epoch": 2, "train_loss": np.nextafter(1.0, 2.0).item(), "depth": 3}]
    back = history_from_csv(history_to_csv(history))
    assert back[0] == history[0]
    assert back[1] == {**history[1], "tau_3": None}


def test_run_summary_is_json_safe_and_needs_no_torch(tmp_path):
    path, _, _, _ = make_run(tmp_path)
    summary = run_summary(path)
    assert summary["arch"] == "frac-dnn" and summary["dataset_hash"] == DATASET["content_hash"]
    assert summary["epochs"] == 2 and summary["tau"] == "learned"
    json.dumps(summary, allow_nan=False)
    code = (f"import sys; from surrogate.runs.load import run_summary; "
            f"run_summary({str(path)!r}); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
