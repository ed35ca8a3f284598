"""The problems' numpy functions as NGSolve coefficients, evaluated once per point.

φ and f (volume) are evaluated by the toolkit at the points of the integration rule the
forms use (:class:`~surrogate.fem.hcurl.ngsolve.mesh_setup.MeshSetup`: NGSolve's rule of degree
2·order + 2, points from the arrays) and enter the forms as ``IntegrationRuleSpace``
coefficients integrated with that same rule (``intrules``): the quadrature skfem does, with
no projection. The boundary data g are evaluated at the points of a boundary rule of degree
2p and L²-projected onto discontinuous polynomials of degree p = order + 2 on the boundary
triangles (``SurfaceL2``), one component at a time, since ``Set(g, BND)`` evaluates g on
edges and faces at points of its own. A polynomial φ of degree ≤ 4, f of degree ≤ order + 2
and g of degree ≤ p are integrated or reproduced exactly (the agreement test relies on it).
A discontinuous φ (``inclusion``) is sampled at the quadrature points as skfem samples it:
both see the same unresolved interface.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def sampled(values: np.ndarray, space: Any) -> Any:
    """Values (M,) or (M, 3) at the points of ``space`` (an integration-rule space) as a
    scalar or 3-vector coefficient."""
    import ngsolve

    values = np.asarray(values, dtype=np.float64).reshape(space.ndof, -1)
    components = []
    for j in range(values.shape[1]):
        gf = ngsolve.GridFunction(space)
        gf.vec.FV().NumPy()[:] = values[:, j]
        components.append(gf)
    return components[0] if len(components) == 1 else ngsolve.CF(tuple(components))


def volume_coefficient(setup: Any, fn) -> Any:
    """``fn`` (points (N, 3) -> (N,) or (N, 3)) at the volume rule's points of ``setup``,
    as a coefficient valid in forms integrated with ``setup.rules``."""
    return sampled(fn(setup.volume_points), setup.samples)


def boundary_coefficient(setup: Any, fn) -> Any:
    """``fn`` as a coefficient on the boundary: its L² projection onto piecewise polynomials
    of degree p on the boundary triangles (3-vector)."""
    import ngsolve

    projection = setup.boundary
    values = np.asarray(fn(projection.points), dtype=np.float64).reshape(
        len(projection.points), -1)
    rules = projection.samples.GetIntegrationRules()
    v = projection.target.TestFunction()
    gf = ngsolve.GridFunction(projection.samples)
    components = []
    for j in range(values.shape[1]):
        gf.vec.FV().NumPy()[:] = values[:, j]
        rhs = ngsolve.LinearForm(gf * v * ngsolve.ds(intrules=rules)).Assemble()
        out = ngsolve.GridFunction(projection.target)
        out.vec.data = projection.mass_inverse * rhs.vec
        components.append(out)
    return components[0] if len(components) == 1 else ngsolve.CF(tuple(components))


__all__ = ["boundary_coefficient", "sampled", "volume_coefficient"]
