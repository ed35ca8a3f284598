"""A field of the skfem backend (N0 or complete linear) and how it was computed.

u_h = Σ dofs_i φ_i on ``mesh`` in the space of ``basis.elem``; ``order`` is the toolkit's
(0 = N0, 1 = complete linear; the table in :mod:`surrogate.fem.hcurl.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from skfem import Basis, MeshTet

from surrogate.fem.hcurl.solvers import SolveInfo

_CHUNK = 20_000  # elements per block at the quadrature points


@dataclass
class SkfemSolution:
    """u_h of the skfem backend. ``timings``: seconds per stage ("basis", "assembly",
    "solve"; their sum is mesh → u_h); ``method``: "best" | "solve"; ``solve_info``: the
    linear solver, its iterations and residual."""

    mesh: MeshTet = field(repr=False)
    basis: Basis = field(repr=False)
    dofs: np.ndarray = field(repr=False)
    method: str
    timings: dict[str, float] = field(default_factory=dict)
    solve_info: SolveInfo | None = None
    order: int = 0
    backend: str = "skfem"

    def values_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """u_h at arbitrary points (N, 3) -> (N, 3) (point location in the mesh)."""
        return _point_evaluator(self.order, "value")(self.basis, self.dofs, points,
                                                     outside=outside)

    def curl_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """curl u_h at arbitrary points (N, 3) -> (N, 3)."""
        return _point_evaluator(self.order, "curl")(self.basis, self.dofs, points,
                                                    outside=outside)

    def fields_at_quadrature(self, intorder: int):
        """Yield (u_h, curl u_h), (m, 3) each, at the points of ``quadrature_rule(mesh,
        intorder)`` in their order, per block of elements."""
        return fields_at_quadrature(self, intorder)

    def values_at_quadrature(self, intorder: int = 4) -> np.ndarray:
        """u_h (M, 3) at the points of ``quadrature_rule(mesh, intorder)``."""
        return np.concatenate([v for v, _ in fields_at_quadrature(self, intorder)])

    def curl_at_quadrature(self, intorder: int = 4) -> np.ndarray:
        """curl u_h (M, 3) at the points of ``quadrature_rule(mesh, intorder)``."""
        return np.concatenate([c for _, c in fields_at_quadrature(self, intorder)])

    @property
    def ndofs(self) -> int:
        """Number of H(curl) degrees of freedom."""
        return int(self.basis.N)


def fields_at_quadrature(solution, intorder: int):
    """Yield (u_h, curl u_h) at the quadrature points, (m, 3) each, blocks of elements.

    The blocks reuse the solution's DOF numbering, skip skfem's global DOF locations and
    combine the basis functions here (``Basis.interpolate`` runs np.unique over all DOFs),
    so each block costs O(block size), not O(mesh size). Any skfem H(curl) element.
    """
    mesh, dofs = solution.mesh, np.asarray(solution.dofs, dtype=float)
    element = type(solution.basis.elem)()
    n_tets = mesh.t.shape[1]
    for lo in range(0, n_tets, _CHUNK):
        elements = np.arange(lo, min(lo + _CHUNK, n_tets))
        basis = Basis(mesh, element, intorder=intorder, elements=elements,
                      dofs=solution.basis.dofs, disable_doflocs=True)
        value = np.zeros((3, len(elements), len(basis.W)))
        curl_value = np.zeros_like(value)
        for i in range(basis.Nbfun):
            phi = basis.basis[i][0]
            coeff = dofs[basis.element_dofs[i]][None, :, None]
            value += coeff * np.asarray(phi)
            curl_value += coeff * phi.curl
        yield value.reshape(3, -1).T, curl_value.reshape(3, -1).T


def _point_evaluator(order: int, what: str):
    """The point evaluation of the space of ``order``: N0's or the complete-linear one."""
    if order == 0:
        from surrogate.fem.point_evaluation import evaluate_n0, evaluate_n0_curl

        return evaluate_n0 if what == "value" else evaluate_n0_curl
    from surrogate.fem.hcurl.skfem.complete_linear import evaluate

    return (evaluate.evaluate_complete_linear if what == "value"
            else evaluate.evaluate_complete_linear_curl)


__all__ = ["SkfemSolution", "fields_at_quadrature"]
