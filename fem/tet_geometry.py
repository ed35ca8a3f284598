"""Geometry of tetrahedral meshes: tet volumes, the volume-weighted average at the nodes, and
Gauss points along edges."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph  # noqa: F401  (sp.csgraph)

_GAUSS_EDGE = np.polynomial.legendre.leggauss(5)  # exact for degree ≤ 9 along an edge


def tet_signed_volumes(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Signed volumes (n_tets,) of tets ``t`` (4, n_tets) with nodes ``p`` (3, n_nodes).

    vol_T = (x₁ − x₀) · ((x₂ − x₀) × (x₃ − x₀)) / 6, positive for a positively oriented tet.
    """
    a = p[:, t[1]] - p[:, t[0]]
    b = p[:, t[2]] - p[:, t[0]]
    c = p[:, t[3]] - p[:, t[0]]
    return np.einsum("ij,ij->j", a, np.cross(b, c, axis=0)) / 6.0


def tet_volumes(mesh) -> np.ndarray:
    """Volume |T| of every tet of a skfem MeshTet, (n_cells,)."""
    return np.abs(tet_signed_volumes(mesh.p, mesh.t))


def node_average_matrix(mesh) -> sp.csr_matrix:
    """A (n_nodes, 4·n_cells): u(node i) = Σ_{T∋i} |T| u_T(x_i) / Σ_{T∋i} |T| as ``A @ corners``.

    ``corners`` (4·n_cells, ...) holds the value of each tet's own field at its vertices, row
    4 T + j at vertex ``mesh.t[j, T]``. A node that no tet touches gets 0.
    """
    n_nodes = mesh.p.shape[1]
    nodes = mesh.t.T.ravel()  # corner 4 T + j is vertex j of tet T
    weights = np.repeat(tet_volumes(mesh), 4)
    weights = weights / np.bincount(nodes, weights=weights, minlength=n_nodes)[nodes]
    return sp.csr_matrix((weights, (nodes, np.arange(nodes.size))), shape=(n_nodes, nodes.size))


def vector_node_average(mesh, at_vertices: sp.spmatrix) -> sp.csr_matrix:
    """(3·n_nodes, n): :func:`node_average_matrix` applied to each component of a vector field
    whose per-tet vertex values are ``at_vertices`` (3·4·n_cells, n), row 3 (4 T + j) + c."""
    return sp.csr_matrix(sp.kron(node_average_matrix(mesh), sp.eye(3), format="csr")
                         @ at_vertices)




def edge_gauss_points(mesh, edges: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(s (G,), w (G,), t (E, 3), points (G·E, 3)): the 5-point Gauss–Legendre rule on [0, 1]
    along each edge a → b of ``mesh.edges`` (all, or the indices ``edges``), t = b − a and the
    points a + s t, node-major."""
    idx = np.arange(mesh.edges.shape[1]) if edges is None else np.asarray(edges, dtype=np.int64)
    a, b = mesh.p[:, mesh.edges[0, idx]].T, mesh.p[:, mesh.edges[1, idx]].T  # (E, 3)
    s, w = _GAUSS_EDGE
    s, w = 0.5 * (s + 1.0), 0.5 * w  # Gauss–Legendre on [0, 1]
    t = b - a
    return s, w, t, (a[None] + s[:, None, None] * t[None]).reshape(-1, 3)


_FACES = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])


def boundary_faces(tets: np.ndarray) -> np.ndarray:
    """Triangles (k, 3) that belong to exactly one tet of ``tets`` (m, 4)."""
    faces = tets[:, _FACES].reshape(-1, 3)
    key = np.sort(faces, axis=1)
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    return faces[first[counts == 1]]


def cavity_vertices(tets: np.ndarray) -> list[np.ndarray]:
    """Vertex indices of each connected piece of the boundary of ``tets`` (m, 4) but the
    largest (the outer wall): one array per void of the domain, none for a simply bounded one.
    Pieces are joined through shared vertices (a vertex-touching pinch counts as one piece)."""
    faces = boundary_faces(np.asarray(tets))
    rows = np.repeat(np.arange(len(faces)), 3)
    incidence = sp.coo_matrix((np.ones(rows.size), (rows, faces.ravel())),
                           shape=(len(faces), int(faces.max(initial=-1)) + 1)).tocsr()
    count, label = sp.csgraph.connected_components(incidence @ incidence.T, directed=False)
    outer = int(np.argmax(np.bincount(label, minlength=count)))
    return [np.unique(faces[label == piece]) for piece in range(count) if piece != outer]


__all__ = ["tet_signed_volumes", "tet_volumes", "node_average_matrix", "vector_node_average",
           "edge_gauss_points",
           "boundary_faces", "cavity_vertices"]
