"""``surrogate predict``: a run, problems and points in; u as HDF5 (and ParaView files) out.

:func:`predict_to_files` checks every input before any work (InputError, one line each):
the options (:class:`~surrogate.predict.options.PredictOptions`), the run, the point set
(``--domain`` and ``--level``, or ``--points``), the problems (``--params``: a family run's
parameters, or a ``fields`` run's sensor values; nothing for a single-problem run),
parameters outside the training box (a warning per row; an error with ``strict``). It then
predicts blocks of problems and writes them into the HDF5 file, which is renamed into place
when complete (:mod:`surrogate.predict.outputs`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.predict.options import PredictOptions
from surrogate.predict.outputs import Progress, prediction_file, write_vtk_series
from surrogate.predict.parameters import outside_box, parameter_rows
from surrogate.predict.point_sets import PointSet

BLOCK_VALUES = 1 << 22
"""Values of u (problems × points × components) predicted per block: 16 MB in float32."""


@dataclass(frozen=True)
class PredictionRequest:
    """What ``surrogate predict`` was asked for: the run, the HDF5 file to write, the typed
    options and the ParaView folder (paths as given)."""

    run: Path
    out: Path
    options: PredictOptions
    vtk: Path | None = None


def point_set_of(options: PredictOptions) -> PointSet:
    """The points of ``--domain``/``--level`` or ``--points`` (the options hold one of them)."""
    if options.points is not None:
        return PointSet.from_file(options.points)
    return PointSet.from_domain(options.domain, options.level)


def problems_of(options: PredictOptions, run: Any, warn: Callable[[str], None]
                ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(params (B, p) or None, sensor values (B, q) or None) of ``--params``, checked: a
    ``fields`` run reads its sensor values there, any other family run its parameters."""
    from surrogate.predict.tables import read_table

    family = run.dataset.get("family")
    kind = str(getattr(run.model_config, "inputs", "pointwise"))
    if family is None:
        if options.params is not None:
            raise InputError(f"run {run.path} was trained on one problem; it predicts that "
                             "problem: drop --params")
        return None, None
    if options.params is None:
        what = "--params (its sensor values)" if kind == "fields" else "--params"
        raise InputError(f"run {run.path} is a {family!r} family run: give the problems with "
                         f"{what}, one row per problem")
    if kind == "fields":
        names = tuple((run.dataset.get("sensors") or {}).get("names") or ())
        return None, parameter_rows(read_table(options.params), names)
    names = tuple(run.dataset.get("param_names") or ())
    params = parameter_rows(read_table(options.params), names)
    box = run.dataset.get("param_box")
    lines = [] if box is None else outside_box(params, names, np.asarray(box, dtype=float))
    if lines and options.strict:
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
    options = request.options
    run = load_run(request.run)
    points = point_set_of(options)
    params, sensors = problems_of(options, run, warning)
    predictor = Predictor(run, points, device=options.device, dtype=options.dtype)
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
        "separable": predictor.separable, "dtype": options.dtype,
        "device": str(predictor.device), "seconds": seconds, "warnings": warnings}
    if request.vtk is not None:
        import h5py

        with h5py.File(request.out, "r") as fh:
            summary["vtk"] = str(write_vtk_series(request.vtk, points, fh["u"], progress))
    return summary


__all__ = ["PredictionRequest", "predict_to_files", "point_set_of", "problems_of",
           "BLOCK_VALUES"]
