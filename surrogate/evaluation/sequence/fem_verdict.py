"""The FEM verdict of a maxwell-td run on one evaluation set: the fastest FEM at equal error
and the break-even count N* per query kind.

The cavity is linear and time-invariant: a material once solved (one factorisation and one
impulse run per Δt, :func:`~surrogate.datasets.sequence.td_responses.material_response`)
answers any signal by one convolution of its stored impulse response. So:

- ``known material`` (unseen-signals, longer-horizon: the training materials): the FEM's cost
  of a new signal is that convolution;
- ``new material`` (unseen-materials): factorisation + impulse run + convolution, the
  material's cost charged to one query (the user asks one signal per new material).

Each for ``one`` (one sequence per call: the FEM convolves one signal, the surrogate predicts
one sequence) and ``batch`` (the whole set in one call, seconds per sequence on both sides:
one FFT product per material for the FEM). Candidates: the ladder
(:mod:`~surrogate.evaluation.sequence.td_candidates`), each on its own mesh (set-up seconds
apart, once per evaluation), its per-sequence relative L² error against the set's targets
(the metric of the set records), median over the set; plus the data's own FEM, whose error is
0 by construction (the targets are its output). For the file's test split its responses were
never computed here: its convolution is timed on a zero array of the response's shape (the
product's cost does not depend on the values); its per-material cost comes from the response
store where the set builder ran it (unseen-materials, fresh samples).

N* = one-off (data generation + training seconds) / (FEM − surrogate per query), "never" in
words when the FEM is not slower (:func:`verdict_text`). Torch-free.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from surrogate.core.equal_error import FemCandidate, fastest_fem
from surrogate.core.metrics import relative_errors_per_sequence
from surrogate.evaluation.family.economics import break_even
from surrogate.evaluation.family.query_timing import median_seconds
from surrogate.evaluation.sequence.td_candidates import (
    FemSpec,
    candidate_setup,
    recipe_spec,
    with_steps,
)

KNOWN, NEW = "known material", "new material"
NONLINEAR = "nonlinear: a full solve per query"
"""The query kind of every maxwell-nl set (:mod:`~surrogate.evaluation.sequence.nl_verdict`)."""
QUERIES = {"one": "one sequence per call", "batch": "the whole set in one call, per sequence"}
OWN_NOTE = ("the data's own FEM reproduces the set's targets exactly: its error is 0 by "
            "construction")


def query_kind(set_name: str) -> str:
    """:data:`NEW` for unseen-materials, else :data:`KNOWN`."""
    return NEW if set_name == "unseen-materials" else KNOWN


def duration(seconds: float | None) -> str:
    """``"0.21 ms"``, ``"3.1 s"`` (None: an en dash)."""
    if seconds is None:
        return "–"
    return f"{1e3 * seconds:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def _median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if len(values) else None


def time_convolutions(recipe: Any, responses: Sequence[np.ndarray], group: np.ndarray,
                      signals: Sequence[Any], repeats: int = 3
                      ) -> tuple[np.ndarray, np.ndarray, float]:
    """Every signal's targets from the response of its material group, timed one signal at a
    time (seconds (n,): the faster of the Toeplitz product the data were made with and the
    FFT product of one signal), and the batched FFT product per group (median of ``repeats``;
    total seconds over the groups)."""
    from surrogate.datasets.sequence.td_responses import (
        batch_response_targets,
        response_targets,
    )

    rows = recipe.steps + 1
    predictions = np.empty((len(signals), rows, responses[0].shape[1]))
    one, batch = np.empty(len(signals)), 0.0
    for g, response in enumerate(responses):
        members = np.flatnonzero(group == g)
        for i in members:  # one call per signal: the cost of answering one new signal
            start = time.perf_counter()
            predictions[i] = response_targets(recipe, response, signals[i])
            toeplitz = time.perf_counter() - start
            start = time.perf_counter()
            batch_response_targets(recipe, response, [signals[i]])
            one[i] = min(toeplitz, time.perf_counter() - start)
        group_signals = [signals[i] for i in members]
        batch += median_seconds(
            lambda r=response, s=group_signals: batch_response_targets(recipe, r, s), repeats)
    return predictions, one, batch


def cost_record(one: np.ndarray, batch: float, materials: Sequence[Any]) -> dict[str, Any]:
    """Seconds of a candidate: convolution per signal (median) and per sequence in a batch,
    factorisation, impulse run and both per material (medians; None when unknown)."""
    known = [m for m in materials if m is not None]
    return {"convolution_one": float(np.median(one)), "convolution_batch": batch / len(one),
            "factorise": _median([m.factorise_s for m in known]),
            "impulse": _median([m.impulse_s for m in known]),
            "material": _median([m.seconds for m in known])}


def measure_candidate(setup: Any, materials: np.ndarray, group: np.ndarray, signals: Sequence,
                      target: np.ndarray, readout: Callable[[np.ndarray], np.ndarray],
                      store: Any) -> dict[str, Any]:
    """A ladder candidate on one set: its responses (store), errors and seconds."""
    from surrogate.datasets.sequence.td_responses import material_response

    solved = [material_response(setup, m, store=store) for m in materials]
    predictions, one, batch = time_convolutions(setup.recipe, [s.response for s in solved],
                                                group, signals)
    errors = relative_errors_per_sequence(readout(predictions), target)
    return {"error": {"median": float(np.median(errors)), "max": float(errors.max())},
            "seconds": cost_record(one, batch, solved)}


def measure_own(setup: Any, materials: np.ndarray, group: np.ndarray, signals: Sequence,
                store: Any) -> dict[str, Any]:
    """The data's FEM on one set: error 0, convolutions on its stored responses (a zero
    array of their shape where the store has none), material costs from the store."""
    from surrogate.datasets.sequence.td_responses import fem_steps, response_key

    found = [store.get(response_key(setup, m)) for m in materials]
    shape = (fem_steps(setup.recipe), setup.observe.shape[0])
    responses = [np.zeros(shape) if f is None else f.response for f in found]
    _, one, batch = time_convolutions(setup.recipe, responses, group, signals)
    return {"error": {"median": 0.0, "max": 0.0}, "seconds": cost_record(one, batch, found),
            "convolved_zeros": sum(f is None for f in found)}


def candidate_row(spec: FemSpec, setup: Any, setup_seconds: float | None,
                  measured: Mapping[str, Any], own: bool) -> dict[str, Any]:
    """One candidate's JSON row: what it is, its set-up, error and seconds."""
    return {"fem": spec.text, "backend": spec.backend, "order": spec.order,
            "level": spec.level, "substeps": spec.substeps, "richardson": spec.richardson,
            "method": spec.method + (" (the data's FEM)" if own else ""),
            "dofs": int(setup.ops.n_free), "setup_seconds": setup_seconds, "own": own,
            **measured}


def fem_query_seconds(row: Mapping[str, Any], kind: str, query: str) -> float | None:
    """A candidate's seconds per query: the convolution (one signal, or per sequence of a
    batch), plus the material's factorisation and impulse run for a new material; for a
    nonlinear set (maxwell-nl) one run, stored in the same fields."""
    seconds = row["seconds"]
    convolution = seconds["convolution_one" if query == "one" else "convolution_batch"]
    if kind != NEW:
        return convolution
    return None if seconds["material"] is None else seconds["material"] + convolution


def verdict_text(kind: str, query: str, entry: Mapping[str, Any]) -> str:
    """One sentence: N* with its terms, or "never" and why."""
    fem, fem_s, sur_s = entry["fem"], entry["fem_seconds"], entry["surrogate_seconds"]
    if fem is None or fem_s is None:
        return "no FEM result to compare with"
    per = "" if query == "one" else " per sequence"
    if entry["n_star"] is None:
        if kind == NONLINEAR:
            return (f"never: the FEM ({fem['label']}) solves a sequence in "
                    f"{duration(fem_s)}{per}, faster than the surrogate ({duration(sur_s)}"
                    f"{per})")
        if kind == KNOWN:
            how = ("a new signal by one convolution of its stored impulse response"
                   if query == "one" else "a batch of new signals by one product with its "
                   "stored impulse response")
            return (f"never: for a known material the FEM answers {how} "
                    f"({duration(fem_s)}{per}, {fem['label']}), faster than the surrogate "
                    f"({duration(sur_s)}{per})")
        return (f"never: for a new material the FEM ({fem['label']}) factorises, runs the "
                f"impulse response and convolves in {duration(fem_s)}{per}, faster than the "
                f"surrogate ({duration(sur_s)}{per})")
    bound = (" (the FEM time is a lower bound: no candidate reaches the surrogate's error)"
             if entry["fem_lower_bound"] else "")
    return (f"N* = {'at most ' if bound else ''}{entry['n_star']:.4g} queries: one-off "
            f"{entry['one_off_seconds']:.4g} s / ({duration(fem_s)} FEM ({fem['label']}) − "
            f"{duration(sur_s)} surrogate{per}){bound}")


def query_verdicts(rows: Sequence[Mapping[str, Any]], kind: str, surrogate_error: float,
                   surrogate_seconds: Mapping[str, float], one_off: float
                   ) -> dict[str, dict[str, Any]]:
    """Per query (one, batch): the fastest FEM at the surrogate's median error, N*, text."""
    out = {}
    for query, what in QUERIES.items():
        candidates = [FemCandidate(r["order"], r["level"], r["error"]["median"], seconds,
                                   r["dofs"], r["backend"], r["method"])
                      for r in rows
                      if (seconds := fem_query_seconds(r, kind, query)) is not None]
        choice = fastest_fem(candidates, surrogate_error)
        fem = choice["fem"]
        fem_s = None if fem is None else float(fem["seconds"])
        sur_s = float(surrogate_seconds[query])
        entry = {"what": f"{kind}, {what}", "surrogate_error": surrogate_error,
                 "surrogate_seconds": sur_s, "fem": fem, "fem_seconds": fem_s,
                 "fem_lower_bound": bool(choice["lower_bound"]),
                 "one_off_seconds": one_off, "n_star": break_even(one_off, fem_s, sur_s)}
        entry["surrogate_faster"] = entry["n_star"] is not None
        entry["text"] = verdict_text(kind, query, entry)
        out[query] = entry
    return out


def set_verdict(setup: Any, samples: np.ndarray, set_name: str, target: np.ndarray,
                readout: Callable[[np.ndarray], np.ndarray], surrogate_error: float,
                surrogate_seconds: Mapping[str, float], one_off: Mapping[str, Any],
                specs: Sequence[FemSpec], store: Any, systems: dict[FemSpec, Any]
                ) -> dict[str, Any]:
    """``fem_verdict`` of one set: ``setup`` is the data's (its recipe, material pool),
    ``samples`` the set's sample ids, ``target`` as the run reads it out; ``systems`` caches
    the candidates' set-ups (spec -> (setup, seconds)) across the sets of one evaluation."""
    from surrogate.datasets.sequence.maxwell_td import sample_signals

    recipe, kind = setup.recipe, query_kind(set_name)
    per_sequence = setup.materials[np.asarray(samples) % recipe.n_materials]
    materials, group = np.unique(per_sequence, axis=0, return_inverse=True)
    group = np.ravel(group)
    signals = sample_signals(recipe, samples)
    own_spec = recipe_spec(recipe)
    own = measure_own(setup, materials, group, signals, store)
    rows = [candidate_row(own_spec, setup, None, own, own=True)]
    for spec in specs:
        if spec == own_spec:
            continue
        if spec not in systems:
            systems[spec] = candidate_setup(setup, spec)
        base, seconds = systems[spec]
        measured = measure_candidate(with_steps(base, recipe.steps), materials, group,
                                     signals, target, readout, store)
        rows.append(candidate_row(spec, base, seconds, measured, own=False))
    notes = [OWN_NOTE, *one_off.get("notes", ())]
    if own["convolved_zeros"]:
        notes.append("the data's FEM convolutions are timed on zero arrays of its responses' "
                     "shape (the file's materials were not re-solved; the cost does not "
                     "depend on the values)")
    return verdict_record(kind, len(samples), len(materials), rows, one_off, surrogate_error,
                          surrogate_seconds, notes)


def verdict_record(kind: str, sequences: int, materials: int,
                   rows: Sequence[Mapping[str, Any]], one_off: Mapping[str, Any],
                   surrogate_error: float, surrogate_seconds: Mapping[str, float],
                   notes: Sequence[str]) -> dict[str, Any]:
    """A set's ``fem_verdict``: its candidates, one-off, surrogate and query verdicts."""
    return {"kind": kind, "sequences": int(sequences), "materials": int(materials),
            "candidates": list(rows), "one_off_seconds": dict(one_off),
            "surrogate": {"error": surrogate_error, "seconds": dict(surrogate_seconds)},
            "queries": query_verdicts(rows, kind, surrogate_error, surrogate_seconds,
                                      float(one_off["total"])),
            "notes": list(notes)}


def one_off_seconds(run: Any, dataset: Any) -> dict[str, Any]:
    """Data generation (the run's record, else the dataset's JSON summary) and training
    seconds of a run, their total (a missing one counted as 0 s, with a note)."""
    from surrogate.training.family_inputs import summary_generation_seconds

    generation = (run.dataset or {}).get("generation_seconds")
    if generation is None:
        generation = summary_generation_seconds(dataset)
    metrics = getattr(run, "metrics", None) or {}
    training = metrics.get("train_seconds", metrics.get("fit_seconds"))
    notes = [f"the run records no {what} time; counted as 0 s"
             for what, value in (("data generation", generation), ("training", training))
             if value is None]
    generation = None if generation is None else float(generation)
    training = None if training is None else float(training)
    return {"generation": generation, "training": training,
            "total": (generation or 0.0) + (training or 0.0), "notes": notes}


__all__ = ["KNOWN", "NEW", "NONLINEAR", "OWN_NOTE", "QUERIES", "candidate_row", "duration",
           "fem_query_seconds", "measure_candidate", "measure_own", "one_off_seconds",
           "query_kind", "query_verdicts", "set_verdict", "time_convolutions", "verdict_record",
           "verdict_text"]
