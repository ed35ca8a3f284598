"""Tet volumes and the volume-weighted node average (fem/tet_geometry.py)."""

import numpy as np
import pytest
from skfem import MeshTet

from surrogate.fem.domains import get_domain
from surrogate.fem.tet_geometry import node_average_matrix, tet_signed_volumes, tet_volumes


def test_tet_volumes_sum_to_the_cube_volume():
    assert tet_volumes(MeshTet().refined(2)).sum() == pytest.approx(1.0, rel=1e-13)


def test_signed_volume_of_the_reference_tet_and_its_mirror():
    p = np.array([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    t = np.array([[0, 0], [1, 1], [2, 3], [3, 2]])
    np.testing.assert_allclose(tet_signed_volumes(p, t), [1 / 6, -1 / 6], rtol=1e-15)


def test_node_average_is_a_convex_combination_exact_for_continuous_fields():
    mesh = get_domain("cylinder").mesh(1)
    average = node_average_matrix(mesh)
    assert average.shape == (mesh.p.shape[1], 4 * mesh.t.shape[1])
    np.testing.assert_allclose(np.asarray(average.sum(axis=1)).ravel(), 1.0, rtol=1e-14)
    assert average.min() >= 0
    field = np.sin(mesh.p).T  # (n_nodes, 3): one value per node, so every corner agrees
    corners = field[mesh.t.T.ravel()]
    np.testing.assert_allclose(average @ corners, field, rtol=1e-13, atol=1e-15)
    # one tet only: the node's value is the single corner value
    single = MeshTet(np.eye(4, 3).T[:, [3, 0, 1, 2]].copy(), np.array([[0], [1], [2], [3]]))
    np.testing.assert_allclose(node_average_matrix(single).toarray(), np.eye(4))
