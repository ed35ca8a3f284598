"""Discrete gradient and nodal interpolation from P1 to skfem's N0 (ElementTetN0) DOFs.

skfem numbers N0 DOFs by ``mesh.edges`` (columns sorted, a < b), oriented from the lower to the
higher node index, with DOF = ∫_e u·t ds (Whitney scaling): verified in
tests/fem/hcurl/test_solvers.py.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def discrete_gradient(mesh) -> sp.csr_matrix:
    """G (n_edges, n_nodes): (G p)_e = p(b) − p(a), the N0 interpolant of ∇p for P1 p."""
    e = mesh.edges
    ne, nn = e.shape[1], mesh.p.shape[1]
    rows = np.concatenate([np.arange(ne), np.arange(ne)])
    vals = np.concatenate([-np.ones(ne), np.ones(ne)])
    return sp.csr_matrix((vals, (rows, np.concatenate([e[0], e[1]]))), shape=(ne, nn))


def nodal_interpolation(mesh) -> sp.csr_matrix:
    """Π (n_edges, 3 n_nodes): (Π v)_e = ∫_e v·t ds for vector P1 v, node-major (x,y,z per node)."""
    e = mesh.edges
    ne, nn = e.shape[1], mesh.p.shape[1]
    t = mesh.p[:, e[1]] - mesh.p[:, e[0]]  # (3, ne)
    rows = np.tile(np.arange(ne), 6)
    cols = np.concatenate([3 * np.concatenate([e[0], e[1]]) + c for c in range(3)])
    vals = np.concatenate([0.5 * np.concatenate([t[c], t[c]]) for c in range(3)])
    return sp.csr_matrix((vals, (rows, cols)), shape=(ne, 3 * nn))
