"""Global quadrature rules on tetrahedral meshes and discrete L² norms built from them."""

from __future__ import annotations

import numpy as np
from skfem.quadrature import get_quadrature
from skfem.refdom import RefTet

from surrogate.core.errors import InputError


def quadrature_rule(mesh, intorder: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Points (M, 3) and weights (M,) of a degree-``intorder`` rule, M = n_tets · n_qp.

    Element-major, in the order of ``Basis(mesh, e, intorder=intorder).global_coordinates()``
    flattened per element; weights = reference weights · |det J| (so Σ w = volume).
    scikit-fem's rule and mapping, without building a Basis (twice as fast on large meshes).
    """
    if int(intorder) < 0:
        raise InputError(f"intorder must be >= 0, got {intorder}")
    X, W = get_quadrature(RefTet, int(intorder))
    mapping = mesh.mapping()
    x = mapping.F(X)  # (3, n_tets, n_qp)
    w = np.abs(mapping.detDF(X)) * W  # (n_tets, n_qp)
    return np.ascontiguousarray(x.reshape(3, -1).T), w.ravel()


def l2_norm(values: np.ndarray, weights: np.ndarray, mask: np.ndarray | None = None) -> float:
    """sqrt(Σ_k w_k |v_k|²) over the (masked) quadrature points; values (M, 3) or (M,)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if v.shape[0] != w.shape[0] or v.ndim not in (1, 2):
        raise InputError(f"values of shape {v.shape} do not match {w.shape[0]} weights")
    sq = v * v if v.ndim == 1 else np.einsum("ij,ij->i", v, v)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != w.shape:
            raise InputError(f"mask of shape {mask.shape} does not match {w.shape[0]} weights")
        sq, w = sq[mask], w[mask]
    return float(np.sqrt(np.dot(w, sq)))
