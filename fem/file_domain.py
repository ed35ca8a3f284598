"""A tetrahedral mesh file as a Domain: sampling, contains, levels, boundary, material regions.

Level 1 is the file's (validated, positively oriented) mesh; level L is L − 1 uniform
refinements of it (scikit-fem's ``MeshTet.refined``: 8 children per tet, nodes never move, so
every level covers exactly the same polyhedron and ``volume`` is exact). Samples are uniform
in volume: a tet T with probability |T| / |Ω|, then barycentric coordinates λ uniform on the
simplex (the gaps of three sorted uniforms), x = Σ λ_i x_i. ``contains`` uses the point
locator of ``fem/point_evaluation.py`` on the level-1 mesh. Cell tags (Gmsh physical groups,
Medit refs, ...) are kept as material regions per tet: children inherit their parent's tag.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np
from skfem import MeshTet

from surrogate.fem.domain_base import Domain, as_points
from surrogate.fem.mesh_files import mesh_format, read_mesh_file
from surrogate.fem.mesh_validation import validated_mesh
from surrogate.fem.meshes import check_level
from surrogate.fem.point_evaluation import TOL, PointLocator
from surrogate.fem.tet_geometry import tet_signed_volumes, tet_volumes

_EDGES = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


class FileDomain(Domain):
    """The polyhedron meshed in a file; ``name`` is the path as given (it round-trips)."""

    def __init__(self, name: str, mesh: MeshTet, tags: np.ndarray | None = None,
                 note: str | None = None):
        self.name, self.note = str(name), note
        self.tags = None if tags is None else np.asarray(tags, dtype=np.int64)
        self._levels: dict[int, tuple[MeshTet, np.ndarray | None]] = {1: (mesh, self.tags)}
        volumes = tet_volumes(mesh)
        self.volume = float(volumes.sum())
        self._cdf = np.cumsum(volumes) / self.volume
        self.bounds = np.stack([mesh.p.min(axis=1), mesh.p.max(axis=1)], axis=1)
        edges = [np.linalg.norm(mesh.p[:, mesh.t[i]] - mesh.p[:, mesh.t[j]], axis=0)
                 for i, j in _EDGES]
        self._coarse_size = float(np.mean(edges))  # h at level 1: the mean edge length
        # smallest tet height: a barycentric slack of tol / height grows a tet by >= tol
        self._min_height = float(3.0 * volumes.min() / _largest_face_area(mesh).max())
        self._locator = PointLocator(mesh)

    @property
    def stem(self) -> str:
        """The file name without folders and suffix (VTK file names)."""
        return Path(self.name).stem or "mesh"

    @property
    def boundary_faces(self) -> np.ndarray:
        """Boundary faces (3, k) of the level-1 mesh as node triples (tangential condition)."""
        mesh = self._levels[1][0]
        return mesh.facets[:, mesh.boundary_facets()]

    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        """Boolean (N,): points (N, 3) inside a tet of the file's mesh (grown by ~tol)."""
        x = as_points(points)
        slack = max(TOL, float(tol) / self._min_height)
        return self._locator.locate(x, tol=slack)[0] >= 0

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        mesh = self._levels[1][0]
        cells = np.minimum(np.searchsorted(self._cdf, rng.random(n), side="right"),
                           len(self._cdf) - 1)
        cuts = np.sort(rng.random((n, 3)), axis=1)
        lam = np.diff(np.column_stack([np.zeros(n), cuts, np.ones(n)]), axis=1)  # (n, 4)
        corners = mesh.p[:, mesh.t[:, cells]]  # (3, 4, n)
        return np.einsum("ikn,nk->ni", corners, lam)

    def _mesh(self, level: int) -> MeshTet:
        return self._level(level)[0]

    def _level(self, level: int) -> tuple[MeshTet, np.ndarray | None]:
        """Mesh and tags at ``level``: refined from the closest cached level below it."""
        if level not in self._levels:
            start = max(k for k in self._levels if k < level)
            mesh, tags = self._levels[start]
            for _ in range(level - start):
                mesh, tags = refine_with_tags(mesh, tags)
            self._levels = {1: self._levels[1], level: (mesh, tags)}  # the file's, the latest
        return self._levels[level]

    def regions(self, level: int = 1) -> np.ndarray | None:
        """Material tag (n_tets,) of every tet of ``mesh(level)``; None without tags."""
        return self._level(check_level(level))[1]


def refine_with_tags(mesh: MeshTet, tags: np.ndarray | None) -> tuple[MeshTet, np.ndarray | None]:
    """One uniform refinement (8 children per tet), positively oriented; children keep tags."""
    if tags is not None:  # skfem carries subdomains through its refinement
        values = np.unique(tags)
        mesh = replace(mesh, _subdomains={str(k): np.flatnonzero(tags == v)
                                          for k, v in enumerate(values)})
    fine = mesh.refined()
    t = fine.t.copy()
    flip = tet_signed_volumes(fine.p, t) < 0
    t[2, flip], t[3, flip] = t[3, flip], t[2, flip].copy()
    fine_tags = None
    if tags is not None:
        fine_tags = np.empty(t.shape[1], dtype=np.int64)
        for k, v in enumerate(values):
            fine_tags[fine.subdomains[str(k)]] = v
    return replace(fine, t=t, _subdomains=None), fine_tags


def _largest_face_area(mesh: MeshTet) -> np.ndarray:
    """Area of the largest face of every tet, (n_tets,)."""
    p, t = mesh.p, mesh.t
    areas = [0.5 * np.linalg.norm(np.cross(p[:, t[b]] - p[:, t[a]], p[:, t[c]] - p[:, t[a]],
                                           axis=0), axis=0)
             for a, b, c in ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))]
    return np.max(areas, axis=0)


_CACHE: dict[tuple, FileDomain] = {}
CACHE_SIZE = 4


def load_file_domain(value: str) -> FileDomain:
    """The FileDomain of the mesh file ``value``: read, validated, cached by its content."""
    mesh_format(value)  # an unknown suffix fails before touching the disk
    try:
        digest = hashlib.blake2b(Path(value).read_bytes(), digest_size=16).hexdigest()
        key = (str(value), digest)
    except OSError:
        key = None  # read_mesh_file names the problem
    if key is not None and key in _CACHE:
        return _CACHE[key]
    data = read_mesh_file(value)
    mesh = validated_mesh(str(value), data.points, data.tets)
    domain = FileDomain(str(value), mesh, data.tags, data.note())
    if key is not None:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = domain
    return domain


__all__ = ["FileDomain", "load_file_domain"]
