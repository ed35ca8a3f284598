"""The FEM truth of a family member without a closed form: the complete-linear mixed solve on
level 3.

(φ curl u_h, curl v) + (v, ∇p_h) = (f, v), (u_h, ∇q) = 0 (eq. 7.1, mixed Kikuchi form) with
u_h × n = 0 on ∂Ω, in the complete-linear Nédélec space × P2 (the toolkit's order 1, skfem
backend; ``order=0``: N0 × P1, the truth of files written before the truth's order was
recorded). φ (discontinuous for ``inclusion``) is sampled at the assembly quadrature
points of each tetrahedron.

Why complete linear on level 3 (cylinder, inclusion problems, relative L² difference to the
complete-linear solve on level 4, 1 thread): N0 on levels 1–4 differs by ≈ 0.61, 0.33, 0.18,
0.088, complete linear on levels 2, 3 by ≈ 0.145, 0.034. The former truth, N0 on level 4
(≈ 6 s), was only 2× below the N0 level 3 it judged; complete linear on level 3 (≈ 1.2 s) is
≈ 5× below it, cheaper and more accurate (benchmarks/inclusion_truth.py measures both).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

TRUTH_ORDER = 1
"""Default order of the truth solve (the toolkit's naming: 1 = complete linear, 0 = N0)."""
TRUTH_BACKEND = "skfem"
"""The truth is solved by the toolkit's own elements (orders 0 and 1)."""
TRUTH_LEVEL = 3
"""Default level of the truth solve (cylinder level 3: 9,216 tets, 23,872 complete-linear DOFs)."""


class ZeroWall:
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
    """``order`` as 0 (N0) or 1 (complete linear); InputError otherwise."""
    if isinstance(order, bool) or not isinstance(order, int | np.integer) or order not in (0, 1):
        raise InputError(f"truth order must be 0 (N0) or 1 (complete linear), got {order!r}")
    return int(order)


def fem_truth(problem, domain_name: str = "cylinder", level: int = TRUTH_LEVEL, *,
              order: int = TRUTH_ORDER, solver: str = "auto"):
    """The mixed solve (eq. 7.1) of ``problem`` with u × n = 0 on ``domain_name``'s mesh at
    ``level`` in the skfem space of ``order`` (an ``SkfemSolution``); a problem with an exact
    u keeps its own boundary data."""
    from surrogate.fem.hcurl.registry import fem_approximation

    order = check_truth_order(order)
    boundary = with_boundary_data(problem)
    return fem_approximation(truth_mesh(domain_name, level), boundary, backend=TRUTH_BACKEND,
                             order=order, method="solve", solver=solver)


def with_boundary_data(problem):
    """``problem`` itself when it has an exact u (its boundary data), else its φ and f with
    u × n = 0 on the wall (:class:`ZeroWall`): what every mixed solve of a family member
    solves."""
    return problem if getattr(problem, "has_exact", False) else ZeroWall(problem)


def truth_description(order: int, level: int, domain_name: str) -> str:
    """E.g. "complete linear mixed solve on level 3 of cylinder" (order 0: "N0 ...")."""
    from surrogate.fem.hcurl.registry import order_name

    return f"{order_name(order)} mixed solve on level {int(level)} of {domain_name}"


def l2_difference(coarse, fine, intorder: int = 2) -> tuple[float, float]:
    """(‖u_c − u_f‖, ‖u_f‖) in L² over ``fine``'s mesh (solutions of any order): u_c
    evaluated at the fine quadrature points (extrapolated from the nearest tet where the
    meshes' boundaries differ)."""
    from surrogate.fem.quadrature import quadrature_rule

    points, weights = quadrature_rule(fine.mesh, intorder)
    u_f = fine.values_at_quadrature(intorder)
    diff = coarse.values_at(points, outside="extrapolate") - u_f
    return (float(np.sqrt(weights @ np.einsum("ij,ij->i", diff, diff))),
            float(np.sqrt(weights @ np.einsum("ij,ij->i", u_f, u_f))))


__all__ = ["fem_truth", "truth_mesh", "truth_description", "check_truth_order",
           "l2_difference", "with_boundary_data", "ZeroWall", "TRUTH_LEVEL", "TRUTH_ORDER",
           "TRUTH_BACKEND"]
