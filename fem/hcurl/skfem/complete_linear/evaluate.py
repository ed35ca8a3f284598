"""Complete-linear (order 1) fields at arbitrary points: values and curls.

Point evaluation reuses the N0 point locator (KD-tree over centroids, barycentric test) and
scikit-fem's basis. Values at quadrature points and the errors are shared with N0
(:mod:`surrogate.fem.hcurl.skfem.solution`, :mod:`surrogate.fem.hcurl.errors`).
"""

from __future__ import annotations

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.domains import as_points
from surrogate.fem.hcurl.skfem.complete_linear.element import ElementTetCompleteLinear
from surrogate.fem.point_evaluation import OUTSIDE_MODES, basis_values_at, containing_cells


def evaluate_complete_linear(basis, dofs: np.ndarray, points: np.ndarray, outside: str = "error"
                ) -> np.ndarray:
    """u_h(x) at points (N, 3) -> (N, 3) for an :class:`ElementTetCompleteLinear` basis.

    ``outside``: "error" (InputError), "nan" (NaN rows) or "extrapolate" (nearest tet), as for
    :func:`~surrogate.fem.point_evaluation.evaluate_n0`.
    """
    return _evaluate(basis, dofs, points, outside, "value")


def evaluate_complete_linear_curl(basis, dofs: np.ndarray, points: np.ndarray,
                                  outside: str = "error") -> np.ndarray:
    """curl u_h(x) at points (N, 3) -> (N, 3) (piecewise constant, like N0's)."""
    return _evaluate(basis, dofs, points, outside, "curl")


def _evaluate(basis, dofs, points, outside: str, what: str) -> np.ndarray:
    if outside not in OUTSIDE_MODES:
        raise InputError(f"unknown outside={outside!r}; choose one of: {', '.join(OUTSIDE_MODES)}")
    if not isinstance(getattr(basis, "elem", None), ElementTetCompleteLinear):
        raise InputError("basis must be a skfem Basis with the complete-linear "
                         "ElementTetCompleteLinear")
    dofs = np.asarray(dofs, dtype=np.float64)
    if dofs.shape != (basis.N,):
        raise InputError(f"dofs must have shape ({basis.N},) for this basis, got {dofs.shape}")
    x = as_points(points)
    cells = containing_cells(basis.mesh, x, outside)
    # the bubble gradients (odd local DOFs) are curl-free: the curl sums the Whitney ones only
    functions = range(0, basis.Nbfun, 2) if what == "curl" else None
    return basis_values_at(basis, dofs, x, cells, what, functions)


__all__ = ["evaluate_complete_linear", "evaluate_complete_linear_curl"]
