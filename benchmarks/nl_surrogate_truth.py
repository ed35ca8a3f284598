"""Benchmark: a ``maxwell-nl`` sequence run's error against a finer FEM than its data.

A surrogate cannot beat its data, and its data are not the converged solution: the run is
measured on its ``unseen-signals`` set (the file's test split, as ``surrogate evaluate``
rebuilds it) against the data's targets (what ``evaluate`` reports) AND against the same draws
(waveform, amplitude, σ₀, E₀) solved again with ``--reference`` (default ``ngsolve:4:2:4r``:
order + 1 and Δt/2 of the recipe's defaults, the reference of ``benchmarks/nl_truth.py``).
Reported per sequence and as mean / median / max (and pooled) over the first ``--sequences``
K of the set (relative L² over all steps and channels, E at the probes and the Joule power):

- ``surrogate_to_data``: ‖ŷ − y_data‖ / ‖y_data‖ (the figure ``evaluate`` gives),
- ``data_to_reference``: ‖y_data − y_ref‖ / ‖y_ref‖ (the truth of the data on this set),
- ``surrogate_to_reference``: ‖ŷ − y_ref‖ / ‖y_ref‖ (the surrogate against the finer truth).

Each reference run is one Newton–Newmark solve (one BLAS thread, as ``simulate_sample``
runs; minutes at order 4).
JSON on stdout; ``--cache FILE.npz`` keeps the reference runs so a rerun only predicts.

Run: python benchmarks/nl_surrogate_truth.py runs/lem512_lr --sequences 12 --cache /tmp/ref.npz
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.metrics import relative_errors_per_sequence, sequence_error_summary
from surrogate.core.thread_settings import thread_settings


def errors_record(prediction: np.ndarray, target: np.ndarray) -> dict[str, Any]:
    """:func:`sequence_error_summary` with the per-sequence relative errors."""
    return {**sequence_error_summary(prediction, target),
            "per_sequence": relative_errors_per_sequence(prediction, target).tolist()}


def reference_targets(plan: Any, spec: Any, count: int, cache: Path | None
                      ) -> tuple[np.ndarray, float]:
    """The first ``count`` unseen-signals draws solved with ``spec`` (cached), and the
    median seconds of one run."""
    from surrogate.evaluation.sequence import maxwell_nl
    from surrogate.evaluation.sequence.nl_verdict import candidate_nl_setup, timed_solves

    if cache is not None and cache.is_file():
        stored = np.load(cache)
        if str(stored["spec"]) == spec.text and int(stored["targets"].shape[0]) >= count:
            return stored["targets"][:count], float(stored["seconds"])
    draws = maxwell_nl.set_draws(plan, "unseen-signals")[:count]
    setup, _ = candidate_nl_setup(maxwell_nl.maxwell_nl_setup(plan), spec)
    targets, seconds = timed_solves(setup, draws)
    if cache is not None:
        partial = cache.with_name(f".{cache.name}.partial.npz")
        np.savez(partial, spec=spec.text, targets=targets, seconds=np.median(seconds))
        os.replace(partial, cache)
    return targets, float(np.median(seconds))


def main() -> None:
    """Parse the arguments, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a maxwell-nl sequence run directory")
    parser.add_argument("--sequences", type=int, default=12, help="first K test sequences")
    parser.add_argument("--reference", default="ngsolve:4:2:4r",
                        help="the finer FEM, backend:order:level:substeps[r]")
    parser.add_argument("--cache", type=Path, default=None, help="npz of the reference runs")
    args = parser.parse_args()

    from surrogate.evaluation.sequence.builders import build_set
    from surrogate.evaluation.sequence.measure import SequenceEvaluationOptions, prepare
    from surrogate.evaluation.sequence.td_candidates import parse_candidates
    from surrogate.runs.load import load_run
    from surrogate.training.sequence import readout_targets

    if args.sequences < 1:
        raise SystemExit("nl_surrogate_truth: --sequences must be at least 1")
    run = load_run(args.run)
    options = SequenceEvaluationOptions(sets=("unseen-signals",),
                                        max_sequences=args.sequences, fem_candidates=("none",))
    plan = prepare(run, options)
    if plan.kind != "maxwell-nl":
        raise SystemExit(f"nl_surrogate_truth: {args.run} is not a maxwell-nl run")
    (spec,), _ = parse_candidates((args.reference,), ())
    built = build_set(plan, "unseen-signals", lambda *a: None)
    count = min(args.sequences, len(built.inputs))
    readout = run.model_config.readout
    data = np.asarray(readout_targets(built.targets, readout), dtype=float)[:count]
    predicted = np.asarray(run.predict(built.inputs[:count]), dtype=float)
    started = time.perf_counter()
    reference, seconds = reference_targets(plan, spec, count, args.cache)
    reference = np.asarray(readout_targets(reference, readout), dtype=float)
    print(json.dumps({
        "run": str(args.run), "set": "unseen-signals", "sequences": count,
        "reference": spec.text, "reference_seconds_per_sequence": seconds,
        "reference_wall_seconds": time.perf_counter() - started,
        "surrogate_to_data": errors_record(predicted, data),
        "data_to_reference": errors_record(data, reference),
        "surrogate_to_reference": errors_record(predicted, reference),
        "load_average": os.getloadavg()[0], "threads": thread_settings(),
    }, indent=1))


if __name__ == "__main__":
    main()
