"""Per-column standardisation of inputs and targets, fitted on the training split only.

Sequence datasets (inputs (N, T, d), targets (N, T, k) or one step (N, 1, k) / (N, k)) are
standardised per channel: the statistics of column j pool all samples *and* time steps of
the training split, and the same (d,), (k,) statistics apply at every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import DataFormatError, InputError

# A column whose std is below this fraction of its scale (max(1, |mean|)) counts as constant.
_CONSTANT_RTOL = 1e-12


@dataclass(frozen=True)
class Normalisation:
    """x̂ = (x - input_mean) / input_std and ŷ = (y - target_mean) / target_std, column-wise.

    Arrays are float64 of shape (d_in,) and (d_out,), applied along the last axis (so
    sequences (N, T, d) are standardised per channel). Constant columns get std 1 (they are
    only shifted), so no division by zero ever happens.
    """

    input_mean: np.ndarray
    input_std: np.ndarray
    target_mean: np.ndarray
    target_std: np.ndarray

    @classmethod
    def fit(cls, inputs: np.ndarray, targets: np.ndarray) -> Normalisation:
        """Statistics of the training split: inputs (N, d_in) or (N, T, d_in), targets
        (N, d_out) or (N, T', d_out), N >= 1; sequence axes are pooled per channel."""
        inputs, targets = np.asarray(inputs, np.float64), np.asarray(targets, np.float64)
        if inputs.ndim not in (2, 3) or targets.ndim not in (2, 3) \
                or inputs.shape[0] != targets.shape[0] or min(inputs.shape[:-1]) < 1 \
                or min(targets.shape[:-1]) < 1:
            raise InputError(f"normalisation needs inputs (N, d_in) and targets (N, d_out) "
                             f"(or sequences (N, T, ·)) with N >= 1, got {inputs.shape} and "
                             f"{targets.shape}")
        return cls(*_mean_std(_channels(inputs)), *_mean_std(_channels(targets)))

    @property
    def in_features(self) -> int:
        return int(self.input_mean.shape[0])

    @property
    def out_features(self) -> int:
        return int(self.target_mean.shape[0])

    def normalise_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """x̂ (..., d_in) from physical inputs x (..., d_in), float64."""
        return (np.asarray(inputs, np.float64) - self.input_mean) / self.input_std

    def normalise_targets(self, targets: np.ndarray) -> np.ndarray:
        """ŷ (..., d_out) from physical targets y (..., d_out), float64."""
        return (np.asarray(targets, np.float64) - self.target_mean) / self.target_std

    def denormalise_targets(self, values: np.ndarray) -> np.ndarray:
        """Physical y = ŷ · target_std + target_mean, (..., d_out) float64."""
        return np.asarray(values, np.float64) * self.target_std + self.target_mean

    def to_dict(self) -> dict[str, list[float]]:
        """JSON-safe dict (float64 values round-trip exactly through JSON)."""
        return {"input_mean": self.input_mean.tolist(), "input_std": self.input_std.tolist(),
                "target_mean": self.target_mean.tolist(), "target_std": self.target_std.tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Normalisation:
        """Inverse of :meth:`to_dict`; DataFormatError on missing keys or bad values."""
        keys = ("input_mean", "input_std", "target_mean", "target_std")
        try:
            arrays = [np.asarray(data[k], dtype=np.float64) for k in keys]
        except (KeyError, TypeError, ValueError) as exc:
            raise DataFormatError(f"normalisation statistics are incomplete or not numeric: "
                                  f"{exc}") from None
        if any(a.ndim != 1 for a in arrays) or arrays[0].shape != arrays[1].shape \
                or arrays[2].shape != arrays[3].shape:
            raise DataFormatError("normalisation statistics have inconsistent shapes")
        if not all(np.isfinite(a).all() for a in arrays) or (arrays[1] <= 0).any() \
                or (arrays[3] <= 0).any():
            raise DataFormatError("normalisation statistics must be finite with std > 0")
        return cls(*arrays)


def _channels(values: np.ndarray) -> np.ndarray:
    """(N, d) or (N, T, d) -> (N·T, d): one row per sample and time step."""
    return values.reshape(-1, values.shape[-1])


def _mean_std(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations (N, d) -> (d,), (d,); constant columns get 1."""
    mean = values.mean(axis=0)
    std = values.std(axis=0)
    constant = std <= _CONSTANT_RTOL * np.maximum(1.0, np.abs(mean))
    return mean, np.where(constant, 1.0, std)


__all__ = ["Normalisation"]
