"""A JSON-safe summary of a dataset file (``surrogate info``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.datasets.reader import read_dataset


def _ranges(values: np.ndarray, names: tuple[str, ...]) -> dict[str, dict[str, float]]:
    flat = values.reshape(-1, values.shape[-1])
    lo, hi, mean = flat.min(axis=0), flat.max(axis=0), flat.mean(axis=0)
    return {n: {"min": float(lo[i]), "max": float(hi[i]), "mean": float(mean[i])}
            for i, n in enumerate(names)}


def dataset_summary(path: str | os.PathLike, *, verify_hash: bool = True) -> dict[str, Any]:
    """Read and validate ``path``; return kind, shapes, names, splits, ranges, hash, recipe.

    ``readout`` (sequence datasets): ``"sequence"`` (a target per step) or ``"last"``.
    """
    ds = read_dataset(path, verify_hash=verify_hash)
    with h5py.File(ds.path, "r") as f:
        groups = [g for g in ("mesh", "fem") if g in f]
    return {
        "path": str(Path(path)), "type": "dataset", "kind": ds.kind, "problem": ds.problem,
        "domain": ds.domain, "version": ds.version, "seed": ds.seed,
        "dtype": str(ds.inputs.dtype), "inputs_shape": list(ds.inputs.shape),
        "targets_shape": list(ds.targets.shape), "input_names": list(ds.input_names),
        "target_names": list(ds.target_names),
        "splits": {k: int(v.size) for k, v in ds.splits.items()},
        "input_ranges": _ranges(ds.inputs, ds.input_names),
        "target_ranges": _ranges(ds.targets, ds.target_names),
        "content_hash": ds.content_hash, "recipe": ds.recipe, "groups": groups,
        "classes": ds.attrs.get("classes"),
        "readout": ds.readout if ds.kind == "sequence" else None,
        "created": ds.attrs.get("created"), "package_version": ds.attrs.get("package_version"),
        "truth": family_truth(ds),
    }


def family_truth(ds: Any) -> dict[str, Any] | None:
    """A family file's truth: ``{"kind": "exact"}`` or the FEM truth's backend, order, mesh
    (level, or fitted maxh and curve order) and description (files before the description:
    built from the level and order they record); None for other datasets."""
    family = ds.family
    if family is None:
        return None
    if family.truth == "exact":
        return {"kind": "exact", "description": "closed-form solution"}
    from surrogate.fem.families.truth import truth_description

    fitted = family.truth_mesh == "fitted"
    order = family.truth_fem_order if family.truth_fem_order is not None else 0  # unrecorded: N0
    description = family.truth_description
    if description is None and family.truth_level is not None:
        description = truth_description(order, family.truth_level, ds.domain)
    mesh = {"maxh": family.truth_maxh, "curve_order": family.truth_curve_order} if fitted \
        else {"level": family.truth_level}
    return {"kind": "fem", "backend": "ngsolve" if fitted else "skfem", "order": order,
            "mesh": family.truth_mesh, **mesh, "description": description}


__all__ = ["dataset_summary"]
