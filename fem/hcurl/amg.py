"""Smoothed-aggregation AMG (pyamg) whose setup is deterministic.

pyamg estimates the spectral radius ρ(D⁻¹A) of the prolongation smoother by Lanczos from a
random start vector of numpy's global generator, so two setups of one matrix differ in the
last bits and an iterative solve to ``rtol`` differs in round-off: a dataset generated twice
(or with another number of workers) would not be the same bytes. The setup here runs with
the global generator seeded and puts its state back afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SETUP_SEED = 0


def smoothed_aggregation_solver(A: Any, **options: Any) -> Any:
    """``pyamg.smoothed_aggregation_solver(A, **options)`` with a fixed Lanczos start vector."""
    import pyamg

    state = np.random.get_state()
    np.random.seed(SETUP_SEED)
    try:
        return pyamg.smoothed_aggregation_solver(A, **options)
    finally:
        np.random.set_state(state)


__all__ = ["smoothed_aggregation_solver", "SETUP_SEED"]
