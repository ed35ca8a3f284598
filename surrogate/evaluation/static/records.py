"""Records of a static evaluation: one per test domain and level, with the FEM and run parts.

Errors are L² norms by quadrature (``surrogate.fem.quadrature.l2_norm``) against u_ref: the
exact solution, or the finest N0 solve evaluated by point location (points outside its mesh
are left out). Each error is also split into the part inside / outside a training domain.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def split_errors(diff: np.ndarray, weights: np.ndarray, reference: np.ndarray,
                 mask: np.ndarray | None = None) -> dict[str, float | None]:
    """{"l2_error": ‖diff‖, "relative_error": ‖diff‖/‖reference‖} over the masked points."""
    from surrogate.fem.quadrature import l2_norm

    if mask is not None and not mask.any():
        return {"l2_error": None, "relative_error": None}
    err = l2_norm(diff, weights, mask)
    norm = l2_norm(reference, weights, mask)
    return {"l2_error": err, "relative_error": err / norm if norm > 0 else None}


def timed_predict(run: Any, inputs: np.ndarray, batch_size: int) -> tuple[np.ndarray, float]:
    """u_NN at ``inputs`` (N, d_in) -> ((N, d_out), seconds of inference)."""
    start = time.perf_counter()
    values = np.asarray(run.predict(inputs, batch_size=batch_size), dtype=float)
    return values, time.perf_counter() - start


TIMING_REPEATS = 3
"""Timings of the surrogate's whole field, and of every FEM solve under 0.5 s
(:func:`surrogate.evaluation.fem_timing.median_timed_solve`): the median counts."""


def field_on_mesh_seconds(run: Any, problem: Any, nodes: np.ndarray,
                          batch_size: int | None, repeats: int = TIMING_REPEATS) -> float:
    """Median wall time of producing u_NN on a mesh: inputs [x, f, φ] at its nodes + inference.

    This is the surrogate's counterpart of an N0 solve (which produces u_h on the mesh); both
    exclude the error evaluation at quadrature points.
    """
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run.predict(problem.inputs(nodes), batch_size=batch_size)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def reference_on(points: np.ndarray, reference_solution) -> np.ndarray:
    """u_ref at points from the finest N0 solve, NaN rows where a point is outside its mesh."""
    return reference_solution.values_at(points, outside="nan")


@dataclass
class LevelErrors:
    """Errors against u_ref at the quadrature points of one mesh, split by training domain."""

    u_ref: np.ndarray
    weights: np.ndarray
    masks: dict[str, np.ndarray]
    keep: np.ndarray | None

    def masked(self, mask: np.ndarray | None) -> np.ndarray | None:
        """``mask`` restricted to the points the reference covers."""
        if self.keep is None:
            return mask
        return self.keep if mask is None else (mask & self.keep)

    def __call__(self, values: np.ndarray, training_names: list[str] | None = None
                 ) -> dict[str, Any]:
        """Whole-domain errors of ``values`` plus the inside/outside split per training domain."""
        diff = values - self.u_ref
        out = split_errors(diff, self.weights, self.u_ref, self.masked(None))
        names = training_names or list(self.masks)
        out["split"] = {name: {"inside": split_errors(diff, self.weights, self.u_ref,
                                                      self.masked(self.masks[name])),
                               "outside": split_errors(diff, self.weights, self.u_ref,
                                                       self.masked(~self.masks[name]))}
                        for name in names}
        return out


def level_record(domain: Any, level: int, mesh: Any, points: np.ndarray,
                    weights: np.ndarray, problem: Any, reference_solution: Any,
                    training: dict[str, Any], finest: int) -> tuple[dict[str, Any], LevelErrors]:
    """The record's mesh facts and volume fractions, and the error measure of this level."""
    has_exact = reference_solution is None
    if has_exact:
        u_ref, keep = problem.u(points), None
    else:
        u_ref = reference_on(points, reference_solution)
        keep = ~np.isnan(u_ref).any(axis=1)
        u_ref = np.where(keep[:, None], u_ref, 0.0)
    volume = float(weights.sum())
    record: dict[str, Any] = {
        "domain": domain.name, "level": level, "h": float(domain.mesh_size(level)),
        "n_cells": int(mesh.t.shape[1]), "n_nodes": int(mesh.p.shape[1]),
        "n_quadrature": int(len(weights)), "volume": volume,
        "reference": "exact" if has_exact else f"fem-solve level {finest}",
    }
    if keep is not None:
        record["reference_coverage"] = float(weights[keep].sum() / volume)
    masks = {name: dom.contains(points) for name, dom in training.items()}
    record["inside_fraction"] = {name: float(weights[m].sum() / volume)
                                 for name, m in masks.items()}
    return record, LevelErrors(u_ref, weights, masks, keep)


@dataclass
class LevelRules:
    """The error measures of one level per quadrature rule, each built on first use (a FEM of
    order k is judged by a rule of degree ≥ ``error_intorder(k)``, the runs by ``intorder``)."""

    domain: Any
    level: int
    mesh: Any
    problem: Any
    reference_solution: Any
    training: dict[str, Any]
    finest: int
    built: dict[int, tuple[dict[str, Any], LevelErrors, np.ndarray]] = field(
        default_factory=dict)

    def at(self, intorder: int) -> tuple[dict[str, Any], LevelErrors, np.ndarray]:
        """(the level's record, its error measure, the rule's points) for ``intorder``."""
        from surrogate.fem.quadrature import quadrature_rule

        if intorder not in self.built:
            points, weights = quadrature_rule(self.mesh, intorder)
            record, errors = level_record(self.domain, self.level, self.mesh, points, weights,
                                          self.problem, self.reference_solution,
                                          self.training, self.finest)
            self.built[intorder] = (record, errors, points)
        return self.built[intorder]


def fem_record(solution: Any, method: str, is_reference: bool, intorder: int,
                errors: LevelErrors) -> dict[str, Any]:
    """Backend, order, errors (by the rule of ``intorder``), DOFs, seconds and solver facts
    of a FEM baseline on one level."""
    u_h = solution.values_at_quadrature(intorder)
    record: dict[str, Any] = {"backend": str(solution.backend), "order": int(solution.order),
                              "method": method, "ndofs": int(solution.ndofs),
                              "intorder": int(intorder)}
    if is_reference:
        record.update({"l2_error": None, "relative_error": None, "is_reference": True})
    else:
        record.update(errors(u_h))
    seconds = {k: float(v) for k, v in solution.timings.items()}
    seconds["total"] = float(sum(solution.timings.values()))
    record["seconds"] = seconds
    info = solution.solve_info
    record["solver"] = info.to_dict() if hasattr(info, "to_dict") else None
    return record


def run_record(run: Any, problem: Any, mesh: Any, inputs: np.ndarray, inputs_seconds: float,
                errors: LevelErrors, fem_seconds: float | None, batch_size: int | None
                ) -> dict[str, Any]:
    """Errors (whole, inside/outside its training domain), seconds and speed-ups of one run."""
    u_nn, seconds = timed_predict(run, inputs, batch_size)
    record = errors(u_nn, training_names=[str(run.dataset.get("domain"))])
    record["training_domain"] = str(run.dataset.get("domain"))
    split = record.pop("split")[record["training_domain"]]
    record["inside"], record["outside"] = split["inside"], split["outside"]
    field_seconds = field_on_mesh_seconds(run, problem, mesh.p.T, batch_size)
    record["seconds"] = {"inputs": inputs_seconds, "inference": seconds,
                         "field_on_mesh": field_seconds}
    record["speedup_vs_fem"] = (fem_seconds / field_seconds
                                if fem_seconds and field_seconds > 0 else None)
    record["speedup_vs_fem_quadrature"] = (fem_seconds / seconds
                                           if fem_seconds and seconds > 0 else None)
    return record


def equal_error_summary(records: list[dict[str, Any]], labels: list[str]
                        ) -> dict[str, dict[str, Any]]:
    """Per domain and run: the fastest FEM (any evaluated backend, level and order) whose L²
    error is at most the run's, next to the run
    (:func:`surrogate.core.equal_error.equal_error_comparison`: backend, order, level, DOFs,
    seconds, and whether it sits on the coarsest evaluated level).

    The run's error and time are those of the domain's finest level (error by its quadrature,
    time = u_NN at its mesh nodes); a FEM's time is mesh → u_h on its mesh (its backend's
    stages; mesh generation excluded for both). Errors are absolute L² errors. Records
    without a backend (older ``evaluation.json``) are the own backend's.
    """
    from surrogate.core.equal_error import FemCandidate, equal_error_comparison
    from surrogate.fem.hcurl.registry import OWN_BACKEND

    out: dict[str, dict[str, Any]] = {}
    for domain in dict.fromkeys(r["domain"] for r in records):
        rows = [r for r in records if r["domain"] == domain]
        candidates = [FemCandidate(int(f["order"]), int(r["level"]), float(f["l2_error"]),
                                   float(f["seconds"]["total"]), int(f["ndofs"]),
                                   str(f.get("backend", OWN_BACKEND)),
                                   str(f.get("method", "solve")))
                      for r in rows for f in r.get("fem_orders") or []
                      if f.get("l2_error") is not None]
        finest = max(rows, key=lambda r: r["level"])
        out[domain] = {}
        for label in labels:
            run = finest["runs"][label]
            if run.get("l2_error") is None:
                continue
            comparison = equal_error_comparison(candidates, float(run["l2_error"]),
                                                float(run["seconds"]["field_on_mesh"]))
            comparison["surrogate"]["level"] = finest["level"]
            out[domain][label] = comparison
    return out


__all__ = ["LevelErrors", "LevelRules", "equal_error_summary", "field_on_mesh_seconds",
           "fem_record", "level_record", "reference_on", "run_record", "split_errors",
           "timed_predict"]
