"""The mixed solve on a fitted, curved mesh: φ exact per material, meshing in the timed span.

Find (u_h, λ_h) in HCurl_k × H1_{k+1} of the :class:`~surrogate.fem.fitted.geometry.FittedMesh`
with u_h × n = g × n, λ_h = 0 on the wall and
(φ curl u_h, curl v) + (∇λ_h, v) = (f, v),  (u_h, ∇q) = 0      (eq. 7.1),
the ngsolve backend's form and solvers (:func:`~surrogate.fem.hcurl.ngsolve.solve.solve_mixed`,
its order k = the toolkit's order k; the interface is no boundary condition). φ enters per
material (``material_phi``: for ``inclusion``, κ in the ball, 1 outside; exact, since the
elements follow the sphere) or, without materials, sampled at the rule's points like f; f
is sampled at the points of the data's rule mapped by the curved elements; g comes from the
problem's exact u where it has one, else u × n = 0 (the family members). Timed span:
``timings["mesh"]`` = geometry, meshing, curving and spaces; "assembly"; "solve".

Evaluation at arbitrary points (N, 3) is vectorised through NGSolve's point location
(``ngmesh(x, y, z)``, which inverts curved element maps); with ``outside="extrapolate"`` a
point the curved mesh misses (the wall's polynomial approximation cuts the exact cylinder)
is moved towards the cylinder's centre, in a few rounds of growing steps, until it is found.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.fitted.geometry import (
    BACKGROUND,
    BALL,
    CYLINDER_HEIGHT,
    WALL,
    FittedMesh,
    fitted_mesh,
)
from surrogate.fem.hcurl.registry import check_order, check_solver
from surrogate.fem.hcurl.solvers import SolveInfo

CENTRE = np.array([0.0, 0.0, 0.5 * CYLINDER_HEIGHT])  # the convex cylinder's centre
INWARD_STEPS = (1e-9, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.2)  # fractions of |x − CENTRE|
OUTSIDE = ("error", "nan", "extrapolate")


@dataclass
class FittedSolution:
    """u_h of a fitted solve on ``mesh``; ``ndofs``: H(curl) DOFs before condensation;
    ``timings``: "mesh" (geometry, meshing, curving, spaces), "assembly", "solve" (their sum
    is mesh → u_h)."""

    mesh: FittedMesh = field(repr=False)
    field_u: Any = field(repr=False)
    order: int
    ndofs: int
    timings: dict[str, float] = field(default_factory=dict)
    solve_info: SolveInfo | None = None
    method: str = "solve"
    backend: str = "ngsolve"

    def values_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """u_h at arbitrary points (N, 3) -> (N, 3); ``outside`` (module docstring): "error",
        "nan" (NaN rows) or "extrapolate"."""
        return evaluate(self.field_u, self.mesh.ngmesh, points, outside)

    def curl_at(self, points: np.ndarray, outside: str = "error") -> np.ndarray:
        """curl u_h at arbitrary points (N, 3) -> (N, 3)."""
        import ngsolve

        return evaluate(ngsolve.curl(self.field_u), self.mesh.ngmesh, points, outside)

    @property
    def seconds(self) -> float:
        """mesh → u_h in seconds."""
        return float(sum(self.timings.values()))


def locate(ngmesh: Any, points: np.ndarray, outside: str = "error") -> np.ndarray:
    """NGSolve's mesh-point array of ``points`` (N, 3) (element −1 where not found and
    ``outside`` is "nan"); "extrapolate" moves missed points towards :data:`CENTRE`."""
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 3 or not np.all(np.isfinite(x)):
        raise InputError(f"points must be a finite (N, 3) array, got shape {x.shape}")
    if outside not in OUTSIDE:
        raise InputError(f"outside must be one of {', '.join(OUTSIDE)}, got {outside!r}")
    mips = ngmesh(x[:, 0], x[:, 1], x[:, 2])
    steps = INWARD_STEPS if outside == "extrapolate" else ()
    for step in steps:
        missed = np.flatnonzero(mips["nr"] < 0)
        if missed.size == 0:
            break
        y = x[missed] + step * (CENTRE - x[missed])
        mips[missed] = ngmesh(y[:, 0], y[:, 1], y[:, 2])
    missed = np.flatnonzero(mips["nr"] < 0)
    if missed.size and outside != "nan":
        raise InputError(f"{missed.size} of {len(x)} points lie outside the fitted mesh, e.g. "
                         f"{x[missed[0]].tolist()}")
    return mips


def evaluate(cf: Any, ngmesh: Any, points: np.ndarray, outside: str = "error") -> np.ndarray:
    """The 3-vector coefficient ``cf`` at ``points`` (N, 3) -> (N, 3), NaN rows for points
    outside (``outside="nan"``)."""
    mips = locate(ngmesh, points, outside)
    out = np.full((len(mips), 3), np.nan)
    found = np.flatnonzero(mips["nr"] >= 0)
    if found.size:
        out[found] = np.asarray(cf(mips[found])).reshape(-1, 3)
    return out


def material_phi(problem) -> dict[str, float]:
    """φ per material of a member with a spherical interface whose φ is constant on each
    side (``inclusion``: κ in the ball, 1 outside), read from its own φ: at the centre and
    at a point 2ρ from it."""
    centre = np.asarray(problem.centre, dtype=np.float64)
    inside_outside = np.vstack([centre, centre + [2.0 * float(problem.radius), 0.0, 0.0]])
    phi_in, phi_out = np.asarray(problem.phi(inside_outside), dtype=np.float64)
    return {BALL: float(phi_in), BACKGROUND: float(phi_out)}


def fitted_solve(mesh: FittedMesh, problem, order: int, *,
                 phi: Mapping[str, float] | None = None, solver: str = "auto",
                 rtol: float = 1e-10, threads: int = 1) -> FittedSolution:
    """The mixed solve (module docstring) of ``problem`` on ``mesh`` in the spaces of
    ``order`` (0–4); φ per material from ``phi`` (None: ``problem.phi`` at the rule's
    points). The mesh's own seconds count in ``timings["mesh"]``."""
    import ngsolve

    from surrogate.fem.hcurl.ngsolve import data as ngsolve_data
    from surrogate.fem.hcurl.ngsolve.mesh_setup import setup_on
    from surrogate.fem.hcurl.ngsolve.solve import solve_mixed

    order = check_order(order, "ngsolve")
    check_solver(solver, "ngsolve", order)
    threads = max(int(threads), 1)
    ngsolve.SetNumThreads(threads)
    with ngsolve.TaskManager() if threads > 1 else nullcontext():
        setup = setup_on(mesh.ngmesh, order, wall=WALL)
        t1 = time.perf_counter()
        if phi is None:
            phi_cf = ngsolve_data.volume_coefficient(setup, problem.phi)
        else:
            phi_cf = mesh.ngmesh.MaterialCF({name: float(v) for name, v in phi.items()})
        f = ngsolve_data.volume_coefficient(setup, problem.f)
        boundary = ngsolve_data.boundary_coefficient(setup, problem.u) \
            if getattr(problem, "has_exact", False) else None
        u_h, info, _, solve = solve_mixed(setup.space, setup.free, setup.free_mask, phi_cf, f,
                                          setup.rules, boundary, solver=solver, rtol=rtol,
                                          threads=threads)
        assembly = time.perf_counter() - t1 - solve
    return FittedSolution(mesh, u_h, order, setup.hcurl_ndof,
                          {"mesh": mesh.seconds + setup.seconds, "assembly": assembly,
                           "solve": solve}, info)


def default_curve_order(order: int) -> int:
    """The fitted truth's degree of element maps for ``order``: max(order, 2), at most 4."""
    return min(max(int(order), 2), 4)


def fitted_truth(problem, order: int, maxh: float, *, curve_order: int | None = None,
                 solver: str = "direct", threads: int = 1) -> FittedSolution:
    """A member with a spherical interface (``inclusion``) meshed to fit it (``maxh``, curved
    by ``curve_order``, default: max(``order``, 2) up to 4; cubic maps made eq. 7.2's order-1
    and order-2 errors 2× larger than quadratic ones at maxh 0.5) and solved at ``order`` with φ per
    material; its timings run from the geometry to u_h. The default solver is "direct": on
    these meshes it is ≈ 3× faster than "auto"'s MINRES-BDDC above its 20k unknowns (order 3,
    maxh 0.5: 7 s against 22 s)."""
    curve = default_curve_order(order) if curve_order is None else int(curve_order)
    mesh = fitted_mesh(problem.centre, problem.radius, maxh, curve)
    return fitted_solve(mesh, problem, order, phi=material_phi(problem), solver=solver,
                        threads=threads)


__all__ = ["CENTRE", "FittedSolution", "default_curve_order", "evaluate", "fitted_solve",
           "fitted_truth", "locate", "material_phi"]
