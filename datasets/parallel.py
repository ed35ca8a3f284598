"""Run tasks on any ``concurrent.futures.Executor`` and get their results back in task order.

The generators hand their expensive, independent pieces of work (e.g. one FEM run per
material) to :func:`ordered_map`; the caller, the only process that writes the dataset file,
consumes the results in the order of the tasks, so the file does not depend on which worker
ran what, or when. Executors: ``None`` (run in this process), a
``ProcessPoolExecutor`` or a Dask ``Client.get_executor()`` (:mod:`surrogate.datasets.executors`).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Any

DEFAULT_IN_FLIGHT = 4


def executor_slots(executor: Executor | None) -> int:
    """How many tasks ``executor`` runs at once (1 for None; a guess of 2 when unknown)."""
    if executor is None:
        return 1
    workers = getattr(executor, "_max_workers", None)  # ProcessPool/ThreadPoolExecutor
    if isinstance(workers, int) and workers > 0:
        return workers
    client = getattr(executor, "_client", None)  # dask.distributed ClientExecutor
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a scheduler that went away: the first task will say so
            return DEFAULT_IN_FLIGHT
    return 2


def ordered_map(fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]],
                executor: Executor | None = None, max_in_flight: int | None = None
                ) -> Iterator[Any]:
    """Yield ``fn(*task)`` for every task, in task order, computed by ``executor``.

    At most ``max_in_flight`` tasks (default: twice :func:`executor_slots`) are submitted and
    not yet consumed, so results do not pile up when the consumer is slower than the workers.
    A task's exception is raised here, at its place in the order; when the consumer stops
    (exception, interrupt, ``close()``) the tasks not started are cancelled.
    """
    if executor is None:
        for task in tasks:
            yield fn(*task)
        return
    limit = max(1, max_in_flight or 2 * executor_slots(executor))
    pending: collections.deque[Future] = collections.deque()
    remaining = iter(tasks)
    try:
        for task in remaining:
            pending.append(executor.submit(fn, *task))
            if len(pending) >= limit:
                break
        while pending:
            result = pending.popleft().result()
            following = next(remaining, None)
            if following is not None:
                pending.append(executor.submit(fn, *following))
            yield result
    finally:
        for future in pending:
            future.cancel()


__all__ = ["ordered_map", "executor_slots", "DEFAULT_IN_FLIGHT"]
