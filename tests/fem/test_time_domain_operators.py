"""High-order H(curl) time-domain operators (NGSolve HCurl on our mesh) under the N0 stepper."""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse.linalg as spla

ngsolve = pytest.importorskip("ngsolve")

from surrogate.core.errors import InputError  # noqa: E402
from surrogate.fem.domains import get_domain  # noqa: E402
from surrogate.fem.hcurl.registry import (  # noqa: E402
    BACKENDS,
    FEM_ORDERS,
    ORDER_NAMES,
    TIME_DOMAIN_ORDERS,
    hcurl_dofs,
)
from surrogate.fem.probes import probe_points  # noqa: E402
from surrogate.fem.time_domain import (  # noqa: E402
    Material,
    NewmarkStepper,
    convolve_response,
    impulse_response,
    newmark_run,
)
from surrogate.fem.time_domain_operators import (  # noqa: E402
    cavity_system,
    convolve_subsampled,
    convolve_subsampled_batch,
    fine_step_loads,
    hcurl_cavity_operators,
    hcurl_dipole_load,
    hcurl_observation_matrix,
    ngsolve_operators,
    richardson_in_time,
)

CENTRE = (0.5, 0.5, 0.5)
CUBE = get_domain("cube")


def pulse(t, t0=1.5, width=0.3, f=0.8):
    """(s, s') of a modulated Gaussian pulse."""
    tau = np.asarray(t) - t0
    g = np.exp(-0.5 * tau**2 / width**2)
    arg = 2 * np.pi * f * tau
    return g * np.cos(arg), g * (-tau / width**2 * np.cos(arg) - 2 * np.pi * f * np.sin(arg))


@pytest.fixture(scope="module")
def order2():
    """Complete-quadratic operators on cube level 1 (48 tets, 294 free DOFs), wide dipole."""
    ops = hcurl_cavity_operators(CUBE.mesh(1), 2)
    return ops, hcurl_dipole_load(ops, CENTRE, 0.2)


@pytest.fixture(scope="module")
def order5():
    """Complete-quintic operators on cube level 1 (48 tets, 3612 free DOFs), the recipe's
    dipole width 0.1."""
    ops = hcurl_cavity_operators(CUBE.mesh(1), 5)
    return ops, hcurl_dipole_load(ops, CENTRE, 0.1)


def generalised_eigenvalues(ops) -> np.ndarray:
    return sla.eigh(ops.curlcurl.toarray(), ops.mass.toarray(), eigvals_only=True)


def test_order_0_equals_the_skfem_n0_operators():
    """Same space, other DOF numbering and signs: same spectrum of K x = λ M x, and the same
    probe impulse response (loads agree to quadrature error for a dipole the mesh resolves)."""
    mesh = CUBE.mesh(3)
    points = probe_points(CUBE, mesh, 8)
    ours = cavity_system(mesh, 0, "skfem", CENTRE, 0.3, points)
    theirs = cavity_system(mesh, 0, "ngsolve", CENTRE, 0.3, points)
    assert ours.n_free == theirs.n_free == 3032
    small = [cavity_system(CUBE.mesh(2), 0, b, CENTRE, 0.3, points[:1]).ops
             for b in ("skfem", "ngsolve")]
    np.testing.assert_allclose(*map(generalised_eigenvalues, small), rtol=1e-10, atol=1e-9)
    material = Material(eps=1.3, mu=1.1, sigma=0.1)
    h = [impulse_response(NewmarkStepper(s.ops, material, 0.05), s.load, 100, s.observe)
         for s in (ours, theirs)]
    assert np.abs(h[0] - h[1]).max() <= 1e-5 * np.abs(h[0]).max()


@pytest.mark.parametrize("order, levels", [(0, (2, 3)), (1, (2, 3)), (2, (1, 2)), (3, (1, 2))])
def test_cavity_eigenvalue_converges_at_twice_the_curl_rate(order, levels):
    """The unit cube's lowest eigenvalue ω² = 2π² (modes (1,1,0) and permutations): the error
    of the discrete triple falls as h^{2r}, r the space's curl rate (registry: 1, 1, 2, 3)."""
    exact, errors = 2 * np.pi**2, []
    for level in levels:
        ops = hcurl_cavity_operators(CUBE.mesh(level), order)
        triple = spla.eigsh(ops.curlcurl.tocsc(), k=3, M=ops.mass.tocsc(), sigma=1.05 * exact,
                            return_eigenvectors=False)
        errors.append(np.abs(triple - exact).max() / exact)
    rate = np.log2(errors[0] / errors[1])
    expected = 2 * ORDER_NAMES[order].curl_rate
    assert expected - 0.3 <= rate <= expected + 0.5, (errors, rate)


def test_order_5_is_a_time_domain_order_only():
    """The registry: static solves keep orders 0–4, ngsolve's time domain adds 5 (named)."""
    assert TIME_DOMAIN_ORDERS == (*FEM_ORDERS, 5, 6) and FEM_ORDERS == (0, 1, 2, 3, 4)
    assert tuple(sorted(BACKENDS["ngsolve"].time_domain)) == TIME_DOMAIN_ORDERS
    assert BACKENDS["ngsolve"].orders == FEM_ORDERS
    assert ORDER_NAMES[5].name == "complete quintic" and ORDER_NAMES[5].curl_rate == 5


def test_order_5_free_dofs_are_the_space_minus_its_wall_dofs(order5):
    """ndof = hcurl_dofs(mesh, 5) (6 per edge, 24 per face, 36 per tet); the walls hold 6 per
    boundary edge and 24 per boundary face; the recipe's level 2 has 31,848 free DOFs."""
    ops, _ = order5
    mesh = ops.mesh
    boundary_faces = mesh.boundary_facets().size
    boundary_edges = mesh.boundary_edges().size
    assert ops.ndof == hcurl_dofs(mesh, 5) == 6 * mesh.edges.shape[1] \
        + 24 * mesh.facets.shape[1] + 36 * mesh.t.shape[1]
    assert ops.n_free == ops.ndof - 6 * boundary_edges - 24 * boundary_faces == 3612
    level2 = CUBE.mesh(2)
    assert hcurl_dofs(level2, 5) - 6 * level2.boundary_edges().size \
        - 24 * level2.boundary_facets().size == 31848


def test_cavity_eigenvalue_gains_a_factor_per_order_on_a_fixed_mesh():
    """Cube level 1, orders 3, 4, 5: the lowest eigenvalue's error (2π², triple) falls by
    more than 20× per order (measured 36×, 50×: p-convergence); order 5 within 1e-6."""
    exact, errors = 2 * np.pi**2, []
    for order in (3, 4, 5):
        ops = hcurl_cavity_operators(CUBE.mesh(1), order)
        triple = spla.eigsh(ops.curlcurl.tocsc(), k=3, M=ops.mass.tocsc(), sigma=1.05 * exact,
                            return_eigenvectors=False)
        errors.append(np.abs(triple - exact).max() / exact)
    assert errors[0] > 20 * errors[1] > 400 * errors[2] and errors[2] < 1e-6, errors


def test_newmark_is_second_order_in_time_on_high_order_operators(order2, newmark_orders):
    orders = newmark_orders(*order2)
    assert np.all(orders >= 1.8), orders


def test_richardson_in_time_is_fourth_order(order2):
    """(4 y_{Δt/2} − y_Δt)/3 of the probe histories on a fixed output grid: error ratios ≈ 16
    per halving (Newmark alone: 4), against Newmark at Δt/64."""
    ops, load = order2
    observe = hcurl_observation_matrix(ops, probe_points(CUBE, ops.mesh, 3))
    dt, steps, material = 0.1, 30, Material(eps=1.0, mu=1.0, sigma=0.1)

    def history(substeps):
        stepper = NewmarkStepper(ops, material, dt / substeps)
        h = impulse_response(stepper, load, steps * substeps, observe)
        return convolve_subsampled(h, fine_step_loads(pulse, dt, steps, substeps), substeps)

    runs = {r: history(r) for r in (1, 2, 4, 8, 64)}
    errors = [np.linalg.norm(richardson_in_time(runs[r], runs[2 * r]) - runs[64])
              for r in (1, 2, 4)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders >= 3.6), (errors, orders)
    with pytest.raises(InputError, match="one output grid"):
        richardson_in_time(runs[1], runs[1][:-1])


@pytest.mark.parametrize("operators", ["order2", "order5"])
def test_energy_balance_holds_exactly_on_high_order_operators(operators, energy_balance,
                                                              request):
    """E_{n+1} − E_n = (Δt/4)(v_n + v_{n+1})·(g_n + g_{n+1}) − (σΔt/4)‖v_n + v_{n+1}‖²_M."""
    change, balance, scale = energy_balance(*request.getfixturevalue(operators))
    assert scale > 0
    np.testing.assert_allclose(change, balance, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("order, level", [(0, 2), (2, 2), (3, 2), (5, 1)])
def test_observation_matrix_equals_evaluating_the_grid_function(order, level):
    """P @ e equals NGSolve's own point search and evaluation of the field with free DOFs e
    (random points, not on faces, where the normal component would be two-valued)."""
    ops = hcurl_cavity_operators(CUBE.mesh(level), order)
    points = np.random.default_rng(order).uniform(0.05, 0.95, (7, 3))
    observe = hcurl_observation_matrix(ops, points)
    gf = ngsolve.GridFunction(ops.space)
    values = np.random.default_rng(10 + order).standard_normal(ops.n_free)
    gf.vec.FV().NumPy()[:] = ops.full(values)
    direct = np.array([gf(ops.space.mesh(*p)) for p in points]).ravel()
    assert observe.shape == (21, ops.n_free)
    np.testing.assert_allclose(observe @ values, direct, rtol=0, atol=1e-12 * np.abs(direct).max())


@pytest.mark.parametrize("order", [3, 5])
def test_dipole_load_quadrature_resolves_the_gaussian(monkeypatch, order):
    """b₀ for the recipe's width 0.1 on cube level 1 (cells 5× wider) changes by < 1e-5 when
    the quadrature degree rises by 8."""
    ops = hcurl_cavity_operators(CUBE.mesh(1), order)
    load = hcurl_dipole_load(ops, CENTRE, 0.1)
    monkeypatch.setattr(ngsolve_operators, "LOAD_BONUS", ngsolve_operators.LOAD_BONUS + 8)
    finer = hcurl_dipole_load(ops, CENTRE, 0.1)
    assert np.linalg.norm(finer - load) <= 1e-5 * np.linalg.norm(load)


def test_substeps_on_the_output_grid_equal_stepping(order2):
    """The impulse response on Δt = dt/4, convolved and kept every 4th step, equals stepping
    the signal on the fine grid and sampling it at t_n = n·dt; stride 1 is convolve_response."""
    ops, load = order2
    observe = hcurl_observation_matrix(ops, probe_points(CUBE, ops.mesh, 3))
    dt, steps, substeps = 0.05, 40, 4
    stepper = NewmarkStepper(ops, Material(eps=1.1, mu=1.9, sigma=0.2), dt / substeps)
    c = fine_step_loads(pulse, dt, steps, substeps)
    stepped, _ = newmark_run(stepper, steps * substeps, load_vector=load, coefficients=c,
                             observe=observe)
    h = impulse_response(stepper, load, steps * substeps, observe)
    kept = convolve_subsampled(h, c, substeps)
    assert kept.shape == (steps + 1, 9)
    assert np.abs(kept - stepped[::substeps]).max() <= 1e-12 * np.abs(stepped).max()
    np.testing.assert_allclose(convolve_subsampled(h, c, 1), convolve_response(h, c),
                               rtol=0, atol=1e-13 * np.abs(stepped).max())


@pytest.mark.parametrize("stride", [1, 2, 4])
def test_the_batched_convolution_equals_the_per_signal_one(stride, monkeypatch):
    """Five signals' step loads against one response by FFT, in chunks of two: each row
    equals convolve_subsampled of that signal to round-off (same shapes, stride and all)."""
    import surrogate.fem.time_domain_operators.cavity as cavity

    monkeypatch.setattr(cavity, "BATCH_CHUNK", 2)
    rng = np.random.default_rng(stride)
    length = 12 * stride
    h, c = rng.normal(size=(length, 6)), rng.normal(size=(5, length))
    batched = convolve_subsampled_batch(h, c, stride)
    assert batched.shape == (5, 13, 6)
    single = np.stack([convolve_subsampled(h, row, stride) for row in c])
    np.testing.assert_allclose(batched, single, rtol=0, atol=1e-13 * np.abs(single).max())
    assert np.all(batched[:, 0] == 0)
    with pytest.raises(InputError, match="multiple"):
        convolve_subsampled_batch(h, c[:, :-1], stride if stride > 1 else 5)


def test_snapshot_matrices_evaluate_the_field_in_each_tet(order2):
    """``cell_centre_matrix`` is E_h at the barycentres; ``node_matrix`` the volume-weighted
    average of each tet's own E_h at the node: the average of E_h at points moved a fraction
    δ from each vertex towards its tet's centre approaches it at first order in δ (NGSolve's
    point search cannot be asked for a vertex of a given tet; closer than δ ~ 1e-4 it picks a
    neighbour, whose normal component differs)."""
    from surrogate.fem.tet_geometry import node_average_matrix

    ops, _ = order2
    mesh = ops.mesh
    values = np.random.default_rng(3).standard_normal(ops.n_free)
    gf = ngsolve.GridFunction(ops.space)
    gf.vec.FV().NumPy()[:] = ops.full(values)
    corners = mesh.p[:, mesh.t].transpose(2, 1, 0)  # (n_cells, 4, 3)
    centres = corners.mean(axis=1)
    at_centres = np.array([gf(ops.space.mesh(*x)) for x in centres]).ravel()
    scale = np.abs(at_centres).max()
    np.testing.assert_allclose(ops.cell_centre_matrix() @ values, at_centres, rtol=0,
                               atol=1e-12 * scale)
    nodes = ops.node_matrix() @ values
    mismatch = []
    for delta in (2e-2, 1e-2):
        inside = corners + delta * (centres[:, None, :] - corners)
        near = np.array([gf(ops.space.mesh(*x)) for x in inside.reshape(-1, 3)])
        mismatch.append(np.abs(nodes - (node_average_matrix(mesh) @ near).ravel()).max())
    assert mismatch[1] < 0.02 * scale and 1.8 < mismatch[0] / mismatch[1] < 2.2


def test_fields_vanish_on_the_walls(order2):
    ops, _ = order2
    full = ops.full(np.ones(ops.n_free))
    walls = np.setdiff1d(np.arange(ops.space.ndof), ops.free)
    assert walls.size and np.all(full[walls] == 0)


@pytest.mark.parametrize("backend, order, message", [
    ("ngsolve", 7, "orders"), ("skfem", 1, "orders"), ("skfem", 5, "orders"),
    ("fenics", 0, "backend"), ("ngsolve", True, "orders")])
def test_bad_backend_or_order_is_an_input_error(backend, order, message):
    with pytest.raises(InputError, match=message):
        cavity_system(CUBE.mesh(1), order, backend, CENTRE, 0.1, np.array([CENTRE]))
    if backend == "ngsolve":
        with pytest.raises(InputError, match=r"orders \(0, 1, 2, 3, 4, 5, 6\)"):
            hcurl_cavity_operators(CUBE.mesh(1), order)


def test_bad_stride_and_shapes_are_input_errors():
    with pytest.raises(InputError, match="stride"):
        convolve_subsampled(np.zeros((4, 3)), np.zeros(4), 0)
    with pytest.raises(InputError, match="multiple"):
        convolve_subsampled(np.zeros((6, 3)), np.zeros(6), 4)
    with pytest.raises(InputError, match="substeps"):
        fine_step_loads(pulse, 0.05, 10, 0)
