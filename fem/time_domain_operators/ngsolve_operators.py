"""High-order H(curl) matrices of a PEC cavity from NGSolve, on the toolkit's own mesh.

For a skfem ``MeshTet`` and an order k of the registry's ngsolve ``time_domain`` entries (0–6,
:data:`~surrogate.fem.hcurl.registry.TIME_DOMAIN_ORDERS`; 0 = N0, k ≥ 1 = Nédélec second
kind of degree k), the space is NGSolve's ``HCurl(order=k, dirichlet=wall)`` on the mesh
converted without re-meshing (:func:`~surrogate.fem.hcurl.ngsolve.mesh.ngsolve_mesh`). Out
come scipy CSR matrices restricted to the free DOFs (zero tangential trace on the walls):

    M_ij = ∫ φ_j · φ_i dx,   K_ij = ∫ curl φ_j · curl φ_i dx,

the dipole load b₀_i = ∫ J₀ · φ_i dx (J₀ the Gaussian of :func:`~surrogate.fem.time_domain.
gaussian_dipole`, integrated with ``load_intorder(order)``: degree 2k + LOAD_BONUS, enough to
resolve a Gaussian of width ≥ 0.1 on the cube's level-2+ cells to 1e-6), and the observation
matrix P (3·n_points, n_free) with (P @ e)[3 i + c] = E_h(x_i)_c. The stepper of
:mod:`surrogate.fem.time_domain` takes these as it takes the N0 ones (``mass``, ``curlcurl``,
``n_free``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from surrogate.core.errors import InputError
from surrogate.fem.hcurl.registry import BACKENDS
from surrogate.fem.time_domain import FreeDofs
from surrogate.fem.time_domain_operators.cavity import CavitySystem

LOAD_BONUS = 14  # extra quadrature degree for the Gaussian load (its test checks 1e-6)


def load_intorder(order: int) -> int:
    """Quadrature degree of b₀ = ∫ J₀·φ_i: 2·order + LOAD_BONUS."""
    return 2 * int(order) + LOAD_BONUS


@dataclass(frozen=True)
class HCurlCavityOperators(FreeDofs):
    """NGSolve H(curl) matrices of order ``order`` restricted to the ``free`` DOFs.

    ``mass`` M and ``curlcurl`` K (μ = 1) are (n_free, n_free) CSR; ``free`` indexes the
    ``space``'s DOFs (``space.ndof`` of them); wall DOFs are zero.
    """

    mesh: Any = field(repr=False)
    order: int
    space: Any = field(repr=False)
    mass: sp.csr_matrix = field(repr=False)
    curlcurl: sp.csr_matrix = field(repr=False)
    free: np.ndarray = field(repr=False)

    @property
    def ndof(self) -> int:
        """All DOFs of the space (``space.ndof``)."""
        return int(self.space.ndof)

    def cell_centre_matrix(self) -> sp.csr_matrix:
        """(3·n_cells, n_free): E_h at every tet's barycentre."""
        n_cells = self.mesh.t.shape[1]
        return hcurl_evaluation_matrix(self, np.arange(n_cells), np.full((n_cells, 3), 0.25))

    def node_matrix(self) -> sp.csr_matrix:
        """(3·n_nodes, n_free): the volume-weighted average over the tets at each node of
        their E_h there (as skfem's N0 :func:`~surrogate.fem.probes.n0_node_matrix`)."""
        from surrogate.fem.tet_geometry import vector_node_average

        n_cells = self.mesh.t.shape[1]
        corners = np.vstack([np.zeros((1, 3)), np.eye(3)])  # vertices 0–3 in vertices 1–3
        at_vertices = hcurl_evaluation_matrix(self, np.repeat(np.arange(n_cells), 4),
                                              np.tile(corners, (n_cells, 1)))
        return vector_node_average(self.mesh, at_vertices)


def hcurl_cavity_operators(mesh: Any, order: int) -> HCurlCavityOperators:
    """M and K of NGSolve's HCurl(order) on ``mesh`` (skfem MeshTet), free DOFs only."""
    import ngsolve

    from surrogate.fem.hcurl.ngsolve.mesh import BOUNDARY, ngsolve_mesh
    from surrogate.fem.mesh_quality import check_mesh

    offered = tuple(sorted(BACKENDS["ngsolve"].time_domain))
    if isinstance(order, bool) or order not in offered:
        raise InputError(f"H(curl) time-domain operators have orders {offered}, got {order!r}")
    check_mesh(mesh)
    ngmesh = ngsolve_mesh(mesh.p.T, mesh.t.T)
    space = ngsolve.HCurl(ngmesh, order=int(order), dirichlet=BOUNDARY)
    free = np.flatnonzero(np.asarray(list(space.FreeDofs()), dtype=bool))
    if free.size == 0:
        raise InputError("the mesh has no free H(curl) DOFs: refine it (a higher level)")
    u, v = space.TnT()
    mass = _scipy(ngsolve.BilinearForm(u * v * ngsolve.dx).Assemble().mat, free)
    curlcurl = _scipy(ngsolve.BilinearForm(ngsolve.curl(u) * ngsolve.curl(v) * ngsolve.dx)
                      .Assemble().mat, free)
    return HCurlCavityOperators(mesh, int(order), space, mass, curlcurl, free)


def hcurl_cavity_system(mesh: Any, centre, width: float, points: np.ndarray, *,
                        order: int) -> CavitySystem:
    """NGSolve's system of ``order`` (the registry's ``time_domain`` entry): M, K, the dipole
    load and the probe matrix."""
    ops = hcurl_cavity_operators(mesh, order)
    return CavitySystem("ngsolve", int(order), ops, hcurl_dipole_load(ops, centre, width),
                        hcurl_observation_matrix(ops, points))


def hcurl_dipole_load(ops: HCurlCavityOperators, centre, width: float,
                      direction=(0.0, 0.0, 1.0)) -> np.ndarray:
    """b₀_i = ∫ J₀ · φ_i dx on the free DOFs, (n_free,), J₀ the unit-moment Gaussian dipole."""
    import ngsolve

    centre = np.asarray(centre, dtype=np.float64)
    if centre.shape != (3,) or not np.all(np.isfinite(centre)):
        raise InputError(f"dipole centre must be 3 finite numbers, got {centre.tolist()}")
    if not (np.isfinite(width) and width > 0):
        raise InputError(f"dipole width must be a finite number > 0, got {width!r}")
    r2 = sum((xi - float(c)) ** 2
             for xi, c in zip((ngsolve.x, ngsolve.y, ngsolve.z), centre, strict=True))
    density = ngsolve.exp(-0.5 * r2 / width**2) / (2.0 * np.pi * width**2) ** 1.5
    j0 = density * ngsolve.CF(tuple(float(d) for d in direction))
    v = ops.space.TestFunction()
    rhs = ngsolve.LinearForm(j0 * v * ngsolve.dx(intrules=_tet_rule(load_intorder(ops.order))))
    return rhs.Assemble().vec.FV().NumPy()[ops.free].copy()


def hcurl_observation_matrix(ops: HCurlCavityOperators, points: np.ndarray) -> sp.csr_matrix:
    """P (3·n_points, n_free) with (P @ e)[3 i + c] = E_h(points[i])_c (InputError outside)."""
    from surrogate.fem.point_evaluation import locate_with_outside

    cells, bary = locate_with_outside(ops.mesh, points, outside="error")
    return hcurl_evaluation_matrix(ops, cells, bary)


def hcurl_evaluation_matrix(ops: HCurlCavityOperators, cells: np.ndarray, bary: np.ndarray
                            ) -> sp.csr_matrix:
    """(3·N, n_free): E_h in tet ``cells[i]`` at barycentric ``bary[i]`` (of its vertices
    1–3), component c in row 3 i + c.

    Built column by column from the unit fields of the DOFs of those tets (one vectorised
    evaluation at all points per DOF; at most N · local DOFs of them).
    """
    import ngsolve

    from surrogate.fem.hcurl.ngsolve.mesh import mesh_points

    cells = np.asarray(cells, dtype=np.int64)
    mips = mesh_points(ops.space.mesh, cells, np.asarray(bary, dtype=np.float64))
    dofs = np.unique(np.concatenate([
        np.asarray(ops.space.GetDofNrs(ngsolve.ElementId(ngsolve.VOL, int(e))), np.int64)
        for e in np.unique(cells)]))
    position = np.full(ops.space.ndof, -1, dtype=np.int64)
    position[ops.free] = np.arange(ops.n_free)
    dofs = dofs[(dofs >= 0) & (position[np.maximum(dofs, 0)] >= 0)]
    gf = ngsolve.GridFunction(ops.space)
    vector = gf.vec.FV().NumPy()
    columns = np.empty((len(dofs), 3 * len(cells)))
    for j, dof in enumerate(dofs):  # one unit field per DOF touching a point
        vector[dof] = 1.0
        columns[j] = np.asarray(gf(mips)).ravel()
        vector[dof] = 0.0
    rows, index = np.nonzero(columns.T)
    return sp.csr_matrix((columns.T[rows, index], (rows, position[dofs][index])),
                         shape=(3 * len(cells), ops.n_free))


def _tet_rule(degree: int) -> dict:
    """``intrules`` for ``dx``: NGSolve's tet rule of ``degree``."""
    import ngsolve

    return {ngsolve.TET: ngsolve.IntegrationRule(ngsolve.TET, degree)}


def _scipy(matrix: Any, free: np.ndarray) -> sp.csr_matrix:
    """NGSolve sparse matrix -> scipy CSR restricted to rows and columns ``free``."""
    rows, cols, values = matrix.COO()
    n = matrix.height
    full = sp.csr_matrix((np.asarray(values), (np.asarray(rows), np.asarray(cols))), shape=(n, n))
    return sp.csr_matrix(full[free][:, free])


__all__ = ["LOAD_BONUS", "HCurlCavityOperators", "hcurl_cavity_operators",
           "hcurl_cavity_system", "hcurl_dipole_load", "hcurl_observation_matrix",
           "hcurl_evaluation_matrix", "load_intorder"]
