"""Tests for fem/point_evaluation.py: point location and N0 evaluation against skfem."""

import numpy as np
import pytest
from skfem import Basis, ElementTetN0, ElementTetP1

import surrogate.fem.point_evaluation as pe
from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.point_evaluation import evaluate_n0, evaluate_n0_curl, locate_points

TOL = 1e-10


def _barycentric(mesh, points, cells):
    """Barycentric coordinates (N, 4) of points (N, 3) in tets ``cells`` (N,)."""
    corners = mesh.p[:, mesh.t[:, cells]].transpose(2, 0, 1)  # (N, 3, 4)
    lam = np.linalg.solve(
        np.concatenate([corners, np.ones((len(cells), 1, 4))], axis=1),
        np.concatenate([points, np.ones((len(points), 1))], axis=1)[:, :, None],
    )
    return lam[:, :, 0]


def _brute_force_contains(mesh, points):
    """Boolean (N,): is each point in some tet (every barycentric coordinate ≥ −TOL)?"""
    n, m = len(points), mesh.t.shape[1]
    lam = _barycentric(mesh, np.repeat(points, m, axis=0), np.tile(np.arange(m), n))
    return (lam.min(axis=1) >= -TOL).reshape(n, m).any(axis=1)


def _mixed_points(domain, mesh, rng, n=400):
    """Domain samples, mesh vertices, edge midpoints, and points well outside the mesh."""
    lo, hi = domain.bounds[:, 0], domain.bounds[:, 1]
    return np.concatenate([
        domain.sample(n, rng),
        mesh.p.T[rng.choice(mesh.p.shape[1], 40)],
        mesh.p[:, mesh.edges].mean(axis=1).T[:40],
        lo - 0.2 + (hi - lo + 0.4) * rng.random((100, 3)),
    ])


@pytest.mark.parametrize("name", ["cylinder", "ball", "l-prism", "shell"])
def test_located_cells_contain_the_points_and_misses_are_outside(name):
    d = get_domain(name)
    mesh = d.mesh(1)
    x = _mixed_points(d, mesh, np.random.default_rng(2))
    cells = locate_points(mesh, x)
    assert cells.dtype == np.int64 and cells.shape == (len(x),)
    found = cells >= 0
    lam = _barycentric(mesh, x[found], cells[found])
    assert lam.min() >= -TOL and lam.max() <= 1 + TOL
    assert np.array_equal(found, _brute_force_contains(mesh, x))
    assert found.sum() > 400 and (~found).sum() > 10


def test_exact_fallback_finds_what_few_candidates_miss(monkeypatch):
    d = get_domain("ball")
    mesh = d.mesh(2)
    x = _mixed_points(d, mesh, np.random.default_rng(3))
    expected = locate_points(mesh, x)
    monkeypatch.setattr(pe, "FIRST_K", 1)
    monkeypatch.setattr(pe, "SECOND_K", 2)
    monkeypatch.setattr(pe, "CHUNK", 97)
    cells = pe.PointLocator(mesh).locate(x)[0]
    found = cells >= 0
    assert np.array_equal(found, expected >= 0)
    lam = _barycentric(mesh, x[found], cells[found])
    assert lam.min() >= -TOL


@pytest.fixture(scope="module")
def cylinder_basis():
    return Basis(get_domain("cylinder").mesh(2), ElementTetN0())


def test_values_agree_with_skfem_probes(cylinder_basis):
    b = cylinder_basis
    rng = np.random.default_rng(4)
    x = get_domain("cylinder").sample(500, rng)
    x = x[locate_points(b.mesh, x) >= 0]
    dofs = rng.standard_normal(b.N)
    probes = (b.probes(x.T) @ dofs).reshape(3, -1).T
    np.testing.assert_allclose(evaluate_n0(b, dofs, x), probes, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["cube", "ball"])
def test_values_and_curl_agree_with_skfem_interpolate(name):
    b = Basis(get_domain(name).mesh(2), ElementTetN0(), intorder=2)
    dofs = np.random.default_rng(5).standard_normal(b.N)
    field = b.interpolate(dofs)
    x = b.mapping.F(b.X).reshape(3, -1).T  # quadrature points, element-major
    value = np.asarray(field).reshape(3, -1).T
    curl = field.curl.reshape(3, -1).T
    np.testing.assert_allclose(evaluate_n0(b, dofs, x), value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(evaluate_n0_curl(b, dofs, x), curl, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["ball", "shell"])
def test_fields_in_n0_are_reproduced_exactly(name):
    """u = a + b × x lies in N0: its interpolant (DOF = ∫_e u·t ds) is u itself, curl u = 2b."""
    d = get_domain(name)
    basis = Basis(d.mesh(2), ElementTetN0())
    mesh = basis.mesh
    a, bvec = np.array([0.3, -1.2, 0.7]), np.array([1.1, 0.4, -0.9])

    def u(x):
        return a + np.cross(bvec, x)

    tangent = (mesh.p[:, mesh.edges[1]] - mesh.p[:, mesh.edges[0]]).T
    midpoint = mesh.p[:, mesh.edges].mean(axis=1).T
    x = d.sample(2000, np.random.default_rng(6))
    for field, curl in ((lambda x: np.broadcast_to(a, x.shape), np.zeros(3)), (u, 2 * bvec)):
        dofs = np.einsum("ij,ij->i", field(midpoint), tangent)  # exact: u·t is linear on e
        got = evaluate_n0(basis, dofs, x, outside="nan")
        inside = ~np.isnan(got[:, 0])
        assert inside.mean() > 0.9
        np.testing.assert_allclose(got[inside], field(x[inside]), rtol=0, atol=1e-12)
        got_curl = evaluate_n0_curl(basis, dofs, x[inside])
        np.testing.assert_allclose(got_curl, np.broadcast_to(curl, got_curl.shape), atol=1e-12)
        # outside the inscribed mesh, the nearest tet's polynomial is the same global field
        extra = evaluate_n0(basis, dofs, x, outside="extrapolate")
        np.testing.assert_allclose(extra, field(x), rtol=0, atol=1e-12)


def test_outside_modes(cylinder_basis):
    b = cylinder_basis
    dofs = np.random.default_rng(7).standard_normal(b.N)
    x = np.array([[0.1, 0.2, 0.3], [5.0, 0.0, 0.5], [0.0, 0.0, -3.0], [0.0, -0.3, 0.9]])
    with pytest.raises(InputError, match="2 of 4 points lie outside the mesh"):
        evaluate_n0(b, dofs, x)
    with pytest.raises(InputError, match="2 of 4 points"):
        evaluate_n0_curl(b, dofs, x, outside="error")
    for fun in (evaluate_n0, evaluate_n0_curl):
        got = fun(b, dofs, x, outside="nan")
        assert np.isnan(got[[1, 2]]).all() and np.isfinite(got[[0, 3]]).all()
        np.testing.assert_array_equal(got[[0, 3]], fun(b, dofs, x[[0, 3]]))
        assert np.isfinite(fun(b, dofs, x, outside="extrapolate")).all()


def test_bad_inputs_raise(cylinder_basis):
    b = cylinder_basis
    dofs = np.zeros(b.N)
    x = np.array([[0.1, 0.2, 0.3]])
    with pytest.raises(InputError, match=r"\(N, 3\)"):
        evaluate_n0(b, dofs, x[:, :2])
    with pytest.raises(InputError, match="finite"):
        evaluate_n0(b, dofs, np.array([[np.nan, 0.0, 0.5]]))
    with pytest.raises(InputError, match="dofs must have shape"):
        evaluate_n0(b, dofs[:-1], x)
    with pytest.raises(InputError, match="outside"):
        evaluate_n0(b, dofs, x, outside="clip")
    with pytest.raises(InputError, match="ElementTetN0"):
        evaluate_n0(Basis(b.mesh, ElementTetP1()), np.zeros(b.mesh.p.shape[1]), x)
    with pytest.raises(InputError, match="MeshTet"):
        locate_points(np.zeros((3, 4)), x)
    assert evaluate_n0(b, dofs, np.zeros((0, 3))).shape == (0, 3)
    assert locate_points(b.mesh, np.zeros((0, 3))).shape == (0,)
