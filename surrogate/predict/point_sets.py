"""Where a prediction is asked for: a domain's mesh nodes, a mesh file's, or probe points.

A :class:`PointSet` holds the points (P, 3), the tetrahedral mesh they are the nodes of (for
ParaView output; None for probe points) and a one-line description. Torch-free.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.domain_base import as_points

POINT_COLUMN_NAMES = (("x1", "x2", "x3"), ("x", "y", "z"))


@dataclass(frozen=True)
class PointSet:
    """Points (P, 3) float64, their mesh (skfem MeshTet whose nodes they are) or None."""

    points: np.ndarray = field(repr=False)
    mesh: Any = field(default=None, repr=False)
    source: str = "points"

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", as_points(self.points))
        if len(self.points) == 0:
            raise InputError("the point set is empty")

    def __len__(self) -> int:
        return int(self.points.shape[0])

    @classmethod
    def from_domain(cls, domain: str | os.PathLike, level: int) -> PointSet:
        """The nodes of a built-in domain's or a mesh file's mesh at ``level`` (from the
        domain's ``min_level``: 0 on the cube)."""
        from surrogate.fem.domains import get_domain

        resolved = get_domain(os.fspath(domain) if isinstance(domain, os.PathLike) else domain)
        mesh = resolved.mesh(level)
        return cls(np.ascontiguousarray(mesh.p.T), mesh,
                   f"{resolved.name} level {level} nodes")

    @classmethod
    def from_file(cls, spec: str | os.PathLike) -> PointSet:
        """Probe points from ``FILE.csv`` (header x1,x2,x3 or x,y,z, or none), ``FILE.npy``
        or ``FILE.h5[:DATASET]``: three columns, one point per row."""
        from surrogate.predict.tables import read_table

        table = read_table(spec, hdf5=True)
        if table.names is not None and tuple(n.lower() for n in table.names) \
                not in POINT_COLUMN_NAMES:
            raise InputError(f"{table.path}: point columns must be named x1,x2,x3 or x,y,z, "
                             f"got {','.join(table.names)}")
        if table.values.shape[1] != 3:
            raise InputError(f"{table.path}: points need 3 columns (x1, x2, x3), got "
                             f"{table.values.shape[1]}")
        if not np.isfinite(table.values).all():
            bad = int(np.flatnonzero(~np.isfinite(table.values).all(axis=1))[0])
            raise InputError(f"{table.path}: point {bad + 1} is not finite")
        return cls(table.values, None, f"{table.path.name} ({len(table.values)} points)")


__all__ = ["PointSet", "POINT_COLUMN_NAMES"]
