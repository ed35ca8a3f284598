"""``maxwell-nl`` as a streamed generation: Newton–Newmark runs on an executor, rows in order.

Every sample of a :class:`~surrogate.datasets.sequence.nonlinear_cavity.MaxwellNLRecipe` is its own
nonlinear FEM run (no superposition), so the executor's tasks are chunks of samples
(:func:`worker_rows`); workers build the recipe's setup (mesh, operators, the varistor's
tabulation, factorisation and Schur complement) once per process (:func:`cached_setup`). Each
finished sample is kept at once in the partial file's cache (keyed by its index), so an
interrupted generation resumes without running any finished sample again, not only whole
blocks; rows go to the writer in sample order (:func:`surrogate.datasets.streaming.
write_streamed`) and are bitwise those of :func:`~surrogate.datasets.sequence.nonlinear_cavity.
simulate_samples`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Executor

import numpy as np

from surrogate.datasets.generator_output import ProgressCallback
from surrogate.datasets.parallel import executor_slots, ordered_map
from surrogate.datasets.sequence.nonlinear_cavity import (
    INPUT_NAMES,
    MaxwellNLRecipe,
    _streams,
    cached_setup,
    sample_draws,
    simulate_sample,
)
from surrogate.datasets.splits import make_splits
from surrogate.datasets.streaming import ResultCache, StreamedDataset

MAX_TASK_SAMPLES = 4


def worker_rows(recipe: MaxwellNLRecipe, indices: Sequence[int]) -> list[np.ndarray]:
    """Rows (T, 3 + 3·P + 1) of samples ``indices``: inputs then targets, side by side."""
    setup = cached_setup(recipe)
    return [np.column_stack(simulate_sample(setup, draw)[:2])
            for draw in sample_draws(recipe, indices)]


def task_size(count: int, slots: int) -> int:
    """Samples per task: about 4 tasks per worker, 1 to :data:`MAX_TASK_SAMPLES`."""
    return max(1, min(MAX_TASK_SAMPLES, count // (4 * max(1, slots))))


def probe_header(recipe: MaxwellNLRecipe) -> tuple[object, np.ndarray]:
    """The mesh and probe points of ``recipe`` (what the file's header needs; no FEM)."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.probes import probe_points

    domain = get_domain(recipe.domain)
    mesh = domain.mesh(recipe.level)
    points = (np.asarray(recipe.probe_points, dtype=np.float64)
              if recipe.probe_points is not None else probe_points(domain, mesh, recipe.probes))
    return mesh, points


def stream_maxwell_nl(recipe: MaxwellNLRecipe, executor: Executor | None = None,
                      max_in_flight: int | None = None,
                      on_progress: ProgressCallback | None = None) -> StreamedDataset:
    """The streamed dataset of ``recipe``; sample runs go to ``executor`` (None: here)."""
    progress = on_progress or (lambda done, total, description: None)
    mesh, points = probe_header(recipe)
    n_inputs = len(INPUT_NAMES)
    target_names = (*(f"E{c + 1}_p{i}" for i in range(len(points)) for c in range(3)), "joule")
    width = n_inputs + len(target_names)

    def produce(start: int, block_rows: int, cache: ResultCache) -> Iterator[tuple]:
        missing = [i for i in range(start, recipe.n) if i not in cache.values]
        size = task_size(len(missing), executor_slots(executor))
        chunks = [tuple(missing[k:k + size]) for k in range(0, len(missing), size)]
        results = ordered_map(worker_rows, ((recipe, chunk) for chunk in chunks), executor,
                              max_in_flight)
        pending = iter(chunks)
        done = 0
        try:
            for a in range(start, recipe.n, block_rows):
                indices = range(a, min(a + block_rows, recipe.n))
                for i in indices:
                    while i not in cache.values:
                        for j, row in zip(next(pending), next(results), strict=True):
                            cache.put(j, row)
                            done += 1
                            progress(done, len(missing), f"sample {j + 1}/{recipe.n}")
                rows = np.stack([cache.values.pop(i) for i in indices])
                yield rows[:, :, :n_inputs], rows[:, :, n_inputs:]
        finally:
            results.close()

    return StreamedDataset(
        n=recipe.n, input_shape=(recipe.steps + 1, n_inputs),
        target_shape=(recipe.steps + 1, len(target_names)),
        input_names=INPUT_NAMES, target_names=target_names,
        splits=make_splits(recipe.n, recipe.split, np.random.default_rng(
            _streams(recipe.seed)[2])),
        problem="maxwell-nl", domain=recipe.domain, recipe=recipe.to_dict(), seed=recipe.seed,
        produce=produce, dtype=recipe.dtype, kind="sequence", time=recipe.time,
        mesh={"points": np.ascontiguousarray(mesh.p.T),
              "cells": np.ascontiguousarray(mesh.t.T.astype(np.int64))},
        attrs={"probe_points": np.asarray(points, dtype=np.float64)},
        cache_shape=(recipe.steps + 1, width), cache_rows=recipe.n,
    )


__all__ = ["stream_maxwell_nl", "worker_rows", "task_size", "probe_header"]
