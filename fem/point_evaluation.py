"""Locate points in a tetrahedral mesh and evaluate Nédélec (ElementTetN0) fields there.

Scales to millions of points: a KD-tree over tet centroids proposes the k nearest tets
(k = 8, then 64 for points not yet found), a vectorised barycentric test picks the containing
one, and a ball query of radius max|vertex − centroid| settles the rare rest exactly. Values
then come from scikit-fem's own basis (``mapping.invF`` + ``elem.gbasis``, as in
``CellBasis.probes``), in chunks so memory stays bounded (skfem's ``probes`` tests every point
against many candidate tets at once: ~10 GB for 10³ points on a 2·10⁵-tet mesh).
"""

from __future__ import annotations

import weakref

import numpy as np
from scipy.spatial import cKDTree
from skfem import ElementTetN0, MeshTet

from surrogate.core.errors import InputError
from surrogate.fem.domain_base import as_points

CHUNK = 65_536  # points per vectorised block
FIRST_K, SECOND_K = 8, 64  # nearest-centroid candidates per round
TOL = 1e-10  # barycentric slack: a point counts as inside if every λ_i ≥ −TOL
OUTSIDE_MODES = ("error", "nan", "extrapolate")


class PointLocator:
    """KD-tree over the centroids of ``mesh`` plus each tet's inverse affine map.

    ``locate(points)`` returns the containing tet (−1 outside) and, for every point, the
    candidate tet that it is least outside of (its largest min barycentric coordinate).
    """

    def __init__(self, mesh: MeshTet):
        if not isinstance(mesh, MeshTet):
            raise InputError(f"mesh must be a skfem.MeshTet, got {type(mesh).__name__}")
        p, t = mesh.p, mesh.t
        corners = p[:, t].transpose(2, 1, 0)  # (n_tets, 4, 3)
        self.origin = corners[:, 0]  # (n_tets, 3)
        edges = (corners[:, 1:] - corners[:, :1]).transpose(0, 2, 1)  # columns p_i − p_0
        try:
            self.inverse = np.linalg.inv(edges)  # (n_tets, 3, 3): λ_{1..3} = inv (x − p_0)
        except np.linalg.LinAlgError:
            raise InputError("mesh has a degenerate (zero-volume) tetrahedron") from None
        centroids = corners.mean(axis=1)
        # no tet holds a point (even with the barycentric slack) farther than this from its centroid
        self.reach = 1.001 * float(np.linalg.norm(corners - centroids[:, None], axis=2).max())
        self.tree = cKDTree(centroids)
        self.n_tets = t.shape[1]

    def _best_candidate(self, x: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For x (n, 3) and candidates (n, k): best tet (n,) and its min barycentric coord (n,)."""
        lam = np.einsum("nkij,nkj->nki", self.inverse[cand], x[:, None] - self.origin[cand])
        score = np.minimum(lam.min(axis=2), 1.0 - lam.sum(axis=2))  # min over all 4 λ
        best = score.argmax(axis=1)
        rows = np.arange(len(x))
        return cand[rows, best], score[rows, best]

    def _ball_fallback(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact search for the few points whose containing tet may lie beyond the k nearest."""
        lists = self.tree.query_ball_point(x, r=self.reach)
        counts = np.array([len(c) for c in lists])
        cells = np.full(len(x), -1, dtype=np.int64)
        score = np.full(len(x), -np.inf)
        if counts.sum() == 0:
            return cells, score
        owner = np.repeat(np.arange(len(x)), counts)
        cand = np.concatenate([np.asarray(c, dtype=np.int64) for c in lists])
        lam = np.einsum("mij,mj->mi", self.inverse[cand], x[owner] - self.origin[cand])
        s = np.minimum(lam.min(axis=1), 1.0 - lam.sum(axis=1))
        order = np.lexsort((-s, owner))  # per owner, the best score first
        first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
        cells[owner[first]], score[owner[first]] = cand[first], s[first]
        return cells, score

    def _locate_chunk(self, x: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
        _, cand = self.tree.query(x, k=min(FIRST_K, self.n_tets))
        cells, score = self._best_candidate(x, cand.reshape(len(x), -1))
        todo = np.flatnonzero(score < -tol)
        if todo.size and self.n_tets > FIRST_K:
            dist, cand = self.tree.query(x[todo], k=min(SECOND_K, self.n_tets))
            c2, s2 = self._best_candidate(x[todo], cand)
            better = s2 > score[todo]
            cells[todo[better]], score[todo[better]] = c2[better], s2[better]
            # a containing tet has its centroid within `reach`: beyond the k-th, none is missed
            unsure = todo[(score[todo] < -tol) & (dist[:, -1] <= self.reach)]
            if unsure.size and self.n_tets > SECOND_K:
                c3, s3 = self._ball_fallback(x[unsure])
                better = s3 > score[unsure]
                cells[unsure[better]], score[unsure[better]] = c3[better], s3[better]
        return cells.astype(np.int64), score

    def locate(self, points: np.ndarray, tol: float = TOL) -> tuple[np.ndarray, np.ndarray]:
        """Containing tet (N,) int64 (−1 outside) and closest candidate tet (N,) of points (N,3)."""
        x = as_points(points)
        inside = np.full(len(x), -1, dtype=np.int64)
        nearest = np.zeros(len(x), dtype=np.int64)
        for start in range(0, len(x), CHUNK):
            block = slice(start, start + CHUNK)
            cells, score = self._locate_chunk(x[block], tol)
            nearest[block] = cells
            inside[block] = np.where(score >= -tol, cells, -1)
        return inside, nearest


_cache: dict[str, object] = {"mesh": None, "locator": None}


def point_locator(mesh: MeshTet) -> PointLocator:
    """The PointLocator of ``mesh``, reused while the last mesh asked for is still alive."""
    ref = _cache["mesh"]
    if ref is not None and ref() is mesh:
        return _cache["locator"]
    locator = PointLocator(mesh)
    _cache["mesh"], _cache["locator"] = weakref.ref(mesh), locator
    return locator


def locate_points(mesh: MeshTet, points: np.ndarray, tol: float = TOL) -> np.ndarray:
    """Index (N,) int64 of the tet containing each point (N, 3); −1 for points outside the mesh.

    A point counts as inside a tet when all its barycentric coordinates are ≥ −tol.
    """
    return point_locator(mesh).locate(points, tol)[0]


def containing_cells(mesh: MeshTet, points: np.ndarray, outside: str = "error", *,
                     hint: bool = True) -> np.ndarray:
    """The tet (N,) holding each point (N, 3), by the one rule for points outside the mesh:
    ``outside`` "error" (InputError naming how many; ``hint``: and the other modes), "nan"
    (cell −1) or "extrapolate" (the nearest candidate tet)."""
    if outside not in OUTSIDE_MODES:
        raise InputError(f"unknown outside={outside!r}; choose one of: {', '.join(OUTSIDE_MODES)}")
    x = as_points(points)
    cells, nearest = point_locator(mesh).locate(x)
    missing = cells < 0
    if missing.any() and outside == "error":
        raise InputError(f"{int(missing.sum())} of {len(x)} points lie outside the mesh"
                         + ("; use outside='nan' or outside='extrapolate'" if hint else ""))
    return np.where(missing, nearest, cells) if outside == "extrapolate" else cells


def locate_with_outside(mesh: MeshTet, points: np.ndarray, outside: str = "error"
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(cells (N,), barycentric coordinates (N, 3) of each tet's vertices 1–3) of points
    (N, 3); ``outside`` as :func:`containing_cells` (cells −1 for "nan" points outside; for
    "extrapolate" the nearest candidate tet, coordinates outside [0, 1])."""
    x = as_points(points)
    cells = containing_cells(mesh, x, outside)
    locator = point_locator(mesh)
    bary = np.zeros((len(x), 3))
    rows = np.flatnonzero(cells >= 0)
    bary[rows] = np.einsum("nij,nj->ni", locator.inverse[cells[rows]],
                           x[rows] - locator.origin[cells[rows]])
    return cells, bary


def sample_in_mesh(domain, mesh: MeshTet, n: int, rng: np.random.Generator) -> np.ndarray:
    """n uniform points (n, 3) of ``domain`` that also lie in ``mesh``: ``domain.sample``,
    then the points outside the mesh drawn again, in vectorised rounds (at most 100)."""
    points = domain.sample(n, rng)
    for _ in range(100):
        outside = np.flatnonzero(locate_points(mesh, points) < 0)
        if outside.size == 0:
            return points
        points[outside] = domain.sample(outside.size, rng)
    raise InputError(f"could not sample {n} points inside the {domain.name} mesh")


def basis_values_at(basis, dofs: np.ndarray, x: np.ndarray, cells: np.ndarray, field: str,
                    functions: range | None = None) -> np.ndarray:
    """Σ_k dofs[element_dofs[k, T]] φ_k(x) (field "value") or its curl ("curl") at points x
    (N, 3) in tets ``cells`` (N,) (−1: a NaN row) of a skfem H(curl) ``basis``, by blocks of
    points; ``functions``: the local basis functions summed (default: all)."""
    out = np.full((len(x), 3), np.nan)
    rows = np.flatnonzero(cells >= 0)
    for start in range(0, len(rows), CHUNK):
        r = rows[start : start + CHUNK]
        tind = cells[r]
        ref = basis.mapping.invF(x[r].T[:, :, None], tind=tind)  # reference coords (3, n, 1)
        acc = np.zeros((3, len(r)))
        for k in range(basis.Nbfun) if functions is None else functions:
            phi = basis.elem.gbasis(basis.mapping, ref, k, tind=tind)[0]
            part = phi.curl if field == "curl" else np.asarray(phi)  # (3, n, 1)
            acc += part[:, :, 0] * dofs[basis.element_dofs[k, tind]]
        out[r] = acc.T
    return out


def _check_basis_dofs(basis, dofs: np.ndarray) -> np.ndarray:
    from surrogate.fem.hcurl.skfem.complete_linear.element import n0_only_error

    if hasattr(basis, "mesh") and (error := n0_only_error(basis, dofs, "N0 point evaluation")):
        raise error
    if not isinstance(getattr(basis, "elem", None), ElementTetN0):
        raise InputError("basis must be a skfem Basis on a MeshTet with ElementTetN0")
    arr = np.asarray(dofs, dtype=np.float64)
    if arr.shape != (basis.N,):
        raise InputError(f"dofs must have shape ({basis.N},) for this basis, got {arr.shape}")
    return arr


def _evaluate(basis, dofs: np.ndarray, points: np.ndarray, outside: str, field: str) -> np.ndarray:
    """u_h or curl u_h (field = "value" | "curl") at points (N, 3) -> (N, 3)."""
    if outside not in OUTSIDE_MODES:
        raise InputError(f"unknown outside={outside!r}; choose one of: {', '.join(OUTSIDE_MODES)}")
    dofs = _check_basis_dofs(basis, dofs)
    x = as_points(points)
    return basis_values_at(basis, dofs, x, containing_cells(basis.mesh, x, outside), field)


def evaluate_n0(basis, dofs: np.ndarray, points: np.ndarray, outside: str = "error") -> np.ndarray:
    """u_h(x) = Σ_k dofs[k] φ_k(x) at points (N, 3) -> (N, 3) for an ElementTetN0 basis.

    outside: "error" (InputError naming how many points lie outside the mesh), "nan" (NaN rows)
    or "extrapolate" (use the polynomial of the nearest candidate tet, e.g. for points between
    a curved boundary and its inscribed mesh).
    """
    return _evaluate(basis, dofs, points, outside, "value")


def evaluate_n0_curl(
    basis, dofs: np.ndarray, points: np.ndarray, outside: str = "error"
) -> np.ndarray:
    """curl u_h(x) at points (N, 3) -> (N, 3) (piecewise constant); ``outside`` as evaluate_n0."""
    return _evaluate(basis, dofs, points, outside, "curl")
