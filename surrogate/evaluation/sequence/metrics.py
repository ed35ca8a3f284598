"""Error measures of a sequence evaluation set (physical units).

Per-sequence relative L² errors e_i = ‖u_NN,i − u_i‖ / ‖u_i‖ come from
:mod:`surrogate.core.metrics`; here: the relative error over time
r_i(n) = ‖u_NN,i(t_n) − u_i(t_n)‖ / rms_i, the trained / extrapolated windows and the JSON
record of one set.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from surrogate.core.metrics import relative_errors_per_sequence, sequence_error_summary
from surrogate.evaluation.sequence.sets import SequenceSet


def rms_per_sequence(target: np.ndarray) -> np.ndarray:
    """(1/T Σ_n ‖u_i(t_n)‖²)^{1/2} of every sequence of (N, T, k), (N,)."""
    return np.sqrt(np.mean(np.sum(np.asarray(target) ** 2, axis=2), axis=1))


def relative_error_over_time(prediction: np.ndarray, target: np.ndarray) -> np.ndarray:
    """r_i(n) = ‖u_NN,i(t_n) − u_i(t_n)‖ / rms_i for (N, T, k) arrays, (N, T).

    A sequence with rms_i = 0 reports its absolute error.
    """
    error = np.linalg.norm(np.asarray(prediction) - np.asarray(target), axis=2)
    rms = rms_per_sequence(target)
    return error / np.where(rms > 0, rms, 1.0)[:, None]


def error_over_time(prediction: np.ndarray, target: np.ndarray, times: np.ndarray
                    ) -> dict[str, Any]:
    """Median and 90th percentile of r_i(t_n) over the sequences at every step."""
    ratio = relative_error_over_time(prediction, target)
    median, p90 = np.percentile(ratio, [50, 90], axis=0)
    return {"time": np.asarray(times, dtype=float), "median": median, "p90": p90}


def window_errors(prediction: np.ndarray, target: np.ndarray, trained_steps: int,
                  times: np.ndarray) -> dict[str, Any]:
    """Error summaries over the trained window [0, T_train) and the steps after it."""
    return {"trained_steps": int(trained_steps),
            "trained_until": float(times[trained_steps - 1]),
            "trained": sequence_error_summary(prediction[:, :trained_steps],
                                              target[:, :trained_steps]),
            "extrapolated": sequence_error_summary(prediction[:, trained_steps:],
                                                   target[:, trained_steps:])}


def set_record(built: SequenceSet, prediction: np.ndarray, target: np.ndarray,
               seconds_predict: float) -> dict[str, Any]:
    """The JSON record of one evaluated set (see the module docstring)."""
    per_sequence = relative_errors_per_sequence(prediction, target)
    seq_to_seq = prediction.ndim == 3
    windows = None
    if seq_to_seq and built.trained_steps and built.trained_steps < prediction.shape[1]:
        windows = window_errors(prediction, target, built.trained_steps, built.time)
    record = {
        "source": built.source, "sequences": int(len(prediction)),
        "steps": int(built.inputs.shape[1]),
        "time": {"start": float(built.time[0]), "end": float(built.time[-1]),
                 "dt": float(built.time[1] - built.time[0]) if len(built.time) > 1 else None},
        "samples": built.samples, "recipe": built.recipe,
        "trained_steps": built.trained_steps,
        "errors": sequence_error_summary(prediction, target),
        "per_sequence": per_sequence, "windows": windows,
        "error_over_time": error_over_time(prediction, target, built.time)
        if seq_to_seq else None,
        "seconds": {"generate": built.seconds, "predict": seconds_predict},
    }
    if built.materials is not None:
        record["materials"] = np.unique(np.asarray(built.materials, float), axis=0)
    return record


__all__ = ["error_over_time", "relative_error_over_time", "rms_per_sequence", "set_record",
           "window_errors"]
