"""The problems' numpy functions as NGSolve coefficients: L² projections of high order.

φ, f (volume) and the boundary data g (on ∂Ω) are numpy functions of points. Each is
evaluated by the toolkit at the points of an NGSolve integration rule of degree 2p
(``IntegrationRuleSpace``: the points come from interpolating x, y, z there, no Python loop)
and L²-projected onto discontinuous polynomials of degree p per tet (``L2``, a block-diagonal
mass matrix) or per boundary triangle (``SurfaceL2``), one component at a time. A polynomial
of degree ≤ p is reproduced exactly (the agreement test relies on it); a smooth function is
approximated to O(h^{p+1}), with p = order + 2 one power of h beyond the O(h^{order+1}) L²
error of the space, so the data do not limit the observed rates. A discontinuous φ
(``inclusion``) is averaged per tet as skfem's quadrature samples it: both see the same
unresolved interface.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def data_degree(order: int) -> int:
    """Polynomial degree p of the projected data for a space of ``order``: order + 2."""
    return int(order) + 2


def volume_coefficient(mesh: Any, fn, degree: int) -> Any:
    """``fn`` (points (N, 3) -> (N,) or (N, 3)) as a coefficient on ``mesh``: its L²
    projection onto piecewise polynomials of ``degree`` (scalar or 3-vector)."""
    import ngsolve

    space = ngsolve.comp.IntegrationRuleSpace(mesh, order=2 * degree, dim=1)
    target = ngsolve.L2(mesh, order=degree)
    mass_inverse = target.Mass(1).Inverse()
    return _project(space, target, mass_inverse, fn, ngsolve.dx, None)


def boundary_coefficient(mesh: Any, fn, degree: int) -> Any:
    """``fn`` as a coefficient on the boundary of ``mesh``: its L² projection onto
    piecewise polynomials of ``degree`` on the boundary triangles (3-vector)."""
    import ngsolve

    where = mesh.Boundaries(".*")
    space = ngsolve.comp.IntegrationRuleSpaceSurface(mesh, order=2 * degree, dim=1,
                                                     definedon=where)
    target = ngsolve.SurfaceL2(mesh, order=degree)
    u, v = target.TnT()
    mass = ngsolve.BilinearForm(u * v * ngsolve.ds).Assemble()
    mass_inverse = mass.mat.Inverse(target.FreeDofs(), inverse="sparsecholesky")
    return _project(space, target, mass_inverse, fn, ngsolve.ds, where)


def _project(space, target, mass_inverse, fn, measure, where) -> Any:
    """Evaluate ``fn`` at the points of ``space`` and project each component onto
    ``target``; a scalar coefficient for a scalar function, else a 3-vector one."""
    import ngsolve

    coordinates = []
    for c in (ngsolve.x, ngsolve.y, ngsolve.z):
        gf = ngsolve.GridFunction(space)
        if where is None:
            gf.Interpolate(c)
        else:
            gf.Interpolate(c, definedon=where)
        coordinates.append(gf.vec.FV().NumPy().copy())
    points = np.stack(coordinates, axis=1)
    values = np.asarray(fn(points), dtype=np.float64).reshape(len(points), -1)
    rules = space.GetIntegrationRules()
    sampled = ngsolve.GridFunction(space)
    v = target.TestFunction()
    components = []
    for j in range(values.shape[1]):
        sampled.vec.FV().NumPy()[:] = values[:, j]
        rhs = ngsolve.LinearForm(sampled * v * measure(intrules=rules)).Assemble()
        out = ngsolve.GridFunction(target)
        out.vec.data = mass_inverse * rhs.vec
        components.append(out)
    return components[0] if len(components) == 1 else ngsolve.CF(tuple(components))


__all__ = ["data_degree", "volume_coefficient", "boundary_coefficient"]
