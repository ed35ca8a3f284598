"""Error measures of predictions against targets (numpy only, physical units)."""

from __future__ import annotations

from typing import Any

import numpy as np


def relative_l2_error(prediction: np.ndarray, target: np.ndarray) -> float:
    """‖prediction − target‖_F / ‖target‖_F over all rows and columns (physical units)."""
    norm = float(np.linalg.norm(target))
    diff = float(np.linalg.norm(np.asarray(prediction) - np.asarray(target)))
    return diff / norm if norm > 0 else diff


def relative_errors_per_sequence(prediction: np.ndarray, target: np.ndarray) -> np.ndarray:
    """‖u_NN,i − u_i‖ / ‖u_i‖ for every sequence i, norms over its steps and channels (N,).

    A sequence with ‖u_i‖ = 0 reports the absolute error ‖u_NN,i − u_i‖ (as
    :func:`relative_l2_error` does).
    """
    n = target.shape[0]
    diff = np.linalg.norm((np.asarray(prediction) - target).reshape(n, -1), axis=1)
    norm = np.linalg.norm(np.asarray(target).reshape(n, -1), axis=1)
    return np.where(norm > 0, diff / np.where(norm > 0, norm, 1.0), diff)


def root_mean_square_error(prediction: np.ndarray, target: np.ndarray) -> float:
    """(mean over all entries of (u_NN − u)²)^½: the LEM paper's "L² error" (Table 5.4)."""
    diff = np.asarray(prediction, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    return float(np.sqrt(np.mean(diff * diff)))


def sequence_error_summary(prediction: np.ndarray, target: np.ndarray) -> dict[str, Any]:
    """Mean, median and max of the per-sequence relative L² errors, the pooled error, the
    root-mean-square error ``rmse``, N."""
    errors = relative_errors_per_sequence(prediction, target)
    return {"mean": float(errors.mean()), "median": float(np.median(errors)),
            "max": float(errors.max()), "pooled": relative_l2_error(prediction, target),
            "rmse": root_mean_square_error(prediction, target),
            "sequences": int(errors.shape[0])}
