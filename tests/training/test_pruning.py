"""``prune_run``: a step τ → 0 makes its ResNet layer the identity (eq. 5.2), so deleting it
changes the output by O(τ); errors before/after, moved datasets, unprunable architectures."""

import json
import shutil

import numpy as np
import pytest
import torch

from surrogate.core.errors import DataFormatError, InputError
from surrogate.models.step_sizes import inverse_softplus
from surrogate.runs.load import load_run
from surrogate.runs.save import save_run
from surrogate.training.loop import fit
from surrogate.training.pruning import prune_run

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A depth-4 resnet (float64) whose step τ^[2] is then set to ~1e-9."""
    from surrogate.datasets import MaxwellRecipe, generate_dataset

    root = tmp_path_factory.mktemp("prune")
    data = root / "maxwell.h5"
    generate_dataset(MaxwellRecipe(n=200, seed=5), data)
    fit(data, {"arch": "resnet", "depth": 4, "width": 8, "tau_init": 0.3},
        {"epochs": 30, "dtype": "float64"}, root / "base")
    run = load_run(root / "base")
    with torch.no_grad():
        steps = run.model.steps
        values = steps().clone()
        values[2] = steps.tau_min + 1e-9
        steps.raw.copy_(inverse_softplus(values - steps.tau_min))
    save_run(root / "tiny", model=run.model, train_config=run.train_config,
             normalisation=run.normalisation, dataset=run.dataset, history=run.history,
             metrics=run.metrics)
    return root, data


def test_pruning_a_vanishing_step_keeps_the_error(trained, tmp_path):
    root, _ = trained
    report = prune_run(root / "tiny", 1e-5, tmp_path / "pruned")
    assert report["removed"] == [2] and report["depth_after"] == 3
    assert report["parameters_after"] == report["parameters_before"] - (8 * 8 + 8 + 1)  # W, b, τ
    for split in ("train", "val", "test"):
        before = report["relative_l2_error_before"][split]
        after = report["relative_l2_error_after"][split]
        assert after == pytest.approx(before, rel=1e-6)
    pruned = load_run(tmp_path / "pruned")
    assert pruned.model_config.depth == 3
    assert pruned.metrics["test_relative_l2_error"] == report["relative_l2_error_after"]["test"]
    assert pruned.extra["pruned_from"]["removed_layers"] == [2]
    x = np.random.default_rng(0).normal(size=(30, 7))
    # τ^[2] ≈ 1e-6: the deleted layer moved the output by O(τ) only
    diff = np.abs(pruned.predict(x) - load_run(root / "tiny").predict(x)).max()
    assert diff < 1e-5
    json.dumps(report, allow_nan=False)


def test_tolerance_zero_removes_nothing_and_input_layer_is_never_removed(trained, tmp_path):
    root, _ = trained
    assert prune_run(root / "tiny", 0.0, tmp_path / "none")["removed"] == []
    report = prune_run(root / "tiny", 1e9, tmp_path / "all")
    assert report["removed"] == [1, 2, 3] and report["depth_after"] == 1


def test_moved_dataset_is_one_clear_error_and_data_option_finds_it(trained, tmp_path):
    root, data = trained
    run_dir = tmp_path / "run"
    shutil.copytree(root / "tiny", run_dir)
    config = json.loads((run_dir / "config.json").read_text())
    config["dataset"]["path"] = str(tmp_path / "gone.h5")
    (run_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataFormatError, match="not found .*--data"):
        prune_run(run_dir, 1e-5, tmp_path / "out")
    assert prune_run(run_dir, 1e-5, tmp_path / "out", data=data)["removed"] == [2]
    with pytest.raises(DataFormatError, match="does not exist"):
        prune_run(tmp_path / "missing", 0.1, tmp_path / "x")


def test_densenet_is_refused(tmp_path, trained):
    _, data = trained
    fit(data, {"arch": "densenet", "depth": 2, "width": 4}, {"epochs": 1}, tmp_path / "d")
    with pytest.raises(InputError, match="densenet"):
        prune_run(tmp_path / "d", 0.1, tmp_path / "dp")
