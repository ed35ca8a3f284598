"""Problem families: radial closed forms by finite differences (axis included), eq. 7.2 as a
member, inclusion's divergence-free source, sampling, sensors, the FEM truth's convergence."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.families import (
    family_names,
    fem_truth,
    get_family,
    sensor_layout,
    sensor_names,
    sensor_values,
)
from surrogate.fem.families.radial import log1p_over_t
from surrogate.fem.families.truth import l2_difference
from surrogate.fem.problems import get_problem

H = 1e-5  # central differences: O(H²) ≈ 1e-10 truncation, O(eps/H) ≈ 1e-11 rounding


def jacobian(fn, x, h=H):
    """J[n, i, j] = ∂fn_i/∂x_j at x (n, 3) by central differences in float64."""
    cols = []
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        cols.append((fn(x + e) - fn(x - e)) / (2 * h))
    return np.stack(cols, axis=2)


def fd_curl(fn, x):
    J = jacobian(fn, x)
    return np.stack([J[:, 2, 1] - J[:, 1, 2], J[:, 0, 2] - J[:, 2, 0],
                     J[:, 1, 0] - J[:, 0, 1]], axis=1)


def fd_div(fn, x):
    return np.trace(jacobian(fn, x), axis1=1, axis2=2)


def sample_points():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1.2, 1.2, (40, 3))
    axis = np.array([[1e-7, 0.0, 0.3], [0.0, -1e-7, 0.7], [3e-8, 4e-8, 0.5], [0.0, 0.0, 0.2]])
    return np.concatenate([x, axis])


@pytest.mark.parametrize("draw", range(4))
def test_radial_closed_forms_match_finite_differences_on_and_off_the_axis(draw):
    family = get_family("radial")
    mu = family.sample(4, seed=11, widen=0.25)[draw]  # beyond the box too
    problem = family.problem(mu)
    x = sample_points()
    scale = 1.0 + np.abs(problem.curl_u(x)).max()
    assert np.abs(fd_curl(problem.u, x) - problem.curl_u(x)).max() < 1e-8 * scale
    assert np.abs(fd_div(problem.u, x)).max() < 1e-8 * scale
    assert np.all(problem.div_u(x) == 0)

    def phi_curl(y):
        return problem.phi(y)[:, None] * problem.curl_u(y)

    f = problem.f(x)
    assert np.abs(fd_curl(phi_curl, x) - f).max() < 1e-7 * (1.0 + np.abs(f).max())
    assert np.all(np.isfinite(problem.u(np.zeros((1, 3)))))


def test_radial_member_one_is_the_bessel_problem_of_eq_7_2():
    member = get_family("radial").problem(np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0]))
    seed = get_problem("maxwell")
    x = sample_points()
    for name in ("u", "curl_u", "f", "phi", "inputs"):
        np.testing.assert_allclose(getattr(member, name)(x), getattr(seed, name)(x),
                                   rtol=1e-12, atol=1e-12, err_msg=name)


def test_every_radial_parameter_changes_u_and_the_log_series_is_smooth():
    family = get_family("radial")
    x = sample_points()
    base = np.array([1.0, 1.0, 1.0, 1.0, 0.5, 0.5])
    for k in range(6):
        mu = base.copy()
        mu[k] += 0.3
        assert np.abs(family.problem(mu).u(x) - family.problem(base).u(x)).max() > 1e-3
    t = np.array([0.0, 5e-5, 9.99e-5, 1.0001e-4, 0.3, 40.0])
    np.testing.assert_allclose(log1p_over_t(t), np.where(t > 0, np.log1p(t) / np.maximum(
        t, 1e-300), 1.0), rtol=1e-13)


def test_tangential_data_is_u_cross_n():
    family = get_family("radial")
    problem = family.problem(family.sample(1, 0)[0])
    sensors = sensor_layout(family)
    got = problem.tangential_data(sensors.boundary_points, sensors.boundary_normals)
    want = np.cross(problem.u(sensors.boundary_points), sensors.boundary_normals)
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
    assert np.abs(got).max() > 0.1


def test_inclusion_source_is_divergence_free_and_phi_piecewise():
    family = get_family("inclusion")
    problem = family.problem(family.sample(1, 5)[0])
    x = sample_points()
    assert np.abs(fd_div(problem.f, x)).max() < 1e-8 * (1 + np.abs(problem.f(x)).max())
    c, rho, kappa = problem.centre, problem.radius, problem.contrast
    inside = c + 0.5 * rho * np.array([[1.0, 0, 0], [0, 0, -1.0]])
    outside = c + 1.5 * rho * np.array([[1.0, 0, 0], [0, 0, -1.0]])
    np.testing.assert_array_equal(problem.phi(inside), kappa)
    np.testing.assert_array_equal(problem.phi(outside), 1.0)
    assert np.all(problem.tangential_data(x, x) == 0)
    with pytest.raises(InputError, match="no closed-form"):
        problem.u(x)


def test_sampling_is_deterministic_inside_the_box_and_widens():
    assert family_names() == ["radial", "inclusion"]
    for name in family_names():
        family = get_family(name)
        for method in ("sobol", "lhs"):
            a = family.sample(64, 9, method=method)
            np.testing.assert_array_equal(a, family.sample(64, 9, method=method))
            assert np.all((a >= family.box[:, 0]) & (a <= family.box[:, 1]))
            assert not np.array_equal(a, family.sample(64, 10, method=method))
        wide = family.sample(512, 1, widen=0.25)
        width = family.box[:, 1] - family.box[:, 0]
        assert np.all(wide.min(axis=0) < family.box[:, 0])
        assert np.all(wide.max(axis=0) <= family.box[:, 1] + 0.25 * width)
    with pytest.raises(InputError, match="unknown family 'nope'"):
        get_family("nope")
    with pytest.raises(InputError, match="empty or inverted for k"):
        get_family("radial").sample(4, 0, box=np.array([[2.0, 1.0]] + [[0.0, 1.0]] * 5))
    with pytest.raises(InputError, match="unknown sampler"):
        get_family("radial").sample(4, 0, method="grid")


def test_sensor_layout_lies_in_the_cylinder_and_on_its_boundary():
    family = get_family("radial")
    s = sensor_layout(family)
    assert s.volume_points.shape == (48, 3) and s.boundary_points.shape == (16, 3)
    r = np.hypot(s.volume_points[:, 0], s.volume_points[:, 1])
    assert r.max() < 1 and s.volume_points[:, 2].min() > 0 and s.volume_points[:, 2].max() < 1
    b, n = s.boundary_points, s.boundary_normals
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, rtol=1e-14)
    side = np.abs(n[:, 2]) < 0.5
    np.testing.assert_allclose(np.hypot(b[side, 0], b[side, 1]), 1.0, rtol=1e-14)
    np.testing.assert_array_equal(b[~side, 2], (n[~side, 2] > 0).astype(float))
    problem = family.problem(family.sample(1, 0)[0])
    q = sensor_values(problem, s)
    names = sensor_names(s)
    assert q.shape == (48 * 4 + 16 * 3,) == (len(names),)
    np.testing.assert_array_equal(q[:3], problem.f(s.volume_points[:1])[0])
    assert names[:4] == ("f1_v0", "f2_v0", "f3_v0", "f1_v1") and names[-1] == "uxn3_b15"
    np.testing.assert_array_equal(sensor_layout(family).volume_points, s.volume_points)


def test_inclusion_has_its_own_sensor_layout_that_sees_every_ball():
    """inclusion's default: 1000 volume sensors, so that every ball of the box holds some
    (48, radial's default, leave a ball without any sensor on many members); recipes
    resolve the family's count and store it."""
    from surrogate.datasets.recipes import MaxwellFamilyRecipe

    family = get_family("inclusion")
    assert sensor_layout(family).volume_points.shape == (1000, 3)
    assert sensor_layout(get_family("radial")).volume_points.shape == (48, 3)
    mu = family.sample(512, 3)

    def hits(sensors):
        d = np.linalg.norm(sensors.volume_points[None] - mu[:, None, :3], axis=2)
        return (d < mu[:, 3:4]).sum(axis=1)

    assert hits(sensor_layout(family)).min() >= 1
    assert (hits(sensor_layout(family, 48)) == 0).mean() > 0.3
    assert MaxwellFamilyRecipe(family="inclusion").n_volume == 1000
    assert MaxwellFamilyRecipe(family="radial").to_dict()["n_volume"] == 48
    assert MaxwellFamilyRecipe(family="inclusion", n_volume=48).n_volume == 48


def test_inclusion_truth_converges_towards_the_finer_solve():
    """Complete linear (order 1) on levels 1, 2 and N0 on levels 1, 2 against the truth,
    complete linear on level 3 (the truth's own error against complete linear on level 4:
    benchmarks/inclusion_truth.py)."""
    family = get_family("inclusion")
    problem = family.problem(np.array([0.1, -0.1, 0.5, 0.25, 8.0, -0.2, 0.1, 0.5]))
    truth = fem_truth(problem, "cylinder")  # the defaults: complete linear on level 3
    assert truth.order == 1 and truth.ndofs == 23872
    rel = {(order, level): np.divide(*l2_difference(
        fem_truth(problem, "cylinder", level, order=order), truth))
        for order in (0, 1) for level in (1, 2)}
    assert rel[(1, 2)] < 0.45 * rel[(1, 1)]  # measured 0.158 / 0.454: rate ≈ 1.5
    assert rel[(0, 2)] < 0.6 * rel[(0, 1)]  # measured 0.346 / 0.621
    assert rel[(1, 2)] < 0.6 * rel[(0, 2)]  # complete linear beats N0 on the same mesh
    assert 0.05 < rel[(1, 2)] < 0.3


def test_truth_order_must_be_0_or_1():
    problem = get_family("inclusion").problem(get_family("inclusion").sample(1, 0)[0])
    for order in (2, -1, True, 1.0):
        with pytest.raises(InputError, match="truth order must be 0 \\(N0\\) or 1"):
            fem_truth(problem, "cylinder", 1, order=order)


def test_a_fields_run_without_a_recorded_sensor_layout_is_refused():
    from types import SimpleNamespace

    from surrogate.fem.families import recorded_sensors, sensor_layout

    layout = sensor_layout(get_family("radial"), 4, 2)
    recorded = {k: getattr(layout, k).tolist() for k in
                ("volume_points", "boundary_points", "boundary_normals")}
    run = SimpleNamespace(path="runs/f", dataset={"sensors": recorded})
    np.testing.assert_array_equal(recorded_sensors(run).boundary_normals,
                                  layout.boundary_normals)
    with pytest.raises(InputError, match="runs/f: inputs 'fields' but config.json records no"):
        recorded_sensors(SimpleNamespace(path="runs/f", dataset={}))
