"""Surrogates against Nédélec baselines on test domains (τ-learning paper §7, Figs. 3–5).

For every test domain Ω̃ and mesh level, errors are integrated by quadrature on Ω̃'s mesh
(``quadrature_rule``; not by point sampling):

    ‖u − u_NN‖_{L²(Ω̃)}  and  ‖u − u_h‖_{L²(Ω̃)},  u_h (best approximation or solve) of every
    FEM candidate (backend, order) of the FEM-method registry: N0 (order 0, the paper's
    baseline), complete linear, and with ``ngsolve`` complete quadratic and cubic (a
    candidate above ``--fem-max-dofs`` H(curl) DOFs is not solved; a FEM of order k is judged
    by a rule of degree ≥ ``error_intorder(k)``),

each also split into the part of Ω̃ inside the run's training domain Ω (in-distribution) and
the part outside (extrapolation) by masking the quadrature weights with ``Ω.contains``.
The FEM baseline does not depend on the run: it is computed once per domain, level, backend
and order. For every run and domain,
:func:`~surrogate.evaluation.static.records.equal_error_summary` names the fastest FEM (any
backend, level and order) whose error is at most the run's (``fastest_fem_at_equal_error`` in
``evaluation.json``).

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

from surrogate.core.errors import SolverError
from surrogate.evaluation.devices import device_description, resolve_inference_device
from surrogate.evaluation.fem_timing import median_timed_solve
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.evaluation.static.records import (
    TIMING_REPEATS,
    LevelRules,
    equal_error_summary,
    fem_record,
    run_record,
)
from surrogate.evaluation.static.runs import (
    resolve_fem_candidates,
    resolve_fem_method,
    run_info,
    run_labels,
)
from surrogate.evaluation.static.vtk import write_collections, write_level_vtu
from surrogate.fem.hcurl.registry import OWN_BACKEND, FemMethod

REFERENCE_FEM = FemMethod(OWN_BACKEND, 0)
"""The FEM whose finest-level solve is the reference of a problem without exact solution."""

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


def fem_baseline(mesh, problem, method: str, solver: str, fem: Any = None):
    """The FEM baseline ``fem`` (a registry :class:`~surrogate.fem.hcurl.registry.FemMethod`;
    None: the own backend's N0) on ``mesh``: H(curl) best approximation where ``fem`` offers
    it and ``method`` is "best", else the mixed solve."""
    fem = fem or REFERENCE_FEM
    return fem.run(mesh, problem, method=fem.offered_method(method), solver=solver)


def _warm_up_fem(problem: Any, method: str, candidates: Sequence[Any]) -> None:
    """One solve per candidate on the coarsest cube, so that lazy imports and first-call
    caches stay out of the timings (the coarse levels are the ones equal-error comparisons
    pick)."""
    if not candidates or not getattr(problem, "has_exact", False):
        return
    from surrogate.fem.domains import get_domain

    mesh = get_domain("cube").mesh(1)
    for fem in candidates:
        fem.run(mesh, problem, method=fem.offered_method(method), solver="direct")


def _level_fem(fem_list: Sequence[Any], mesh: Any, problem: Any, method: str,
               options: EvaluationOptions, reference: Any, skipped: list[str], where: str,
               rules: LevelRules) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    """The FEM records of one level (every candidate within ``fem_max_dofs`` whose solve
    succeeds; the reference solve reused where it is the candidate) and the solutions by
    FEM method; why a candidate is left out goes to ``skipped``."""
    from surrogate.fem.hcurl.errors import error_intorder
    from surrogate.fem.hcurl.registry import hcurl_dofs

    records, solutions = [], {}
    for fem in fem_list:
        dofs = hcurl_dofs(mesh, fem.order)
        if dofs > options.fem_max_dofs:
            skipped.append(f"{fem.label} on {where}: {dofs} H(curl) DOFs > --fem-max-dofs "
                           f"{options.fem_max_dofs}")
            continue
        is_reference = reference is not None and fem == REFERENCE_FEM
        try:
            solution = reference if is_reference else median_timed_solve(
                lambda fem=fem: fem_baseline(mesh, problem, method, options.solver, fem),
                TIMING_REPEATS)
        except SolverError as exc:  # e.g. a singular system on a domain with a cavity
            skipped.append(f"{fem.label} on {where}: its solve failed ({exc})")
            continue
        solutions[fem] = solution
        rule = max(options.intorder, error_intorder(fem.order))
        records.append(fem_record(solution, fem.offered_method(method), is_reference, rule,
                                  rules.at(rule)[1]))
    return records, solutions


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

    progress = on_progress or (lambda done, total, description: None)
    notes: list[str] = []
    method = resolve_fem_method(problem, options.fem, notes)
    candidates = resolve_fem_candidates(problem, options, method, notes)
    has_exact = bool(getattr(problem, "has_exact", False))
    labels = run_labels(runs)
    domains = [get_domain(name) for name in options.domains]
    training = {name: get_domain(name) for name in
                dict.fromkeys(str(run.dataset.get("domain")) for run in runs)}
    levels = sorted(set(options.levels))
    finest = levels[-1]
    device = _prepare_runs(runs, problem, options)
    _warm_up_fem(problem, method, candidates)

    records: list[dict[str, Any]] = []
    reference_solutions: dict[str, Any] = {}
    vtk_entries: dict[str, list[tuple[int, str]]] = {}
    skipped: list[str] = []
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
            rules = LevelRules(domain, level, mesh, problem, reference_solution, training,
                               finest)
            record, errors, points = rules.at(options.intorder)
            level_reference = reference_solution if level == finest else None
            record["fem_orders"], solutions = _level_fem(
                candidates, mesh, problem, method, options, level_reference, skipped,
                f"{domain.name} level {level}", rules)
            record["fem"] = record["fem_orders"][0] if record["fem_orders"] else None
            inputs_start = time.perf_counter()
            inputs = problem.inputs(points)
            inputs_seconds = time.perf_counter() - inputs_start
            fem_seconds = record["fem"]["seconds"]["total"] if record["fem"] else None
            record["runs"] = {label: run_record(run, problem, mesh, inputs, inputs_seconds,
                                                 errors, fem_seconds, options.batch_size)
                              for label, run in zip(labels, runs, strict=True)}
            records.append(record)
            if vtk_dir is not None:
                own = {fem.order: sol for fem, sol in solutions.items() if fem.exports_vtk}
                name = write_level_vtu(Path(vtk_dir), domain.stem, level, mesh, problem,
                                       runs, labels, own, reference_solution,
                                       batch_size=options.batch_size)
                vtk_entries.setdefault(domain.stem, []).append((level, name))
            step += 1
            progress(step, total_steps, f"{domain.name} level {level}")
    if skipped:
        notes.append(f"FEM candidates left out: {'; '.join(skipped)}")

    vtk_summary = None
    if vtk_dir is not None:
        vtk_summary = write_collections(
            Path(vtk_dir), vtk_entries, labels, has_exact=has_exact,
            fem_orders=sorted({m.order for m in candidates if m.exports_vtk}))
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
