"""Shared pieces of the time-domain tests: a smooth source pulse, Newmark's observed order in
Δt and its discrete energy balance on any cavity operators (N0 and the high-order ones)."""

import numpy as np
import pytest

from surrogate.fem.time_domain import (
    Material,
    NewmarkStepper,
    discrete_energy,
    newmark_run,
    step_loads,
)


def modulated_pulse(t, t0=1.5, width=0.3, f=0.8):
    """(s, s') of a modulated Gaussian pulse (smooth: the order tests need it)."""
    tau = np.asarray(t) - t0
    g = np.exp(-0.5 * tau**2 / width**2)
    arg = 2 * np.pi * f * tau
    return g * np.cos(arg), g * (-tau / width**2 * np.cos(arg) - 2 * np.pi * f * np.sin(arg))


@pytest.fixture
def newmark_orders():
    """f(ops, load) -> observed orders of the final field over Δt = 3/40, 3/80, 3/160 against
    Δt = 3/640 (ε = μ = 1, σ = 0.1)."""

    def orders(ops, load) -> np.ndarray:
        material, horizon = Material(eps=1.0, mu=1.0, sigma=0.1), 3.0

        def final_field(steps):
            dt = horizon / steps
            _, ds = modulated_pulse(dt * np.arange(steps + 1))
            e, _ = newmark_run(NewmarkStepper(ops, material, dt), steps, load_vector=load,
                               coefficients=step_loads(ds, dt))
            return e[-1]

        reference = final_field(40 * 16)
        errors = [np.linalg.norm(final_field(40 * k) - reference) for k in (1, 2, 4)]
        return np.log2(np.array(errors[:-1]) / np.array(errors[1:]))

    return orders


@pytest.fixture
def energy_balance():
    """f(ops, load) -> (ΔE_n, the balance's right-hand side) over 120 steps of Δt = 0.05,
    ε = 1.2, μ = 0.8, σ = 0.1: E_{n+1} − E_n = (Δt/4)(v_n + v_{n+1})·(g_n + g_{n+1})
    − (σΔt/4)‖v_n + v_{n+1}‖²_M (fem/time_domain.py's docstring)."""

    def balance(ops, load) -> tuple[np.ndarray, np.ndarray, float]:
        dt, steps, material = 0.05, 120, Material(eps=1.2, mu=0.8, sigma=0.1)
        _, ds = modulated_pulse(dt * np.arange(steps + 1))
        e, v = newmark_run(NewmarkStepper(ops, material, dt), steps, load_vector=load,
                           coefficients=step_loads(ds, dt))
        energy = discrete_energy(ops, material, e, v)
        vbar = v[1:] + v[:-1]
        gbar = -(ds[1:] + ds[:-1])[:, None] * load[None, :]
        work = 0.25 * dt * np.sum(vbar * gbar, axis=1)
        loss = 0.25 * dt * material.sigma * np.sum(vbar * (ops.mass @ vbar.T).T, axis=1)
        return np.diff(energy), work - loss, float(energy.max())

    return balance
