"""Global quadrature rules (scikit-fem's) and the discrete L² norm."""

import numpy as np
import pytest
from skfem import MeshTet

from surrogate.core.errors import InputError
from surrogate.fem.quadrature import l2_norm, quadrature_rule


@pytest.mark.parametrize("intorder", [2, 3, 4])
def test_rule_integrates_polynomials_of_its_degree_exactly(intorder):
    mesh = MeshTet().refined(1)  # unit cube
    points, weights = quadrature_rule(mesh, intorder)
    assert points.shape == (len(weights), 3) and len(weights) % mesh.t.shape[1] == 0
    assert weights.sum() == pytest.approx(1.0, rel=1e-14)
    x, y, z = points.T
    monomial = x ** (intorder - 1) * y  # ∫ x^(k−1) y over [0, 1]³ = 1 / (2 k)
    assert np.dot(weights, monomial) == pytest.approx(1 / (2 * intorder), rel=1e-13)
    assert l2_norm(np.ones_like(points), weights) == pytest.approx(np.sqrt(3.0), rel=1e-14)


def test_negative_order_and_mismatched_values_are_input_errors():
    mesh = MeshTet()
    with pytest.raises(InputError, match="intorder"):
        quadrature_rule(mesh, -1)
    with pytest.raises(InputError, match="do not match"):
        l2_norm(np.ones(3), np.ones(4))
