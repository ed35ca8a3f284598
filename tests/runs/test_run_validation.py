"""validate_run: a real run is valid; every injected problem is reported, one line each."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
import torch

from surrogate.datasets import make_splits, write_dataset
from surrogate.runs.validate import validate_run
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A 2-epoch frac-dnn run (with its checkpoint) on a small synthetic dataset."""
    folder = tmp_path_factory.mktemp("run_validation")
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (40, 7))
    write_dataset(folder / "d.h5", inputs=x, targets=np.cos(x[:, 3:6]),
                  input_names=("x1", "x2", "x3", "f1", "f2", "f3", "phi"),
                  target_names=("u1", "u2", "u3"), splits=make_splits(40, (0.6, 0.2, 0.2), rng),
                  problem="maxwell", domain="cube", recipe={"kind": "maxwell"}, seed=1)
    torch.set_num_threads(1)
    fit(folder / "d.h5", {"arch": "frac-dnn", "width": 4, "depth": 3}, {"epochs": 2},
        folder / "run")
    return folder / "run"


@pytest.fixture
def run(trained, tmp_path):
    """A fresh copy of the trained run to damage."""
    return shutil.copytree(trained, tmp_path / "run")


def _edit_json(path, change):
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def _edit_state(path, change):
    state = torch.load(path, weights_only=True)
    change(state)
    torch.save(state, path)


def test_a_trained_run_is_valid(trained):
    assert validate_run(trained) == []


def test_missing_or_non_directory_paths(tmp_path):
    assert validate_run(tmp_path / "nope") == [f"run directory {tmp_path / 'nope'} does not exist"]
    (tmp_path / "file").write_text("x")
    assert "not a run directory" in validate_run(tmp_path / "file")[0]


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c.update(format="other"), "config.json: format is 'other'"),
    (lambda c: c.update(version="1"), "config.json: version '1' is not a supported"),
    (lambda c: c.pop("train"), "config.json: section 'train' is missing"),
    (lambda c: c.update(extra=[1]), "section 'extra' is not a JSON object"),
    (lambda c: c["model"].update(activation="sigmoid"), "config.json: model: unknown activation"),
    (lambda c: c["train"].update(lr=-1.0), "config.json: train: lr must be"),
    (lambda c: c["normalisation"]["input_std"].__setitem__(0, -1.0),
     "config.json: normalisation: normalisation statistics must be finite with std > 0"),
    (lambda c: c["dataset"].pop("content_hash"), "config.json: dataset: missing content_hash"),
    (lambda c: c["dataset"].update(content_hash="md5:1"), "content_hash 'md5:1' is not"),
    (lambda c: c["dataset"].update(input_names=["x"]), "1 input_names but the model has 7"),
])
def test_config_problems_are_reported(run, change, expected):
    _edit_json(run / "config.json", change)
    problems = validate_run(run)
    assert any(expected in p for p in problems), problems
    assert all("\n" not in p for p in problems)


def test_every_tensor_of_another_shape_is_listed(run):
    _edit_json(run / "config.json", lambda c: c["model"].update(width=3))
    problems = validate_run(run)
    shaped = [p for p in problems if p.startswith("model.pt: tensor") and "shape" in p]
    # width 4 -> 3 changes every layer weight and bias and the output weight: 3 + 3 + 1
    assert len(shaped) == 7, problems
    assert "model.pt: tensor 'output.weight' has shape (3, 4), the model config needs (3, 3)" \
        in problems


@pytest.mark.parametrize(("change", "expected"), [
    (lambda s: s["layers.1.weight"].view(-1)[:3].fill_(math.nan),
     "model.pt: tensor 'layers.1.weight' has 3 non-finite values"),
    (lambda s: s.update({"layers.0.bias": s["layers.0.bias"].to(torch.int64)}),
     "model.pt: tensor 'layers.0.bias' is torch.int64"),
    (lambda s: s.pop("output.weight"), "model.pt: tensor 'output.weight' is missing"),
    (lambda s: s.update(bogus=torch.zeros(2)), "model.pt: unexpected tensor 'bogus'"),
])
def test_weight_problems_are_reported(run, change, expected):
    _edit_state(run / "model.pt", change)
    problems = validate_run(run)
    assert expected in "\n".join(problems), problems


def test_a_crafted_or_truncated_model_file_is_reported(run):
    class Payload:
        def __reduce__(self):
            return (print, ("pwned",))

    torch.save({"output.weight": Payload()}, run / "model.pt")
    assert any("weights_only" in p for p in validate_run(run))
    data = (run / "metrics.json").read_bytes()
    (run / "model.pt").write_bytes(data[: len(data) // 2])
    assert any(p.startswith("model.pt: not a plain state_dict") for p in validate_run(run))


def test_side_file_problems_are_all_reported_together(run):
    (run / "metrics.json").write_text("{not json")
    _edit_json(run / "metadata.json", lambda m: m.pop("dataset_hash"))
    (run / "history.csv").write_text("")
    data = (run / "checkpoint.pt").read_bytes()
    (run / "checkpoint.pt").write_bytes(data[:100])
    _edit_state(run / "model.pt", lambda s: s["steps.raw"].fill_(math.inf))
    problems = validate_run(run)
    for expected in ("metrics.json: not valid JSON", "metadata.json: no dataset_hash recorded",
                     "history.csv: empty", "checkpoint.pt:",
                     "model.pt: tensor 'steps.raw' has 3 non-finite values"):
        assert any(p.startswith(expected) for p in problems), (expected, problems)
    assert len(problems) == 5, problems


def test_a_dataset_hash_that_disagrees_between_files_is_reported(run):
    _edit_json(run / "metadata.json", lambda m: m.update(dataset_hash="sha256:" + "1" * 64))
    assert any("differs from config.json" in p for p in validate_run(run))


def test_a_huge_configured_depth_is_reported_without_building_it(run):
    _edit_json(run / "config.json", lambda c: c["model"].update(depth=10**9, width=10**6))
    problems = validate_run(run)
    assert "model.pt: the model config has depth 1000000000, the file holds only 11 tensors" \
        in problems, problems
