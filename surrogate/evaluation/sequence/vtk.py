"""ParaView files of a maxwell-td sequence evaluation: probes and FEM field over time.

For one sample of the unseen-signals set, every ``every``-th time step (and the last):

- ``probes.pvd`` + ``probes_<n>.vtu``: the probe points as a point cloud with point data
  ``E_true``, ``E_pred`` and ``E_error`` = E_pred − E_true (3-component vectors);
- ``field.pvd`` + ``field_<n>.vtu``: the FEM field E_h of the same sample on the mesh
  (:func:`surrogate.datasets.sequence.td_snapshots.sample_snapshots`, any backend and order),
  point data ``E`` (projected to the nodes: the volume-weighted average of the tets' values)
  and cell data ``E`` (at the barycentres).

``timestep`` in both collections is the physical time t_n = n·Δt; ``<n>`` the step index.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.sequence.maxwell_td import maxwell_td_recipe, maxwell_td_setup

SPATIAL_RECIPES = ("maxwell-td",)
"""Recipe kinds with a spatial field (``--vtk``)."""
MAX_VTK_FRAMES = 50
"""``vtk_every`` by default keeps at most this many time steps (plus the last)."""


def check_vtk(plan: Any, run: Any, sample: int) -> None:
    """InputError unless ``--vtk`` can be written (maxwell-td, seq-to-seq, sample exists)."""
    if plan.kind not in SPATIAL_RECIPES or plan.recipe is None:
        raise InputError(f"--vtk needs a spatial field; {plan.kind or 'this'!r} sequences have "
                         f"none (only {', '.join(SPATIAL_RECIPES)} data)")
    if "unseen-signals" not in plan.sets:
        raise InputError("--vtk shows a sample of the unseen-signals set; add --set "
                         "unseen-signals")
    if run.model_config.readout != "sequence":
        raise InputError("--vtk needs a seq-to-seq run (readout 'sequence') to show E over time")
    if sample >= plan.samples.size:
        raise InputError(f"--sample {sample}: expected 0 <= sample < {plan.samples.size} "
                         f"(the size of the unseen-signals set)")


def default_every(steps: int, frames: int) -> int:
    """Smallest stride that keeps at most ``frames`` of ``steps`` time steps (plus the last)."""
    return max(1, math.ceil((steps - 1) / frames))


def frame_steps(steps: int, every: int) -> np.ndarray:
    """Step indices 0, every, 2·every, … and always the last one, steps − 1."""
    return np.unique(np.append(np.arange(0, steps, every), steps - 1))


def probe_vectors(values: np.ndarray, n_probes: int) -> np.ndarray:
    """(T, 3·P) columns ``E1_p0, E2_p0, E3_p0, E1_p1, …`` -> (T, P, 3)."""
    values = np.asarray(values, dtype=float)
    if values.shape[-1] != 3 * n_probes:
        raise InputError(f"expected 3 × {n_probes} probe columns, got {values.shape[-1]}")
    return values.reshape(values.shape[0], n_probes, 3)


def write_probe_series(vtk_dir: Path, points: np.ndarray, times: np.ndarray,
                       true: np.ndarray, predicted: np.ndarray, steps: np.ndarray
                       ) -> dict[str, Any]:
    """``probes.pvd`` and one ``probes_<n>.vtu`` per step of ``steps`` (vectors (T, P, 3))."""
    from surrogate.fem.vtk import write_points_vtu, write_pvd

    width = len(str(len(times) - 1))
    entries = []
    for n in steps:
        name = f"probes_{n:0{width}d}.vtu"
        write_points_vtu(vtk_dir / name, points, {"E_true": true[n], "E_pred": predicted[n],
                                                  "E_error": predicted[n] - true[n]})
        entries.append((float(times[n]), name))
    write_pvd(vtk_dir / "probes.pvd", entries)
    return {"pvd": "probes.pvd", "files": len(entries),
            "point_data": {"E_true": "E at the probes (FEM)", "E_pred": "E of the surrogate",
                           "E_error": "E_pred - E_true"}}


def write_field_series(vtk_dir: Path, snapshots: Any, steps: np.ndarray) -> dict[str, Any]:
    """``field.pvd`` and one ``field_<n>.vtu`` per step: E_h at the nodes and cell centres."""
    from surrogate.fem.vtk import write_pvd, write_vtu

    chosen = dataclasses.replace(snapshots, dofs=snapshots.dofs[steps],
                                 time=snapshots.time[steps])
    nodes, cells = chosen.at_nodes(), chosen.at_cells()
    width = len(str(len(snapshots.time) - 1))
    entries = []
    for k, n in enumerate(steps):
        name = f"field_{n:0{width}d}.vtu"
        write_vtu(vtk_dir / name, snapshots.mesh, {"E": nodes[k]}, {"E": cells[k]})
        entries.append((float(chosen.time[k]), name))
    write_pvd(vtk_dir / "field.pvd", entries)
    return {"pvd": "field.pvd", "files": len(entries),
            "point_data": {"E": "E_h projected to the nodes (volume-weighted cell average)"},
            "cell_data": {"E": "E_h at the cell centres"}}


def write_sequence_vtk(vtk_dir: Path, plan: Any, result: Any, sample: int,
                       every: int | None = None) -> dict[str, Any]:
    """Both collections for sequence ``sample`` of an evaluated unseen-signals set."""
    from surrogate.datasets.sequence.td_snapshots import sample_snapshots

    built = result.set
    steps_total = built.inputs.shape[1]
    every = every or default_every(steps_total, MAX_VTK_FRAMES)
    steps = frame_steps(steps_total, every)
    points = np.asarray(plan.dataset.attrs["probe_points"], dtype=float)
    true = probe_vectors(result.target[sample], len(points))
    predicted = probe_vectors(result.prediction[sample], len(points))
    vtk_dir.mkdir(parents=True, exist_ok=True)
    probes = write_probe_series(vtk_dir, points, built.time, true, predicted, steps)
    sample_id = int(built.samples[sample])
    snapshots = sample_snapshots(maxwell_td_recipe(plan), sample_id, maxwell_td_setup(plan))
    field = write_field_series(vtk_dir, snapshots, steps)
    return {"set": built.name, "sample": sample, "sample_id": sample_id, "every": every,
            "steps": steps, "timestep": "physical time t", "probes": probes, "field": field,
            "material": snapshots.material}


__all__ = ["MAX_VTK_FRAMES", "SPATIAL_RECIPES", "check_vtk", "default_every", "frame_steps",
           "probe_vectors", "write_field_series", "write_probe_series", "write_sequence_vtk"]
