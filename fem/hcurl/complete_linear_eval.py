"""Order-2 Nédélec fields: values and curls at points and at quadrature points, L² errors.

Conventions as for N0 (:mod:`surrogate.fem.hcurl.n0`): errors are ‖u − u_h‖_{L²(Ω_h)} and
‖curl u − curl u_h‖_{L²(Ω_h)} by a global rule (:func:`~surrogate.fem.quadrature.quadrature_rule`),
the relative error divides by ‖u‖_{L²(Ω_h)} under the same rule. Point evaluation reuses the
N0 point locator (KD-tree over centroids, barycentric test) and scikit-fem's basis.
"""

from __future__ import annotations

import numpy as np
from skfem import Basis

from surrogate.core.errors import InputError
from surrogate.fem.domains import as_points
from surrogate.fem.hcurl.complete_linear_element import ElementTetN2
from surrogate.fem.point_evaluation import OUTSIDE_MODES, point_locator
from surrogate.fem.quadrature import l2_norm, quadrature_rule

ERROR_INTORDER = 6  # degree of the error rule: its error is far below the O(h²) L² error
_CHUNK = 20_000  # elements per block at the quadrature points
_POINT_CHUNK = 65_536  # points per block in point evaluation


def fields_at_quadrature(solution, intorder: int = ERROR_INTORDER):
    """Yield (u_h, curl u_h) at the points of ``quadrature_rule(mesh, intorder)``, per block
    of elements, (m, 3) each; ``solution`` has ``mesh``, ``basis`` and ``dofs``."""
    mesh, dofs = solution.mesh, np.asarray(solution.dofs, dtype=float)
    n_tets = mesh.t.shape[1]
    for lo in range(0, n_tets, _CHUNK):
        elements = np.arange(lo, min(lo + _CHUNK, n_tets))
        basis = Basis(mesh, ElementTetN2(), intorder=intorder, elements=elements,
                      dofs=solution.basis.dofs, disable_doflocs=True)
        value = np.zeros((3, len(elements), len(basis.W)))
        curl_value = np.zeros_like(value)
        for i in range(basis.Nbfun):  # 12 local functions
            phi = basis.basis[i][0]
            coeff = dofs[basis.element_dofs[i]][None, :, None]
            value += coeff * np.asarray(phi)
            if i % 2 == 0:  # the bubble gradients are curl-free
                curl_value += coeff * phi.curl
        yield value.reshape(3, -1).T, curl_value.reshape(3, -1).T


def hcurl_errors2(solution, exact, exact_curl, *, intorder: int = ERROR_INTORDER
                  ) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h); a None callable gives NaN."""
    points, weights = quadrature_rule(solution.mesh, intorder)
    sums, start = np.zeros(2), 0
    for value, curl_value in fields_at_quadrature(solution, intorder):
        stop = start + len(value)
        x, w = points[start:stop], weights[start:stop]
        for k, (fn, approx) in enumerate(((exact, value), (exact_curl, curl_value))):
            if fn is not None:
                diff = np.asarray(fn(x)) - approx
                sums[k] += float(np.dot(w, np.einsum("ij,ij->i", diff, diff)))
        start = stop
    return (float(np.sqrt(sums[0])) if exact is not None else float("nan"),
            float(np.sqrt(sums[1])) if exact_curl is not None else float("nan"))


def field_l2_norm(mesh, fn, *, intorder: int = ERROR_INTORDER) -> float:
    """‖fn‖_{L²(Ω_h)} by the same rule as the errors (the denominator of relative errors)."""
    points, weights = quadrature_rule(mesh, intorder)
    return l2_norm(np.asarray(fn(points)), weights)


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
        raise InputError("basis must be a skfem Basis with the order-2 ElementTetN2")
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


__all__ = ["fields_at_quadrature", "hcurl_errors2", "field_l2_norm", "evaluate_n2",
           "evaluate_n2_curl"]
