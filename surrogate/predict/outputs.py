"""What ``surrogate predict`` writes: one HDF5 file of u, and a ParaView ``.pvd`` series.

The HDF5 file (written to a temporary name, renamed when complete):

- ``u`` (B, P, n): u of problem b at point i, in the predictor's dtype;
- ``points`` (P, 3) float64; ``cells`` (C, 4) int64 when the points are a mesh's nodes;
- ``params`` (B, p) float64 (family runs; attribute ``names``) and ``sensors`` (B, q) when
  the problems were given by their sensor values;
- attributes ``format = "surrogate-prediction"``, ``version``, ``run`` (its directory),
  ``run_hash`` (sha256 of its model.pt and config.json), ``dataset_hash``, ``family``,
  ``inputs``, ``points_source``, ``package_version``.

The ``.pvd`` series has one ``.vtu`` per problem (``timestep`` = the problem's row, from 0)
with point data ``u`` (P, 3) and ``u_magnitude`` (P,), on the mesh or as a point cloud.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.atomic_files import atomic_path

FORMAT = "surrogate-prediction"
VERSION = 1
Progress = Callable[[int, int, str], None]


def run_hash(run_dir: str | Path) -> str:
    """``sha256:<hex>`` of the run's ``model.pt`` then ``config.json`` (the trained surrogate)."""
    from surrogate.runs.layout import CONFIG_FILE, MODEL_FILE

    digest = hashlib.sha256()
    for name in (MODEL_FILE, CONFIG_FILE):
        digest.update((Path(run_dir) / name).read_bytes())
    return f"sha256:{digest.hexdigest()}"


@contextmanager
def prediction_file(path: str | Path, *, predictor: Any, problems: int,
                    params: np.ndarray | None, sensors: np.ndarray | None
                    ) -> Iterator[Any]:
    """An open HDF5 file with every input written and ``u`` (B, P, n) allocated; the caller
    fills ``file["u"]``; renamed to ``path`` when the block ends without an exception."""
    import h5py

    from surrogate import __version__

    run, points = predictor.run, predictor.point_set
    n_out = int(predictor.run.normalisation.out_features)
    dtype = "float32" if str(predictor.dtype).endswith("float32") else "float64"
    with atomic_path(path, ".h5") as tmp, h5py.File(tmp, "w") as fh:
        fh.attrs.update({"format": FORMAT, "version": VERSION,
                         "run": str(Path(run.path).resolve()),
                         "run_hash": run_hash(run.path),
                         "dataset_hash": str(run.dataset.get("content_hash")),
                         "family": str(run.dataset.get("family") or ""),
                         "inputs": predictor.kind, "points_source": points.source,
                         "package_version": __version__})
        fh.create_dataset("points", data=points.points)
        if points.mesh is not None:
            fh.create_dataset("cells", data=np.ascontiguousarray(points.mesh.t.T, np.int64))
        if params is not None:
            fh.create_dataset("params", data=np.asarray(params, dtype=np.float64))
            fh["params"].attrs["names"] = list(predictor.param_names)
        if sensors is not None:
            fh.create_dataset("sensors", data=np.asarray(sensors, dtype=np.float64))
        chunk = (1, len(points), n_out)
        fh.create_dataset("u", shape=(problems, len(points), n_out), dtype=dtype, chunks=chunk)
        yield fh


def write_vtk_series(directory: str | Path, point_set: Any, u: Any,
                     on_progress: Progress | None = None) -> Path:
    """``directory/u.pvd`` and ``u_<b>.vtu`` for every problem b of ``u`` (B, P, 3) (an array
    or an HDF5 dataset, read one problem at a time); returns the ``.pvd`` path."""
    from surrogate.fem.vtk import write_points_vtu, write_pvd, write_vtu

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    problems = int(u.shape[0])
    width = len(str(max(problems - 1, 0)))
    entries = []
    for b in range(problems):
        values = np.asarray(u[b], dtype=np.float64)
        data = {"u": values, "u_magnitude": np.linalg.norm(values, axis=1)}
        name = f"u_{b:0{width}d}.vtu"
        if point_set.mesh is not None:
            write_vtu(directory / name, point_set.mesh, point_data=data)
        else:
            write_points_vtu(directory / name, point_set.points, point_data=data)
        entries.append((float(b), name))
        if on_progress is not None:
            on_progress(b + 1, problems, "ParaView files")
    return write_pvd(directory / "u.pvd", entries)


__all__ = ["FORMAT", "VERSION", "run_hash", "prediction_file", "write_vtk_series"]
