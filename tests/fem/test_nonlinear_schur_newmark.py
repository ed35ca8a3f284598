"""The varistor region and the Schur-complement Newton stepper (region_conduction.py,
nonlinear_schur_newmark.py): the tabulated forms equal the global ones, the reduced Newton
step equals the dense one to round-off, and the region's physics holds (energy balance,
linear limit, departure from amplitude scaling).

Cube level 1 (ngsolve) or 2 (skfem N0), dipole of width 0.2 at the centre, 8 probes, the
varistor in the octant [0.5, 1]³ (6 tets at level 1, 48 at level 2), σ₀ = 0.5, ε = μ = 1.
"""

import math
from functools import cache
from math import factorial

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.nonlinear_newmark import NonlinearNewmarkStepper, nonlinear_run
from surrogate.fem.nonlinear_schur_newmark import SchurNewmarkStepper
from surrogate.fem.probes import probe_points
from surrogate.fem.time_domain import Material, NewmarkStepper, newmark_run, step_loads
from surrogate.fem.time_domain_operators import cavity_system
from surrogate.fem.time_domain_operators.nonlinear_conduction import (
    VaristorConductivity,
    conduction_operator,
)
from surrogate.fem.time_domain_operators.region_conduction import (
    RegionConduction,
    box_cells,
    conical_tet_rule,
    tet_rule,
)

CUBE = get_domain("cube")
VACUUM = Material(eps=1.0, mu=1.0, sigma=0.0)
OCTANT = ((0.5, 0.5, 0.5), (1.0, 1.0, 1.0))
STRONG = VaristorConductivity(0.5, 0.1)


@cache
def system(backend: str, order: int):
    """The cavity on cube level 1 (skfem N0: level 2), as in test_nonlinear_newmark.py."""
    if backend == "ngsolve":
        pytest.importorskip("ngsolve")
    mesh = CUBE.mesh(1 if backend == "ngsolve" else 2)
    return cavity_system(mesh, order, backend, (0.5, 0.5, 0.5), 0.2, probe_points(CUBE, mesh, 8))


def loads(dt: float, steps: int) -> np.ndarray:
    """Step loads of s(t) = exp(−τ²/(2w²)) cos(2π f τ), τ = t − 1, w = 0.25, f = 0.8."""
    tau, width, f = dt * np.arange(steps + 1) - 1.0, 0.25, 0.8
    ds = np.exp(-0.5 * tau**2 / width**2) * (-tau / width**2 * np.cos(2 * np.pi * f * tau)
                                             - 2 * np.pi * f * np.sin(2 * np.pi * f * tau))
    return step_loads(ds, dt)


@cache
def octant(backend: str, order: int, law: VaristorConductivity = STRONG) -> RegionConduction:
    ops = system(backend, order).ops
    return RegionConduction(ops, law, box_cells(ops.mesh, *OCTANT))


def octant_run(backend, order, kind, law=STRONG, amplitude=2.0, steps=20, energy=False,
               material=VACUUM):
    sys_ = system(backend, order)
    region = octant(backend, order, law)
    stepper = (SchurNewmarkStepper if kind == "schur" else NonlinearNewmarkStepper)(
        sys_.ops, region, material, 0.1)
    return nonlinear_run(stepper, sys_.load, amplitude * loads(0.1, steps), sys_.observe,
                         energy=energy)


@pytest.mark.parametrize("rule", [tet_rule, conical_tet_rule])
@pytest.mark.parametrize("degree", [1, 4, 8, 12, 20])
def test_tet_rules_integrate_monomials_of_their_degree_exactly(rule, degree):
    """∫ x^a y^b z^c over the unit tet = a! b! c! / (a + b + c + 3)! for a + b + c ≤ d."""
    points, weights = rule(degree)
    assert np.all(weights > 0)
    for a in range(degree + 1):
        for b in range(degree + 1 - a):
            for c in range(degree + 1 - a - b):
                exact = factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + 3)
                got = weights @ (points[:, 0] ** a * points[:, 1] ** b * points[:, 2] ** c)
                assert abs(got - exact) <= 1e-12 * exact, (a, b, c)


@pytest.mark.parametrize("backend, order", [("ngsolve", 0), ("ngsolve", 2), ("skfem", 0)])
def test_a_region_of_every_cell_is_the_global_form(backend, order):
    """N and N' tabulated on all cells equal the one-form NGSolve / skfem N and N' (eqs. 3–4)
    to round-off (both exact quadrature of degree 4p)."""
    ops = system(backend, order).ops
    whole = RegionConduction(ops, STRONG, np.arange(ops.mesh.t.shape[1]))
    form = conduction_operator(ops, STRONG)
    assert whole.m == ops.n_free
    e = np.random.default_rng(0).normal(size=ops.n_free)
    np.testing.assert_allclose(whole.apply(e), form.apply(e), rtol=0,
                               atol=1e-13 * np.abs(form.apply(e)).max())
    jacobian = form.jacobian(e)
    assert abs(whole.jacobian(e) - jacobian).max() <= 1e-13 * abs(jacobian).max()


@pytest.mark.parametrize("backend, order", [("ngsolve", 1), ("ngsolve", 2), ("skfem", 0)])
def test_the_region_jacobian_is_the_derivative_and_lives_on_the_region(backend, order):
    """N' d equals the central difference of N, is symmetric, and N, N' vanish off the region
    DOFs (the basis functions touching the octant)."""
    ops = system(backend, order).ops
    region = octant(backend, order)
    assert 0 < region.m < ops.n_free / 2
    e, d = np.random.default_rng(1).normal(size=(2, ops.n_free))
    jac = region.jacobian(e)
    difference = (region.apply(e + 1e-6 * d) - region.apply(e - 1e-6 * d)) / 2e-6
    assert np.linalg.norm(difference - jac @ d) <= 1e-8 * np.linalg.norm(jac @ d)
    assert abs(jac - jac.T).max() <= 1e-14 * abs(jac).max()
    outside = np.setdiff1d(np.arange(ops.n_free), region.dofs)
    assert np.all(region.apply(e)[outside] == 0.0)
    assert np.unique(jac.tocoo().row).size == region.m
    assert set(jac.tocoo().row) <= set(region.dofs)


@pytest.mark.parametrize("backend, order", [("ngsolve", 1), ("ngsolve", 2), ("skfem", 0)])
def test_the_schur_step_is_the_dense_newton_step(backend, order):
    """A strongly nonlinear run (E₀ = 0.1, amplitude 2): the Schur stepper's probe fields,
    Joule power, iteration counts and residual histories are the dense stepper's."""
    dense, schur = (octant_run(backend, order, kind) for kind in ("dense", "schur"))
    assert np.abs(schur.fields - dense.fields).max() <= 1e-12 * np.abs(dense.fields).max()
    assert np.abs(schur.joule - dense.joule).max() <= 1e-12 * np.abs(dense.joule).max()
    np.testing.assert_array_equal(schur.iterations, dense.iterations)
    assert dense.iterations.max() >= 3
    for a, b in zip(dense.residuals, schur.residuals, strict=True):
        assert np.all(np.abs(a - b) <= 1e-9 * a + 1e-13), (a, b)


def test_the_region_newton_converges_quadratically():
    """r_{k+1} / r_k² bounded on the octant run (last, round-off-limited residual left out)."""
    result = octant_run("ngsolve", 2, "schur")
    ratios = np.concatenate([r[1:-1] / r[:-2] ** 2 for r in result.residuals if r.size > 2])
    assert ratios.size >= 20 and ratios.max() < 10.0
    assert max(r[-1] for r in result.residuals) <= 1e-12


@pytest.mark.parametrize("backend, order", [("ngsolve", 2), ("skfem", 0)])
def test_energy_balance_in_the_region(backend, order):
    """Eq. (9) to the Newton tolerance (ε = 1.2, μ = 0.8, source cut after step 20); the
    octant dissipates (≥ 0) and the energy decreases once the source is off."""
    sys_ = system(backend, order)
    stepper = SchurNewmarkStepper(sys_.ops, octant(backend, order), Material(1.2, 0.8), 0.1)
    coefficients = 2.0 * loads(0.1, 40)
    coefficients[20:] = 0.0
    result = nonlinear_run(stepper, sys_.load, coefficients, sys_.observe, energy=True)
    balance = np.diff(result.energy) - (result.load_work - result.dissipation)
    assert np.abs(balance).max() <= 1e-10 * result.energy.max()
    assert result.dissipation.min() >= 0.0 and result.dissipation.sum() > 0.0
    assert np.all(np.diff(result.energy[21:]) <= 1e-12 * result.energy.max())


def test_the_linear_region_is_the_linear_run_and_amplitude_matters():
    """E₀ = ∞ in the octant: doubling the source doubles the fields to round-off; with E₀ = 0.1
    it does not (departure > 5 %); without conduction the run is the lossless linear one."""
    linear = VaristorConductivity(0.5, math.inf)
    single = octant_run("ngsolve", 2, "schur", law=linear, amplitude=1.0).fields
    double = octant_run("ngsolve", 2, "schur", law=linear, amplitude=2.0).fields
    assert np.abs(double - 2.0 * single).max() <= 1e-12 * np.abs(double).max()
    small, large = (octant_run("ngsolve", 2, "schur", amplitude=a).fields for a in (1.0, 2.0))
    departure = np.linalg.norm(large - 2.0 * small) / np.linalg.norm(2.0 * small)
    assert departure > 0.05, departure
    sys_ = system("ngsolve", 2)
    lossless, _ = newmark_run(NewmarkStepper(sys_.ops, VACUUM, 0.1), 20, load_vector=sys_.load,
                              coefficients=loads(0.1, 20), observe=sys_.observe)
    none = octant_run("ngsolve", 2, "schur", law=VaristorConductivity(0.0), amplitude=1.0)
    assert np.abs(none.fields - lossless).max() <= 1e-12 * np.abs(lossless).max()


def test_bad_regions_and_conductions_are_input_errors():
    ops = system("ngsolve", 1).ops
    with pytest.raises(InputError, match="region box"):
        box_cells(ops.mesh, (0.5, 0.5, 0.5), (0.5, 1.0, 1.0))
    with pytest.raises(InputError, match="non-empty"):
        RegionConduction(ops, STRONG, [])
    with pytest.raises(InputError, match="non-empty"):
        RegionConduction(ops, STRONG, [ops.mesh.t.shape[1]])
    with pytest.raises(InputError, match="intorder"):
        RegionConduction(ops, STRONG, [0], intorder=0)
    with pytest.raises(InputError, match="VaristorConductivity"):
        RegionConduction(ops, 0.5, [0])
    with pytest.raises(InputError, match="shape"):
        octant("ngsolve", 1).apply(np.zeros(3))
    with pytest.raises(InputError, match="region conduction"):
        SchurNewmarkStepper(ops, conduction_operator(ops, STRONG), VACUUM, 0.1)


def test_another_law_reuses_the_tabulation_and_the_schur_complement():
    """``with_law`` / ``with_conduction``: the same run as a stepper built for that law."""
    sys_ = system("ngsolve", 2)
    weak = VaristorConductivity(1.0, 0.3)
    stepper = SchurNewmarkStepper(sys_.ops, octant("ngsolve", 2), VACUUM, 0.1)
    reused = stepper.with_conduction(octant("ngsolve", 2).with_law(weak))
    fresh = SchurNewmarkStepper(sys_.ops, RegionConduction(
        sys_.ops, weak, box_cells(sys_.ops.mesh, *OCTANT)), VACUUM, 0.1)
    runs = [nonlinear_run(s, sys_.load, 2.0 * loads(0.1, 10), sys_.observe).fields
            for s in (reused, fresh)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert reused.coupling is stepper.coupling and stepper.conduction.law == STRONG
    with pytest.raises(InputError, match="same region"):
        stepper.with_conduction(octant("ngsolve", 1))
    with pytest.raises(InputError, match="VaristorConductivity"):
        octant("ngsolve", 2).with_law(0.3)
