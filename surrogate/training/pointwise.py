"""What ``fit`` does on ``pointwise`` datasets (rows (N, d)): the τ-layer networks.

Targets are the stored rows; every hidden layer keeps its original index (``layer_ids``)
through pruning; the history logs τ and the gradient norm of every layer; metrics.json
holds the relative L² error per split, the accuracy of classification datasets and τ.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from surrogate.models.normalisation import Normalisation
from surrogate.training.gradients import GradientMeter, layer_gradient_meter
from surrogate.training.split_metrics import dataset_classes, split_accuracies, split_errors


class PointwiseTraining:
    """The pointwise side of the training steps that differ by dataset kind."""

    name = "pointwise"

    def model_options(self, options: dict[str, Any], dataset: Any) -> dict[str, Any]:
        """The model options as given (nothing derives from the data)."""
        return options

    def check_model(self, config: Any, dataset: Any) -> None:
        """Every pointwise config fits its dataset once the column counts match."""

    def check_training(self, config: Any, arch: str) -> None:
        """Every TrainConfig option acts on pointwise networks."""

    def targets(self, targets: np.ndarray, model_config: Any) -> np.ndarray:
        """The stored target rows (N, k)."""
        return targets

    def layer_ids(self, model: nn.Module) -> list[int]:
        """Original indices 0 … L−1 of the hidden layers (one bias vector and one τ each;
        L = depth, or the trunk's plus the branch's steps of a separable model)."""
        return list(range(len(model.layer_biases())))

    def gradient_meter(self, model: nn.Module) -> GradientMeter:
        """Squared gradient norms per layer (:func:`layer_gradient_meter`)."""
        return layer_gradient_meter(model)

    def history_columns(self, model: nn.Module, layer_ids: list[int], grad_norms: list[float]
                        ) -> dict[str, Any]:
        """Depth, τ and gradient columns, named by the layer's original index."""
        with torch.no_grad():
            taus = [float(t) for t in model.taus().detach().cpu()]
        record: dict[str, Any] = {"depth": len(taus)}
        for layer, tau in zip(layer_ids, taus, strict=True):
            record[f"tau_{layer}"] = tau
        for layer, norm in zip(layer_ids, grad_norms[:-2], strict=True):
            record[f"grad_norm_{layer}"] = norm
        record["grad_norm_output"] = grad_norms[-2]
        record["grad_norm_steps"] = grad_norms[-1]
        return record

    def error_metrics(self, model: nn.Module, layer_ids: list[int], dataset: Any,
                      normalisation: Normalisation) -> dict[str, Any]:
        """Errors, accuracy (classification datasets only), τ and layers of a pointwise run."""
        errors = split_errors(model, dataset, normalisation)
        accuracy = (split_accuracies(model, dataset, normalisation)
                    if dataset_classes(dataset) is not None else None)
        with torch.no_grad():
            taus = [float(t) for t in model.taus().cpu()]
        return {
            "relative_l2_error": errors,
            **{f"{name}_relative_l2_error": value for name, value in errors.items()},
            "accuracy": accuracy,
            "taus": taus,
            "layer_ids": list(layer_ids),
            "depth": model.config.depth,
        }


__all__ = ["PointwiseTraining"]
