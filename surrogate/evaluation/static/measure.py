"""Surrogates against Nédélec baselines on test domains (τ-learning paper §7, Figs. 3–5).

For every test domain Ω̃ and mesh level, errors are integrated by quadrature on Ω̃'s mesh
(``quadrature_rule``; not by point sampling):

    ‖u − u_NN‖_{L²(Ω̃)}  and  ‖u − u_h‖_{L²(Ω̃)},  u_h (best approximation or solve) in N0
    (order 0, the paper's baseline) and in the complete-linear space (order 1),

each also split into the part of Ω̃ inside the run's training domain Ω (in-distribution) and
the part outside (extrapolation) by masking the quadrature weights with ``Ω.contains``.
The FEM baseline does not depend on the run: it is computed once per domain, level and order.
For every run and domain, :func:`~surrogate.evaluation.static.records.equal_error_summary`
names the fastest FEM (any level and order) whose error is at most the run's
(``fastest_fem_at_equal_error`` in ``evaluation.json``).

Where the problem has no exact solution the reference u is the N0 solve on the finest
requested level of each domain (``reference = "fem-solve level L"`` in the records); u_ref is
evaluated at the coarser levels' quadrature points by point location, points outside the
finest mesh are left out (``reference_coverage`` says which volume fraction was compared),
and the FEM error at the finest level itself is not reported (it would be 0 by definition).

Options live in :mod:`surrogate.evaluation.static.options`, the per-level records in
:mod:`surrogate.evaluation.static.records`, run checks in
:mod:`surrogate.evaluation.static.runs`, the ParaView files in
:mod:`surrogate.evaluation.static.vtk`, the slice figures' data in
:mod:`surrogate.evaluation.static.slices`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.evaluation.devices import device_description, resolve_inference_device
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.evaluation.static.records import (
    equal_error_summary,
    fem_record,
    level_record,
    run_record,
)
from surrogate.evaluation.static.runs import (
    resolve_fem_method,
    resolve_fem_orders,
    run_info,
    run_labels,
)
from surrogate.evaluation.static.vtk import write_collections, write_level_vtu

ProgressCallback = Callable[[int, int, str], None]


@dataclass
class Evaluation:
    """What :func:`evaluate_runs` measured.

    ``records``: one JSON-safe dict per (domain, level); ``runs``: per run label its path,
    architecture and learned τ; ``slices``: arrays for the slice figures (see
    :func:`slice_fields`); ``histories``: per run label the training history rows.
    """

    problem: str
    reference: str
    options: EvaluationOptions
    records: list[dict[str, Any]]
    runs: dict[str, dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    vtk: dict[str, Any] | None = None
    inference_device: str = "cpu"
    slices: dict[str, Any] | None = None
    histories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    reference_solutions: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (``evaluation.json``): options, runs, records, the fastest FEM at
        each run's error, notes."""
        return {
            "kind": "pointwise",
            "problem": self.problem,
            "reference": self.reference,
            "options": self.options.to_dict(),
            "runs": self.runs,
            "records": self.records,
            "fastest_fem_at_equal_error": equal_error_summary(self.records, list(self.runs)),
            "notes": list(self.notes),
            "inference_device": self.inference_device,
            "vtk": self.vtk,
        }


def fem_baseline(mesh, problem, method: str, solver: str, order: int = 0):
    """The FEM baseline of ``order`` on ``mesh``: H(curl) best approximation or mixed solve."""
    from surrogate.fem.hcurl.registry import fem_approximation

    return fem_approximation(mesh, problem, order=order, method=method, solver=solver)


def _warm_up_fem(problem: Any, method: str, orders: Sequence[int]) -> None:
    """One solve per order on the coarsest cube, so that lazy imports and first-call caches
    stay out of the timings (the coarse levels are the ones equal-error comparisons pick)."""
    if not orders or not getattr(problem, "has_exact", False):
        return
    from surrogate.fem.domains import get_domain
    from surrogate.fem.hcurl.registry import fem_approximation

    mesh = get_domain("cube").mesh(1)
    for order in orders:
        fem_approximation(mesh, problem, order=order, method=method, solver="direct")


def _prepare_runs(runs: Sequence[Any], problem: Any, options: EvaluationOptions) -> str:
    """Move the models to the inference device and pay torch's lazy start outside timings."""
    device = resolve_inference_device(options.device)
    for run in runs:
        if hasattr(getattr(run, "model", None), "to"):
            run.model.to(device)
    for run in runs:  # first call pays torch's lazy initialisation; keep it out of timings
        run.predict(problem.inputs(np.full((4, 3), 0.5)), batch_size=options.batch_size)
    return device


def evaluate_runs(
    runs: Sequence[Any],
    problem: Any,
    options: EvaluationOptions,
    *,
    vtk_dir: str | Path | None = None,
    on_progress: ProgressCallback | None = None,
) -> Evaluation:
    """Errors and timings of every run on every test domain and level (Figs. 3–5).

    ``runs`` are loaded runs (``.predict``, ``.dataset``, ``.model_config``), already checked
    with :func:`~surrogate.evaluation.static.runs.check_runs_match_problem`. With ``vtk_dir``
    one ``.vtu`` per domain and level and one ``.pvd`` per domain are written there (see
    :func:`~surrogate.evaluation.static.vtk.write_level_vtu`).
    """
    from surrogate.fem.domains import get_domain
    from surrogate.fem.quadrature import quadrature_rule

    progress = on_progress or (lambda done, total, description: None)
    notes: list[str] = []
    method = resolve_fem_method(problem, options.fem, notes)
    orders = resolve_fem_orders(problem, options.fem_orders, method, notes)
    has_exact = bool(getattr(problem, "has_exact", False))
    labels = run_labels(runs)
    domains = [get_domain(name) for name in options.domains]
    training = {name: get_domain(name) for name in
                dict.fromkeys(str(run.dataset.get("domain")) for run in runs)}
    levels = sorted(set(options.levels))
    finest = levels[-1]
    device = _prepare_runs(runs, problem, options)
    _warm_up_fem(problem, method, orders)

    records: list[dict[str, Any]] = []
    reference_solutions: dict[str, Any] = {}
    vtk_entries: dict[str, list[tuple[int, str]]] = {}
    total_steps = len(domains) * len(levels)
    step = 0
    for domain in domains:
        reference_solution = None
        if not has_exact:  # the finest solve first: it is the reference of every level
            progress(step, total_steps, f"{domain.name}: reference solve, level {finest}")
            reference_solution = fem_baseline(domain.mesh(finest), problem, method,
                                              options.solver)
            reference_solutions[domain.name] = reference_solution
        for level in levels:
            progress(step, total_steps, f"{domain.name} level {level}")
            mesh = domain.mesh(level)
            points, weights = quadrature_rule(mesh, options.intorder)
            record, errors = level_record(domain, level, mesh, points, weights, problem,
                                             reference_solution, training, finest)
            solutions: dict[int, Any] = {}
            record["fem"], record["fem_orders"] = None, []
            for order in orders:
                is_reference = (reference_solution is not None and level == finest
                                and order == 0)
                solutions[order] = reference_solution if is_reference else fem_baseline(
                    mesh, problem, method, options.solver, order)
                record["fem_orders"].append(fem_record(solutions[order], method, is_reference,
                                                       options.intorder, errors))
            if record["fem_orders"]:  # the lowest order: N0 when evaluated
                record["fem"] = record["fem_orders"][0]
            inputs_start = time.perf_counter()
            inputs = problem.inputs(points)
            inputs_seconds = time.perf_counter() - inputs_start
            fem_seconds = record["fem"]["seconds"]["total"] if record["fem"] else None
            record["runs"] = {label: run_record(run, problem, mesh, inputs, inputs_seconds,
                                                 errors, fem_seconds, options.batch_size)
                              for label, run in zip(labels, runs, strict=True)}
            records.append(record)
            if vtk_dir is not None:
                name = write_level_vtu(Path(vtk_dir), domain.stem, level, mesh, problem,
                                       runs, labels, solutions, reference_solution,
                                       batch_size=options.batch_size)
                vtk_entries.setdefault(domain.stem, []).append((level, name))
            step += 1
            progress(step, total_steps, f"{domain.name} level {level}")

    vtk_summary = None
    if vtk_dir is not None:
        vtk_summary = write_collections(Path(vtk_dir), vtk_entries, labels,
                                        has_exact=has_exact, fem_orders=orders)
    histories = {label: list(getattr(run, "history", []) or [])
                 for label, run in zip(labels, runs, strict=True)}
    return Evaluation(
        problem=problem.name,
        reference="exact" if has_exact else f"fem-solve on the finest level ({finest})",
        options=options, records=records,
        runs={label: run_info(run) for label, run in zip(labels, runs, strict=True)},
        notes=notes, vtk=vtk_summary, histories=histories,
        inference_device=device_description(device),
        reference_solutions=reference_solutions,
    )


__all__ = ["Evaluation", "evaluate_runs", "fem_baseline"]
