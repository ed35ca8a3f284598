"""Fields on a plane through the test domains (τ-learning paper Figs. 4 and 5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from surrogate.evaluation.static.options import AXIS_NAMES, EvaluationOptions
from surrogate.evaluation.static.runs import run_labels


def slice_fields(
    runs: Sequence[Any],
    problem: Any,
    options: EvaluationOptions,
    reference_solution=None,
) -> dict[str, Any]:
    """u, u_NN and |u − u_NN| on a grid in the plane x_axis = value (Figs. 4 and 5).

    The grid spans the union of the training and test domains' bounding boxes in the two
    in-plane axes (for the cylinder and the unit cube at z = 0.5: (−1, 1)²), with
    ``options.slice_resolution`` points per side. Returns arrays of shape (n, n[, 3]):
    ``u`` (NaN without an exact solution and outside ``reference_solution``'s mesh),
    ``u_nn[label]``, ``error[label]``, and boolean ``inside_training[label]``,
    ``inside_test[domain]``.
    """
    from surrogate.fem.domains import get_domain

    axis, value = options.slice_axis, options.slice_value
    plane = [a for a in range(3) if a != axis]
    labels = run_labels(runs)
    boxes = [get_domain(name).bounds for name in options.domains]
    boxes += [get_domain(str(run.dataset.get("domain"))).bounds for run in runs]
    lo = np.min([np.asarray(b, dtype=float)[:, 0] for b in boxes], axis=0)
    hi = np.max([np.asarray(b, dtype=float)[:, 1] for b in boxes], axis=0)
    n = options.slice_resolution
    s = np.linspace(lo[plane[0]], hi[plane[0]], n)
    t = np.linspace(lo[plane[1]], hi[plane[1]], n)
    grid_s, grid_t = np.meshgrid(s, t, indexing="xy")  # (n, n): rows follow t
    points = np.empty((n * n, 3))
    points[:, axis] = value
    points[:, plane[0]], points[:, plane[1]] = grid_s.ravel(), grid_t.ravel()
    if getattr(problem, "has_exact", False):
        u = problem.u(points)
    elif reference_solution is not None:
        u = reference_solution.values_at(points, outside="nan")
    else:
        u = np.full((len(points), 3), np.nan)
    inputs = problem.inputs(points)
    out: dict[str, Any] = {
        "axis": axis, "value": value, "plane_axes": plane,
        "axis_names": [AXIS_NAMES[a] for a in plane],
        "s": s, "t": t, "u": u.reshape(n, n, 3),
        "u_nn": {}, "error": {}, "inside_training": {}, "training_domain": {},
        "inside_test": {name: get_domain(name).contains(points).reshape(n, n)
                        for name in options.domains},
    }
    for label, run in zip(labels, runs, strict=True):
        u_nn = np.asarray(run.predict(inputs, batch_size=options.batch_size), dtype=float)
        training = str(run.dataset.get("domain"))
        out["u_nn"][label] = u_nn.reshape(n, n, 3)
        out["error"][label] = np.linalg.norm(u_nn - u, axis=1).reshape(n, n)
        out["inside_training"][label] = get_domain(training).contains(points).reshape(n, n)
        out["training_domain"][label] = training
    return out


__all__ = ["slice_fields"]
