"""Time-domain Maxwell (N0 + average-acceleration Newmark): energy, convergence, linearity."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.probes import n0_evaluation_matrix, probe_points
from surrogate.fem.quadrature import quadrature_rule
from surrogate.fem.time_domain import (
    Material,
    NewmarkStepper,
    cavity_operators,
    convolve_response,
    dipole_load,
    discrete_energy,
    gaussian_dipole,
    impulse_response,
    newmark_run,
    step_loads,
)

CENTRE = (0.5, 0.5, 0.5)


@pytest.fixture(scope="module")
def ops():
    """PEC unit cube, level 2: 384 tets, 316 interior edges."""
    return cavity_operators(get_domain("cube").mesh(2))


@pytest.fixture(scope="module")
def load(ops):
    return dipole_load(ops, CENTRE, 0.2)


def pulse(t, t0=1.5, width=0.3, f=0.8):
    """(s, s') of a modulated Gaussian pulse (smooth: the order test needs it)."""
    tau = np.asarray(t) - t0
    g = np.exp(-0.5 * tau**2 / width**2)
    arg = 2 * np.pi * f * tau
    return g * np.cos(arg), g * (-tau / width**2 * np.cos(arg) - 2 * np.pi * f * np.sin(arg))


def random_state(ops, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(ops.n_free), rng.standard_normal(ops.n_free)


def test_energy_is_conserved_without_source_and_conductivity(ops):
    stepper = NewmarkStepper(ops, Material(eps=1.3, mu=1.7, sigma=0.0), 0.05)
    e0, v0 = random_state(ops, 0)
    e, v = newmark_run(stepper, 200, e0=e0, v0=v0)
    energy = discrete_energy(ops, stepper.material, e, v)
    assert np.max(np.abs(energy / energy[0] - 1.0)) <= 1e-10
    assert np.linalg.norm(e[-1] - e0) > 0.1 * np.linalg.norm(e0)  # the field did move


def test_energy_decays_monotonically_with_conductivity(ops):
    stepper = NewmarkStepper(ops, Material(eps=1.0, mu=1.0, sigma=0.3), 0.05)
    e0, v0 = random_state(ops, 1)
    e, v = newmark_run(stepper, 200, e0=e0, v0=v0)
    energy = discrete_energy(ops, stepper.material, e, v)
    assert np.all(np.diff(energy) <= 1e-12 * energy[0])
    assert energy[-1] < 0.2 * energy[0]


def test_energy_balance_with_source_holds_exactly(ops, load, energy_balance):
    """E_{n+1} − E_n = (Δt/4)(v_n + v_{n+1})·(g_n + g_{n+1}) − (σΔt/4)‖v_n + v_{n+1}‖²_M."""
    change, balance, scale = energy_balance(ops, load)
    np.testing.assert_allclose(change, balance, rtol=0, atol=1e-12 * scale)


def test_newmark_is_second_order_in_time(ops, load, newmark_orders):
    orders = newmark_orders(ops, load)
    assert np.all(orders >= 1.8), orders


def test_response_is_linear_in_the_signal_and_columns_are_independent(ops, load):
    stepper = NewmarkStepper(ops, Material(eps=1.5, mu=1.2, sigma=0.05), 0.05)
    t = 0.05 * np.arange(81)
    c1 = step_loads(pulse(t)[1], 0.05)
    c2 = step_loads(pulse(t, t0=1.0, width=0.2, f=0.5)[1], 0.05)
    e1, _ = newmark_run(stepper, 80, load_vector=load, coefficients=c1)
    e2, _ = newmark_run(stepper, 80, load_vector=load, coefficients=c2)
    e12, _ = newmark_run(stepper, 80, load_vector=load, coefficients=2 * c1 - 3 * c2)
    scale = np.abs(e12).max()
    assert np.abs(e12 - (2 * e1 - 3 * e2)).max() <= 1e-12 * scale
    both, _ = newmark_run(stepper, 80, load_vector=load, coefficients=np.stack([c1, c2], 1))
    assert both.shape == (81, ops.n_free, 2)
    assert np.abs(both[..., 0] - e1).max() <= 1e-13 * scale
    assert np.abs(both[..., 1] - e2).max() <= 1e-13 * scale


def test_impulse_response_convolution_equals_stepping(ops, load):
    domain = get_domain("cube")
    observe = n0_evaluation_matrix(ops.basis, probe_points(domain, ops.mesh, 4))[:, ops.free]
    stepper = NewmarkStepper(ops, Material(eps=1.1, mu=1.9, sigma=0.2), 0.04)
    c = step_loads(pulse(0.04 * np.arange(101))[1], 0.04)
    stepped, _ = newmark_run(stepper, 100, load_vector=load, coefficients=c, observe=observe)
    convolved = convolve_response(impulse_response(stepper, load, 100, observe), c)
    assert convolved.shape == stepped.shape == (101, 12)
    assert np.abs(convolved - stepped).max() <= 1e-12 * np.abs(stepped).max()


def test_fields_vanish_on_the_walls_and_dipole_has_unit_moment(ops):
    full = ops.full(np.ones(ops.n_free))
    boundary = ops.basis.get_dofs().all()
    assert full.shape == (ops.basis.N,) and np.all(full[boundary] == 0)
    points, weights = quadrature_rule(get_domain("cube").mesh(3), 6)
    moment = weights @ gaussian_dipole(points, CENTRE, 0.1)
    np.testing.assert_allclose(moment, [0.0, 0.0, 1.0], atol=2e-3)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"eps": 0.0}, "material eps=0.0"),
    ({"mu": -1.0}, "material mu=-1.0"),
    ({"sigma": -0.1}, "material sigma=-0.1"),
    ({"eps": float("nan")}, "material eps=nan"),
])
def test_bad_materials_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        Material(**kwargs)


def test_bad_time_step_and_shapes_are_input_errors(ops, load):
    with pytest.raises(InputError, match="time step dt=0"):
        NewmarkStepper(ops, Material(), 0)
    stepper = NewmarkStepper(ops, Material(), 0.1)
    with pytest.raises(InputError, match="coefficients must have shape"):
        newmark_run(stepper, 3, load_vector=load, coefficients=np.ones(4))
    with pytest.raises(InputError, match="e0 must have shape"):
        newmark_run(stepper, 3, e0=np.ones(3))
