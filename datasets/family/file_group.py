"""The ``family/`` group of a version-2 dataset file (datasets/FORMAT.md): read and check it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import h5py
import numpy as np

from surrogate.datasets.format import SPLIT_NAMES
from surrogate.datasets.hdf5_safety import (
    MemoryBudget,
    check_declared_size,
    hard_dataset,
    read_attributes,
)

_FLOAT_PATHS = ("params", "sensor_values", "sensors/volume_points", "sensors/boundary_points",
                "sensors/boundary_normals", "box")


@dataclass(frozen=True)
class FamilyData:
    """What a family dataset stores per problem (P problems, p parameters, q sensor values)."""

    name: str
    params: np.ndarray  # (P, p)
    param_names: tuple[str, ...]
    problem_id: np.ndarray  # (N,) int64 in [0, P)
    sensor_values: np.ndarray  # (P, q)
    sensor_names: tuple[str, ...]
    volume_points: np.ndarray  # (S_v, 3)
    boundary_points: np.ndarray  # (S_b, 3)
    boundary_normals: np.ndarray  # (S_b, 3)
    box: np.ndarray  # (p, 2)
    truth: str
    problem_splits: dict[str, np.ndarray]
    truth_level: int | None = None
    truth_fem_order: int | None = None  # toolkit naming; None: unrecorded (the truth is N0)
    truth_mesh: str | None = None  # "level" (also files without it) or "fitted"; None: exact
    truth_maxh: float | None = None  # the fitted truth's mesh size
    truth_curve_order: int | None = None  # the fitted truth's degree of element maps
    truth_description: str | None = None  # e.g. "complete cubic mixed solve (ngsolve) on ..."

    @property
    def n_problems(self) -> int:
        """P, the number of problems."""
        return int(self.params.shape[0])


def _names(ds: h5py.Dataset, label: str) -> tuple[str, ...] | None:
    names = read_attributes(ds, f"'{label}'").get("names") if "names" in ds.attrs else None
    if isinstance(names, list) and all(isinstance(c, str) for c in names):
        return tuple(names)
    return None


def _array(f: h5py.File, path: str, kind: str, ndim: int, file_size: int, budget: MemoryBudget,
           problems: list[str]) -> np.ndarray | None:
    """family/<path>: a finite ``ndim``-d float (kind "f") or integer (kind "i") array."""
    ds = hard_dataset(f, f"family/{path}")
    if ds is None:
        problems.append(f"family file without 'family/{path}'")
        return None
    ok_kind = ds.dtype.kind == "f" if kind == "f" else ds.dtype.kind in "iu"
    if ds.ndim != ndim or not ok_kind:
        problems.append(f"'family/{path}' has shape {ds.shape} dtype {ds.dtype}, expected a "
                        f"{ndim}-d {'float' if kind == 'f' else 'integer'} array")
        return None
    check_declared_size(ds, f"family/{path}", file_size, budget)
    arr = ds[()]
    if kind == "f" and not np.all(np.isfinite(arr)):
        problems.append(f"'family/{path}' contains non-finite values")
    return arr


def scan_family(f: h5py.File, attrs: dict[str, Any], n: int, row_splits: dict[str, np.ndarray],
                file_size: int, budget: MemoryBudget, problems: list[str]) -> FamilyData | None:
    """Check the ``family/`` group against the rows (N = ``n``) and the row splits."""
    name, truth = attrs.get("family"), attrs.get("truth")
    if not isinstance(name, str) or truth not in ("exact", "fem"):
        problems.append("family files need string attributes 'family' and 'truth' "
                        "('exact' or 'fem')")
        return None
    arrays = {p: _array(f, p, "f", 2, file_size, budget, problems)
              for p in _FLOAT_PATHS}
    arrays["problem_id"] = _array(f, "problem_id", "i", 1, file_size, budget, problems)
    splits = {k: _array(f, f"splits/{k}", "i", 1, file_size, budget, problems)
              for k in SPLIT_NAMES}
    if any(v is None for v in (*arrays.values(), *splits.values())):
        return None
    params, values, pid = arrays["params"], arrays["sensor_values"], arrays["problem_id"]
    n_problems, n_params = params.shape
    param_names = _names(f["family/params"], "family/params")
    value_names = _names(f["family/sensor_values"], "family/sensor_values")
    checks = [
        (param_names is not None and len(param_names) == n_params,
         "'family/params' needs one name per column"),
        (values.shape[0] == n_problems and value_names is not None
         and len(value_names) == values.shape[1],
         "'family/sensor_values' needs one row per problem and one name per column"),
        (arrays["box"].shape == (n_params, 2), "'family/box' must have shape (p, 2)"),
        (pid.shape == (n,) and (n == 0 or (pid.min() >= 0 and pid.max() < n_problems)),
         f"'family/problem_id' must have shape ({n},) with values in [0, {n_problems})"),
        (all(arrays[p].shape[1:] == (3,) for p in _FLOAT_PATHS if p.startswith("sensors/")),
         "sensor points and normals must have shape (S, 3)"),
    ]
    problems.extend(message for ok, message in checks if not ok)
    if any(not ok for ok, _ in checks):
        return None
    seen = np.zeros(n_problems, dtype=np.int64)
    for key in SPLIT_NAMES:
        idx = splits[key].astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n_problems):
            problems.append(f"'family/splits/{key}' has problem indices outside [0, {n_problems})")
            return None
        np.add.at(seen, idx, 1)
        rows = np.asarray(row_splits.get(key, np.empty(0, np.int64)))
        if not np.array_equal(np.sort(rows), np.flatnonzero(np.isin(pid, idx))):
            problems.append(f"split '{key}' is not the rows of the problems in "
                            f"'family/splits/{key}' (a family is split by problem)")
    if seen.max(initial=0) > 1:
        problems.append("a problem appears in two splits of 'family/splits'")
    mesh = _truth_mesh(attrs, truth, problems)
    level, order = attrs.get("truth_level"), _truth_fem_order(attrs, problems, mesh)
    fitted = _fitted_facts(attrs, problems) if mesh == "fitted" else {}
    description = attrs.get("truth_description")
    return FamilyData(
        name=name, params=params, param_names=param_names, problem_id=pid.astype(np.int64),
        sensor_values=values, sensor_names=value_names,
        volume_points=arrays["sensors/volume_points"],
        boundary_points=arrays["sensors/boundary_points"],
        boundary_normals=arrays["sensors/boundary_normals"], box=arrays["box"], truth=truth,
        problem_splits={k: v.astype(np.int64) for k, v in splits.items()},
        truth_level=int(level) if isinstance(level, int | np.integer) else None,
        truth_fem_order=order, truth_mesh=mesh, **fitted,
        truth_description=description if isinstance(description, str) else None)


def _truth_mesh(attrs, truth: str, problems: list[str]) -> str | None:
    """The FEM truth's mesh: ``truth_mesh`` ("level" or "fitted"; files without it: "level");
    None for an exact truth."""
    if truth != "fem":
        return None
    mesh = attrs.get("truth_mesh", "level")
    if mesh not in ("level", "fitted"):
        problems.append(f"family attribute 'truth_mesh' must be 'level' or 'fitted', got "
                        f"{mesh!r}")
        return None
    return str(mesh)


def _fitted_facts(attrs, problems: list[str]) -> dict[str, Any]:
    """``truth_maxh`` (> 0) and ``truth_curve_order`` (1-4) of a fitted truth."""
    maxh, curve = attrs.get("truth_maxh"), attrs.get("truth_curve_order")
    ok_maxh = isinstance(maxh, float | np.floating) and np.isfinite(maxh) and maxh > 0
    ok_curve = isinstance(curve, int | np.integer) and not isinstance(curve, bool) \
        and 1 <= curve <= 4
    if not (ok_maxh and ok_curve):
        problems.append(f"a fitted truth needs attributes 'truth_maxh' > 0 and "
                        f"'truth_curve_order' 1-4, got {maxh!r}, {curve!r}")
        return {}
    return {"truth_maxh": float(maxh), "truth_curve_order": int(curve)}


def _truth_fem_order(attrs, problems: list[str], mesh: str | None = "level") -> int | None:
    """The truth's order in the toolkit's naming: ``truth_fem_order`` (level truth: 0 = N0,
    1 = complete linear; fitted: 0-4), or a file's legacy ``truth_order`` (1 = N0, 2 =
    complete linear; written before the naming changed), or None (older files: their truth
    is N0)."""
    orders = (0, 1, 2, 3, 4) if mesh == "fitted" else (0, 1)
    for key, legal, shift in (("truth_fem_order", orders, 0), ("truth_order", (1, 2), 1)):
        if key in attrs:
            value = attrs[key]
            if isinstance(value, bool) or not (isinstance(value, int | np.integer)
                                               and value in legal):
                choices = " or ".join(map(str, legal)) if len(legal) == 2 \
                    else f"{legal[0]}-{legal[-1]}"
                problems.append(f"family attribute {key!r} must be {choices}, got {value!r}")
                return None
            return int(value) - shift
    return None


__all__ = ["FamilyData", "scan_family"]
