"""How many CPU threads a fit's training steps run on: one for small steps, all for large ones.

Under ``OMP_WAIT_POLICY=PASSIVE`` (:mod:`surrogate.core.thread_settings`, set so that a busy
core beside the fit cannot make it many times slower) an idle OpenMP worker sleeps at once, and
every parallel region pays to wake it. A mini-batch step of a small network is a few hundred
tiny regions, so a second thread costs more than it brings. Measured on a quiet 2-core machine
(seconds per epoch or per run, 1 thread / 2 passive threads; docs/results/training.md): the family
``params`` recipe (1,024 rows × width 128) 6.3 / 9.6, the separable recipe (256 rows, width 64)
10.3 / 17.4, the demo's Frac-DNN (8,400 rows × width 50, full batch) 1.5 / 1.7, but a
full-batch ResNet of width 128 (8,400 rows) 17.4 / 13.6. The size that decides is the output
of the widest layer over one mini-batch, ``rows × width``; below :data:`PARALLEL_STEP_ELEMENTS`
the fit runs on one thread, above it on torch's count (``OMP_NUM_THREADS``, else the cores).
The choice depends only on the data and the configuration, never on the machine's load, so a
run's bits repeat. ``TrainConfig.threads`` (``fit --threads``) overrides it; data
parallelism and CUDA leave torch's thread count alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch import nn

PARALLEL_STEP_ELEMENTS = 2**19
"""Widest-layer outputs per mini-batch step (rows × width) from which a fit uses every thread."""

_choice: dict[str, object] = {}


def widest_layer(model: nn.Module) -> int:
    """The most output features of any weight matrix of ``model`` (1 with none)."""
    return max((p.shape[0] for p in model.parameters() if p.ndim >= 2), default=1)


def step_elements(rows: int, batch_size: int | None, model: nn.Module) -> int:
    """Outputs of the widest layer over one mini-batch: ``min(batch, rows) × width``."""
    rows_per_step = rows if batch_size is None else min(batch_size, rows)
    return rows_per_step * widest_layer(model)


def chosen_threads(elements: int, available: int) -> int:
    """One thread for a step below :data:`PARALLEL_STEP_ELEMENTS`, else ``available``."""
    return available if elements >= PARALLEL_STEP_ELEMENTS else 1


@contextlib.contextmanager
def training_threads(rows: int, batch_size: int | None, model: nn.Module, device: torch.device,
                     data_parallel: bool, threads: int | None = None
                     ) -> Iterator[dict[str, object]]:
    """Run the block on :func:`chosen_threads` torch threads (restored after); yields the
    record ``{"chosen_by": ..., "step_elements": ...}`` that :func:`thread_choice` returns."""
    before = torch.get_num_threads()
    elements = step_elements(rows, batch_size, model)
    if device.type != "cpu":
        reason = f"device {device.type}"
    elif data_parallel:
        reason = "data parallelism (threads per process)"
    elif threads is not None:
        reason = "threads option"
        torch.set_num_threads(threads)
    else:
        threads = chosen_threads(elements, before)
        relation = "<" if elements < PARALLEL_STEP_ELEMENTS else ">="
        reason = f"step size (rows × width = {elements:,} {relation} {PARALLEL_STEP_ELEMENTS:,})"
        torch.set_num_threads(threads)
    _choice.clear()
    _choice.update({"chosen_by": reason, "step_elements": elements})
    try:
        yield dict(_choice)
    finally:
        torch.set_num_threads(before)
        _choice.clear()


def thread_choice() -> dict[str, object]:
    """How the running fit chose its thread count (empty outside :func:`training_threads`)."""
    return dict(_choice)


__all__ = ["PARALLEL_STEP_ELEMENTS", "widest_layer", "step_elements", "chosen_threads",
           "training_threads", "thread_choice"]
