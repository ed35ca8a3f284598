"""The allocation formulas (PWG16 Theorem 3.4, two models) against hand-computed numbers."""

import math

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.uq.allocation import (
    MAX_RATIO,
    PilotStatistics,
    allocate_for_budget,
    allocate_for_rse,
    equal_cost_reduction,
    mfmc_variance,
    optimal_ratio,
    optimal_variance,
    pilot_statistics,
)


def _stats(rho=0.8, sigma=2.0, mean=10.0, w_hf=1.0, w_lf=0.01):
    one = np.array
    return PilotStatistics(50, one([mean]), one([mean]), one([sigma]), one([1.0]), one([rho]),
                           w_hf, w_lf)


def test_optimal_ratio_by_hand():
    # r = sqrt(1 · 0.64 / (0.01 · 0.36)) = 0.8/0.6 · 10 = 13.333...
    assert optimal_ratio(0.8, 1.0, 0.01) == pytest.approx(40 / 3, rel=1e-14)
    # r = sqrt(100 · 0.0025 / 0.9975) = 0.5006 < 1: the surrogate does not pay, N = K
    assert optimal_ratio(0.05, 1.0, 0.01) == 1.0
    assert optimal_ratio(1.0, 1.0, 0.01) == MAX_RATIO


def test_budget_allocation_and_variance_by_hand():
    stats = _stats()
    allocation = allocate_for_budget(stats, 100.0)
    # K = ⌊100 / (1 + 13.333 · 0.01)⌋ = ⌊88.235⌋, N = ⌈13.333 · 88⌉ = ⌈1173.3⌉
    assert (allocation.k, allocation.n) == (88, 1174)
    assert allocation.cost(1.0, 0.01) == pytest.approx(88 + 11.74)
    # σ²/K (1 − (1 − 1/r) ρ²) = 4/88 · (1 − 0.925 · 0.64) = 4/88 · 0.408
    assert mfmc_variance(2.0, 0.8, 88, 40 / 3) == pytest.approx(4 / 88 * 0.408, rel=1e-13)
    # the continuous optimum σ²/p (sqrt(w_hf (1 − ρ²)) + sqrt(w_lf ρ²))² = 0.04 · 0.68²
    assert optimal_variance(2.0, 0.8, 1.0, 0.01, 100.0) == pytest.approx(0.04 * 0.68 ** 2,
                                                                          rel=1e-13)
    # against Monte Carlo at the same cost: σ² w_hf / p = 0.04, 0.04 / 0.018496 = 2.1626
    reduction = equal_cost_reduction(np.array([2.0]), 1.0, 100.0, np.array([0.04 * 0.4624]))
    assert reduction[0] == pytest.approx(1 / 0.4624, rel=1e-13)


def test_rse_allocation_by_hand():
    # se = 0.01 · 10 = 0.1: K = ⌈4 · 0.408 / 0.01⌉ = ⌈163.2⌉, N = ⌈13.333 · 164⌉ = ⌈2186.7⌉
    allocation = allocate_for_rse(_stats(), 0.01)
    assert (allocation.k, allocation.n) == (164, 2187)
    poor = allocate_for_rse(_stats(rho=0.05), 0.01)
    # r = 1: K = ⌈4 · (1 − 0) / 0.01⌉ = 400 = N
    assert (poor.k, poor.n, poor.ratio) == (400, 400, 1.0)


def test_bad_budgets_and_targets_are_one_line_errors():
    with pytest.raises(InputError, match="at least 2 are needed"):
        allocate_for_budget(_stats(), 1.5)
    with pytest.raises(InputError, match="positive"):
        allocate_for_rse(_stats(), 0.0)
    with pytest.raises(InputError, match="mean is not 0"):
        allocate_for_rse(_stats(mean=0.0), 0.01)


def test_pilot_statistics_match_numpy_and_handle_constant_quantities():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 1))
    q_hf = np.column_stack([x[:, 0], np.zeros(40)])  # the second quantity is constant
    q_lf = np.column_stack([0.5 * x[:, 0] + 0.1 * rng.normal(size=40), rng.normal(size=40)])
    stats = pilot_statistics(q_hf, q_lf, 2.0, 0.5)
    assert stats.rho[0] == pytest.approx(np.corrcoef(q_hf[:, 0], q_lf[:, 0])[0, 1], rel=1e-12)
    assert stats.rho[1] == 0.0 and stats.alpha[1] == 0.0
    assert stats.alpha[0] == pytest.approx(stats.rho[0] * np.std(x, ddof=1)
                                           / np.std(q_lf[:, 0], ddof=1), rel=1e-12)
    assert math.isclose(stats.w_hf, 2.0) and stats.n == 40
