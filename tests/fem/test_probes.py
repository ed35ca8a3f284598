"""Sparse N0 evaluation matrices (probes, cell centres, nodes) and probe placement."""

import numpy as np
import pytest
from skfem import Basis, ElementTetN0

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.point_evaluation import evaluate_n0
from surrogate.fem.probes import (
    halton_points,
    n0_cell_centre_matrix,
    n0_evaluation_matrix,
    n0_node_matrix,
    probe_points,
)
from surrogate.fem.vtk import n0_at_cell_centres, n0_at_nodes


@pytest.fixture(scope="module")
def field():
    mesh = get_domain("cylinder").mesh(1)
    basis = Basis(mesh, ElementTetN0(), intorder=2)
    return basis, np.random.default_rng(0).standard_normal(basis.N)


def test_evaluation_matrix_matches_point_evaluation(field):
    basis, dofs = field
    points = probe_points(get_domain("cylinder"), basis.mesh, 10)
    matrix = n0_evaluation_matrix(basis, points)
    assert matrix.shape == (30, basis.N) and matrix.nnz <= 30 * 6
    np.testing.assert_allclose((matrix @ dofs).reshape(-1, 3), evaluate_n0(basis, dofs, points),
                               atol=1e-13)
    with pytest.raises(InputError, match="1 of 1 points lie outside the mesh"):
        n0_evaluation_matrix(basis, [[5.0, 0.0, 0.0]])


def test_cell_and_node_matrices_match_the_vtk_projections(field):
    basis, dofs = field
    np.testing.assert_allclose((n0_cell_centre_matrix(basis) @ dofs).reshape(-1, 3),
                               n0_at_cell_centres(basis, dofs), atol=1e-13)
    np.testing.assert_allclose((n0_node_matrix(basis) @ dofs).reshape(-1, 3),
                               n0_at_nodes(basis, dofs), atol=1e-13)


@pytest.mark.parametrize("name", ["cube", "cylinder", "shell", "l-prism"])
def test_probes_are_deterministic_inside_and_away_from_the_walls(name):
    domain = get_domain(name)
    mesh = domain.mesh(1)
    points = probe_points(domain, mesh, 6)
    assert points.shape == (6, 3) and np.array_equal(points, probe_points(domain, mesh, 6))
    assert np.all(domain.contains(points))
    lo, hi = domain.bounds[:, 0], domain.bounds[:, 1]
    assert np.all(points >= lo + 0.15 * (hi - lo) - 1e-12)
    assert np.all(points <= hi - 0.15 * (hi - lo) + 1e-12)
    assert len(np.unique(points.round(12), axis=0)) == 6


def test_halton_is_the_radical_inverse():
    expected = [[1 / 2, 1 / 3, 1 / 5], [1 / 4, 2 / 3, 2 / 5], [3 / 4, 1 / 9, 3 / 5],
                [1 / 8, 4 / 9, 4 / 5]]
    np.testing.assert_allclose(halton_points(4), expected, rtol=1e-15)
    cube = get_domain("cube")  # the probes are the first Halton points in the shrunk box
    lo, hi = cube.bounds[:, 0], cube.bounds[:, 1]
    box = lo + 0.15 * (hi - lo), hi - 0.15 * (hi - lo)
    np.testing.assert_allclose(probe_points(cube, cube.mesh(1), 4),
                               box[0] + (box[1] - box[0]) * np.array(expected), rtol=1e-14)
    with pytest.raises(InputError, match="number of probes"):
        probe_points(get_domain("cube"), get_domain("cube").mesh(1), 0)
