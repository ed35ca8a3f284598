"""Varistor conduction confined to a region of the cavity: N and N' on the region's DOFs only.

The medium of eq. (1) of :mod:`.nonlinear_conduction` with σ(|E|) = σ₀ (1 + (|E|/E₀)²) inside
a region Ω_v (a union of mesh cells: a varistor block in the cavity) and σ = 0 outside:

    N(e)_i = ∫_{Ω_v} σ(|E_h|) E_h · φ_i dx,                                                (3v)
    N'(e)_ij = ∫_{Ω_v} σ₀ [(1 + |E_h|²/E₀²) φ_j · φ_i + 2/E₀² (E_h · φ_j)(E_h · φ_i)] dx,   (4v)

non-zero only on the m DOFs whose basis functions touch Ω_v (``dofs``; N = P N_v(Pᵀ e),
N' = P J Pᵀ with P the (n_free, m) injection). So the Newton matrix of the stepper is the
constant linear Newmark matrix plus a rank-m update, which
:mod:`surrogate.fem.nonlinear_schur_newmark` solves in m dimensions.

Both integrals use one tabulation: the basis functions of the region's cells at one tet rule
of degree ``intorder`` (default 4p, p = max(order, 1): exact, the integrand of (3v) has degree
4p on affine tets) — values B_c (nq, 3, L) per cell c with its L local DOFs, from the space's
own point evaluation (NGSolve's :func:`~.ngsolve_operators.hcurl_evaluation_matrix`, skfem's
:func:`~surrogate.fem.probes.n0_evaluation_matrix`: covariant Piola included), weights
w_q |det F_c|. Then E_q = B_c u_c, N_v = Σ_c B_cᵀ (w σ E), N'_v = Σ_c B_cᵀ D_c B_c with
D_q = w_q σ₀ ((1 + |E_q|²/E₀²) I + 2/E₀² E_q E_qᵀ): N' is the exact derivative of the discrete
N, and for a region of every cell N equals :mod:`.nonlinear_conduction`'s form to round-off.
Rules: NGSolve's tet rule of degree d where NGSolve is installed (46 points at d = 8, 343 at
d = 12), else the conical (collapsed Gauss–Jacobi) product with ⌈(d + 1)/2⌉³ points; both
exact to degree d (skfem's own rules above degree 4 are not: 1.5 % off at degree 8).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import roots_jacobi

from surrogate.core.errors import InputError
from surrogate.fem.time_domain_operators.nonlinear_conduction import VaristorConductivity


def box_cells(mesh: Any, low, high) -> np.ndarray:
    """Indices of the tets of ``mesh`` whose barycentre lies in the box [low, high] (3 each)."""
    low, high = (np.asarray(x, dtype=np.float64) for x in (low, high))
    if low.shape != (3,) or high.shape != (3,) or not np.all(np.isfinite([low, high])) \
            or np.any(low >= high):
        raise InputError(f"region box low={low.tolist()} high={high.tolist()}: expected 3 "
                         "finite numbers each, low < high")
    centres = mesh.p[:, mesh.t].mean(axis=1)
    return np.flatnonzero(np.all((centres >= low[:, None]) & (centres <= high[:, None]), axis=0))


def tet_rule(degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Points (nq, 3) on the reference tet (0,0,0),(1,0,0),(0,1,0),(0,0,1) and weights (nq,)
    summing to 1/6, exact for polynomials of ``degree``."""
    try:
        import ngsolve
    except ImportError:  # pragma: no cover - NGSolve is a dependency of the recipes
        return conical_tet_rule(degree)
    rule = ngsolve.IntegrationRule(ngsolve.TET, int(degree))  # the same point set
    return (np.array([p for p in rule.points], dtype=np.float64),
            np.array(list(rule.weights), dtype=np.float64))


def conical_tet_rule(degree: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tet_rule` as the collapsed Gauss–Jacobi product (no NGSolve needed)."""
    n = (int(degree) + 2) // 2  # Gauss–Jacobi with n points: exact to degree 2n − 1
    (a, wa), (b, wb), (c, wc) = (roots_jacobi(n, alpha, 0.0) for alpha in (2.0, 1.0, 0.0))
    a, b, c = ((x + 1.0) / 2.0 for x in (a, b, c))  # on [0, 1]
    wa, wb, wc = wa / 8.0, wb / 4.0, wc / 2.0  # weights of (1−a)², (1−b) on [0, 1]
    A, B, C = np.meshgrid(a, b, c, indexing="ij")
    z = A  # collapse: z = a, y = (1 − a) b, x = (1 − a)(1 − b) c
    y = (1.0 - A) * B
    x = (1.0 - A) * (1.0 - B) * C
    weights = (wa[:, None, None] * wb[None, :, None] * wc[None, None, :]).ravel()
    return np.column_stack([x.ravel(), y.ravel(), z.ravel()]), weights


class RegionConduction:
    """Eqs. (3v)–(4v) on the tets ``cells`` of cavity operators ``ops`` (NGSolve H(curl) of any
    order or skfem N0); ``dofs`` (m,) are the free DOFs the region touches."""

    def __init__(self, ops: Any, law: VaristorConductivity, cells, intorder: int | None = None):
        if not isinstance(law, VaristorConductivity):
            raise InputError(f"expected a VaristorConductivity, got {type(law).__name__}")
        cells = np.unique(np.asarray(cells, dtype=np.int64))
        n_cells = ops.mesh.t.shape[1]
        if cells.size == 0 or cells[0] < 0 or cells[-1] >= n_cells:
            raise InputError(f"region cells must be a non-empty set of tets in [0, {n_cells})")
        if intorder is not None and (isinstance(intorder, bool) or not isinstance(intorder, int)
                                     or intorder < 1):
            raise InputError(f"quadrature degree intorder={intorder!r}: expected an integer >= 1")
        self.ops, self.law, self.cells = ops, law, cells
        order = int(getattr(ops, "order", 0))
        self.intorder = 4 * max(order, 1) if intorder is None else int(intorder)
        ref_points, ref_weights = tet_rule(self.intorder)
        nq = len(ref_weights)
        corners = ops.mesh.p[:, ops.mesh.t[:, cells]]  # (3, 4, n_cells)
        edges = corners[:, 1:] - corners[:, :1]  # (3, 3, n_cells)
        jacobian = np.abs(np.linalg.det(np.moveaxis(edges, -1, 0)))  # 6 · volume
        self.weights = jacobian[:, None] * ref_weights[None, :]  # (n_cells, nq)
        values = _evaluation(ops, np.repeat(cells, nq), np.tile(ref_points, (cells.size, 1)))
        self.dofs, self.local, self.basis = _cell_tables(values, cells.size, nq)
        self._flat = self.basis.reshape(cells.size, 3 * nq, -1)  # (n_cells, 3 nq, L)
        size = self.m + 1
        self._pair_index = (self.local[:, :, None] * size + self.local[:, None, :]).ravel()

    def with_law(self, law: VaristorConductivity) -> RegionConduction:
        """The same region and tabulation with another σ(|E|) (no re-tabulation)."""
        if not isinstance(law, VaristorConductivity):
            raise InputError(f"expected a VaristorConductivity, got {type(law).__name__}")
        other = copy.copy(self)
        other.law = law
        return other

    @property
    def m(self) -> int:
        """Number of region DOFs."""
        return int(self.dofs.size)

    def injection(self) -> sp.csr_matrix:
        """P (n_free, m): the region DOFs among the free ones."""
        return sp.csr_matrix((np.ones(self.m), (self.dofs, np.arange(self.m))),
                             shape=(self.ops.n_free, self.m))

    def region_apply(self, u: np.ndarray) -> np.ndarray:
        """N_v(u) (m,) of the region DOF values u = Pᵀ e (eq. 3v)."""
        field = self._field(u)  # (n_cells, nq, 3)
        sigma = self.law(np.sqrt(np.einsum("cqk,cqk->cq", field, field)))
        flux = (self.weights * sigma)[..., None] * field
        contributions = np.matmul(flux.reshape(len(flux), 1, -1), self._flat)[:, 0]
        return np.bincount(self.local.ravel(), contributions.ravel(), minlength=self.m + 1)[:-1]

    def region_jacobian(self, u: np.ndarray) -> np.ndarray:
        """N'_v(u) (m, m) dense symmetric (eq. 4v)."""
        field, law = self._field(u), self.law
        scale = self.weights * law.sigma0  # (n_cells, nq)
        isotropic = scale * (1.0 + law.inverse_e0_squared * np.einsum("cqk,cqk->cq", field,
                                                                      field))
        weighted = (isotropic[..., None, None] * self.basis).reshape(self._flat.shape)
        blocks = np.matmul(self._flat.transpose(0, 2, 1), weighted)  # (n_cells, L, L)
        if law.inverse_e0_squared:
            projection = np.matmul(field[:, :, None, :], self.basis)[:, :, 0]  # E_q · φ_l
            blocks += np.matmul(projection.transpose(0, 2, 1),
                                (2.0 * law.inverse_e0_squared * scale)[..., None] * projection)
        size = self.m + 1
        flat = np.bincount(self._pair_index, blocks.ravel(), minlength=size * size)
        return flat.reshape(size, size)[:-1, :-1]

    def apply(self, e: np.ndarray) -> np.ndarray:
        """N(e) (n_free,) of eq. (3v): zero off the region DOFs."""
        out = np.zeros(self.ops.n_free)
        out[self.dofs] = self.region_apply(self._restrict(e))
        return out

    def jacobian(self, e: np.ndarray) -> sp.csr_matrix:
        """N'(e) (n_free, n_free) CSR of eq. (4v) (symmetric, supported on the region DOFs)."""
        block = sp.coo_matrix(self.region_jacobian(self._restrict(e)))
        return sp.csr_matrix((block.data, (self.dofs[block.row], self.dofs[block.col])),
                             shape=(self.ops.n_free, self.ops.n_free))

    def _restrict(self, e: np.ndarray) -> np.ndarray:
        e = np.asarray(e, dtype=np.float64)
        if e.shape != (self.ops.n_free,):
            raise InputError(f"a field of shape ({self.ops.n_free},) expected, got {e.shape}")
        return e[self.dofs]

    def _field(self, u: np.ndarray) -> np.ndarray:
        """E_h at the quadrature points, (n_cells, nq, 3)."""
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (self.m,):
            raise InputError(f"region values of shape ({self.m},) expected, got {u.shape}")
        local = np.append(u, 0.0)[self.local]  # (n_cells, L)
        return np.matmul(self._flat, local[..., None]).reshape(self.basis.shape[:3])


def _evaluation(ops: Any, cells: np.ndarray, bary: np.ndarray) -> sp.csr_matrix:
    """(3·N, n_free): the space's fields at the points of barycentric ``bary`` (of vertices
    1–3) in ``cells``."""
    if hasattr(ops, "space") and hasattr(ops, "order"):
        from surrogate.fem.time_domain_operators.ngsolve_operators import hcurl_evaluation_matrix

        return hcurl_evaluation_matrix(ops, cells, bary)
    if hasattr(ops, "basis"):
        from surrogate.fem.probes import n0_evaluation_matrix

        corners = ops.mesh.p[:, ops.mesh.t[:, cells]]  # (3, 4, N)
        points = corners[:, 0] + np.einsum("kjn,nj->kn", corners[:, 1:] - corners[:, :1], bary)
        return n0_evaluation_matrix(ops.basis, points.T, cells)[:, ops.free].tocsr()
    raise InputError(f"no region conduction for operators of type {type(ops).__name__} "
                     "(NGSolve HCurl or skfem N0 cavity operators expected)")


def _cell_tables(values: sp.csr_matrix, n_cells: int, nq: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From the (3·n_cells·nq, n_free) tabulation: the region DOFs (m,), each cell's local
    DOFs in region numbering (n_cells, L; m pads) and values (n_cells, nq, 3, L)."""
    coo = values.tocoo()
    dofs, region_col = np.unique(coo.col, return_inverse=True)
    m = dofs.size
    point, component = np.divmod(coo.row, 3)
    cell, q = np.divmod(point, nq)
    pairs, pair_of = np.unique(cell * m + region_col, return_inverse=True)
    pair_cell = pairs // m
    starts = np.searchsorted(pair_cell, np.arange(n_cells))
    slot = np.arange(pairs.size) - starts[pair_cell]
    n_local = int(slot.max()) + 1
    local = np.full((n_cells, n_local), m, dtype=np.int64)
    local[pair_cell, slot] = pairs % m
    basis = np.zeros((n_cells, nq, 3, n_local))
    basis[cell, q, component, slot[pair_of]] = coo.data
    return dofs, local, basis


__all__ = ["RegionConduction", "box_cells", "tet_rule", "conical_tet_rule"]
