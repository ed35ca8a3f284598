"""The ``field`` quantity's ParaView series: mean and standard deviation of u at the mesh's nodes.

The field's 3 × nodes columns ride on the study's allocation (set by the first scalar
quantity) and are estimated as every column is: the mean by MFMC (unbiased for the FEM's
u_h at each node, the FEM evaluating at the same nodes; its standard error beside it), the
standard deviation over the input distribution from the N surrogate samples (surrogate-only:
biased by the surrogate's error) and from the K FEM samples (unbiased, noisier), and the
surrogate's bias measured on the pilot, mean(u_sur − u_fem) per node. ``field.pvd`` indexes
one ``field_0.vtu`` (the FEM's mesh with these point arrays), written atomically with the
toolkit's VTK writers (:mod:`surrogate.fem.vtk`). Torch-free.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

POINT_DATA = {
    "u_mean": "E[u] by MFMC (unbiased for the FEM's u_h at the node)",
    "u_mean_standard_error": "standard error of u_mean",
    "u_std_surrogate": "standard deviation of u over the inputs, N surrogate samples "
                       "(surrogate-only: biased by its error)",
    "u_std_fem": "standard deviation of u over the inputs, K FEM samples",
    "u_mean_surrogate": "mean of the surrogate alone over N samples (biased; not the answer)",
    "u_bias_on_pilot": "mean(u_surrogate - u_fem) on the pilot",
}
"""The point arrays of ``field_0.vtu`` (vectors, 3 components per node) and what they hold."""


def field_arrays(points: Any, result: Any) -> dict[str, np.ndarray]:
    """The arrays of :data:`POINT_DATA`, each (nodes, 3), from a study's ``result``
    (:class:`~surrogate.uq.mfmc.UqResult`) on ``points`` (with a field)."""
    start, nodes = len(points.names), points.field_nodes
    columns = slice(start, start + 3 * nodes)

    def nodal(values: np.ndarray) -> np.ndarray:
        return np.asarray(values, dtype=np.float64)[columns].reshape(nodes, 3)

    return {"u_mean": nodal(result.mfmc.mean),
            "u_mean_standard_error": nodal(result.mfmc.standard_error),
            "u_std_surrogate": nodal(result.std_low), "u_std_fem": nodal(result.std_high),
            "u_mean_surrogate": nodal(result.surrogate_only.mean),
            "u_bias_on_pilot": nodal(result.bias.mean)}


def write_field_series(out: str | Path, points: Any, result: Any) -> dict[str, Any]:
    """``field.pvd`` + ``field_0.vtu`` in ``out``; their record for ``uq.json`` (files, the
    arrays' meanings, and per array the largest |u| over the nodes)."""
    from surrogate.fem.vtk import write_pvd, write_vtu

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = field_arrays(points, result)
    write_vtu(out / "field_0.vtu", points.mesh, arrays)
    write_pvd(out / "field.pvd", [(0.0, "field_0.vtu")])
    return {"pvd": "field.pvd", "vtu": "field_0.vtu", "nodes": points.field_nodes,
            "mesh": {"domain": points.domain, "level": points.level},
            "point_data": dict(POINT_DATA),
            "largest_norm": {name: float(np.linalg.norm(values, axis=1).max())
                             for name, values in arrays.items()}}


__all__ = ["POINT_DATA", "field_arrays", "write_field_series"]
