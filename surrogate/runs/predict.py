"""Surrogate outputs in physical units: normalise, forward in batches without grad, denormalise.

Static inputs (N, d_in) and sequence inputs (N, T, d_in) share one batching loop
(:func:`_predict_in_batches`); they differ only in the shape check and the default batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from surrogate.core.errors import InputError
from surrogate.models.normalisation import Normalisation

if TYPE_CHECKING:
    from torch import nn

CPU_BATCH = 2048
"""Rows per forward pass on CPU: small blocks stay in cache (2.16M points through a 2×50 net:
0.5 s at 2048 rows, 2.8 s at 65,536 rows on 2 cores)."""
GPU_BATCH = 1 << 18
"""Rows per forward pass on an accelerator, where large blocks pay."""
CPU_SEQUENCE_STEPS = 1 << 16
"""Time steps (sequences × T) per forward pass of a sequence model on CPU: the recurrence is
sequential in T, so batches of many sequences pay."""
GPU_SEQUENCE_STEPS = 1 << 22
"""Time steps per forward pass of a sequence model on an accelerator."""


def predict_array(model: nn.Module, normalisation: Normalisation, inputs: np.ndarray,
                  batch_size: int | None = None) -> np.ndarray:
    """Physical-unit outputs (N, d_out) float64 of ``model`` for physical inputs (N, d_in).

    ``batch_size=None`` picks :data:`CPU_BATCH` or :data:`GPU_BATCH` by the model's device.
    Sequence inputs (N, T, d_in) go to :func:`predict_sequences`.
    """
    inputs = np.asarray(inputs)
    if inputs.ndim == 3:
        return predict_sequences(model, normalisation, inputs, batch_size)
    if inputs.ndim != 2 or inputs.shape[1] != normalisation.in_features:
        raise InputError(f"inputs must have shape (N, {normalisation.in_features}), "
                         f"got {inputs.shape}")
    return _predict_in_batches(model, normalisation, inputs, batch_size,
                               lambda device: CPU_BATCH if device == "cpu" else GPU_BATCH)


def predict_sequences(model: nn.Module, normalisation: Normalisation, inputs: np.ndarray,
                      batch_size: int | None = None) -> np.ndarray:
    """Physical-unit outputs of a sequence model for physical inputs (N, T, d_in), float64.

    (N, T, d_out) for read-out ``"sequence"``, (N, d_out) for ``"last"``. ``batch_size``
    counts sequences per forward pass; None fits :data:`CPU_SEQUENCE_STEPS` (or
    :data:`GPU_SEQUENCE_STEPS`) time steps into one.
    """
    inputs = np.asarray(inputs)
    if inputs.ndim != 3 or inputs.shape[2] != normalisation.in_features \
            or min(inputs.shape) < 1:
        raise InputError(f"sequence inputs must have shape (N, T, {normalisation.in_features})"
                         f" with N, T >= 1, got {inputs.shape}")

    def default_batch(device: str) -> int:
        steps = CPU_SEQUENCE_STEPS if device == "cpu" else GPU_SEQUENCE_STEPS
        return max(1, steps // inputs.shape[1])

    return _predict_in_batches(model, normalisation, inputs, batch_size, default_batch)


def _predict_in_batches(model: nn.Module, normalisation: Normalisation, inputs: np.ndarray,
                        batch_size: int | None,
                        default_batch: Callable[[str], int]) -> np.ndarray:
    """Outputs for ``inputs`` (N, ...) in chunks of ``batch_size`` rows along axis 0.

    Rows are normalised, moved to the model's device and dtype, run in eval mode under
    ``torch.inference_mode`` (the model's training flag is restored), gathered as float64 and
    denormalised. ``default_batch(device_type)`` gives the batch when ``batch_size`` is None.
    """
    import torch

    if not np.isfinite(inputs).all():
        raise InputError(f"inputs contain {int((~np.isfinite(inputs)).sum())} non-finite values")
    reference = next(model.parameters())
    if batch_size is None:
        batch_size = default_batch(reference.device.type)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    scaled = normalisation.normalise_inputs(inputs)
    out = np.empty((0, normalisation.out_features), dtype=np.float64)
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, inputs.shape[0], batch_size):
                chunk = torch.as_tensor(scaled[start:start + batch_size], dtype=reference.dtype,
                                        device=reference.device)
                result = model(chunk).double().cpu().numpy()
                if start == 0:  # the output shape is known once the model has run
                    out = np.empty((inputs.shape[0], *result.shape[1:]), dtype=np.float64)
                out[start:start + batch_size] = result
    finally:
        model.train(was_training)
    return normalisation.denormalise_targets(out)


__all__ = ["predict_array", "predict_sequences", "CPU_BATCH", "GPU_BATCH", "CPU_SEQUENCE_STEPS",
           "GPU_SEQUENCE_STEPS"]
