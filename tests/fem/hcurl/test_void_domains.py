"""The ngsolve backend on a domain with a void: the boundary in two pieces.

With the multiplier zero on the whole boundary the mixed system has a kernel (∇ψ_h, ψ_h = 1 on
the void's surface, 0 on the outer wall): ldlt-gmres diverged (residual 5e+32 on cube_void,
N0) or returned u_h off by a large gradient (L² error 1.5e+02 at order 2). The multiplier's
constant on the void's surface removes it. Here: the unit cube (level 2) minus the central cube
[0.25, 0.75]³. skfem's mixed forms still fix the multiplier on every boundary piece, so its
mixed solve refuses such a domain (SolverError) rather than return u_h off by a gradient.
"""


import numpy as np
import pytest

pytest.importorskip("ngsolve")

from surrogate.core.errors import SolverError  # noqa: E402
from surrogate.fem.domains import get_domain  # noqa: E402
from surrogate.fem.hcurl.errors import hcurl_errors  # noqa: E402
from surrogate.fem.hcurl.registry import fem_approximation  # noqa: E402
from surrogate.fem.meshes import finalize_mesh  # noqa: E402
from surrogate.fem.problems import get_problem  # noqa: E402
from surrogate.fem.tet_geometry import cavity_vertices  # noqa: E402


@pytest.fixture(scope="module")
def hollow_cube():
    """The level-2 unit cube without its central cube [0.25, 0.75]³ (48 tets removed)."""
    cube = get_domain("cube").mesh(2)
    centroids = cube.p[:, cube.t].mean(axis=1)
    inside = np.all(np.abs(centroids - 0.5) < 0.25, axis=0)
    return finalize_mesh(cube.p, cube.t[:, ~inside])


def test_cavity_vertices_find_the_void_only(hollow_cube):
    voids = cavity_vertices(hollow_cube.t.T)
    assert [len(v) for v in voids] == [26]  # the 3×3×3 grid points of the void's surface
    assert np.allclose(np.abs(hollow_cube.p[:, voids[0]] - 0.5).max(axis=0), 0.25)
    assert cavity_vertices(get_domain("cube").mesh(2).t.T) == []


def test_error_falls_with_order_on_a_domain_with_a_void(hollow_cube):
    problem = get_problem("maxwell")
    errors = [hcurl_errors(fem_approximation(hollow_cube, problem, backend="ngsolve", order=k,
                                             method="solve"), problem.u, problem.curl_u)[0]
              for k in (0, 1, 2)]
    # measured 6.1e-3, 2.0e-3, 6.6e-5 (without the void's constant: 0.41 at order 0)
    assert errors[0] < 1e-2
    assert errors[1] < errors[0] / 2
    assert errors[2] < errors[1] / 10


@pytest.mark.parametrize("order", [0, 1])
def test_skfem_mixed_solve_refuses_a_domain_with_a_void(hollow_cube, order):
    """Its multiplier is fixed on every boundary piece, which is singular on a void (u_h came
    out off by a gradient: L² error 0.4-6e5): it says so instead, as a SolverError, which
    evaluate reports as a candidate left out."""
    with pytest.raises(SolverError, match="1 void"):
        fem_approximation(hollow_cube, get_problem("maxwell"), backend="skfem", order=order,
                          method="solve", solver="direct")
