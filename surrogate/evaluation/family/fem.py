"""The FEM side of a family evaluation: meshes, reference u, Nédélec candidates, region errors.

Relative L² errors by quadrature on each level's mesh, ‖u_ref − v‖ / ‖u_ref‖, over the whole
domain and over regions: inside / outside the training domain, and for a family with an
interface (:func:`interface_distance`) near it (distance ≤ 2h, h the
level's mesh size) and away from it. u_ref is the exact u or the fine FEM truth evaluated by
point location (points outside its mesh are left out). Torch-free.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError, SolverError
from surrogate.evaluation.fem_timing import REPEAT_BELOW_S, repeated_seconds
from surrogate.fem.families.family import (
    FamilyProblem,
    SphericalInterface,
    sphere_signed_distance,
)

INTERFACE_BAND = 2.0
"""Half-width of the near-interface band in mesh sizes h of the level."""


@dataclass
class LevelGeometry:
    """One test mesh: quadrature points/weights, nodes, mesh size, training-domain mask."""

    domain: str
    level: int
    mesh: Any = field(repr=False)
    points: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    h: float
    inside: np.ndarray = field(repr=False)

    @property
    def nodes(self) -> np.ndarray:
        """Mesh nodes (n, 3): where the surrogate's whole-field query is answered."""
        return self.mesh.p.T

    def facts(self) -> dict[str, Any]:
        """JSON-safe mesh facts."""
        return {"level": self.level, "h": self.h, "n_cells": int(self.mesh.t.shape[1]),
                "n_nodes": int(self.mesh.p.shape[1]), "n_quadrature": int(len(self.weights)),
                "inside_fraction": float(self.weights[self.inside].sum() / self.weights.sum())}


def level_geometry(domain: Any, level: int, training: Any, intorder: int,
                   mesh: Any = None) -> LevelGeometry:
    """Mesh (``mesh``, else ``domain.mesh(level)``) and quadrature rule of ``domain`` at
    ``level`` with the mask of ``training``."""
    from surrogate.fem.quadrature import quadrature_rule

    mesh = domain.mesh(level) if mesh is None else mesh
    points, weights = quadrature_rule(mesh, intorder)
    return LevelGeometry(domain.name, level, mesh, points, weights,
                         float(domain.mesh_size(level)), np.asarray(training.contains(points)))


@dataclass
class Reference:
    """u_ref at a level's quadrature points; ``keep`` marks the points it covers."""

    values: np.ndarray = field(repr=False)
    keep: np.ndarray = field(repr=False)
    regions: dict[str, np.ndarray] = field(repr=False)


def reference(problem: FamilyProblem, geometry: LevelGeometry, truth: Any | None) -> Reference:
    """u_ref (exact, or ``truth.values_at``) and the region masks on ``geometry``."""
    if truth is None:
        values = np.asarray(problem.u(geometry.points), dtype=float)
        keep = np.ones(len(values), dtype=bool)
    else:
        values = np.asarray(truth.values_at(geometry.points, outside="nan"), dtype=float)
        keep = ~np.isnan(values).any(axis=1)
        values = np.where(keep[:, None], values, 0.0)
    regions = {"inside": geometry.inside, "outside": ~geometry.inside}
    distance = interface_distance(problem, geometry.points)
    if distance is not None:
        near = distance <= INTERFACE_BAND * geometry.h
        regions.update({"near_interface": near, "away_from_interface": ~near})
    return Reference(values, keep, regions)


def interface_distance(problem: FamilyProblem, points: np.ndarray) -> np.ndarray | None:
    """Distance | |x − c| − R | of ``points`` to a :class:`SphericalInterface` (centre c,
    radius R); None for a problem without a material interface."""
    if not isinstance(problem, SphericalInterface):
        return None
    return np.abs(sphere_signed_distance(points, problem.centre, float(problem.radius)))


def relative_errors(values: np.ndarray, ref: Reference, weights: np.ndarray
                    ) -> dict[str, float | None]:
    """Relative L² error of ``values`` (M, 3) over the whole mesh and each region."""
    diff = np.einsum("ij,ij->i", values - ref.values, values - ref.values)
    norm = np.einsum("ij,ij->i", ref.values, ref.values)

    def rel(mask: np.ndarray) -> float | None:
        w = weights * (mask & ref.keep)
        denominator = float(w @ norm)
        return float(np.sqrt(w @ diff / denominator)) if denominator > 0 else None

    out = {"relative_error": rel(np.ones(len(weights), dtype=bool))}
    out.update({name: rel(mask) for name, mask in ref.regions.items()})
    return out


def at_quadrature(solution: Any, intorder: int) -> np.ndarray:
    """u_h of a solution of any backend and order at ``quadrature_rule(mesh, intorder)``'s
    points."""
    return solution.values_at_quadrature(intorder)


def fem_methods(has_exact: bool) -> tuple[str, ...]:
    """The FEM baselines: best approximation (needs the exact u) and the mixed solve."""
    return ("best", "solve") if has_exact else ("solve",)


def fem_solution(mesh: Any, problem: Any, method: str, order: int, solver: str,
                 family: Any, domain: str, level: int, *, backend: str = "skfem",
                 rtol: float = 1e-10) -> tuple[Any, float]:
    """(solution, seconds mesh → u_h) of one FEM baseline ``(backend, order)`` from the
    registry, with ``solver`` and ``rtol`` as given; a FEM-truth family's mixed solve has
    u × n = 0 (its exact boundary data) on ``mesh`` (= ``domain`` at ``level``)."""
    from surrogate.fem.families.truth import with_boundary_data
    from surrogate.fem.hcurl.registry import fem_method

    if not family.has_exact and method != "solve":
        raise InputError(f"family {family.name!r}: only the mixed solve is available")
    start = time.perf_counter()
    solution = fem_method(backend, order).run(mesh, with_boundary_data(problem), method=method,
                                              solver=solver, rtol=rtol)
    wall = time.perf_counter() - start
    timings = getattr(solution, "timings", None) or {}
    return solution, float(sum(timings.values())) if timings else wall


def fem_entry(solution: Any, seconds: float, ref: Reference, geometry: LevelGeometry,
              intorder: int) -> dict[str, Any]:
    """Errors (by the rule of ``intorder``), DOFs and seconds of one FEM solution on
    ``geometry``."""
    values = at_quadrature(solution, intorder)
    return {**relative_errors(values, ref, geometry.weights), "seconds": seconds,
            "ndofs": int(solution.ndofs), "intorder": int(intorder)}


@dataclass
class LevelRules:
    """One problem on one level, per quadrature rule: the geometry (shared by every problem
    through ``geometries``, keyed (domain, level, rule), all on the mesh of the first) and
    u_ref with its regions, each built on first use. A FEM of order k is judged by a rule
    of degree ≥ ``error_intorder(k)``, the surrogates by ``--intorder``."""

    domain: Any
    level: int
    training: Any
    problem: FamilyProblem
    truth: Any
    geometries: dict[tuple[str, int, int], LevelGeometry]
    refs: dict[int, Reference] = field(default_factory=dict)

    def at(self, intorder: int) -> tuple[LevelGeometry, Reference]:
        """(geometry, reference) of the rule of ``intorder``."""
        key = (self.domain.name, self.level, int(intorder))
        if key not in self.geometries:
            first = next((g for (d, lv, _), g in self.geometries.items()
                          if (d, lv) == key[:2]), None)
            self.geometries[key] = level_geometry(self.domain, self.level, self.training,
                                                  intorder, None if first is None else
                                                  first.mesh)
        if intorder not in self.refs:
            self.refs[intorder] = reference(self.problem, self.geometries[key], self.truth)
        return self.geometries[key], self.refs[intorder]


def level_fem(rules: LevelRules, candidates: list[Any], family: Any, options: Any,
              higher: list[int], skipped: set[str]) -> dict[str, dict[str, Any]]:
    """``{method: {record key: entry}}`` of every FEM candidate (registry ``FemMethod``) on one
    problem and level: the best approximation by the backends that offer it, the mixed solve
    by all (a solve under :data:`REPEAT_BELOW_S` timed as the fastest of ``options.repeats``);
    orders ≥ 1 only on ``higher`` levels; a candidate above ``options.fem_max_dofs``
    H(curl) DOFs is not solved, one whose solve fails is left out (both said in
    ``skipped``)."""
    from surrogate.fem.hcurl.errors import error_intorder
    from surrogate.fem.hcurl.registry import hcurl_dofs

    mesh = rules.at(options.intorder)[0].mesh
    out: dict[str, dict[str, Any]] = {}
    for method in fem_methods(family.has_exact):
        out[method] = {}
        for fem in candidates:
            if fem.offered_method(method) != method or (fem.order >= 1
                                                        and rules.level not in higher):
                continue
            dofs = hcurl_dofs(mesh, fem.order)
            where = f"{fem.label} on {rules.domain.name} level {rules.level}"
            if dofs > options.fem_max_dofs:
                skipped.add(f"{where}: {dofs} H(curl) DOFs > --fem-max-dofs "
                            f"{options.fem_max_dofs}")
                continue
            rule = max(options.intorder, error_intorder(fem.order))
            geometry, ref = rules.at(rule)
            def solve(fem: Any = fem, method: str = method) -> tuple[Any, float]:
                return fem_solution(mesh, rules.problem, method, fem.order, options.solver,
                                    family, rules.domain.name, rules.level,
                                    backend=fem.backend, rtol=options.rtol)

            try:
                solution, seconds = solve()
                seconds = repeated_seconds(seconds, lambda: solve()[1], options.repeats)
            except SolverError:  # e.g. a singular system: no candidate on this problem
                skipped.add(f"{where}: its {method} failed on some problems")
                continue
            out[method][fem.key] = fem_entry(solution, seconds, ref, geometry, rule)
    return out


__all__ = ["INTERFACE_BAND", "REPEAT_BELOW_S", "LevelGeometry", "LevelRules", "Reference",
           "at_quadrature", "fem_entry", "fem_methods", "fem_solution", "interface_distance",
           "level_fem", "level_geometry", "reference", "relative_errors", "repeated_seconds"]
