"""What a network of a problem family sees: the rows of each ``inputs`` kind.

A family dataset (datasets/FORMAT.md version 2) stores the pointwise rows
``(x1 x2 x3 f1 f2 f3 phi)`` and, per problem, its parameters μ and sensor values s. The model
option ``inputs`` (:data:`~surrogate.models.config.INPUT_KINDS`) picks the network's rows:

- ``pointwise``: ``(x, f(x), φ(x))``, the paper's inputs (the stored rows);
- ``params``:    ``(x, μ)``, μ the problem's parameters (p columns);
- ``fields``:    ``(x, s)``, s the problem's sensor values (q columns) that the model encodes
  (:class:`~surrogate.models.encoders.EncodedInputs`);
- ``params-geometry``: ``(x, μ, g(x; μ))``, g the family's pointwise features of the member's
  geometry (``inclusion``: the signed distance to its ball's surface), which a network of
  (x, μ) would have to learn to form
  (:meth:`surrogate.fem.families.family.Family.geometry_features`).

Training reads the dataset through :func:`training_dataset` (the same Dataset with ``inputs``
replaced, so normalisation, splits and metrics apply unchanged). To predict a new member,
build the same rows and call the run's model::

    rows = network_inputs(run.model_config.inputs, points, problem,
                          sensor_values=sensor_values(problem, sensors))  # fields only
    u = surrogate.runs.predict.predict_array(run.model, run.normalisation, rows)

``problem`` needs ``inputs(points)`` (pointwise) or ``params`` (params); ``sensor_values`` is
the problem's (q,) vector in the run's sensor layout (``config.json`` → dataset → ``sensors``),
e.g. from ``surrogate.fem.families.sensor_values``. Torch-free.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.limits import memory_budget, size_text
from surrogate.models.config import INPUT_KINDS, POINT_COLUMNS

POINT_NAMES = ("x1", "x2", "x3")
GEOMETRY = "params-geometry"


def _check_kind(kind: str) -> None:
    if kind not in INPUT_KINDS:
        raise InputError(f"unknown inputs {kind!r}; choose one of: {', '.join(INPUT_KINDS)}")


def network_inputs(kind: str, points: np.ndarray, problem: Any = None, *,
                   params: np.ndarray | None = None,
                   sensor_values: np.ndarray | None = None, family: Any = None) -> np.ndarray:
    """Network rows (n, d) for ``points`` (n, 3) of one problem, in physical units.

    ``pointwise``: ``problem.inputs(points)`` = (x, f(x), φ(x)); ``params``: (x, μ) with μ
    = ``params`` or ``problem.params``; ``fields``: (x, s) with s = ``sensor_values`` (q,).
    """
    _check_kind(kind)
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != POINT_COLUMNS:
        raise InputError(f"points must have shape (n, {POINT_COLUMNS}), got {points.shape}")
    if kind == "pointwise":
        if problem is None:
            raise InputError("inputs 'pointwise' need the problem (its f and φ at the points)")
        return np.asarray(problem.inputs(points), dtype=np.float64)
    if kind in ("params", GEOMETRY):
        values = params if params is not None else getattr(problem, "params", None)
        name = "params (μ)"
    else:
        values, name = sensor_values, "sensor_values"
    if values is None:
        raise InputError(f"inputs {kind!r} need the problem's {name}")
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    rows = np.hstack([points, np.broadcast_to(values, (points.shape[0], values.size))])
    if kind != GEOMETRY:
        return rows
    return np.hstack([rows, _registered(family, problem).geometry_features(points, values)])


def _registered(family: Any, problem: Any = None) -> Any:
    """The registered :class:`~surrogate.fem.families.family.Family` of ``family`` (a Family,
    a dataset's family group or a name) or, when None, of ``problem`` (by its name)."""
    from surrogate.fem.families import get_family

    if family is None:
        if problem is None:
            raise InputError(f"inputs {GEOMETRY!r} need the family (or the problem) to compute "
                             "its geometry features")
        return get_family(str(problem.name))
    if hasattr(family, "geometry_features"):
        return family
    return get_family(str(getattr(family, "name", family)))


def family_rows(kind: str, inputs: np.ndarray, problem_id: np.ndarray, family: Any
                ) -> np.ndarray:
    """Rows (N, d) of a family dataset for ``kind``: the stored pointwise rows, or their
    points joined to μ or s of each row's problem (``family.params`` / ``sensor_values``),
    for ``params-geometry`` followed by the geometry features of each row's member."""
    _check_kind(kind)
    if kind == "pointwise":
        return inputs
    table = np.asarray(family.params if kind != "fields" else family.sensor_values)
    registered = _registered(family) if kind == GEOMETRY else None
    extra = len(registered.geometry_names) if registered is not None else 0
    columns = POINT_COLUMNS + table.shape[1] + extra
    need, budget = len(problem_id) * columns * np.result_type(inputs, table).itemsize, \
        memory_budget()
    if need > budget:  # one line instead of the kernel's out-of-memory kill
        raise InputError(f"--inputs {kind} joins {table.shape[1]} values to each of "
                         f"{len(problem_id):,} rows: {size_text(need)}, more than the "
                         f"{size_text(budget)} this process may use (half the available "
                         f"memory); use fewer sensors (gen-data --n-volume), fewer rows or "
                         f"--inputs params")
    rows = np.hstack([inputs[:, :POINT_COLUMNS], table[problem_id]])
    if registered is None:
        return rows
    return np.hstack([rows, registered.geometry_features(rows[:, :POINT_COLUMNS],
                                                         rows[:, POINT_COLUMNS:])])


def family_input_names(kind: str, dataset: Any) -> tuple[str, ...]:
    """Column names of the rows of ``kind``: x1 x2 x3, then the parameter or sensor names
    (``params-geometry``: then the family's geometry feature names)."""
    _check_kind(kind)
    if kind == "pointwise":
        return tuple(dataset.input_names)
    family = dataset.family
    names = tuple(family.param_names if kind != "fields" else family.sensor_names)
    if kind == GEOMETRY:
        names += tuple(_registered(family).geometry_names)
    return (*POINT_NAMES, *(str(n) for n in names))


def is_family(dataset: Any) -> bool:
    """True for a dataset of a problem family (FORMAT.md version 2, ``family`` group)."""
    return getattr(dataset, "family", None) is not None


def training_dataset(dataset: Any, kind: str) -> Any:
    """``dataset`` as a network with inputs ``kind`` sees it (same splits, hash and path).

    InputError for ``params`` or ``fields`` on a single-problem dataset, or when the stored
    inputs do not start with the point columns x1 x2 x3.
    """
    _check_kind(kind)
    if kind == "pointwise":
        return dataset
    if not is_family(dataset):
        raise InputError(f"--inputs {kind} needs a problem-family dataset (surrogate gen-data "
                         f"maxwell-family); {dataset.path} holds a single problem")
    if tuple(dataset.input_names[:POINT_COLUMNS]) != POINT_NAMES:
        raise InputError(f"{dataset.path}: the first inputs must be {', '.join(POINT_NAMES)}, "
                         f"got {', '.join(dataset.input_names[:POINT_COLUMNS])}")
    family = dataset.family
    rows = family_rows(kind, dataset.inputs, family.problem_id, family)
    return replace(dataset, inputs=rows, input_names=family_input_names(kind, dataset))


def summary_generation_seconds(dataset: Any) -> float | None:
    """``generation_seconds`` of the JSON summary ``<data>.json`` written with the dataset,
    when that summary exists and belongs to this file (same content hash); None otherwise."""
    from surrogate.datasets.format import summary_path

    path = getattr(dataset, "path", None)
    if path is None:
        return None
    try:
        facts = json.loads(summary_path(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(facts, dict) or facts.get("content_hash") != dataset.content_hash:
        return None
    seconds = facts.get("generation_seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or \
            not math.isfinite(seconds):
        return None
    return float(seconds)


def family_record(dataset: Any) -> dict[str, Any]:
    """The family part of a run's dataset section (empty for single-problem datasets):
    family name, parameter names and box, sensor layout (points, normals, value names), truth
    (and its level and order), the problem count and the data generation seconds."""
    if not is_family(dataset):
        return {}
    family = dataset.family
    seconds = getattr(dataset, "attrs", {}).get("generation_seconds")  # files before 0.1.0
    if seconds is None:
        seconds = summary_generation_seconds(dataset)
    return {
        "family": str(family.name),
        "param_names": [str(n) for n in family.param_names],
        "param_box": np.asarray(family.box, dtype=np.float64).tolist(),
        "truth": str(getattr(family, "truth", "exact")),
        "truth_level": getattr(family, "truth_level", None),
        "truth_fem_order": getattr(family, "truth_fem_order", None),
        "sensors": {
            "volume_points": np.asarray(family.volume_points, np.float64).tolist(),
            "boundary_points": np.asarray(family.boundary_points, np.float64).tolist(),
            "boundary_normals": np.asarray(family.boundary_normals, np.float64).tolist(),
            "names": [str(n) for n in family.sensor_names],
        },
        "problems": int(np.asarray(family.params).shape[0]),
        "generation_seconds": None if seconds is None else float(seconds),
    }


__all__ = ["network_inputs", "family_rows", "family_input_names", "training_dataset",
           "family_record", "summary_generation_seconds", "is_family", "POINT_NAMES", "GEOMETRY"]
