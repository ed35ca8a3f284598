"""The manufactured Bessel problem (eq. 7.2): curl u, div u and f = curl(φ curl u) by central
finite differences, regular on the axis r = 0, registry and input checks."""

import numpy as np
import pytest
from scipy.special import i1

from surrogate.core.errors import InputError
from surrogate.fem.problems import Problem, get_problem, i1_over_r, problem_names

STEP = 1e-5


def _points() -> np.ndarray:
    """Random points in and around the unit cylinder plus points on / next to the axis."""
    rng = np.random.default_rng(7)
    x = np.column_stack([rng.uniform(-1.2, 1.2, (40, 2)), rng.uniform(0, 1, 40)])
    axis = np.array([[0.0, 0.0, 0.3], [1e-8, 0.0, 0.5], [0.0, -1e-8, 0.1], [3e-9, 4e-9, 0.9],
                     [1e-3, 0.0, 0.2], [0.0, 2e-3, 0.7]])
    return np.vstack([x, axis])


def _jacobian(field, x: np.ndarray) -> np.ndarray:
    """J[n, i, j] = ∂field_i/∂x_j at the points x (N, 3) by central differences."""
    cols = []
    for j in range(3):
        e = np.zeros(3)
        e[j] = STEP
        cols.append((field(x + e) - field(x - e)) / (2 * STEP))
    return np.stack(cols, axis=2)


def _curl(field, x):
    J = _jacobian(field, x)
    return np.column_stack([J[:, 2, 1] - J[:, 1, 2], J[:, 0, 2] - J[:, 2, 0],
                            J[:, 1, 0] - J[:, 0, 1]])


def test_registry():
    assert "maxwell" in problem_names()
    p = get_problem("maxwell")
    assert p.name == "maxwell" and p.has_exact and isinstance(p, Problem)
    assert p.in_names == ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
    assert p.out_names == ("u1", "u2", "u3")
    with pytest.raises(InputError, match="maxwell"):
        get_problem("heat")


def test_curl_and_div_by_finite_differences():
    p, x = get_problem("maxwell"), _points()
    np.testing.assert_allclose(_curl(p.u, x), p.curl_u(x), rtol=0, atol=1e-6)
    div = np.trace(_jacobian(p.u, x), axis1=1, axis2=2)
    np.testing.assert_allclose(div, p.div_u(x), rtol=0, atol=1e-6)
    assert np.all(p.div_u(x) == 0)


def test_source_is_curl_of_phi_curl_u():
    p, x = get_problem("maxwell"), _points()

    def phi_curl_u(y):
        return p.phi(y)[:, None] * p.curl_u(y)

    np.testing.assert_allclose(_curl(phi_curl_u, x), p.f(x), rtol=0, atol=1e-6)


def test_closed_forms_of_eq_7_2():
    """u = I₁(r) e_θ, |f| = r I₀ + φ I₁ off the axis; u = f = 0 and curl u = e_z on it."""
    p, x = get_problem("maxwell"), _points()
    r = np.hypot(x[:, 0], x[:, 1])
    e_theta = np.column_stack([-x[:, 1], x[:, 0], 0 * r]) / np.where(r > 0, r, 1)[:, None]
    np.testing.assert_allclose(p.u(x), i1(r)[:, None] * e_theta, rtol=1e-13, atol=1e-15)
    phi = 0.5 * (r**2 + 1)
    np.testing.assert_allclose(p.phi(x), phi, rtol=1e-15)
    f_theta = np.einsum("ij,ij->i", p.f(x), e_theta)
    from scipy.special import i0

    np.testing.assert_allclose(f_theta, -(r * i0(r) + phi * i1(r)), rtol=1e-13, atol=1e-15)
    on_axis = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert np.all(np.isfinite(p.u(on_axis))) and np.all(p.u(on_axis) == 0)
    assert np.all(p.f(on_axis) == 0)
    np.testing.assert_array_equal(p.curl_u(on_axis), [[0, 0, 1], [0, 0, 1]])


def test_i1_over_r_series_matches_scipy_across_the_switch():
    r = np.array([0.0, 1e-12, 1e-8, 5e-4, 9.99e-4, 1e-3, 1.01e-3, 0.5, 3.0])
    ref = np.where(r > 0, i1(np.where(r > 0, r, 1)) / np.where(r > 0, r, 1), 0.5)
    np.testing.assert_allclose(i1_over_r(r), ref, rtol=1e-14)


def test_inputs_and_bad_points():
    p = get_problem("maxwell")
    x = _points()
    inp = p.inputs(x)
    assert inp.shape == (len(x), 7)
    np.testing.assert_array_equal(inp[:, :3], x)
    np.testing.assert_array_equal(inp[:, 3:6], p.f(x))
    np.testing.assert_array_equal(inp[:, 6], p.phi(x))
    with pytest.raises(InputError, match=r"\(N, 3\)"):
        p.u(np.zeros((4, 2)))
    with pytest.raises(InputError, match="NaN"):
        p.f(np.array([[np.nan, 0.0, 0.0]]))
