"""``surrogate predict``: a run, problems and points in; u as HDF5 (and ParaView files) out.

:func:`predict_to_files` checks every input before any work (InputError, one line each):
the run, the point set (``--domain`` and ``--level``, or ``--points``), the problems
(``--params`` for family runs, ``--sensors`` for ``fields`` runs, nothing for a
single-problem run), parameters outside the training box (a warning per row; an error with
``strict``). It then predicts blocks of problems and writes them into the HDF5 file, which
is renamed into place when complete (:mod:`surrogate.predict.outputs`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.predict.outputs import Progress, prediction_file, write_vtk_series
from surrogate.predict.parameters import outside_box, parameter_rows
from surrogate.predict.point_sets import PointSet

BLOCK_VALUES = 1 << 22
"""Values of u (problems × points × components) predicted per block: 16 MB in float32."""


@dataclass(frozen=True)
class PredictionRequest:
    """What ``surrogate predict`` was asked for (paths as given)."""

    run: Path
    out: Path
    params: Path | None = None
    sensors: Path | None = None
    domain: str | None = None
    level: int = 3
    points: str | None = None
    vtk: Path | None = None
    strict: bool = False
    device: str = "cpu"
    dtype: str = "float32"


def point_set_of(request: PredictionRequest) -> PointSet:
    """The points of ``--domain``/``--level`` or ``--points`` (exactly one of the two)."""
    if (request.domain is None) == (request.points is None):
        raise InputError("give the points with either --domain (and --level) or --points")
    if request.points is not None:
        return PointSet.from_file(request.points)
    return PointSet.from_domain(request.domain, request.level)


def problems_of(request: PredictionRequest, run: Any, warn: Callable[[str], None]
                ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(params (B, p) or None, sensor values (B, q) or None) of the request, checked."""
    from surrogate.predict.tables import read_table

    family = run.dataset.get("family")
    kind = str(getattr(run.model_config, "inputs", "pointwise"))
    if family is None:
        if request.params is not None or request.sensors is not None:
            raise InputError(f"run {run.path} was trained on one problem; it predicts that "
                             "problem: drop --params / --sensors")
        return None, None
    if kind == "fields" and request.sensors is None:  # --params holds a fields run's sensors
        request = dataclasses.replace(request, params=None, sensors=request.params)
    if (request.params is None) == (request.sensors is None):
        what = "--params (or --sensors)" if kind == "fields" else "--params"
        raise InputError(f"run {run.path} is a {family!r} family run: give the problems with "
                         f"{what}, one row per problem")
    if request.sensors is not None:
        if kind != "fields":
            raise InputError(f"--sensors: run {run.path} has inputs {kind!r}; give --params")
        names = tuple((run.dataset.get("sensors") or {}).get("names") or ())
        return None, parameter_rows(read_table(request.sensors), names)
    names = tuple(run.dataset.get("param_names") or ())
    params = parameter_rows(read_table(request.params), names)
    box = run.dataset.get("param_box")
    lines = [] if box is None else outside_box(params, names, np.asarray(box, dtype=float))
    if lines and request.strict:
        others = len(lines) - 1
        more = f" (and {others} more row{'s' if others > 1 else ''})" if others else ""
        raise InputError(f"--strict: {lines[0]}{more}")
    for line in lines:
        warn(line)
    return params, None


def predict_to_files(request: PredictionRequest, *, on_progress: Progress | None = None,
                     warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Write u of every requested problem at every point; returns a JSON-safe summary."""
    from surrogate.predict.predictor import Predictor
    from surrogate.runs.load import load_run

    progress = on_progress or (lambda done, total, description: None)
    warnings: list[str] = []

    def warning(line: str) -> None:
        warnings.append(line)
        if warn is not None:
            warn(line)

    if request.out.suffix.lower() not in (".h5", ".hdf5"):
        raise InputError(f"-o {request.out}: the output is an HDF5 file (.h5)")
    run = load_run(request.run)
    points = point_set_of(request)
    params, sensors = problems_of(request, run, warning)
    predictor = Predictor(run, points, device=request.device, dtype=request.dtype)
    problems = 1 if params is None and sensors is None else len(
        params if params is not None else sensors)
    n_out = int(run.normalisation.out_features)
    block = max(1, BLOCK_VALUES // (len(points) * n_out))
    start = time.perf_counter()
    with prediction_file(request.out, predictor=predictor, problems=problems, params=params,
                         sensors=sensors) as fh:
        for first in range(0, problems, block):
            last = min(first + block, problems)
            if params is not None:
                u = predictor.predict(params[first:last])
            elif sensors is not None:
                u = predictor.predict_sensors(sensors[first:last])
            else:
                u = predictor.predict()[None]
            fh["u"][first:last] = u
            progress(last, problems, "problems")
    seconds = time.perf_counter() - start
    summary: dict[str, Any] = {
        "output": str(request.out), "run": str(run.path), "problems": problems,
        "points": len(points), "points_source": points.source, "inputs": predictor.kind,
        "separable": predictor.separable, "dtype": request.dtype,
        "device": str(predictor.device), "seconds": seconds, "warnings": warnings}
    if request.vtk is not None:
        import h5py

        with h5py.File(request.out, "r") as fh:
            summary["vtk"] = str(write_vtk_series(request.vtk, points, fh["u"], progress))
    return summary


__all__ = ["PredictionRequest", "predict_to_files", "point_set_of", "problems_of",
           "BLOCK_VALUES"]
