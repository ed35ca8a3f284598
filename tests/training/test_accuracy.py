"""Classification accuracy of a run (metrics.json "accuracy"): argmax in physical units."""

import numpy as np
import pytest
import torch
from torch import nn

from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.recipes import ToyRecipe
from surrogate.models.normalisation import Normalisation
from surrogate.training.loop import fit
from surrogate.training.split_metrics import dataset_classes, split_accuracies

pytestmark = pytest.mark.usefixtures("single_torch_thread")


class Fixed(nn.Module):
    """A parameter-free map (plus one dummy parameter so predict_array finds a dtype)."""

    def __init__(self, function) -> None:
        super().__init__()
        self.dummy = nn.Parameter(torch.zeros((), dtype=torch.float64))
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


def _identity(d_in: int, target_mean=(0.0, 0.0)) -> Normalisation:
    return Normalisation(np.zeros(d_in), np.ones(d_in), np.asarray(target_mean, float),
                         np.ones(len(target_mean)))


def _dataset(tmp_path, name, **fields):
    path = tmp_path / f"{name}.h5"
    generate_dataset(ToyRecipe(name, **fields), path)
    return read_dataset(path)


def test_perfect_and_threshold_classifiers_on_bands(tmp_path):
    data = _dataset(tmp_path, "bands", n_train=400, n_test=100)
    assert dataset_classes(data) == 2
    # class1 (red) iff |x| < 0.5: every noiseless point is right; the empty val split is None
    perfect = Fixed(lambda x: torch.cat([x.abs(), torch.full_like(x, 0.5)], dim=1))
    assert split_accuracies(perfect, data, _identity(1)) == {"train": 1.0, "val": None,
                                                             "test": 1.0}
    # blue iff x > 0.5: the right blue band and all red are right, the left blue band wrong
    threshold = Fixed(lambda x: torch.cat([x - 0.5, torch.zeros_like(x)], dim=1))
    assert split_accuracies(threshold, data, _identity(1))["train"] == 0.75


def test_argmax_is_taken_after_de_normalisation(tmp_path):
    data = _dataset(tmp_path, "circles", n_train=401, n_test=0)  # 201 inner, 200 outer
    zeros = Fixed(lambda x: torch.zeros(x.shape[0], 2, dtype=x.dtype))
    # normalised output (0, 0) would say class0 (201/401); physical (0, 10) says class1
    accuracy = split_accuracies(zeros, data, _identity(2, target_mean=(0.0, 10.0)))
    assert accuracy == {"train": 200 / 401, "val": None, "test": None}
    accuracy = split_accuracies(zeros, data, _identity(2, target_mean=(10.0, 0.0)))
    assert accuracy["train"] == 201 / 401


def test_regression_and_mismatched_classes_have_no_accuracy(tmp_path):
    sine = _dataset(tmp_path, "sine", n_train=20, n_val=0, n_test=10)
    assert dataset_classes(sine) is None
    run = fit(sine, {"depth": 2, "width": 4}, {"epochs": 2}, tmp_path / "sine")
    assert run.metrics["accuracy"] is None
    circles = _dataset(tmp_path, "circles", n_train=20, n_test=10)
    circles.attrs["classes"] = 3  # does not match the two target columns
    assert dataset_classes(circles) is None


def test_fit_reports_accuracy_of_the_trained_model(tmp_path):
    data = _dataset(tmp_path, "circles", n_train=200, n_val=50, n_test=100)
    run = fit(data, {"depth": 2, "width": 8}, {"epochs": 3}, tmp_path / "c")
    assert run.metrics["accuracy"] == split_accuracies(run.model, data, run.normalisation)
    assert all(0.0 <= v <= 1.0 for v in run.metrics["accuracy"].values())
