"""A ``maxwell-td`` recipe's FEM runs: impulse responses on the Newmark step, targets from them.

The Newmark step is the output Δt / ``substeps``; with ``richardson`` a second run at
2·``substeps`` follows and the two observed histories combine to fourth order in Δt
(:func:`~surrogate.fem.time_domain_operators.richardson_in_time`). A material's response is
its runs' impulse responses stacked, (Σ_r r·steps, 3·P) rows, r over :func:`run_substeps`;
a signal's targets on the output grid t_n = n·dt come from it by
:func:`~surrogate.fem.time_domain_operators.convolve_subsampled` (one run at r = 1: the
plain Toeplitz product :func:`~surrogate.fem.time_domain.convolve_response`, so the default
recipe's rows are bitwise those of before substeps existed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def run_substeps(recipe: Any) -> tuple[int, ...]:
    """Substeps r of each FEM run: (substeps,), or (substeps, 2·substeps) with Richardson."""
    return (recipe.substeps, 2 * recipe.substeps) if recipe.richardson else (recipe.substeps,)


def fem_steps(recipe: Any) -> int:
    """Newmark steps of one material's runs together: Σ_r r·steps."""
    return sum(run_substeps(recipe)) * recipe.steps


def impulse_responses(setup: Any, material: np.ndarray,
                      on_step: Callable[[int], None] | None = None) -> np.ndarray:
    """Impulse responses of every run of ``setup.recipe`` for ``material`` (ε, μ, σ) at the
    probes, stacked: (:func:`fem_steps`, 3·P); ``on_step(n)`` counts steps over all runs."""
    from surrogate.fem.time_domain import Material, NewmarkStepper, impulse_response

    recipe, parts, offset = setup.recipe, [], 0
    for r in run_substeps(recipe):
        stepper = NewmarkStepper(setup.ops, Material(*material), recipe.dt / r)
        report = None if on_step is None else (lambda n, base=offset: on_step(base + n))
        parts.append(impulse_response(stepper, setup.load, r * recipe.steps, setup.observe,
                                      on_step=report))
        offset += r * recipe.steps
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def response_targets(recipe: Any, response: np.ndarray, signal: Any) -> np.ndarray:
    """E at the probes (steps + 1, 3·P) on the output grid for ``signal`` (t -> (s, s'))
    from a material's stacked ``response`` (:func:`impulse_responses`)."""
    from surrogate.fem.time_domain import convolve_response, step_loads
    from surrogate.fem.time_domain_operators import (
        convolve_subsampled,
        fine_step_loads,
        richardson_in_time,
    )

    runs = run_substeps(recipe)
    if runs == (1,):
        _, ds = signal(recipe.time)
        return convolve_response(response, step_loads(ds, recipe.dt))
    histories, offset = [], 0
    for r in runs:
        rows = r * recipe.steps
        loads = fine_step_loads(signal, recipe.dt, recipe.steps, r)
        histories.append(convolve_subsampled(response[offset:offset + rows], loads, r))
        offset += rows
    return histories[0] if len(histories) == 1 else richardson_in_time(*histories)


def field_history(setup: Any, material: np.ndarray, signal: Any) -> np.ndarray:
    """Free DOFs (steps + 1, n_free) of E_h on the output grid by direct Newmark stepping of
    every run (every r-th fine step kept; Richardson-combined when the recipe asks)."""
    from surrogate.fem.time_domain import Material, NewmarkStepper, newmark_run
    from surrogate.fem.time_domain_operators import fine_step_loads, richardson_in_time

    recipe, histories = setup.recipe, []
    for r in run_substeps(recipe):
        stepper = NewmarkStepper(setup.ops, Material(*material), recipe.dt / r)
        e, _ = newmark_run(stepper, r * recipe.steps, load_vector=setup.load,
                           coefficients=fine_step_loads(signal, recipe.dt, recipe.steps, r))
        histories.append(e[::r])
    return histories[0] if len(histories) == 1 else richardson_in_time(*histories)


__all__ = ["run_substeps", "fem_steps", "impulse_responses", "response_targets",
           "field_history"]
