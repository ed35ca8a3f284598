"""Complete-linear (order 1) fields at arbitrary points: values and curls.

Point evaluation reuses the N0 point locator (KD-tree over centroids, barycentric test) and
scikit-fem's basis. Values at quadrature points and the errors are shared with N0
(:mod:`surrogate.fem.hcurl.skfem_solution`, :mod:`surrogate.fem.hcurl.errors`).
"""

from __future__ import annotations

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.domains import as_points
from surrogate.fem.hcurl.complete_linear_element import ElementTetN2
from surrogate.fem.point_evaluation import OUTSIDE_MODES, point_locator

_POINT_CHUNK = 65_536  # points per block in point evaluation


def evaluate_n2(basis, dofs: np.ndarray, points: np.ndarray, outside: str = "error"
                ) -> np.ndarray:
    """u_h(x) at points (N, 3) -> (N, 3) for an :class:`ElementTetN2` basis.

    ``outside``: "error" (InputError), "nan" (NaN rows) or "extrapolate" (nearest tet), as for
    :func:`~surrogate.fem.point_evaluation.evaluate_n0`.
    """
    return _evaluate(basis, dofs, points, outside, "value")


def evaluate_n2_curl(basis, dofs: np.ndarray, points: np.ndarray, outside: str = "error"
                     ) -> np.ndarray:
    """curl u_h(x) at points (N, 3) -> (N, 3) (piecewise constant, like N0's)."""
    return _evaluate(basis, dofs, points, outside, "curl")


def _evaluate(basis, dofs, points, outside: str, what: str) -> np.ndarray:
    if outside not in OUTSIDE_MODES:
        raise InputError(f"unknown outside={outside!r}; choose one of: {', '.join(OUTSIDE_MODES)}")
    if not isinstance(getattr(basis, "elem", None), ElementTetN2):
        raise InputError("basis must be a skfem Basis with the complete-linear ElementTetN2")
    dofs = np.asarray(dofs, dtype=np.float64)
    if dofs.shape != (basis.N,):
        raise InputError(f"dofs must have shape ({basis.N},) for this basis, got {dofs.shape}")
    x = as_points(points)
    cells, nearest = point_locator(basis.mesh).locate(x)
    missing = cells < 0
    if missing.any():
        if outside == "error":
            raise InputError(f"{int(missing.sum())} of {len(x)} points lie outside the mesh; "
                             "use outside='nan' or outside='extrapolate'")
        if outside == "extrapolate":
            cells = np.where(missing, nearest, cells)
    out = np.full((len(x), 3), np.nan)
    rows = np.flatnonzero(cells >= 0)
    for start in range(0, len(rows), _POINT_CHUNK):
        r = rows[start:start + _POINT_CHUNK]
        tind = cells[r]
        ref = basis.mapping.invF(x[r].T[:, :, None], tind=tind)  # (3, n, 1)
        acc = np.zeros((3, len(r)))
        for k in range(basis.Nbfun):
            if what == "curl" and k % 2 == 1:
                continue
            phi = basis.elem.gbasis(basis.mapping, ref, k, tind=tind)[0]
            part = phi.curl if what == "curl" else np.asarray(phi)
            acc += part[:, :, 0] * dofs[basis.element_dofs[k, tind]]
        out[r] = acc.T
    return out


__all__ = ["evaluate_n2", "evaluate_n2_curl"]
