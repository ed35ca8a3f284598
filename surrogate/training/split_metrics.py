"""Errors and accuracies of a trained model on every split of its dataset (physical units)."""

from __future__ import annotations

from typing import Any

import numpy as np
from torch import nn

from surrogate.core.metrics import relative_l2_error
from surrogate.models.normalisation import Normalisation
from surrogate.runs.predict import predict_array

SPLITS = ("train", "val", "test")


def split_errors(model: nn.Module, dataset: Any, normalisation: Normalisation
                 ) -> dict[str, float | None]:
    """Relative L² error ‖u_NN − u‖/‖u‖ per split in physical units (None for empty splits)."""
    errors: dict[str, float | None] = {}
    for name in SPLITS:
        if name not in dataset.splits or len(dataset.splits[name]) == 0:
            errors[name] = None
            continue
        inputs, targets = dataset.split(name)
        errors[name] = relative_l2_error(predict_array(model, normalisation, inputs), targets)
    return errors


def dataset_classes(dataset: Any) -> int | None:
    """K of a classification dataset (root attribute ``classes`` = number of target columns).

    None for regression datasets (no ``classes``, or a value that is not that column count).
    """
    classes = getattr(dataset, "attrs", {}).get("classes")
    if isinstance(classes, bool) or not isinstance(classes, int | np.integer):
        return None
    return int(classes) if int(classes) == dataset.targets.shape[-1] else None


def split_accuracies(model: nn.Module, dataset: Any, normalisation: Normalisation
                     ) -> dict[str, float | None]:
    """Fraction of rows whose argmax prediction (physical units) is the argmax target.

    One value per split; None for empty splits.
    """
    accuracies: dict[str, float | None] = {}
    for name in SPLITS:
        if name not in dataset.splits or len(dataset.splits[name]) == 0:
            accuracies[name] = None
            continue
        inputs, targets = dataset.split(name)
        predicted = predict_array(model, normalisation, inputs).argmax(axis=1)
        accuracies[name] = float(np.mean(predicted == np.asarray(targets).argmax(axis=1)))
    return accuracies


__all__ = ["split_errors", "dataset_classes", "split_accuracies", "SPLITS"]
