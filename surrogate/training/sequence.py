"""What ``fit`` does on ``sequence`` datasets (signals batch first: inputs (N, T, d)).

- Model: a :class:`~surrogate.models.sequence_config.SequenceModelConfig` with ``in_features = d``
  and ``out_features = k``; ``readout`` defaults to ``"last"`` (seq-to-one) when the
  targets hold one time step ((N, 1, k) or (N, k)), else to ``"sequence"`` (seq-to-seq,
  targets (N, T, k)).
- Targets (:func:`readout_targets`): the stored (N, T, k) for ``"sequence"``; the last
  step (N, k) for ``"last"`` (on seq-to-seq data too: the model then predicts the final
  state).
- Normalisation: per channel, pooled over all sequences and time steps of the training
  split (:class:`~surrogate.models.normalisation.Normalisation`, stored in config.json).
- Batches: whole sequences, shuffled by the run's generator; ``batch_size`` counts sequences.
- Loss (:func:`surrogate.training.epoch.data_loss`): ``J = 1/2 mean_{i,n} ‖ŷ_{i,n} − y_{i,n}‖²``
  over sequences i and steps n (seq-to-seq), ``J = 1/2 mean_i ‖ŷ_i − y_i‖²`` (seq-to-one).
- Penalties and pruning act on the layers and steps τ of the pointwise networks (λ₁, λ₂,
  β, time horizon, smoothness, ``prune_every``): refused for sequence architectures
  (:func:`check_sequence_training`).
- History: ``grad_norm`` (global gradient norm before clipping) and, with ``learn_dt``,
  ``dt_min``, ``dt_mean``, ``dt_max`` of the learned per-unit Δt.
- Metrics (:func:`sequence_metrics`): per split the relative L² error of every sequence,
  ‖u_NN,i − u_i‖ / ‖u_i‖ over its steps and channels in physical units, summarised by its
  mean, median and max, next to the pooled error ‖U_NN − U‖_F / ‖U‖_F of the split; and
  the split's root-mean-square error ``rmse`` = (mean_{i,n,c} (u_NN − u)²)^½ over all
  sequences, steps and channels in physical units (top-level ``rmse.<split>`` too): the
  LEM paper's "test L² error" (Table 5.4; the authors' FitzHughNagumo_task.py reports
  ``sqrt(nn.MSELoss()(out, y))`` on the raw, unnormalised series).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from surrogate.core.errors import InputError
from surrogate.core.metrics import sequence_error_summary
from surrogate.models.normalisation import Normalisation
from surrogate.runs.predict import predict_array
from surrogate.training.gradients import GradientMeter, total_gradient_meter

SPLITS = ("train", "val", "test")
LAYER_OPTIONS = ("lambda1", "lambda2", "beta", "horizon_weight", "smoothness", "prune_every")
"""TrainConfig fields that act on τ-layers (eqs. 2.4, 2.5, the τ and horizon terms, pruning)."""


def target_steps(targets: np.ndarray) -> int:
    """Time steps the targets hold: T of (N, T, k), 1 for (N, k)."""
    return int(targets.shape[1]) if np.ndim(targets) == 3 else 1


def default_readout(dataset: Any) -> str:
    """``"last"`` (seq-to-one) when the targets hold one time step, else ``"sequence"``."""
    return "last" if target_steps(dataset.targets) == 1 else "sequence"


def check_readout(readout: str, dataset: Any) -> None:
    """InputError unless a ``"sequence"`` read-out has a target at every input step."""
    inputs, targets = dataset.inputs, dataset.targets
    if readout == "sequence" and (np.ndim(targets) != 3 or targets.shape[1] != inputs.shape[1]):
        raise InputError(f"readout 'sequence' predicts every step but {dataset.path} has targets "
                         f"{tuple(targets.shape)} for inputs {tuple(inputs.shape)}; use "
                         f"readout 'last' (seq-to-one)")


def check_sequence_training(config: Any, arch: str) -> None:
    """InputError when a τ-layer penalty or pruning (:data:`LAYER_OPTIONS`) is set."""
    given = [name for name in LAYER_OPTIONS if getattr(config, name)]
    if given:
        raise InputError(f"sequence arch {arch!r} has no τ-layers: {', '.join(given)} must "
                         f"stay 0/off (they penalise or prune the layers and steps τ of the "
                         f"pointwise networks)")


def readout_targets(targets: np.ndarray, readout: str) -> np.ndarray:
    """The targets a ``readout`` predicts: (N, T, k) as stored, or the last step (N, k)."""
    targets = np.asarray(targets)
    if readout == "last" and targets.ndim == 3:
        return targets[:, -1]
    return targets


def sequence_split_errors(model: nn.Module, dataset: Any, normalisation: Normalisation,
                          readout: str) -> dict[str, dict[str, Any] | None]:
    """:func:`sequence_error_summary` of every split in physical units (None when empty)."""
    summaries: dict[str, dict[str, Any] | None] = {}
    for name in SPLITS:
        if name not in dataset.splits or len(dataset.splits[name]) == 0:
            summaries[name] = None
            continue
        inputs, targets = dataset.split(name)
        prediction = predict_array(model, normalisation, inputs)
        summaries[name] = sequence_error_summary(prediction, readout_targets(targets, readout))
    return summaries


def dt_statistics(model: nn.Module) -> dict[str, float]:
    """``dt_min``, ``dt_mean``, ``dt_max`` of a learned per-unit Δt; empty when Δt is fixed."""
    dt = model.learned_dt()
    if dt is None:
        return {}
    with torch.no_grad():
        dt = dt.detach()
        return {"dt_min": float(dt.min()), "dt_mean": float(dt.mean()),
                "dt_max": float(dt.max())}


def sequence_columns(model: nn.Module, grad_norms: list[float]) -> dict[str, float]:
    """History columns of a sequence model: the global gradient norm and the Δt statistics."""
    return {"grad_norm": grad_norms[0], **dt_statistics(model)}


def sequence_metrics(model: nn.Module, dataset: Any, normalisation: Normalisation
                     ) -> dict[str, Any]:
    """The error part of metrics.json for a sequence run (see the module docstring).

    ``relative_l2_error`` (and ``<split>_relative_l2_error``) is the pooled error, as for
    pointwise runs; ``sequence_relative_l2_error`` holds the per-sequence summaries.
    """
    config = model.config
    summaries = sequence_split_errors(model, dataset, normalisation, config.readout)
    pooled = {name: None if s is None else s["pooled"] for name, s in summaries.items()}
    return {
        "relative_l2_error": pooled,
        **{f"{name}_relative_l2_error": value for name, value in pooled.items()},
        "sequence_relative_l2_error": summaries,
        "rmse": {name: None if s is None else s["rmse"] for name, s in summaries.items()},
        "accuracy": None,
        "readout": config.readout,
        "hidden": config.hidden,
        "dt": dt_statistics(model) or None,
    }


class SequenceTraining:
    """The sequence side of the training steps that differ by dataset kind."""

    name = "sequence"

    def model_options(self, options: dict[str, Any], dataset: Any) -> dict[str, Any]:
        """``options`` with ``readout`` defaulting to :func:`default_readout` and, with a linear
        response, its bank covering 4× the data's steps (a longer horizon to evaluate)."""
        options.setdefault("readout", default_readout(dataset))
        if options.get("linear_response"):
            options.setdefault("response_steps", 4 * (target_steps(dataset.targets) - 1))
        return options

    def check_model(self, config: Any, dataset: Any) -> None:
        """InputError when the read-out does not fit the targets (:func:`check_readout`)."""
        check_readout(config.readout, dataset)

    def check_training(self, config: Any, arch: str) -> None:
        """InputError for τ-layer options (:func:`check_sequence_training`)."""
        check_sequence_training(config, arch)

    def targets(self, targets: np.ndarray, model_config: Any) -> np.ndarray:
        """The targets the read-out predicts (:func:`readout_targets`)."""
        return readout_targets(targets, model_config.readout)

    def layer_ids(self, model: nn.Module) -> list[int]:
        """None: sequence models have no τ-layers."""
        return []

    def gradient_meter(self, model: nn.Module) -> GradientMeter:
        """The global squared gradient norm (:func:`total_gradient_meter`)."""
        return total_gradient_meter(model)

    def history_columns(self, model: nn.Module, layer_ids: list[int], grad_norms: list[float]
                        ) -> dict[str, float]:
        """:func:`sequence_columns`."""
        return sequence_columns(model, grad_norms)

    def error_metrics(self, model: nn.Module, layer_ids: list[int], dataset: Any,
                      normalisation: Normalisation) -> dict[str, Any]:
        """:func:`sequence_metrics`."""
        return sequence_metrics(model, dataset, normalisation)


__all__ = ["SequenceTraining", "LAYER_OPTIONS", "target_steps", "default_readout", "check_readout",
           "check_sequence_training", "readout_targets", "sequence_split_errors",
           "dt_statistics", "sequence_columns", "sequence_metrics"]
