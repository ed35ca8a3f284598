"""Evaluation sets of maxwell-nl runs: unseen waveforms, unseen amplitudes and varistors, a
longer horizon.

Every sequence is its own Newton–Newmark run (no superposition) with the training recipe's
setup (mesh, operators, the varistor's tabulation, the Schur steppers), built once per plan.
Each set keeps the draws it was solved from (signal, amplitude, σ₀, E₀ per sequence) in
``plan.cache`` so that the FEM verdict (:mod:`surrogate.evaluation.sequence.nl_verdict`)
solves the same inputs with its candidates:

- ``unseen-signals``: the file's test rows (their draws are those of the recipe's sample
  ids) plus fresh samples n, n + 1, …: unseen waveforms, amplitudes and varistors inside the
  training ranges;
- ``unseen-materials``: the same waveform shapes with (amplitude, σ₀, E₀) redrawn by the
  varistor stream of ``material_seed`` (default seed + 1), in the recipe's ranges or in
  ``material_ranges`` (``amplitude=2,3``: beyond the trained amplitudes);
- ``longer-horizon``: the same draws over ``steps`` × factor (the same sequences, extended).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from surrogate.evaluation.sequence.sets import (
    MATERIAL_NAMES_BY_RECIPE,
    ProgressCallback,
    SequenceSet,
    SetPlan,
    as_stored,
    file_rows,
    ids_text,
    longer_steps,
    new_material_seed,
    regenerated_recipe,
    signals_source,
)

VARIED = MATERIAL_NAMES_BY_RECIPE["maxwell-nl"]


def maxwell_nl_setup(plan: SetPlan) -> Any:
    """The recipe's shared setup, built once per plan (its seconds in
    ``plan.cache["setup_seconds"]``: the data's FEM's set-up)."""
    from surrogate.datasets.sequence.nonlinear_cavity import build_setup

    if "setup" not in plan.cache:
        start = time.perf_counter()
        plan.cache["setup"] = build_setup(regenerated_recipe(plan))
        plan.cache["setup_seconds"] = time.perf_counter() - start
    return plan.cache["setup"]


def set_draws(plan: SetPlan, name: str) -> list[tuple[Any, float, float, float]]:
    """(signal, amplitude, σ₀, E₀) of every sequence of set ``name`` (see the module
    docstring); kept in ``plan.cache`` for the verdict."""
    from surrogate.datasets.sequence.nonlinear_cavity import sample_draws

    key = ("draws", name)
    if key not in plan.cache:
        draws = sample_draws(regenerated_recipe(plan), plan.samples)
        if name == "unseen-materials":
            seed = new_material_seed(plan)
            other = sample_draws(regenerated_recipe(plan, seed=seed, **plan.material_ranges),
                                 plan.samples)
            draws = [(d[0], *o[1:]) for d, o in zip(draws, other, strict=True)]
        plan.cache[key] = draws
    return plan.cache[key]


def set_setup(plan: SetPlan, name: str) -> Any:
    """The data's setup for set ``name`` (longer-horizon: the longer ``steps``)."""
    setup = maxwell_nl_setup(plan)
    if name == "longer-horizon":
        steps = longer_steps(plan.recipe.steps, plan.horizon_factor)
        return dataclasses.replace(setup, recipe=regenerated_recipe(plan, steps=steps))
    return setup


def solve_draws(setup: Any, draws: list, progress: ProgressCallback
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """inputs (n, T, 3), targets (n, T, 3·P + 1) and wall seconds (n,) of ``draws``, one
    nonlinear run each."""
    from surrogate.datasets.sequence.nonlinear_cavity import simulate_sample

    inputs, targets, seconds = [], [], np.empty(len(draws))
    for i, draw in enumerate(draws):
        progress(i, len(draws), f"solving sequence {i + 1}/{len(draws)}")
        start = time.perf_counter()
        x, y, _ = simulate_sample(setup, draw)
        seconds[i] = time.perf_counter() - start
        inputs.append(x)
        targets.append(y)
    return np.stack(inputs), np.stack(targets), seconds


def _varistors(inputs: np.ndarray) -> np.ndarray:
    """(n, 2): σ₀ and E₀ of every sequence (constant input channels)."""
    return np.asarray(inputs[:, 0, 1:3])


def maxwell_nl_signals(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The file's test rows plus fresh samples n, n + 1, … (their own draws)."""
    data, recipe = plan.dataset, plan.recipe
    rows = file_rows(plan)
    inputs, targets = data.inputs[rows], data.targets[rows]
    draws = set_draws(plan, "unseen-signals")
    if plan.fresh.size:
        fresh_inputs, fresh_targets, seconds = solve_draws(
            maxwell_nl_setup(plan), draws[plan.in_file:], progress)
        plan.cache["own_seconds"] = seconds
        inputs = np.concatenate([inputs, as_stored(fresh_inputs, recipe.dtype)])
        targets = np.concatenate([targets, as_stored(fresh_targets, recipe.dtype)])
    return SequenceSet("unseen-signals", inputs, targets, recipe.time, plan.samples,
                       signals_source(plan, "samples"),
                       recipe=regenerated_recipe(plan).to_dict() if plan.fresh.size else None,
                       materials=_varistors(inputs))


def maxwell_nl_materials(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The same waveform shapes with amplitude, σ₀, E₀ redrawn (other seed or ranges)."""
    seed = new_material_seed(plan)
    inputs, targets, _ = solve_draws(maxwell_nl_setup(plan), set_draws(plan, "unseen-materials"),
                                     progress)
    ranges = {k: list(plan.material_ranges.get(k, getattr(plan.recipe, k))) for k in VARIED}
    recipe = {**regenerated_recipe(plan).to_dict(), "material_seed": seed, **ranges}
    shown = ", ".join(f"{k} in [{low:g}, {high:g}]" for k, (low, high) in ranges.items())
    source = (f"samples {ids_text(plan.samples)} (the unseen-signals waveform shapes) with "
              f"amplitude, sigma0, e0 redrawn by the stream of seed {seed}: {shown}")
    return SequenceSet("unseen-materials", as_stored(inputs, plan.recipe.dtype),
                       as_stored(targets, plan.recipe.dtype), plan.recipe.time, plan.samples,
                       source, recipe=recipe, materials=_varistors(inputs))


def maxwell_nl_horizon(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The same draws over ``steps`` × factor steps (the same sequences, extended)."""
    setup = set_setup(plan, "longer-horizon")
    longer = setup.recipe
    inputs, targets, _ = solve_draws(setup, set_draws(plan, "longer-horizon"), progress)
    source = (f"samples {ids_text(plan.samples)} over {longer.steps} steps instead of "
              f"{plan.recipe.steps} (the same draws: the same sequences, extended)")
    return SequenceSet("longer-horizon", as_stored(inputs, plan.recipe.dtype),
                       as_stored(targets, plan.recipe.dtype), longer.time, plan.samples, source,
                       recipe=longer.to_dict(), trained_steps=plan.recipe.steps + 1,
                       materials=_varistors(inputs))


__all__ = ["maxwell_nl_horizon", "maxwell_nl_materials",
           "maxwell_nl_setup", "maxwell_nl_signals", "set_draws", "set_setup", "solve_draws"]
