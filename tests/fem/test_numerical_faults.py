"""Numerical faults are reported, not solved to garbage: degenerate and inverted meshes
(InputError before assembly), singular direct solves and iterative solves that miss their
tolerance or meet non-finite data (SolverError with iterations and residual)."""

import re

import numpy as np
import pytest
from skfem import Basis, BilinearForm, ElementTetN0, ElementTetP1, MeshTet
from skfem.helpers import curl, dot, grad

import surrogate.fem.hcurl.skfem.n0 as n0
from surrogate.core.errors import InputError, SolverError
from surrogate.fem.domains import domain_names, get_domain
from surrogate.fem.hcurl.solvers import solve_hcurl_spd, solve_maxwell_saddle
from surrogate.fem.mesh_quality import (
    MIN_RELATIVE_VOLUME,
    check_mesh,
    overlapping_faces,
    relative_volumes,
)
from surrogate.fem.problems import get_problem


def _cube(n: int) -> MeshTet:
    return MeshTet.init_tensor(*[np.linspace(0.0, 1.0, n + 1)] * 3)


def _centre_node(mesh: MeshTet) -> int:
    return int(np.argmin(np.linalg.norm(mesh.p - 0.5, axis=0)))


def _with_node_at(mesh: MeshTet, node: int, where: np.ndarray) -> MeshTet:
    p = mesh.p.copy()
    p[:, node] = where
    return MeshTet(p, mesh.t.copy())


def _opposite_face(mesh: MeshTet, node: int) -> tuple[int, np.ndarray]:
    """A tet around ``node`` and the three nodes of its face opposite ``node``."""
    tet = int(np.flatnonzero((mesh.t == node).any(axis=0))[0])
    return tet, np.array([v for v in mesh.t[:, tet] if v != node])


@BilinearForm
def _curlcurl(u, v, w):
    return dot(curl(u), curl(v))


@BilinearForm
def _curlcurl_mass(u, v, w):
    return dot(curl(u), curl(v)) + dot(u, v)


@pytest.fixture
def no_assembly(monkeypatch):
    """Fail if the N0 routines get as far as building a basis."""
    def refuse(*args, **kwargs):
        raise AssertionError("assembly started on a bad mesh")

    monkeypatch.setattr(n0, "Basis", refuse)


@pytest.mark.parametrize("name", domain_names())
def test_every_domain_mesh_passes_the_check_with_margin(name):
    for level in (1, 2):
        mesh = get_domain(name).mesh(level)
        check_mesh(mesh)
        assert np.abs(relative_volumes(mesh.p, mesh.t)).min() > 0.02 > MIN_RELATIVE_VOLUME
        assert overlapping_faces(mesh).size == 0


@pytest.mark.parametrize("method", [n0.best_approximation, n0.solve_maxwell])
@pytest.mark.parametrize("squash", [0.0, 1e-10])
def test_flat_tet_is_refused_before_assembly(method, squash, no_assembly):
    mesh = _cube(2)
    node = _centre_node(mesh)
    tet, face = _opposite_face(mesh, node)
    a, b, c = mesh.p[:, face].T
    normal = np.cross(b - a, c - a)
    normal /= np.linalg.norm(normal)
    # move the node onto (or to within squash·h of) the plane of its opposite face
    x = mesh.p[:, node]
    target = x - np.dot(x - a, normal) * normal + squash * normal
    bad = _with_node_at(mesh, node, target)
    with pytest.raises(InputError, match=r"degenerate tetrahedra .*e\.g\. tet \d+"):
        method(bad, get_problem("maxwell"))
    assert abs(relative_volumes(bad.p, bad.t)[tet]) <= MIN_RELATIVE_VOLUME


@pytest.mark.parametrize("method", [n0.best_approximation, n0.solve_maxwell])
def test_inverted_tet_is_refused_before_assembly(method, no_assembly):
    mesh = _cube(2)
    node = _centre_node(mesh)
    tet, face = _opposite_face(mesh, node)
    a, b, c = mesh.p[:, face].T
    normal = np.cross(b - a, c - a)
    x = mesh.p[:, node]
    mirrored = x - 2.0 * np.dot(x - a, normal) / np.dot(normal, normal) * normal
    bad = _with_node_at(mesh, node, mirrored)  # pushed through the face: volumes stay large
    assert np.abs(relative_volumes(bad.p, bad.t)).min() > MIN_RELATIVE_VOLUME
    with pytest.raises(InputError, match=r"inverted tets"):
        method(bad, get_problem("maxwell"))


def test_node_order_of_the_tets_does_not_matter():
    """Reversing the orientation of half the tets is no inversion: same check, same u_h."""
    mesh = _cube(2)
    t = mesh.t.copy()
    t[2, ::2], t[3, ::2] = mesh.t[3, ::2], mesh.t[2, ::2]
    flipped = MeshTet(mesh.p.copy(), t)
    assert (relative_volumes(flipped.p, flipped.t) < 0).sum() == t.shape[1] // 2
    check_mesh(flipped)
    problem = get_problem("maxwell")
    a = n0.best_approximation(mesh, problem).dofs
    b = n0.best_approximation(flipped, problem).dofs
    assert np.abs(a - b).max() < 1e-12 * np.abs(a).max()


def test_non_finite_node_is_refused():
    mesh = _cube(1)
    bad = _with_node_at(mesh, 3, np.array([np.nan, 0.0, 0.0]))
    with pytest.raises(InputError, match="non-finite coordinates .*node 3"):
        check_mesh(bad)


def test_singular_direct_solve_is_an_error_not_nan():
    """curl–curl alone vanishes on gradients: singular without the mass term."""
    mesh = _cube(3)
    basis = Basis(mesh, ElementTetN0())
    rhs = np.random.default_rng(0).standard_normal(basis.N)
    with pytest.raises(SolverError, match=rf"{basis.N}-unknown N0 system.*singular"):
        solve_hcurl_spd(_curlcurl.assemble(basis), rhs, basis, solver="direct")
    x, info = solve_hcurl_spd(_curlcurl_mass.assemble(basis), rhs, basis, solver="direct")
    assert np.isfinite(x).all() and info.residual < 1e-12


@pytest.mark.parametrize("solver", ["direct", "iterative"])
def test_non_finite_right_hand_side_is_an_error(solver):
    mesh = _cube(3)
    basis = Basis(mesh, ElementTetN0())
    rhs = np.ones(basis.N)
    rhs[5] = np.nan
    with pytest.raises(SolverError, match="non-finite entries in its right-hand side"):
        solve_hcurl_spd(_curlcurl_mass.assemble(basis), rhs, basis, solver=solver)


def test_cg_that_misses_rtol_reports_iterations_and_the_true_residual():
    mesh = _cube(4)
    basis = Basis(mesh, ElementTetN0())
    A = _curlcurl_mass.assemble(basis)
    rhs = np.random.default_rng(1).standard_normal(basis.N)
    with pytest.raises(SolverError) as info:
        solve_hcurl_spd(A, rhs, basis, solver="iterative", rtol=1e-12, maxiter=3)
    match = re.search(r"CG did not converge in (\d+) iterations: relative residual (\S+) > "
                      r"rtol (\S+)", str(info.value))
    assert match, str(info.value)
    assert int(match.group(1)) == 3
    assert float(match.group(2)) > 1e-12


def test_minres_that_misses_rtol_reports_iterations_and_residual():
    mesh = _cube(3)
    bu, bp = Basis(mesh, ElementTetN0()), Basis(mesh, ElementTetP1())
    A = _curlcurl.assemble(bu)
    B = BilinearForm(lambda u, q, w: dot(u, grad(q))).assemble(bu, bp)
    f_u = np.random.default_rng(2).standard_normal(bu.N)
    free_u = bu.complement_dofs(bu.get_dofs())
    free_p = bp.complement_dofs(bp.get_dofs())
    with pytest.raises(SolverError, match=r"MINRES did not converge in 2 iterations: "
                                          r"relative residual \S+ > rtol"):
        solve_maxwell_saddle(A, B, f_u, np.zeros(bp.N), bu, bp, free_u=free_u, free_p=free_p,
                             solver="iterative", maxiter=2)
    _, _, info = solve_maxwell_saddle(A, B, f_u, np.zeros(bp.N), bu, bp, free_u=free_u,
                                      free_p=free_p, solver="direct")
    assert info.residual < 1e-10  # the same system with boundary conditions is regular
