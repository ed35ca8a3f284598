"""The linear response of the ``maxwell-nl`` cavity to a sampled source, on a grid of σ₀.

What :class:`~surrogate.models.linear_response.LinearResponseResidual` needs to compute, from
a sequence model's inputs alone, the answer of the *linear* cavity (the varistor at its
small-field conductivity σ(|E|) = σ₀, eq. 1 of
:mod:`surrogate.fem.time_domain_operators.nonlinear_conduction` with E₀ = ∞) to the sampled
source s_k = a s(t_k), k = 0..T−1. With the samples joined linearly in time and the field at
rest at t_0 (the recipe's loads see s' only), the fine-step loads over [t_{k−1}, t_k] are
−d_k / r per step (the trapezoid rule of ``step_loads`` on a piecewise linear signal, r fine
steps per output step, d_k = s_k − s_{k−1}), so the linear Newmark march is a discrete
convolution of the differences:

    y_n = Σ_{k=1}^{n} R_σ₀[n − k + 1] d_k,   y_0 = 0,                            (1)

where R_σ₀[m], m = 0..L, is the observed response (E at the probes) at output step m to a
unit ramp on [t_0, t_1] (R[0] = 0). The Joule power is quadratic in E, not linear in the
source: its R is 0, and the network learns that channel whole. One Newmark run per grid
value of σ₀; the model interpolates R linearly in σ₀ between them. The discretisation is the
cheapest rung of the ``evaluate`` ladder (order 2, the recipe's level, two Newmark substeps,
no Richardson): the bank is a feature, not a truth; the network learns what it leaves (the
nonlinearity and the discretisation's difference), and a query costs one convolution.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

BANK_ORDER = 2
"""H(curl) order of the bank's runs (the ladder's cheapest order)."""
BANK_SUBSTEPS = 2
"""Newmark steps per output step of the bank's runs."""
SOURCE_CHANNEL, GRID_CHANNEL = 0, 1
"""Input channels of ``maxwell-nl`` sequences the bank reads: the source s, and σ₀."""


@dataclass(frozen=True)
class ResponseBank:
    """Responses ``ramp`` (K, L + 1, C) to a unit ramp on [t_0, t_1] (eq. 1), one per σ₀ in
    ``grid`` (K,), and the seconds they took."""

    grid: np.ndarray
    ramp: np.ndarray
    seconds: float


def unit_ramp_loads(steps: int, substeps: int) -> np.ndarray:
    """Fine-step loads (steps·substeps,) of a unit ramp on [t_0, t_1]: −1/substeps on its
    substeps, 0 after (eq. 1)."""
    loads = np.zeros(steps * substeps)
    loads[:substeps] = -1.0 / substeps
    return loads


def maxwell_nl_bank(recipe: Mapping[str, Any], grid_points: int, steps: int) -> ResponseBank:
    """:class:`ResponseBank` of a ``maxwell-nl`` recipe (a stored recipe dict) on
    ``grid_points`` values of σ₀ spanning the recipe's range, for sequences of up to
    ``steps`` + 1 entries (eq. 1)."""
    from threadpoolctl import threadpool_limits

    from surrogate.datasets.recipes import recipe_from_dict
    from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe, build_setup
    from surrogate.fem.nonlinear_newmark import nonlinear_run
    from surrogate.fem.time_domain_operators.nonlinear_conduction import VaristorConductivity

    if recipe.get("kind") != "maxwell-nl":
        raise InputError(f"a linear-response bank needs a maxwell-nl dataset, this one's recipe "
                         f"is {recipe.get('kind')!r}")
    if grid_points < 2 or steps < 1:
        raise InputError(f"a linear-response bank needs >= 2 grid points and >= 1 step, got "
                         f"{grid_points} and {steps}")
    start = time.perf_counter()
    stored = recipe_from_dict(MaxwellNLRecipe, dict(recipe))
    setup = build_setup(dataclasses.replace(stored, fem_order=BANK_ORDER, substeps=BANK_SUBSTEPS,
                                            richardson=False, steps=steps))
    low, high = setup.recipe.sigma0
    grid = np.linspace(low, high, grid_points) if high > low else np.full(grid_points, low)
    loads = unit_ramp_loads(steps, BANK_SUBSTEPS)
    ramps = []
    with threadpool_limits(limits=1, user_api="blas"):  # as simulate_sample: m × m Newton solves
        for sigma0 in grid:
            region = setup.region.with_law(VaristorConductivity(float(sigma0), math.inf))
            run = nonlinear_run(setup.steppers[0].with_conduction(region), setup.system.load,
                                loads, setup.system.observe)
            # the Joule power is quadratic in E: no linear response (eq. 1 does not hold)
            ramps.append(np.column_stack([run.fields, np.zeros_like(run.joule)])
                         [::BANK_SUBSTEPS])
    return ResponseBank(grid, np.stack(ramps), time.perf_counter() - start)


BANKS = {"maxwell-nl": maxwell_nl_bank}
"""Linear-response banks by recipe kind."""


def response_bank(recipe: Mapping[str, Any], grid_points: int, steps: int) -> ResponseBank:
    """The bank of ``recipe``'s kind (:data:`BANKS`); InputError for a kind without one."""
    kind = recipe.get("kind")
    if kind not in BANKS:
        raise InputError(f"--linear-response needs a dataset with a linear-response bank "
                         f"({', '.join(BANKS)}); this one's recipe is {kind!r}")
    return BANKS[kind](recipe, grid_points, steps)


__all__ = ["ResponseBank", "BANKS", "BANK_ORDER", "BANK_SUBSTEPS", "SOURCE_CHANNEL",
           "GRID_CHANNEL", "maxwell_nl_bank", "response_bank", "unit_ramp_loads"]
