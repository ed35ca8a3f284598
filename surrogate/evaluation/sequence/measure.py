"""``evaluate`` for sequence runs: errors on unseen signals, materials and a longer horizon.

The run's training dataset (the path recorded in ``config.json``, or ``data_path``) must hold
the content the run records (its ``content_hash``); its recipe rebuilds the evaluation sets
(:mod:`surrogate.evaluation.sequence.sets`). On every set, in physical units:

- per-sequence relative L² error e_i = ‖u_NN,i − u_i‖ / ‖u_i‖ (norms over all steps and
  channels of sequence i; over its single target for a seq-to-one run), summarised by mean,
  median and max, next to the pooled ‖U_NN − U‖_F / ‖U‖_F;
- for ``longer-horizon`` the same split into the trained window (the first T_train steps,
  t ≤ t_{T_train − 1}) and the extrapolated window (the steps after it);
- relative error over time r_i(n) = ‖u_NN,i(t_n) − u_i(t_n)‖ / rms_i with
  rms_i = (1/T Σ_n ‖u_i(t_n)‖²)^{1/2} (so that (1/T Σ_n r_i(n)²)^{1/2} = e_i; a pointwise
  ratio would divide by the zero field at t = 0), as its median and 90th percentile over the
  sequences at each step (seq-to-seq runs only).

maxwell-td and maxwell-nl runs also get each set's FEM verdict (``fem_verdict``: the fastest
FEM at the surrogate's error and the break-even count N*,
:mod:`surrogate.evaluation.sequence.fem_verdict`, :mod:`surrogate.evaluation.sequence.nl_verdict`)
with the surrogate's query time: one sequence per call, and the whole set in one call.

Nothing is printed; progress goes through a ``(done, total, description)`` callback.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.devices import device_description, resolve_inference_device
from surrogate.evaluation.sequence.builders import build_set
from surrogate.evaluation.sequence.metrics import set_record
from surrogate.evaluation.sequence.options import SequenceEvaluationOptions
from surrogate.evaluation.sequence.sets import (
    SequenceSet,
    SetPlan,
    parse_material_ranges,
    plan_sets,
)
from surrogate.evaluation.sequence.vtk import check_vtk, write_sequence_vtk
from surrogate.training.sequence import readout_targets


@dataclass
class SetResult:
    """One evaluated set: its arrays (targets and predictions as the run reads them out)."""

    set: SequenceSet
    prediction: np.ndarray
    target: np.ndarray
    record: dict[str, Any]


@dataclass
class SequenceEvaluation:
    """What :func:`evaluate_sequence_run` measured (``to_dict`` is ``evaluation.json``)."""

    run: dict[str, Any]
    options: SequenceEvaluationOptions
    plan: SetPlan
    results: dict[str, SetResult]
    timings: dict[str, float]
    threads: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    vtk: dict[str, Any] | None = None
    inference_device: str = "cpu"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary: run, options, the sets' records, timings, threads, notes."""
        from surrogate.core.json_files import json_safe

        return json_safe({
            "kind": "sequence", "problem": self.run.get("problem"), "run": self.run,
            "options": self.options.to_dict(),
            "sets": {name: result.record for name, result in self.results.items()},
            "timings": self.timings, "threads": self.threads,
            "inference_device": self.inference_device, "notes": list(self.notes),
            "vtk": self.vtk,
        })


# ------------------------------------------------------------------------------- the run


def load_training_dataset(run: Any, data_path: str | os.PathLike | None = None) -> Any:
    """The run's training dataset; InputError when missing or of other content (hash)."""
    from surrogate.datasets.reader import read_dataset

    recorded = run.dataset.get("path")
    path = Path(data_path) if data_path is not None else Path(str(recorded))
    if not path.is_file():
        raise InputError(f"training dataset {path} of run {run.path} not found; pass --data "
                         f"PATH to the file it was trained on")
    dataset = read_dataset(path)
    expected = run.dataset.get("content_hash")
    if dataset.content_hash != expected:
        raise InputError(f"{path} is not the dataset run {run.path} was trained on (content "
                         f"hash {dataset.content_hash[:19]}…, the run records "
                         f"{str(expected)[:19]}…)")
    if dataset.kind != "sequence":
        raise InputError(f"{path} is a {dataset.kind} dataset, not a sequence one")
    return dataset


def run_info(run: Any, dataset: Any) -> dict[str, Any]:
    """Path, model, training dataset and training-time test errors of a sequence run."""
    config = run.model_config
    metrics = run.metrics or {}
    return {"path": str(run.path), "arch": config.arch, "hidden": config.hidden,
            "readout": config.readout, "dt": config.dt, "learn_dt": config.learn_dt,
            "problem": dataset.problem, "recipe_kind": (dataset.recipe or {}).get("kind"),
            "training_recipe": dataset.recipe,
            "dataset": {"path": str(dataset.path), "content_hash": dataset.content_hash,
                        "steps": int(dataset.inputs.shape[1]),
                        "input_names": list(dataset.input_names),
                        "target_names": list(dataset.target_names)},
            "training_test_error": (metrics.get("sequence_relative_l2_error") or {}).get("test")}


def thread_info() -> dict[str, Any]:
    """Torch's intra-op thread count and the OMP/MKL environment."""
    import torch

    return {"torch": torch.get_num_threads(),
            **{k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}}


def prepare(run: Any, options: SequenceEvaluationOptions, *, data_path: Any = None,
            vtk: bool = False) -> SetPlan:
    """Load and check the dataset and plan the sets (every user error, no simulation)."""
    if getattr(run.model_config, "readout", None) is None:
        raise InputError(f"run {run.path} is not a sequence run")
    dataset = load_training_dataset(run, data_path)
    plan = plan_sets(dataset, sets=options.sets, fresh=options.fresh,
                     max_sequences=options.max_sequences, horizon_factor=options.horizon_factor,
                     material_seed=options.material_seed,
                     material_ranges=parse_material_ranges(options.material_ranges))
    if vtk:
        check_vtk(plan, run, options.sample)
    plan_verdict(plan, options)
    return plan


def plan_verdict(plan: SetPlan, options: SequenceEvaluationOptions) -> None:
    """The verdict's candidates (``plan.cache["fem_specs"]``, None: no verdict) and response
    store; InputError when candidates are given for data without a FEM (not maxwell-td or
    maxwell-nl), or a response store for maxwell-nl (no impulse responses)."""
    from surrogate.datasets.sequence.td_responses import ResponseStore
    from surrogate.evaluation.sequence.nl_verdict import NL_LADDER, check_nl_specs
    from surrogate.evaluation.sequence.td_candidates import DEFAULT_LADDER, parse_candidates

    ladders = {"maxwell-td": DEFAULT_LADDER, "maxwell-nl": NL_LADDER}
    ladder = ladders.get(plan.kind) if plan.recipe is not None else None
    specs, notes = parse_candidates(options.fem_candidates, ladder or DEFAULT_LADDER)
    if ladder is None:
        if options.fem_candidates is not None and specs is not None \
                or options.fem_cache is not None:
            raise InputError(f"--fem-candidates and --fem-cache apply to maxwell-td and "
                             f"maxwell-nl runs only, not {plan.kind or 'unknown'!r} data")
        specs, notes = None, []
    elif plan.kind == "maxwell-nl":
        if options.fem_cache is not None:
            raise InputError("--fem-cache stores a linear cavity's impulse responses "
                             "(maxwell-td); maxwell-nl runs have none")
        check_nl_specs(specs or ())
    plan.cache["fem_specs"] = specs
    plan.cache["store"] = ResponseStore(options.fem_cache)
    plan.notes.extend(notes)


def surrogate_query_seconds(run: Any, inputs: np.ndarray, batch_size: int | None,
                            repeats: int = 5) -> dict[str, float]:
    """The surrogate's seconds per query: one sequence per call (median of ``repeats``), and
    per sequence of the whole set in one call (median of 3)."""
    from surrogate.evaluation.family.query_timing import median_seconds

    one = median_seconds(lambda: run.predict(inputs[:1], batch_size=batch_size), repeats)
    whole = median_seconds(lambda: run.predict(inputs, batch_size=batch_size), 3)
    return {"one": one, "batch": whole / len(inputs)}


def add_fem_verdict(run: Any, plan: SetPlan, name: str, result: SetResult,
                    batch_size: int | None, progress: Any = None) -> None:
    """``result.record["fem_verdict"]`` of a maxwell-td or maxwell-nl set
    (:func:`plan_verdict`'s specs)."""
    from surrogate.evaluation.sequence.fem_verdict import one_off_seconds

    one_off = plan.cache.setdefault("one_off", one_off_seconds(run, plan.dataset))
    readout = run.model_config.readout
    error = float(result.record["errors"]["median"])
    seconds = surrogate_query_seconds(run, result.set.inputs, batch_size)
    systems = plan.cache.setdefault("systems", {})
    if plan.kind == "maxwell-nl":
        from surrogate.evaluation.sequence import maxwell_nl
        from surrogate.evaluation.sequence.nl_verdict import nl_set_verdict

        known = plan.cache.get("own_seconds") if name == "unseen-signals" else None
        setup = maxwell_nl.set_setup(plan, name)  # built once: its seconds in the cache
        verdict = nl_set_verdict(
            setup, plan.cache.get("setup_seconds"), maxwell_nl.set_draws(plan, name),
            result.target,
            lambda y: readout_targets(y, readout), error, seconds, one_off,
            plan.cache["fem_specs"], systems, known, progress)
    else:
        from surrogate.evaluation.sequence.fem_verdict import set_verdict
        from surrogate.evaluation.sequence.maxwell_td import response_store, set_setup

        verdict = set_verdict(set_setup(plan, name), result.set.samples, name, result.target,
                              lambda y: readout_targets(y, readout), error, seconds, one_off,
                              plan.cache["fem_specs"], response_store(plan), systems)
    result.record["fem_verdict"] = verdict


def evaluate_set(run: Any, built: SequenceSet, batch_size: int | None) -> SetResult:
    """Predict one set and measure it."""
    start = time.perf_counter()
    prediction = np.asarray(run.predict(built.inputs, batch_size=batch_size), dtype=float)
    seconds = time.perf_counter() - start
    target = np.asarray(readout_targets(built.targets, run.model_config.readout), dtype=float)
    return SetResult(built, prediction, target, set_record(built, prediction, target, seconds))


def evaluate_sequence_run(run: Any, options: SequenceEvaluationOptions, *,
                          plan: SetPlan | None = None, data_path: Any = None,
                          vtk_dir: str | os.PathLike | None = None,
                          on_progress: Any = None) -> SequenceEvaluation:
    """Build the sets of :func:`prepare`, predict, measure; optionally write the VTK files."""
    progress = on_progress or (lambda done, total, description: None)
    started = time.perf_counter()
    plan = plan or prepare(run, options, data_path=data_path, vtk=vtk_dir is not None)
    device = resolve_inference_device(options.device)
    run.model.to(device)
    # the first call pays torch's lazy initialisation; keep it out of the timings
    run.predict(np.zeros((1, 2, run.model_config.in_features)))
    results: dict[str, SetResult] = {}
    total = len(plan.sets) + (1 if vtk_dir is not None else 0)
    for done, name in enumerate(plan.sets):
        def report(d: int, t: int, what: str, name: str = name, done: int = done) -> None:
            progress(done, total, f"{name}: {what}")

        progress(done, total, f"{name}: generating")
        built = build_set(plan, name, report)
        progress(done, total, f"{name}: predicting {len(built.inputs)} sequences")
        results[name] = evaluate_set(run, built, options.batch_size)
        if plan.cache.get("fem_specs") is not None:
            progress(done, total, f"{name}: FEM verdict")
            add_fem_verdict(run, plan, name, results[name], options.batch_size,
                            lambda what, name=name, done=done: progress(
                                done, total, f"{name}: FEM verdict, {what}"))
    vtk = None
    if vtk_dir is not None:
        progress(total - 1, total, "VTK files")
        vtk = write_sequence_vtk(Path(vtk_dir), plan, results["unseen-signals"], options.sample,
                                 options.vtk_every)
    progress(total, total, "done")
    timings = {"total": time.perf_counter() - started,
               **{f"{n}.generate": r.set.seconds for n, r in results.items()},
               **{f"{n}.predict": r.record["seconds"]["predict"] for n, r in results.items()}}
    return SequenceEvaluation(run=run_info(run, plan.dataset), options=options, plan=plan,
                              results=results, timings=timings, threads=thread_info(),
                              notes=list(plan.notes), vtk=vtk,
                              inference_device=device_description(device))


__all__ = ["SequenceEvaluationOptions", "SequenceEvaluation", "SetResult",
           "evaluate_sequence_run", "prepare", "load_training_dataset", "run_info",
           "thread_info", "evaluate_set", "plan_verdict", "surrogate_query_seconds",
           "add_fem_verdict"]
