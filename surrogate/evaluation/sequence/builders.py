"""Build a planned evaluation set in memory: one builder per recipe kind and set name.

maxwell-td builders live in :mod:`surrogate.evaluation.sequence.maxwell_td`, maxwell-nl ones
in :mod:`surrogate.evaluation.sequence.maxwell_nl`; here the
fitzhugh-nagumo and adding ones, the file's test split for any other recipe, and
:func:`build_set`, which picks the builder.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.sequence.maxwell_nl import (
    maxwell_nl_horizon,
    maxwell_nl_materials,
    maxwell_nl_signals,
)
from surrogate.evaluation.sequence.maxwell_td import (
    maxwell_td_horizon,
    maxwell_td_materials,
    maxwell_td_signals,
)
from surrogate.evaluation.sequence.sets import (
    ProgressCallback,
    SequenceSet,
    SetPlan,
    as_stored,
    file_rows,
    ids_text,
    longer_steps,
    signals_source,
)

# ------------------------------------------------------------------------ fitzhugh-nagumo


def stream_seeds(recipe: Any, samples: np.ndarray) -> list[np.random.SeedSequence]:
    """The test split's per-sequence SeedSequences of rows ``samples`` (may exceed n_test)."""
    from surrogate.datasets.sequence.lem_benchmarks import sequence_seeds

    sizes = {"train": recipe.n_train, "val": recipe.n_val,
             "test": max(recipe.n_test, int(samples.max()) + 1)}
    seeds = sequence_seeds(recipe.seed, sizes)["test"]
    return [seeds[int(j)] for j in samples]


def fitzhugh_nagumo_arrays(recipe: Any, samples: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """inputs v(t_n), targets v(t_{n+1}) (n, steps, 1) and time t_0 … t_{steps−1}."""
    from surrogate.datasets.sequence.lem_benchmarks import (
        fitzhugh_nagumo_times,
        initial_v,
        integrate_fitzhugh_nagumo,
    )

    times = fitzhugh_nagumo_times(recipe)
    if samples.size == 0:
        empty = np.zeros((0, recipe.steps, 1))
        return empty, empty, times[:-1]
    v = integrate_fitzhugh_nagumo(initial_v(stream_seeds(recipe, samples)), times,
                                  recipe)[0][:, :, None]
    return as_stored(v[:, :-1], recipe.dtype), as_stored(v[:, 1:], recipe.dtype), times[:-1]


def fitzhugh_nagumo_signals(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The file's test rows plus fresh initial states of the test seed stream."""
    rows = file_rows(plan)
    progress(0, 1, f"integrating {plan.fresh.size} fresh sequences")
    inputs, targets, _ = fitzhugh_nagumo_arrays(plan.recipe, plan.fresh)
    return SequenceSet("unseen-signals", np.concatenate([plan.dataset.inputs[rows], inputs]),
                       np.concatenate([plan.dataset.targets[rows], targets]),
                       np.asarray(plan.dataset.time), plan.samples,
                       signals_source(plan, "test-stream rows"),
                       recipe=plan.recipe.to_dict() if plan.fresh.size else None)


def fitzhugh_nagumo_horizon(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The same initial states over f × t_end with the same Δt."""
    recipe = plan.recipe
    steps = longer_steps(recipe.steps, plan.horizon_factor)
    longer = dataclasses.replace(recipe, steps=steps, t_end=recipe.t_end * steps / recipe.steps)
    progress(0, 1, f"integrating {plan.samples.size} sequences over {steps} steps")
    inputs, targets, times = fitzhugh_nagumo_arrays(longer, plan.samples)
    source = (f"test-stream rows {ids_text(plan.samples)} over {steps} steps to t = "
              f"{longer.t_end:g} instead of {recipe.steps} to {recipe.t_end:g} (same Δt, same "
              "initial states)")
    return SequenceSet("longer-horizon", inputs, targets, times, plan.samples, source,
                       recipe=longer.to_dict(), trained_steps=recipe.steps)


# --------------------------------------------------------------------------------- adding


def adding_arrays(recipe: Any, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """inputs (n, length, 2) and targets (n, 1, 1) of test-stream rows ``samples``."""
    from surrogate.datasets.sequence.lem_benchmarks import fill_adding

    inputs = np.zeros((samples.size, recipe.length, 2), dtype=recipe.dtype)
    if samples.size == 0:
        return inputs, np.zeros((0, 1, 1))
    sums = fill_adding(inputs, stream_seeds(recipe, samples))
    return inputs, sums[:, None, None]


def adding_signals(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The file's test rows plus fresh rows of the test seed stream."""
    rows = file_rows(plan)
    inputs, targets = adding_arrays(plan.recipe, plan.fresh)
    return SequenceSet("unseen-signals", np.concatenate([plan.dataset.inputs[rows], inputs]),
                       np.concatenate([plan.dataset.targets[rows], targets]),
                       np.asarray(plan.dataset.time), plan.samples,
                       signals_source(plan, "test-stream rows"),
                       recipe=plan.recipe.to_dict() if plan.fresh.size else None)


def adding_horizon(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """Sequences of length f × T from the same seeds (new markers: new, longer problems)."""
    length = longer_steps(plan.recipe.length, plan.horizon_factor)
    longer = dataclasses.replace(plan.recipe, length=length)
    inputs, targets = adding_arrays(longer, plan.samples)
    source = (f"test-stream rows {ids_text(plan.samples)} with length {length} instead of "
              f"{plan.recipe.length} (markers redrawn in the new halves)")
    return SequenceSet("longer-horizon", inputs, targets, np.arange(length, dtype=float),
                       plan.samples, source, recipe=longer.to_dict(),
                       trained_steps=plan.recipe.length)


# ---------------------------------------------------------------------------- any dataset


def file_signals(plan: SetPlan, progress: ProgressCallback) -> SequenceSet:
    """The file's test split as it is (recipes that cannot be regenerated)."""
    rows = file_rows(plan)
    return SequenceSet("unseen-signals", plan.dataset.inputs[rows], plan.dataset.targets[rows],
                       np.asarray(plan.dataset.time), plan.samples,
                       f"test split of {plan.dataset.path} (rows {ids_text(rows)})")


BUILDERS: dict[str, dict[str, Callable[[SetPlan, ProgressCallback], SequenceSet]]] = {
    "maxwell-td": {"unseen-signals": maxwell_td_signals, "unseen-materials": maxwell_td_materials,
                   "longer-horizon": maxwell_td_horizon},
    "maxwell-nl": {"unseen-signals": maxwell_nl_signals, "unseen-materials": maxwell_nl_materials,
                   "longer-horizon": maxwell_nl_horizon},
    "fitzhugh-nagumo": {"unseen-signals": fitzhugh_nagumo_signals,
                        "longer-horizon": fitzhugh_nagumo_horizon},
    "adding": {"unseen-signals": adding_signals, "longer-horizon": adding_horizon},
}


def build_set(plan: SetPlan, name: str, on_progress: ProgressCallback | None = None
              ) -> SequenceSet:
    """Build set ``name`` of ``plan`` in memory; ``seconds`` is its generation time."""
    progress = on_progress or (lambda done, total, description: None)
    builders = BUILDERS.get(plan.kind, {}) if plan.recipe is not None else {}
    builder = builders.get(name, file_signals if name == "unseen-signals" else None)
    if builder is None:
        raise InputError(f"set {name!r} is not available for {plan.kind!r} data")
    start = time.perf_counter()
    built = builder(plan, progress)
    return dataclasses.replace(built, seconds=time.perf_counter() - start)


__all__ = ["BUILDERS", "adding_arrays", "build_set", "fitzhugh_nagumo_arrays", "file_signals",
           "stream_seeds"]
