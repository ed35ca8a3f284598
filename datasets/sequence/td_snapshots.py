"""Full-field histories of one ``maxwell-td`` sample for ParaView: E_h at every time step.

Any backend and order of the recipe: the field's free DOFs at every output step (direct
Newmark stepping, Richardson-combined when the recipe asks,
:func:`~surrogate.datasets.sequence.td_responses.field_history`) and the operators' own
matrices to the tets' barycentres and to the nodes (``cell_centre_matrix``,
``node_matrix`` of the cavity operators: skfem's N0 or NGSolve's H(curl) of any order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from surrogate.core.errors import InputError
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    MaxwellTDSetup,
    build_setup,
    sample_signals,
)
from surrogate.datasets.sequence.td_responses import field_history


@dataclass(frozen=True)
class FieldSnapshots:
    """E_h of one sample at every time step: free DOFs ``dofs`` (T, n_free) and the matrices
    from them to the barycentres (3·n_cells, n_free) and to the nodes (3·n_nodes, n_free)."""

    mesh: Any
    time: np.ndarray
    dofs: np.ndarray
    material: tuple[float, float, float]
    cells_matrix: sp.csr_matrix
    nodes_matrix: sp.csr_matrix

    def at_cells(self) -> np.ndarray:
        """E at every tet's barycentre, (T, n_cells, 3)."""
        return _apply(self.cells_matrix, self.dofs)

    def at_nodes(self) -> np.ndarray:
        """E projected to the nodes (volume-weighted cell average), (T, n_nodes, 3)."""
        return _apply(self.nodes_matrix, self.dofs)


def _apply(matrix: sp.spmatrix, dofs: np.ndarray) -> np.ndarray:
    """(matrix @ dofs_n) for every step n: (T, n_dofs) -> (T, n_points, 3)."""
    values = (matrix @ dofs.T).T  # (T, 3 · n_points)
    return values.reshape(len(dofs), -1, 3)


def sample_snapshots(recipe: MaxwellTDRecipe, index: int,
                     setup: MaxwellTDSetup | None = None) -> FieldSnapshots:
    """Full-field E_h history of sample ``index`` by direct Newmark stepping (for ``.pvd``)."""
    setup = setup if setup is not None else build_setup(recipe)
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise InputError(f"sample index={index!r}: expected int >= 0")
    (signal,) = sample_signals(recipe, [index])
    material = setup.materials[index % recipe.n_materials]
    e = field_history(setup, material, signal)
    return FieldSnapshots(setup.ops.mesh, recipe.time, e, tuple(float(x) for x in material),
                          setup.ops.cell_centre_matrix(), setup.ops.node_matrix())


__all__ = ["FieldSnapshots", "sample_snapshots"]
