"""The FEM truth of a family member without a closed form: the order-2 mixed solve on level 3.

(φ curl u_h, curl v) + (v, ∇p_h) = (f, v), (u_h, ∇q) = 0 (eq. 7.1, mixed Kikuchi form) with
u_h × n = 0 on ∂Ω, in the complete-linear Nédélec space × P2
(:func:`surrogate.fem.hcurl.complete_linear.solve_maxwell2`; ``order=1``: N0 × P1,
:func:`surrogate.fem.hcurl.n0.solve_maxwell`, the truth of files written before
``truth_order``). φ (discontinuous for ``inclusion``) is sampled at the assembly quadrature
points of each tetrahedron.

Why order 2 on level 3 (cylinder, inclusion problems, relative L² difference to the order-2
solve on level 4, 1 thread): N0 on levels 1–4 differs by ≈ 0.61, 0.33, 0.18, 0.088, order 2
on levels 2, 3 by ≈ 0.145, 0.034. The former truth, N0 on level 4 (≈ 6 s), was only 2× below
the N0 level 3 it judged; order 2 on level 3 (≈ 1.2 s) is ≈ 5× below it, cheaper and more
accurate (benchmarks/inclusion_truth.py measures both).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

TRUTH_ORDER = 2
"""Default Nédélec order of the truth solve (2 = complete linear, 1 = N0)."""
TRUTH_LEVEL = 3
"""Default level of the truth solve (cylinder level 3: 9,216 tets, 23,872 order-2 DOFs)."""


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


def check_truth_order(order: Any) -> int:
    """``order`` as 1 (N0) or 2 (complete linear); InputError otherwise."""
    if isinstance(order, bool) or not isinstance(order, int | np.integer) or order not in (1, 2):
        raise InputError(f"truth order must be 1 (N0) or 2 (complete linear), got {order!r}")
    return int(order)


def fem_truth(problem, domain_name: str = "cylinder", level: int = TRUTH_LEVEL, *,
              order: int = TRUTH_ORDER, solver: str = "auto"):
    """The mixed solve (eq. 7.1) of ``problem`` with u × n = 0 on ``domain_name``'s mesh at
    ``level`` in the Nédélec space of ``order`` (a ``Nedelec2Solution`` or, order 1, a
    ``NedelecSolution``); a problem with an exact u keeps its own boundary data."""
    from surrogate.fem.hcurl.registry import fem_approximation

    order = check_truth_order(order)
    boundary = problem if getattr(problem, "has_exact", False) else _ZeroWall(problem)
    return fem_approximation(truth_mesh(domain_name, level), boundary, order=order,
                             method="solve", solver=solver)


def truth_description(order: int, level: int, domain_name: str) -> str:
    """E.g. "order-2 mixed solve on level 3 of cylinder" (order 1: "N0 mixed solve ...")."""
    space = "N0" if int(order) == 1 else f"order-{int(order)}"
    return f"{space} mixed solve on level {int(level)} of {domain_name}"


def l2_difference(coarse, fine, intorder: int = 2) -> tuple[float, float]:
    """(‖u_c − u_f‖, ‖u_f‖) in L² over ``fine``'s mesh (N0 or order-2 solutions): u_c
    evaluated at the fine quadrature points (extrapolated from the nearest tet where the
    meshes' boundaries differ)."""
    from surrogate.fem.quadrature import quadrature_rule

    points, weights = quadrature_rule(fine.mesh, intorder)
    u_f = fine.values_at_quadrature(intorder)
    diff = coarse.values_at(points, outside="extrapolate") - u_f
    return (float(np.sqrt(weights @ np.einsum("ij,ij->i", diff, diff))),
            float(np.sqrt(weights @ np.einsum("ij,ij->i", u_f, u_f))))


__all__ = ["fem_truth", "truth_mesh", "truth_description", "check_truth_order",
           "l2_difference", "TRUTH_LEVEL", "TRUTH_ORDER"]
