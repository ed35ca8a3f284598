"""The FEM verdict of a maxwell-nl run on one evaluation set: the fastest FEM at equal error
and the break-even count N*.

The varistor makes the cavity nonlinear: no impulse response, no superposition, so every
query (a new waveform, amplitude or varistor, known or not) costs the FEM a whole
Newton–Newmark run (:func:`~surrogate.datasets.sequence.nonlinear_cavity.simulate_sample`),
and a batch costs the sum of its runs. Candidates: NGSolve H(curl) of other orders, levels,
Newmark substeps and with or without Richardson in time (``ngsolve:3:2:1``, the
:class:`~surrogate.evaluation.sequence.td_candidates.FemSpec` words), each solving the set's
own draws (signal, amplitude, σ₀, E₀) on its own setup (mesh, operators, the varistor's
tabulation, factorisation and Schur complement: ``setup_seconds``, once per evaluation and
Δt, shown apart); its error is the median over the set of the per-sequence relative L² error
against the set's targets, its cost the median wall seconds of one run. The data's own FEM
has error 0 by construction; its cost is timed by solving up to :data:`OWN_TIMED` of the
set's draws again (or taken from the set builder's fresh solves), and the largest difference
of those re-solves from the set's targets is recorded (``reproduced``).

N* = one-off (data generation + training) / (FEM − surrogate per query), as for maxwell-td
(:mod:`~surrogate.evaluation.sequence.fem_verdict`). Torch-free.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.metrics import relative_errors_per_sequence
from surrogate.evaluation.sequence.fem_verdict import NONLINEAR, OWN_NOTE, verdict_record
from surrogate.evaluation.sequence.td_candidates import FemSpec

NL_LADDER = ("ngsolve:2:2:1", "ngsolve:2:2:2", "ngsolve:2:2:1r", "ngsolve:2:2:2r",
             "ngsolve:3:2:1", "ngsolve:3:2:2", "ngsolve:3:2:3", "ngsolve:3:2:4", "ngsolve:3:2:5",
             "ngsolve:3:2:1r")
"""The candidates of a maxwell-nl verdict unless ``--fem-candidates`` names others: order 2
and 3 on the data's level, Newmark Δt/1–Δt/5 and Richardson (order 4 and level 1 measured
slower or off, docs/results/nonlinear-cavity.md)."""
OWN_TIMED = 3
"""How many of a set's sequences the data's own FEM solves again to time it."""


def nl_spec(recipe: Any) -> FemSpec:
    """The FEM a maxwell-nl recipe's data were made with."""
    from surrogate.datasets.sequence.nonlinear_cavity import FEM_BACKEND

    return FemSpec(FEM_BACKEND, int(recipe.fem_order), int(recipe.level), int(recipe.substeps),
                   bool(recipe.richardson))


def check_nl_specs(specs: Sequence[FemSpec]) -> None:
    """InputError (one line) for a candidate of another backend than the recipe's."""
    from surrogate.datasets.sequence.nonlinear_cavity import FEM_BACKEND

    for spec in specs:
        if spec.backend != FEM_BACKEND:
            raise InputError(f"--fem-candidates {spec.text}: maxwell-nl data are solved with "
                             f"the {FEM_BACKEND} backend only (e.g. ngsolve:3:2:1)")


def candidate_nl_setup(data_setup: Any, spec: FemSpec) -> tuple[Any, float]:
    """The data's setup rebuilt with ``spec``'s order, mesh and stepping (the same probes,
    dipole, varistor box, Newton tolerance), and the seconds that took."""
    from surrogate.datasets.sequence.nonlinear_cavity import build_setup

    start = time.perf_counter()
    points = tuple(tuple(float(v) for v in p) for p in data_setup.probe_points)
    recipe = dataclasses.replace(data_setup.recipe, fem_order=spec.order, level=spec.level,
                                 substeps=spec.substeps, richardson=spec.richardson,
                                 probe_points=points, intorder=None)
    setup = build_setup(recipe)
    return setup, time.perf_counter() - start


def timed_solves(setup: Any, draws: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Targets (n, T, 3·P + 1) of ``draws`` on ``setup`` and each run's wall seconds (n,)."""
    from surrogate.datasets.sequence.nonlinear_cavity import simulate_sample

    targets, seconds = [], np.empty(len(draws))
    for i, draw in enumerate(draws):
        start = time.perf_counter()
        targets.append(simulate_sample(setup, draw)[1])
        seconds[i] = time.perf_counter() - start
    return np.stack(targets), seconds


def seconds_record(seconds: np.ndarray) -> dict[str, Any]:
    """A candidate's seconds per query: one run (median); a batch costs the same per
    sequence (no shared work between nonlinear runs); no per-material part."""
    per_run = float(np.median(seconds))
    return {"solve": per_run, "convolution_one": per_run, "convolution_batch": per_run,
            "factorise": None, "impulse": None, "material": None, "runs": int(seconds.size)}


def nl_row(spec: FemSpec, setup: Any, setup_seconds: float | None, error: Mapping[str, float],
           seconds: np.ndarray, own: bool, **extra: Any) -> dict[str, Any]:
    """One candidate's JSON row (the maxwell-td row's fields; ``seconds["solve"]``: one
    nonlinear run)."""
    return {"fem": spec.text, "backend": spec.backend, "order": spec.order,
            "level": spec.level, "substeps": spec.substeps, "richardson": spec.richardson,
            "method": spec.method + (" (the data's FEM)" if own else ""),
            "dofs": int(setup.system.ops.n_free), "setup_seconds": setup_seconds, "own": own,
            "error": dict(error), "seconds": seconds_record(seconds), **extra}


def own_row(setup: Any, setup_seconds: float | None, draws: Sequence[Any],
            target: np.ndarray, readout: Callable[[np.ndarray], np.ndarray],
            known_seconds: np.ndarray | None) -> dict[str, Any]:
    """The data's FEM: error 0; seconds of the set builder's solves where it made some, else
    of :data:`OWN_TIMED` re-solves (their largest relative difference from the set's targets
    is ``reproduced``)."""
    extra: dict[str, Any] = {}
    if known_seconds is not None and len(known_seconds):
        seconds = np.asarray(known_seconds)
    else:
        count = min(OWN_TIMED, len(draws))
        again, seconds = timed_solves(setup, draws[:count])
        extra["reproduced"] = float(relative_errors_per_sequence(
            readout(again), target[:count]).max())
    return nl_row(nl_spec(setup.recipe), setup, setup_seconds, {"median": 0.0, "max": 0.0},
                  seconds, True, **extra)


def nl_set_verdict(setup: Any, setup_seconds: float | None, draws: Sequence[Any],
                   target: np.ndarray, readout: Callable[[np.ndarray], np.ndarray],
                   surrogate_error: float, surrogate_seconds: Mapping[str, float],
                   one_off: Mapping[str, Any], specs: Sequence[FemSpec],
                   systems: dict[FemSpec, Any], known_seconds: np.ndarray | None = None,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``fem_verdict`` of one maxwell-nl set: ``setup`` is the data's (with the set's
    ``steps``), ``draws`` the set's inputs, ``target`` as the run reads it out; ``systems``
    caches the candidates' set-ups (spec -> (setup, seconds)) across the sets."""
    say = progress or (lambda what: None)
    steps = setup.recipe.steps
    own_spec = nl_spec(setup.recipe)
    say(f"timing the data's FEM {own_spec.text}")
    rows = [own_row(setup, setup_seconds, draws, target, readout, known_seconds)]
    notes = [OWN_NOTE, *one_off.get("notes", ())]
    for spec in specs:
        if spec == own_spec:
            continue
        if spec not in systems:
            try:
                systems[spec] = candidate_nl_setup(setup, spec)
            except InputError as error:  # e.g. no cell of a coarser mesh in the varistor box
                systems[spec] = error
        if isinstance(systems[spec], InputError):
            notes.append(f"FEM candidate {spec.text} left out: {systems[spec]}")
            continue
        base, seconds = systems[spec]
        say(f"solving {len(draws)} sequences with {spec.text}")
        candidate = dataclasses.replace(base, recipe=dataclasses.replace(base.recipe,
                                                                         steps=steps))
        predicted, run_seconds = timed_solves(candidate, draws)
        errors = relative_errors_per_sequence(readout(predicted), target)
        rows.append(nl_row(spec, base, seconds, {"median": float(np.median(errors)),
                                                 "max": float(errors.max())},
                           run_seconds, False))
    if "reproduced" in rows[0]:
        notes.append(f"the data's FEM is timed on {rows[0]['seconds']['runs']} re-solves of "
                     f"the set's sequences (largest difference from the targets "
                     f"{rows[0]['reproduced']:.1e})")
    return verdict_record(NONLINEAR, len(draws), len(draws), rows, one_off, surrogate_error,
                          surrogate_seconds, notes)


__all__ = ["NL_LADDER", "OWN_TIMED", "candidate_nl_setup", "check_nl_specs",
           "nl_row", "nl_set_verdict", "nl_spec", "own_row", "seconds_record", "timed_solves"]
