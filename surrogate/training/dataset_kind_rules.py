"""The one place training branches on the dataset kind: ``pointwise`` rows or ``sequence`` s.

Each kind supplies the same steps (:class:`KindRules`); the loop, the epoch and the metrics
call them without knowing which kind they train.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from torch import nn

from surrogate.models.normalisation import Normalisation
from surrogate.training.gradients import GradientMeter
from surrogate.training.pointwise import PointwiseTraining
from surrogate.training.sequence import SequenceTraining


class KindRules(Protocol):
    """The training steps that differ between dataset kinds."""

    name: str

    def model_options(self, options: dict[str, Any], dataset: Any) -> dict[str, Any]:
        """Model options completed from the dataset."""

    def check_model(self, config: Any, dataset: Any) -> None:
        """InputError when the model config does not fit the dataset."""

    def check_training(self, config: Any, arch: str) -> None:
        """InputError when a TrainConfig option does not apply to this kind."""

    def targets(self, targets: np.ndarray, model_config: Any) -> np.ndarray:
        """The targets the model is trained on."""

    def layer_ids(self, model: nn.Module) -> list[int]:
        """Original indices of the prunable hidden layers."""

    def gradient_meter(self, model: nn.Module) -> GradientMeter:
        """Squared gradient norms logged per epoch, read once per mini-batch."""

    def history_columns(self, model: nn.Module, layer_ids: list[int], grad_norms: list[float]
                        ) -> dict[str, Any]:
        """History columns after the losses."""

    def error_metrics(self, model: nn.Module, layer_ids: list[int], dataset: Any,
                      normalisation: Normalisation) -> dict[str, Any]:
        """The error part of metrics.json."""


KINDS: dict[str, KindRules] = {"pointwise": PointwiseTraining(), "sequence": SequenceTraining()}


def dataset_kind(dataset: Any) -> str:
    """``pointwise`` or ``sequence`` (datasets without a kind are pointwise)."""
    return getattr(dataset, "kind", "pointwise")


def kind_rules(kind: str) -> KindRules:
    """The training steps of dataset kind ``kind``."""
    return KINDS[kind]


__all__ = ["KindRules", "KINDS", "dataset_kind", "kind_rules"]
