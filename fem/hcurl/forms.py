"""The weak forms of both skfem H(curl) orders, written once.

Best approximation: (curl u_h, curl v) + (u_h, v) = (curl u, curl v) + (u, v).
Mixed (Kikuchi) solve of curl(φ curl u) + ∇λ = f, div u = 0 (eq. 7.1 with ε = I, ρ = 0):
(φ curl u_h, curl v) + (v, ∇λ_h) = (f, v), (u_h, ∇q) = 0. The forms take the element from the
basis they are assembled on (N0, or the complete-linear :class:`ElementTetCompleteLinear`);
data enter as values at the basis' quadrature points (:func:`at_quadrature_points`).
"""

from __future__ import annotations

import numpy as np
from skfem import Basis, BilinearForm, LinearForm
from skfem.helpers import curl, dot, grad

from surrogate.core.errors import InputError


@BilinearForm
def curlcurl_mass(u, v, w):
    """(curl u, curl v) + (u, v): the H(curl) inner product."""
    return dot(curl(u), curl(v)) + dot(u, v)


@BilinearForm
def phi_curlcurl(u, v, w):
    """(φ curl u, curl v), φ = ``w.phi`` at the quadrature points."""
    return w.phi * dot(curl(u), curl(v))


@BilinearForm
def mass(u, v, w):
    """(u, v)."""
    return dot(u, v)


@BilinearForm
def coupling(u, q, w):
    """B[q, u] = (u, ∇q): the divergence constraint / the multiplier's gradient."""
    return dot(u, grad(q))


@LinearForm
def exact_rhs(v, w):
    """(curl u, curl v) + (u, v) with u = ``w.uex``, curl u = ``w.cex``."""
    return dot(w.cex, curl(v)) + dot(w.uex, v)


@LinearForm
def source(v, w):
    """(f, v), f = ``w.f``."""
    return dot(w.f, v)


def at_quadrature_points(fn, basis: Basis) -> np.ndarray:
    """A point function on the basis' quadrature points: (3, nel, nqp) or (nel, nqp)."""
    x = np.asarray(basis.global_coordinates())  # (3, nel, nqp)
    values = np.asarray(fn(x.reshape(3, -1).T))
    if values.ndim == 1:
        return values.reshape(x.shape[1:])
    return np.ascontiguousarray(values.T).reshape(x.shape)


def require_exact(problem) -> None:
    """InputError for a problem without exact solution (its u gives the boundary data)."""
    if not getattr(problem, "has_exact", False):
        raise InputError(f"problem {getattr(problem, 'name', problem)!r} has no exact solution "
                         "for the boundary data / best approximation")


def require_one_boundary(mesh) -> None:
    """SolverError for a domain with voids: the mixed forms here fix the multiplier to 0 on
    the whole boundary, which leaves the saddle-point system singular on every closed boundary
    piece beyond the outer wall (u_h is then off by a gradient; the ngsolve backend adds one
    constant per void and solves it)."""
    from surrogate.core.errors import SolverError
    from surrogate.fem.tet_geometry import cavity_vertices

    voids = cavity_vertices(mesh.t.T)
    if voids:
        raise SolverError(f"the skfem mixed solve does not handle a domain with {len(voids)} "
                          "void(s) (its multiplier is fixed on every boundary piece, so the "
                          "system is singular): use --fem-backend ngsolve or --fem-method best")


__all__ = ["curlcurl_mass", "phi_curlcurl", "mass", "coupling", "exact_rhs", "source",
           "at_quadrature_points", "require_exact", "require_one_boundary"]
