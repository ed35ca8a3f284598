"""The ngsolve backend's mesh-only setup: rule points from the arrays, reuse, charged time."""

import gc

import numpy as np
import pytest

ngsolve = pytest.importorskip("ngsolve")

from surrogate.fem.domains import get_domain  # noqa: E402
from surrogate.fem.families import get_family  # noqa: E402
from surrogate.fem.hcurl.ngsolve import mesh_setup as ngsolve_setup  # noqa: E402
from surrogate.fem.hcurl.registry import fem_approximation  # noqa: E402


@pytest.mark.parametrize("order", [0, 2, 4])
def test_rule_points_from_the_arrays_are_ngsolves_own(order):
    """The points the data are sampled at equal NGSolve's interpolation of x, y, z into the
    integration-rule space (element-major order, the vertex map of ngsolve_mesh)."""
    mesh = get_domain("cube").mesh(1)
    setup = ngsolve_setup.build_setup(mesh.p.T, mesh.t.T, order)
    assert setup.volume_points.shape == (setup.samples.ndof, 3)
    gf = ngsolve.GridFunction(setup.samples)
    for j, coordinate in enumerate((ngsolve.x, ngsolve.y, ngsolve.z)):
        gf.Interpolate(coordinate)
        np.testing.assert_allclose(setup.volume_points[:, j], gf.vec.FV().NumPy(), atol=1e-14)
    boundary = ngsolve.GridFunction(setup.boundary.samples)
    boundary.Interpolate(ngsolve.x, definedon=setup.ngmesh.Boundaries(".*"))
    np.testing.assert_allclose(setup.boundary.points[:, 0], boundary.vec.FV().NumPy(),
                               atol=1e-14)
    assert setup.free_mask.sum() == setup.free.NumSet()


def test_setup_is_reused_per_mesh_object_and_charged_to_every_problem():
    radial = get_family("radial")
    first, second = (radial.problem(mu) for mu in radial.sample(2, 5))
    mesh = get_domain("cube").mesh(1)
    a = fem_approximation(mesh, first, backend="ngsolve", order=2, method="solve")
    b = fem_approximation(mesh, second, backend="ngsolve", order=2, method="solve")
    assert ngsolve_setup.mesh_setup(mesh, 2) is ngsolve_setup.mesh_setup(mesh, 2)
    assert a.timings["mesh"] == b.timings["mesh"] > 0  # the same build, charged to both
    other = get_domain("cube").mesh(1)  # equal arrays, another object: its own setup
    assert ngsolve_setup.mesh_setup(other, 2) is not ngsolve_setup.mesh_setup(mesh, 2)
    again = fem_approximation(mesh, first, backend="ngsolve", order=2, method="solve")
    np.testing.assert_allclose(again.values_at_quadrature(4), a.values_at_quadrature(4),
                               rtol=0, atol=1e-12)


def test_a_collected_mesh_never_hands_its_setup_to_a_new_one():
    ngsolve_setup._CACHE.clear()
    mesh = get_domain("cube").mesh(1)
    ngsolve_setup.mesh_setup(mesh, 1)
    del mesh
    gc.collect()
    coarse = get_domain("cube").mesh(2)  # may reuse the collected mesh's id
    setup = ngsolve_setup.mesh_setup(coarse, 1)
    assert setup.ngmesh.ne == coarse.t.shape[1]
