"""Tests for fem/hcurl/solvers.py: CG + Hiptmair–Xu, block MINRES, discrete operators, auto
choice."""

import numpy as np
import pytest
import scipy.sparse as sp
from skfem import Basis, BilinearForm, ElementTetN0, ElementTetP1, MeshTet
from skfem.helpers import curl, dot, grad

from surrogate.core.errors import SolverError
from surrogate.fem.hcurl.discrete_operators import discrete_gradient, nodal_interpolation
from surrogate.fem.hcurl.solvers import solve_hcurl_spd, solve_maxwell_saddle


def _cube(n):
    return MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)


@BilinearForm
def _curlcurl_mass(u, v, w):
    return dot(curl(u), curl(v)) + dot(u, v)


@BilinearForm
def _phi_curlcurl(u, v, w):
    phi = 0.5 * (w.x[0] ** 2 + w.x[1] ** 2 + 1)
    return phi * dot(curl(u), curl(v))


@BilinearForm
def _coupling(u, q, w):
    return dot(u, grad(q))


def _spd_system(n):
    m = _cube(n)
    b = Basis(m, ElementTetN0())
    A = _curlcurl_mass.assemble(b)
    rhs = np.random.default_rng(0).standard_normal(b.N)
    return m, b, A, rhs


def test_discrete_gradient_is_n0_interpolant_of_grad():
    m = _cube(3)
    bn, bp = Basis(m, ElementTetN0()), Basis(m, ElementTetP1())
    p = np.random.default_rng(1).standard_normal(bp.N)
    err = bn.interpolate(discrete_gradient(m) @ p) - bp.interpolate(p).grad
    assert np.abs(err).max() < 1e-12


def test_nodal_interpolation_reproduces_n0_fields():
    """Π v for P1 v = a + b × x (which lies in N0) is its own N0 interpolant, so equals v."""
    m = _cube(3)
    bn = Basis(m, ElementTetN0())
    M = np.array([[0.0, -2.0, 1.5], [2.0, 0.0, -0.7], [-1.5, 0.7, 0.0]])  # b × x, skew
    c = np.array([0.3, -1.0, 2.0])
    v = M @ m.p + c[:, None]  # linear vector field at nodes (3, nn)
    u = bn.interpolate(nodal_interpolation(m) @ v.T.ravel())
    x = bn.global_coordinates()
    exact = np.einsum("ij,jkl->ikl", M, x) + c[:, None, None]
    assert np.abs(u - exact).max() < 1e-12


def test_cg_hx_matches_direct():
    m, b, A, rhs = _spd_system(6)
    free = b.complement_dofs(b.get_dofs())
    x0 = np.random.default_rng(2).standard_normal(b.N)
    xd, infod = solve_hcurl_spd(A, rhs, b, x0=x0, free=free, solver="direct")
    xi, info = solve_hcurl_spd(A, rhs, b, x0=x0, free=free, solver="iterative", rtol=1e-10)
    assert info.method == "cg-hx" and infod.method == "direct"
    assert info.residual < 1e-9
    assert np.linalg.norm(xi - xd) / np.linalg.norm(xd) < 1e-6


def test_cg_hx_iterations_flat():
    its = [solve_hcurl_spd(*_spd_system(n)[2:], _spd_system(n)[1], solver="iterative",
                           rtol=1e-8)[1].iterations for n in (4, 8, 16)]
    assert its[2] <= 1.5 * its[0] + 2, its


def test_auto_picks_direct_below_limit_and_maxiter_raises():
    m, b, A, rhs = _spd_system(3)
    assert solve_hcurl_spd(A, rhs, b)[1].method == "direct"
    with pytest.raises(SolverError):
        solve_hcurl_spd(A, rhs, b, solver="iterative", maxiter=1)


def test_minres_block_matches_direct():
    m = _cube(5)
    bu, bp = Basis(m, ElementTetN0()), Basis(m, ElementTetP1())
    A = _phi_curlcurl.assemble(bu)
    B = sp.csr_matrix(_coupling.assemble(bu, bp))
    rng = np.random.default_rng(3)
    fu, fp = rng.standard_normal(bu.N), np.zeros(bp.N)
    free_u = bu.complement_dofs(bu.get_dofs())
    free_p = bp.complement_dofs(bp.get_dofs())
    kw = dict(free_u=free_u, free_p=free_p)
    ud, pd, _ = solve_maxwell_saddle(A, B, fu, fp, bu, bp, solver="direct", **kw)
    ui, pi, info = solve_maxwell_saddle(A, B, fu, fp, bu, bp, solver="iterative", **kw)
    assert info.method == "minres-block" and info.residual < 1e-8
    assert np.linalg.norm(ui - ud) / np.linalg.norm(ud) < 1e-6
    assert np.linalg.norm(pi - pd) / max(np.linalg.norm(pd), 1e-300) < 1e-6


@pytest.mark.parametrize("order", [0, 1])
def test_the_cubes_six_tets_solve_iteratively_as_directly(order):
    """Level 0 has no interior node: the auxiliary AMG spaces are empty and drop out."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.hcurl.registry import fem_approximation
    from surrogate.fem.problems import get_problem

    mesh, problem = get_domain("cube").mesh(0), get_problem("maxwell")
    iterative = fem_approximation(mesh, problem, order=order, method="solve",
                                  solver="iterative")
    direct = fem_approximation(mesh, problem, order=order, method="solve", solver="direct")
    np.testing.assert_allclose(iterative.values_at_quadrature(4),
                               direct.values_at_quadrature(4), atol=1e-10)
