"""The :class:`Run`: a trained surrogate with its configs, normalisation and records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from surrogate.models.normalisation import Normalisation
from surrogate.runs.predict import predict_array

if TYPE_CHECKING:
    from torch import nn

    from surrogate.models.config import ModelConfig
    from surrogate.models.sequence_config import SequenceModelConfig


@dataclass
class Run:
    """A trained surrogate read from (or about to be written to) a run directory."""

    path: Path
    model: nn.Module
    model_config: ModelConfig | SequenceModelConfig
    train_config: dict[str, Any]
    normalisation: Normalisation
    dataset: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def predict(self, inputs: np.ndarray, batch_size: int | None = None) -> np.ndarray:
        """Surrogate outputs in physical units, no grad: (N, d_out) for inputs (N, d_in);
        for a sequence run (N, T, d_out) or (N, d_out) (read-out "last") for (N, T, d_in)."""
        return predict_array(self.model, self.normalisation, inputs, batch_size)

    def taus(self) -> list[float]:
        """Current steps τ^[0] … τ^[depth-1] as floats."""
        import torch

        with torch.no_grad():
            return [float(t) for t in self.model.taus().cpu()]


__all__ = ["Run"]
