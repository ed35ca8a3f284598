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

:class:`TruthSpec` says which truth a family's data uses: that level solve (``mesh``
"level"), or for ``inclusion`` the NGSolve solve on the member's own mesh fitted to its ball
and curved (``mesh`` "fitted", :func:`surrogate.fem.fitted.fitted_truth`): order 3 on maxh
0.25 is within 0.11–0.16 % of order 4 on maxh 0.18 (3 problems, 5.8–14.3 s per problem
with meshing, benchmarks/inclusion_fitted.py), where the level-3 truth is 3.7 % off.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

TRUTH_ORDER = 1
"""Default order of the truth solve (the toolkit's naming: 1 = complete linear, 0 = N0)."""
TRUTH_BACKEND = "skfem"
"""The truth is solved by the toolkit's own elements (orders 0 and 1)."""
TRUTH_LEVEL = 3
"""Default level of the truth solve (cylinder level 3: 9,216 tets, 23,872 complete-linear DOFs)."""


TRUTH_MESHES = ("level", "fitted")
"""The truth's mesh: the training domain's level mesh, or one fitted to the member (fem/fitted)."""
FITTED_FAMILIES = ("inclusion",)
"""Families whose members have a fitted geometry (the cylinder with the ball glued in)."""
FITTED_TRUTH_ORDER = 3
"""Default order of the fitted truth (NGSolve, the toolkit's naming: complete cubic)."""
FITTED_TRUTH_MAXH = 0.25
"""Default largest tet size of the fitted truth: with order 3 within 0.11–0.16 % of order 4
on maxh 0.18 (benchmarks/inclusion_fitted.py)."""


@dataclass(frozen=True)
class TruthSpec:
    """Which FEM truth: the skfem mixed solve of ``order`` on ``level`` of the training domain
    (``mesh`` "level"), or the NGSolve one of ``order`` on the member's mesh fitted to its
    interface with tets ≤ ``maxh``, curved to degree :attr:`curve_order` (``mesh``
    "fitted")."""

    order: int
    level: int | None
    mesh: str = "level"
    maxh: float | None = None

    @property
    def fitted(self) -> bool:
        """Whether the truth is solved on a mesh fitted to the member."""
        return self.mesh == "fitted"

    @property
    def backend(self) -> str:
        """"ngsolve" (fitted) or "skfem" (level)."""
        return "ngsolve" if self.fitted else TRUTH_BACKEND

    @property
    def curve_order(self) -> int | None:
        """Degree of the fitted mesh's element maps (None for the level truth)."""
        from surrogate.fem.fitted.solve import default_curve_order

        return default_curve_order(self.order) if self.fitted else None

    def require(self) -> TruthSpec:
        """Itself, once its backend is installed (one-line InputError naming the extra)."""
        from surrogate.fem.hcurl.registry import check_backend

        check_backend(self.backend)
        return self

    def solve(self, problem, domain_name: str = "cylinder"):
        """The truth of ``problem`` on ``domain_name`` (fitted: the cylinder only): a solution
        with ``values_at(points, outside=...)``."""
        if not self.fitted:
            return fem_truth(problem, domain_name, int(self.level), order=self.order)
        if domain_name != "cylinder":
            raise InputError(f"the fitted truth is solved on the cylinder only, not on "
                             f"{domain_name!r}")
        from surrogate.fem.fitted.solve import fitted_truth

        return fitted_truth(problem, self.order, float(self.maxh))

    def description(self, domain_name: str) -> str:
        """E.g. "complete cubic mixed solve (ngsolve) on a mesh of cylinder fitted to the
        member's interface (maxh 0.25, curved to degree 3)"; level: :func:`truth_description`."""
        if not self.fitted:
            return truth_description(self.order, int(self.level), domain_name)
        from surrogate.fem.hcurl.registry import order_name

        return (f"{order_name(self.order)} mixed solve (ngsolve) on a mesh of {domain_name} "
                f"fitted to the member's interface (maxh {self.maxh:g}, curved to degree "
                f"{self.curve_order})")

    def attrs(self, domain_name: str) -> dict[str, Any]:
        """The file attributes that record it (datasets/FORMAT.md): backend, order, mesh and
        its level or (maxh, curve order), and the description."""
        mesh = {"truth_maxh": float(self.maxh), "truth_curve_order": int(self.curve_order)} \
            if self.fitted else {"truth_level": int(self.level)}
        return {"truth_mesh": self.mesh, "truth_backend": self.backend,
                "truth_fem_order": int(self.order), **mesh,
                "truth_description": self.description(domain_name)}


def check_truth_spec(family_name: str, mesh: str, order: Any, level: Any, maxh: Any
                     ) -> TruthSpec:
    """The truth of ``mesh`` checked: level with order 0/1 and level ≥ 1 and no maxh; fitted
    only for :data:`FITTED_FAMILIES`, with an NGSolve order, maxh > 0 and no level."""
    from surrogate.fem.hcurl.registry import check_order

    if mesh not in TRUTH_MESHES:
        raise InputError(f"unknown truth mesh {mesh!r}; choose one of: {', '.join(TRUTH_MESHES)}")
    if mesh == "level":
        if maxh is not None:
            raise InputError("truth_maxh applies to truth_mesh 'fitted' only; the level truth "
                             "takes truth_level")
        return TruthSpec(check_truth_order(order), int(level))
    if family_name not in FITTED_FAMILIES:
        raise InputError(f"family {family_name!r} has no fitted geometry: truth_mesh 'fitted' "
                         f"exists for {', '.join(FITTED_FAMILIES)} only")
    if level is not None:
        raise InputError("truth_level applies to truth_mesh 'level' only; the fitted truth "
                         "takes truth_maxh")
    if isinstance(maxh, bool) or not isinstance(maxh, int | float) or not 0 < maxh < math.inf:
        raise InputError(f"truth_maxh must be a finite number > 0, got {maxh!r}")
    return TruthSpec(check_order(order, "ngsolve"), None, "fitted", float(maxh))


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
           "TruthSpec", "check_truth_spec", "TRUTH_MESHES", "FITTED_FAMILIES",
           "FITTED_TRUTH_ORDER", "FITTED_TRUTH_MAXH",
           "l2_difference", "with_boundary_data", "ZeroWall", "TRUTH_LEVEL", "TRUTH_ORDER",
           "TRUTH_BACKEND"]
