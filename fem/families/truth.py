"""The FEM truth of a family member without a closed form: the N0 mixed solve on a fine level.

(φ curl u_h, curl v) + (v, ∇p_h) = (f, v), (u_h, ∇q) = 0 (eq. 7.1, mixed Kikuchi form) with
u_h × n = 0 on ∂Ω, via :func:`surrogate.fem.nedelec.solve_maxwell`; φ (discontinuous for
``inclusion``) is sampled at the assembly quadrature points of each tetrahedron.
"""

from __future__ import annotations

import functools

import numpy as np

TRUTH_LEVEL = 4
"""Default level of the truth solve (cylinder level 4: 76,896 tets, about 95k N0 DOFs)."""


class _ZeroWall:
    """A problem's φ and f with the boundary data u × n = 0 (u = 0 on boundary edges)."""

    has_exact = True

    def __init__(self, problem):
        self.name, self.phi, self.f = problem.name, problem.phi, problem.f

    def u(self, points: np.ndarray) -> np.ndarray:
        return np.zeros((len(points), 3))


@functools.lru_cache(maxsize=4)
def truth_mesh(domain_name: str, level: int):
    """The mesh of ``domain_name`` at ``level`` (kept per process: workers reuse it)."""
    from surrogate.fem.domains import get_domain

    return get_domain(domain_name).mesh(int(level))


def fem_truth(problem, domain_name: str = "cylinder", level: int = TRUTH_LEVEL, *,
              solver: str = "auto"):
    """The N0 mixed solve of ``problem`` with u × n = 0 on ``domain_name``'s mesh at ``level``
    (a :class:`~surrogate.fem.nedelec.NedelecSolution`)."""
    from surrogate.fem.nedelec import solve_maxwell

    boundary = problem if getattr(problem, "has_exact", False) else _ZeroWall(problem)
    return solve_maxwell(truth_mesh(domain_name, level), boundary, solver=solver)


def l2_difference(coarse, fine, intorder: int = 2) -> tuple[float, float]:
    """(‖u_c − u_f‖, ‖u_f‖) in L² over ``fine``'s mesh: u_c evaluated at the fine quadrature
    points (extrapolated from the nearest tet where the meshes' boundaries differ)."""
    from surrogate.fem.quadrature import quadrature_rule

    points, weights = quadrature_rule(fine.mesh, intorder)
    u_f = fine.values_at_quadrature(intorder)
    diff = coarse.values_at(points, outside="extrapolate") - u_f
    return (float(np.sqrt(weights @ np.einsum("ij,ij->i", diff, diff))),
            float(np.sqrt(weights @ np.einsum("ij,ij->i", u_f, u_f))))


__all__ = ["fem_truth", "truth_mesh", "l2_difference", "TRUTH_LEVEL"]
