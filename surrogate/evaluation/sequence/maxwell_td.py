"""Evaluation sets of maxwell-td runs: unseen signals, unseen materials, a longer horizon.

The sets are simulated with the training recipe's shared setup (mesh, operators, probes),
built once per plan (see :mod:`surrogate.evaluation.sequence.sets` for what each set is); the
materials' impulse responses go into the plan's one
:class:`~surrogate.datasets.sequence.td_responses.ResponseStore` (``--fem-cache``), where the
FEM verdict (:mod:`surrogate.evaluation.sequence.fem_verdict`) finds them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from surrogate.evaluation.sequence.sets import (
    MATERIAL_NAMES,
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

maxwell_td_recipe = regenerated_recipe  # the training recipe with room for the fresh samples


def maxwell_td_setup(plan: SetPlan) -> Any:
    """The recipe's shared mesh, operators and probes, built once per plan."""
    from surrogate.datasets.sequence.maxwell_td import build_setup

    if "setup" not in plan.cache:
        plan.cache["setup"] = build_setup(maxwell_td_recipe(plan))
    return plan.cache["setup"]


def response_store(plan: SetPlan) -> Any:
    """The plan's response store (in memory unless :func:`prepare` gave it a directory)."""
    from surrogate.datasets.sequence.td_responses import ResponseStore

    return plan.cache.setdefault("store", ResponseStore())


def set_setup(plan: SetPlan, name: str) -> Any:
    """The data's setup of set ``name``: its material pool (unseen-materials: the new one)
    and its recipe (longer-horizon: the longer ``steps``)."""
    setup = maxwell_td_setup(plan)
    if name == "unseen-materials":
        return dataclasses.replace(setup, materials=new_material_pool(plan)[0])
    if name == "longer-horizon":
        steps = longer_steps(plan.recipe.steps, plan.horizon_factor)
        return dataclasses.replace(setup, recipe=maxwell_td_recipe(plan, steps=steps))
    return setup


def new_material_pool(plan: SetPlan) -> tuple[np.ndarray, dict[str, Any]]:
    """(n_materials, 3) triples of the materials stream of ``material_seed`` and the recipe
    fields that drew them (ranges possibly replaced by ``material_ranges``)."""
    from surrogate.datasets.sequence.maxwell_td import material_pool

    seed = new_material_seed(plan)
    drawn = dataclasses.replace(plan.recipe, seed=seed, **plan.material_ranges)
    fields = {"material_seed": seed, **{k: list(getattr(drawn, k)) for k in MATERIAL_NAMES}}
    return material_pool(drawn), fields


def _simulate(plan: SetPlan, setup: Any, samples: np.ndarray, progress: ProgressCallback
              ) -> tuple[np.ndarray, np.ndarray]:
    """inputs and targets of ``samples`` (never empty: plans have at least one sample)."""
    from surrogate.datasets.sequence.maxwell_td import simulate_samples

    return simulate_samples(setup, samples, progress, store=response_store(plan))


def maxwell_td_signals(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The file's test rows plus fresh samples n, n + 1, … (training materials)."""
    data, recipe = plan.dataset, plan.recipe
    rows = file_rows(plan)
    inputs, targets = data.inputs[rows], data.targets[rows]
    if plan.fresh.size:
        fresh_inputs, fresh_targets = _simulate(plan, maxwell_td_setup(plan), plan.fresh,
                                                progress)
        inputs = np.concatenate([inputs, as_stored(fresh_inputs, recipe.dtype)])
        targets = np.concatenate([targets, as_stored(fresh_targets, recipe.dtype)])
    source = signals_source(plan, "samples")
    return SequenceSet("unseen-signals", inputs, targets, recipe.time, plan.samples, source,
                       recipe=maxwell_td_recipe(plan).to_dict() if plan.fresh.size else None,
                       materials=inputs[:, 0, 1:4])


def maxwell_td_materials(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The same samples with the material pool of another seed (or other ranges)."""
    _, fields = new_material_pool(plan)
    inputs, targets = _simulate(plan, set_setup(plan, "unseen-materials"), plan.samples,
                                progress)
    recipe = {**maxwell_td_recipe(plan).to_dict(), **fields}
    source = (f"samples {ids_text(plan.samples)} (the unseen-signals ones) with n_materials="
              f"{plan.recipe.n_materials} new triples drawn by the materials stream of seed "
              f"{fields['material_seed']}")
    return SequenceSet("unseen-materials", as_stored(inputs, plan.recipe.dtype),
                       as_stored(targets, plan.recipe.dtype), plan.recipe.time, plan.samples,
                       source, recipe=recipe, materials=inputs[:, 0, 1:4])


def maxwell_td_horizon(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The same samples over ``steps`` × factor steps (the same sequences, extended)."""
    setup = set_setup(plan, "longer-horizon")
    longer, steps = setup.recipe, setup.recipe.steps
    inputs, targets = _simulate(plan, setup, plan.samples, progress)
    source = (f"samples {ids_text(plan.samples)} over {steps} steps instead of "
              f"{plan.recipe.steps} (same seed: the same sequences, extended)")
    return SequenceSet("longer-horizon", as_stored(inputs, plan.recipe.dtype),
                       as_stored(targets, plan.recipe.dtype), longer.time, plan.samples, source,
                       recipe=longer.to_dict(), trained_steps=plan.recipe.steps + 1,
                       materials=inputs[:, 0, 1:4])


__all__ = ["maxwell_td_horizon", "maxwell_td_materials", "maxwell_td_recipe",
           "maxwell_td_setup", "maxwell_td_signals", "new_material_pool", "response_store",
           "set_setup"]
