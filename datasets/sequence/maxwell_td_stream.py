"""``maxwell-td`` as a streamed generation: FEM runs on an executor, rows written in order.

The FEM-heavy work of a :class:`~surrogate.datasets.sequence.maxwell_td.MaxwellTDRecipe` is one
impulse-response run per material (a factorisation and ``steps · substeps`` back-substitutions;
with Richardson a second at twice the substeps, :mod:`.td_responses`); each
sample is then a cheap convolution of its own signal with its material's response. So the
tasks sent to the executor are materials (:func:`worker_response`, in the order the rows
first need them); this process convolves the rows, in sample order, as the responses arrive
and hands them to the writer (:func:`surrogate.datasets.streaming.write_streamed`).

A response is kept only while rows still need it. When materials are shared
(``n_materials < n``) the responses are also stored in the partial file's cache, so a resumed
generation does not simulate them again. Workers build the recipe's mesh and operators once
per process (:func:`cached_setup`); the arithmetic is the one of
:func:`~surrogate.datasets.sequence.maxwell_td.simulate_samples`, so the rows are bitwise the same.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor

import numpy as np

from surrogate.datasets.generator_output import ProgressCallback
from surrogate.datasets.parallel import executor_slots, ordered_map
from surrogate.datasets.sequence.maxwell_td import (
    MATERIAL_NAMES,
    MaxwellTDRecipe,
    MaxwellTDSetup,
    _streams,
    build_setup,
    operators_label,
    sample_signals,
)
from surrogate.datasets.sequence.td_responses import (
    fem_steps,
    impulse_responses,
    response_targets,
)
from surrogate.datasets.splits import make_splits
from surrogate.datasets.streaming import ResultCache, StreamedDataset

MAX_TASK_MATERIALS = 16


@functools.lru_cache(maxsize=2)
def cached_setup(recipe: MaxwellTDRecipe) -> MaxwellTDSetup:
    """:func:`build_setup` once per process and recipe (workers reuse it for every task)."""
    return build_setup(recipe)


def worker_response(recipe: MaxwellTDRecipe, material: int) -> np.ndarray:
    """Impulse responses (Σ_r r·steps, 3·P) of material ``material`` at the probes (its FEM
    runs, stacked; :func:`~surrogate.datasets.sequence.td_responses.impulse_responses`)."""
    setup = cached_setup(recipe)
    return impulse_responses(setup, setup.materials[material])


def material_responses(recipe: MaxwellTDRecipe, materials: Sequence[int]) -> list[np.ndarray]:
    """:func:`worker_response` of each material in ``materials`` (one executor task)."""
    return [worker_response(recipe, g) for g in materials]


def task_size(count: int, slots: int) -> int:
    """Materials per task: about 4 tasks per worker, 1 to :data:`MAX_TASK_MATERIALS`."""
    return max(1, min(MAX_TASK_MATERIALS, count // (4 * max(1, slots))))


def sample_rows(setup: MaxwellTDSetup, indices: Sequence[int],
                responses: Mapping[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """inputs (n, T, 4) and targets (n, T, 3·P) of samples ``indices`` from the responses."""
    recipe = setup.recipe
    time = recipe.time
    inputs = np.empty((len(indices), recipe.steps + 1, 1 + len(MATERIAL_NAMES)))
    targets = np.empty((len(indices), recipe.steps + 1, setup.observe.shape[0]))
    for row, (i, signal) in enumerate(zip(indices, sample_signals(recipe, indices),
                                          strict=True)):
        material = int(i) % recipe.n_materials
        inputs[row, :, 0] = signal(time)[0]
        inputs[row, :, 1:] = setup.materials[material]
        targets[row] = response_targets(recipe, responses[material], signal)
    return inputs, targets


def _last_use(material: int, recipe: MaxwellTDRecipe) -> int:
    """The last sample that uses ``material`` (sample i uses material i mod n_materials)."""
    return material + recipe.n_materials * ((recipe.n - 1 - material) // recipe.n_materials)


def stream_maxwell_td(recipe: MaxwellTDRecipe, executor: Executor | None = None,
                      max_in_flight: int | None = None,
                      on_progress: ProgressCallback | None = None) -> StreamedDataset:
    """The streamed dataset of ``recipe``; material runs go to ``executor`` (None: here)."""
    progress = on_progress or (lambda done, total, description: None)
    progress(0, 1, f"assembling {operators_label(recipe)}")
    setup = cached_setup(recipe)
    n_materials = recipe.n_materials
    shared = n_materials < recipe.n

    def produce(start: int, block_rows: int, cache: ResultCache) -> Iterator[tuple]:
        first_use = [(start + k) % n_materials for k in range(min(n_materials, recipe.n - start))]
        responses = {g: cache.values[g] for g in first_use if g in cache.values}
        missing = [g for g in first_use if g not in responses]
        size = task_size(len(missing), executor_slots(executor))
        batches = ordered_map(material_responses, ((recipe, tuple(missing[k:k + size]))
                                                   for k in range(0, len(missing), size)),
                              executor, max_in_flight)
        results = (h for batch in batches for h in batch)
        total, done, pulled = len(missing) + recipe.n - start, 0, 0
        try:
            for a in range(start, recipe.n, block_rows):
                indices = np.arange(a, min(a + block_rows, recipe.n))
                for g in dict.fromkeys(int(i) % n_materials for i in indices):
                    while g not in responses:
                        material = missing[pulled]
                        responses[material] = next(results)
                        if shared:
                            cache.put(material, responses[material])
                        pulled, done = pulled + 1, done + 1
                        progress(done, total, f"FEM run {pulled}/{len(missing)} (material "
                                 f"{material})")
                rows = sample_rows(setup, indices, responses)
                for i in indices:
                    if i == _last_use(int(i) % n_materials, recipe):
                        responses.pop(int(i) % n_materials, None)
                done += len(indices)
                progress(done, total, f"samples {indices[-1] + 1}/{recipe.n}")
                yield rows
        finally:
            batches.close()

    mesh = setup.ops.mesh
    return StreamedDataset(
        n=recipe.n, input_shape=(recipe.steps + 1, 1 + len(MATERIAL_NAMES)),
        target_shape=(recipe.steps + 1, setup.observe.shape[0]),
        input_names=("s", *MATERIAL_NAMES), target_names=setup.target_names,
        splits=make_splits(recipe.n, recipe.split, np.random.default_rng(
            _streams(recipe.seed)[2])),
        problem="maxwell-td", domain=recipe.domain, recipe=recipe.to_dict(), seed=recipe.seed,
        produce=produce, dtype=recipe.dtype, kind="sequence", time=recipe.time,
        mesh={"points": np.ascontiguousarray(mesh.p.T),
              "cells": np.ascontiguousarray(mesh.t.T.astype(np.int64))},
        attrs={"probe_points": np.asarray(setup.probe_points, dtype=np.float64)},
        cache_shape=(fem_steps(recipe), setup.observe.shape[0]) if shared else None,
        cache_rows=n_materials if shared else 0,
    )


__all__ = ["stream_maxwell_td", "worker_response", "material_responses", "sample_rows",
           "cached_setup", "task_size"]
