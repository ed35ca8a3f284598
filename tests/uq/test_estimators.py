"""MFMC on a synthetic pair of correlated models (numpy only): unbiased, with the variance
and coverage it claims, whatever the weight α and the low-fidelity model's bias."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.uq.estimators import mc_estimate, mfmc_estimate

REPEATS = 4000


def _pair(rng, n):
    """(Q_hf, Q_lf), n samples × REPEATS independent columns: Q_hf = X + ε (E = 1 + 0),
    Q_lf = 0.9 X + 0.3 + δ, X exponential (skewed), ε, δ normal."""
    x = rng.exponential(size=(n, REPEATS))
    return x + 0.2 * rng.normal(size=x.shape), 0.9 * x + 0.3 + 0.1 * rng.normal(size=x.shape)


@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.1])
def test_mfmc_is_unbiased_and_its_standard_error_is_right(alpha):
    rng = np.random.default_rng(11)
    k, n = 40, 400
    q_hf, q_lf = _pair(rng, n)
    estimate = mfmc_estimate(q_hf[:k], q_lf, alpha)
    spread = estimate.mean.std(ddof=1)
    # E[Ê] = E[Q_hf] = 1 within 4 standard errors of the mean of the repeats
    assert abs(estimate.mean.mean() - 1.0) < 4 * spread / np.sqrt(REPEATS)
    # the estimated standard error is the spread of the estimates (to ~5 %)
    assert np.sqrt(np.mean(estimate.standard_error ** 2)) == pytest.approx(spread, rel=0.05)
    coverage = estimate.covers(np.ones(REPEATS)).mean()
    assert 0.93 <= coverage <= 0.96  # 0.932 at α = 0: plain MC of a skewed Q, K = 40
    # Var(Q_hf) = 1 + 0.04, Cov = 0.9, Var(Q_lf) = 0.81 + 0.01 (Lemma 3.2's exact variance)
    exact = 1.04 / k + (1 / k - 1 / n) * (alpha ** 2 * 0.82 - 2 * alpha * 0.9)
    assert spread ** 2 == pytest.approx(exact, rel=0.06)


def test_optimal_alpha_beats_monte_carlo_and_n_equal_k_is_monte_carlo():
    rng = np.random.default_rng(12)
    q_hf, q_lf = _pair(rng, 400)
    alpha = 0.9 / 0.82  # ρ σ_hf / σ_lf = Cov / Var(Q_lf)
    mfmc = mfmc_estimate(q_hf[:40], q_lf, alpha)
    mc = mc_estimate(q_hf[:40])
    assert mfmc.mean.var() < 0.2 * mc.mean.var()
    same = mfmc_estimate(q_hf[:40], q_lf[:40], alpha)
    np.testing.assert_allclose(same.mean, mc.mean, rtol=1e-12)
    np.testing.assert_allclose(same.standard_error, mc.standard_error, rtol=1e-12)


def test_bad_sample_shapes_are_one_line_errors():
    with pytest.raises(InputError, match="2 ≤ K ≤ N"):
        mfmc_estimate(np.ones((5, 1)), np.ones((3, 1)), 1.0)
    with pytest.raises(InputError, match="at least 2"):
        mc_estimate(np.ones((1, 2)))
    with pytest.raises(InputError, match="finite"):
        mc_estimate(np.array([1.0, np.nan]))
