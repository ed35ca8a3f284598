"""What the ngsolve backend builds from a mesh alone, once per (mesh, order), and reuses.

A :class:`MeshSetup` holds the problem-independent part of a solve on one skfem mesh: the
NGSolve mesh (:func:`~surrogate.fem.hcurl.ngsolve.mesh.ngsolve_mesh`), the spaces
HCurl_k × H1_{k+1}, the integration rule at whose points the volume data are sampled
(``IntegrationRuleSpace`` of order k + 1: NGSolve's rule of degree 2k + 2), those points in
physical coordinates (computed from the arrays, no interpolation), and the boundary
projection's space, mass inverse and points. :func:`mesh_setup` builds it once per (mesh,
order) and hands it back for every later problem on the same mesh object; the seconds the
build took are kept in ``seconds`` and charged to every problem solved with it, so a solve's
timed span stays "mesh → u_h" per problem (reuse saves evaluation wall time, never reported
time). The cache holds a few entries and checks that the mesh object is still alive (a weak
reference), so a recycled ``id`` never picks a stale setup. :func:`setup_on` builds the same
set-up on any NGSolve mesh (a fitted, curved one: :mod:`surrogate.fem.fitted`), its rule points
mapped by NGSolve's own (curved) element maps.

A domain with voids (a boundary in several pieces) has, besides the wall's Dirichlet DOFs,
one unknown constant per void in the multiplier: λ, q ∈ {q ∈ H¹: q = 0 on the outer wall,
q = const on each void's surface}. With q = 0 on the whole boundary the discrete system has a
kernel (∇ψ_h, ψ_h = 1 on a void's surface, 0 on the wall, discrete harmonic: curl-free, zero
tangential trace, orthogonal to every ∇q), and the solve is singular: u_h is then off by an
arbitrary gradient. Each constant enters as a ``NumberSpace`` factor c ψ_i, ψ_i the P1 hat sum
of the void's surface vertices (``cavities``).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CACHE_SIZE = 32  # (mesh, order) pairs: a family evaluation cycles through levels × orders
MAX_RULE_ORDER = 5


def volume_rule_order(order: int) -> int:
    """Order o of the ``IntegrationRuleSpace`` the volume data are sampled on (NGSolve's rule
    of degree 2o): o = order + 1, so φ curl u·curl v (degree 2·order − 2 + deg φ) and f·v
    (order + deg f) are exact for φ, f of degree ≤ 4 and ≤ order + 2, and the quadrature
    error O(h^{2·order+3}) stays below the O(h^{order+1}) L² error. At most 5 (order 4):
    NGSolve 6.2 crashes assembling with an ``IntegrationRuleSpace`` rule of order 6 (343
    points per tet)."""
    return min(int(order) + 1, MAX_RULE_ORDER)


def boundary_degree(order: int) -> int:
    """Polynomial degree p of the boundary data's L² projection on the boundary triangles:
    order + 2 (a polynomial g of degree ≤ p is reproduced exactly; order + 1 changed the
    radial problems' L² errors on cube level 1 by up to 2 %, order + 2 leaves them as a
    projection of degree order + 4 does)."""
    return int(order) + 2


@dataclass
class BoundaryProjection:
    """L² projection onto discontinuous polynomials of degree p on the boundary triangles:
    the sampling space (rule of degree 2p), the target space, its (diagonal) mass inverse
    and the sampling points (m, 3)."""

    samples: Any = field(repr=False)
    target: Any = field(repr=False)
    mass_inverse: Any = field(repr=False)
    points: np.ndarray = field(repr=False)


@dataclass
class MeshSetup:
    """The problem-independent objects of a solve of ``order`` on one mesh (module
    docstring); ``free``/``free_mask``: the condensed system's unknowns (free, not
    condensed) as NGSolve's BitArray and a boolean array; ``seconds``: what building them
    took; ``cavities``: ψ_i (P1 GridFunctions, 1 on void i's surface) of the multiplier's
    extra constants, one ``NumberSpace`` factor of ``space`` each (module docstring)."""

    ngmesh: Any = field(repr=False)
    space: Any = field(repr=False)
    hcurl_ndof: int
    samples: Any = field(repr=False)
    rules: Any = field(repr=False)
    volume_points: np.ndarray = field(repr=False)
    boundary: BoundaryProjection = field(repr=False)
    free: Any = field(repr=False)
    free_mask: np.ndarray = field(repr=False)
    seconds: float = 0.0
    cavities: tuple = field(default=(), repr=False)


_CACHE: OrderedDict[tuple[int, int], tuple[Any, MeshSetup]] = OrderedDict()
_WARM: list[bool] = []


def mesh_setup(mesh: Any, order: int) -> MeshSetup:
    """The :class:`MeshSetup` of the skfem ``mesh`` for ``order``: cached, else built."""
    key = (id(mesh), int(order))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is mesh:
        _CACHE.move_to_end(key)
        return hit[1]
    if not _WARM:  # NGSolve's first build pays lazy initialisation: keep it out of seconds
        build_setup(np.vstack([np.zeros(3), np.eye(3)]), np.array([[0, 1, 2, 3]]), 0)
        _WARM.append(True)
    setup = build_setup(mesh.p.T, mesh.t.T, int(order))
    _CACHE[key] = (weakref.ref(mesh), setup)
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return setup


def build_setup(points: np.ndarray, tets: np.ndarray, order: int) -> MeshSetup:
    """Build the :class:`MeshSetup` of the tetrahedra ``tets`` (m, 4) over ``points`` (n, 3)."""
    from surrogate.fem.hcurl.ngsolve.mesh import ngsolve_mesh
    from surrogate.fem.tet_geometry import cavity_vertices

    start = time.perf_counter()
    return setup_on(ngsolve_mesh(points, tets), order, start=start,
                    rule_points=lambda reference: tet_rule_points(points, tets, reference),
                    cavities=cavity_vertices(tets))


def setup_on(ngmesh: Any, order: int, *, wall: str = ".*", rule_points=None,
             start: float | None = None, cavities=()) -> MeshSetup:
    """The :class:`MeshSetup` of an NGSolve mesh: Dirichlet DOFs on the boundaries ``wall``
    (a regex), the volume rule's points by ``rule_points(reference (q, 3)) -> (m·q, 3)`` (None:
    NGSolve's own element map, which follows curved elements; the boundary mass is then
    inverted exactly), one multiplier constant per array of vertex numbers in ``cavities``
    (a void's surface; module docstring). ``seconds`` counts from ``start`` (default: now)."""
    import ngsolve

    start = time.perf_counter() if start is None else start
    hcurl = ngsolve.HCurl(ngmesh, order=order, dirichlet=wall)
    space = hcurl * ngsolve.H1(ngmesh, order=order + 1, dirichlet=wall)
    indicators = tuple(void_indicator(ngmesh, vertices) for vertices in cavities)
    for _ in indicators:
        space = space * ngsolve.NumberSpace(ngmesh)
    samples = ngsolve.comp.IntegrationRuleSpace(ngmesh, order=volume_rule_order(order), dim=1)
    rules = samples.GetIntegrationRules()
    reference = np.asarray(rules[ngsolve.TET].points, dtype=np.float64)  # (q, 3)
    points = mapped_points(ngmesh, reference, 0) if rule_points is None \
        else rule_points(reference)
    boundary = boundary_projection(ngmesh, boundary_degree(order), exact=rule_points is None)
    free = space.FreeDofs(True)  # free and not condensed: the unknowns of the solve
    return MeshSetup(ngmesh, space, int(hcurl.ndof), samples, rules, points, boundary, free,
                     bit_mask(free), time.perf_counter() - start, indicators)


def void_indicator(ngmesh: Any, vertices: np.ndarray) -> Any:
    """ψ: the P1 GridFunction that is 1 at ``vertices`` (a void's surface) and 0 at every
    other vertex (NGSolve's P1 DOFs are the vertices in mesh order)."""
    import ngsolve

    psi = ngsolve.GridFunction(ngsolve.H1(ngmesh, order=1))
    psi.vec.FV().NumPy()[np.asarray(vertices, dtype=np.int64)] = 1.0
    return psi


def mapped_points(ngmesh: Any, reference: np.ndarray, codim: int) -> np.ndarray:
    """Physical points (n·q, 3), element-major, of the reference points ``reference`` (q, ≥ 2)
    in every volume (``codim`` 0) or boundary (1) element, by NGSolve's element map (curved
    elements included), in one call."""
    import ngsolve

    mips = reference_mesh_points(ngmesh, reference, codim)
    return np.asarray(ngsolve.CF((ngsolve.x, ngsolve.y, ngsolve.z))(mips)).reshape(-1, 3)


def reference_mesh_points(ngmesh: Any, reference: np.ndarray, codim: int) -> np.ndarray:
    """NGSolve's mesh-point array of ``reference`` (q, ≥ 2) in every volume (``codim`` 0) or
    boundary (1) element, element-major: evaluate a coefficient there in one call."""
    import ngsolve

    q = len(reference)
    n = ngmesh.ne if codim == 0 else ngmesh.GetNE(ngsolve.BND)
    mips = np.repeat(ngmesh(np.zeros(1), np.zeros(1), np.zeros(1)), n * q)
    mips["VorB"] = codim
    mips["nr"] = np.repeat(np.arange(n, dtype=np.int32), q)
    mips["x"] = np.tile(reference[:, 0], n)
    mips["y"] = np.tile(reference[:, 1], n)
    mips["z"] = np.tile(reference[:, 2], n) if codim == 0 else 0.0
    return mips


def bit_mask(bits: Any) -> np.ndarray:
    """NGSolve's BitArray as a boolean array, through a projector (no loop over bits)."""
    import ngsolve

    ones = ngsolve.BaseVector(len(bits))
    ones.FV().NumPy()[:] = 1.0
    kept = ones.CreateVector()
    kept.data = ngsolve.Projector(bits, True) * ones
    return kept.FV().NumPy() != 0.0


def tet_rule_points(points: np.ndarray, tets: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Physical points (m·q, 3), element-major, of NGSolve reference points ``reference``
    (q, 3) in every tet: x = ξ v0 + η v1 + ζ v2 + (1 − ξ − η − ζ) v3 (the vertex order
    :func:`~surrogate.fem.hcurl.ngsolve.mesh.ngsolve_mesh` keeps)."""
    bary = np.column_stack([reference, 1.0 - reference.sum(axis=1)])  # (q, 4)
    corners = np.asarray(points, dtype=np.float64)[np.asarray(tets)]  # (m, 4, 3)
    return np.einsum("qk,mkd->mqd", bary, corners).reshape(-1, 3)


def boundary_projection(ngmesh: Any, degree: int, exact: bool = False) -> BoundaryProjection:
    """The boundary projection's spaces and mass inverse (``exact``: a sparse factorisation,
    for curved triangles); its points by NGSolve's own boundary-element map."""
    import ngsolve

    where = ngmesh.Boundaries(".*")
    samples = ngsolve.comp.IntegrationRuleSpaceSurface(ngmesh, order=degree, dim=1,
                                                       definedon=where)
    target = ngsolve.SurfaceL2(ngmesh, order=degree)
    u, v = target.TnT()
    mass = ngsolve.BilinearForm(u * v * ngsolve.ds).Assemble()
    # SurfaceL2's basis is orthogonal on each affine triangle: the mass matrix is diagonal,
    # and its Jacobi smoother is its exact inverse (a sparse factorisation costs ~20 ms here)
    mass_inverse = mass.mat.Inverse(target.FreeDofs(), inverse="sparsecholesky") if exact \
        else mass.mat.CreateSmoother(target.FreeDofs())
    reference = np.asarray(samples.GetIntegrationRules()[ngsolve.TRIG].points, dtype=float)
    return BoundaryProjection(samples, target, mass_inverse,
                              mapped_points(ngmesh, reference, 1))


__all__ = ["CACHE_SIZE", "MAX_RULE_ORDER", "BoundaryProjection", "MeshSetup", "bit_mask",
           "boundary_degree", "boundary_projection", "build_setup", "mapped_points",
           "mesh_setup", "reference_mesh_points", "setup_on", "tet_rule_points",
           "void_indicator", "volume_rule_order"]
