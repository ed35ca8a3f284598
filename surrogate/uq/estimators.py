"""Monte Carlo and two-model multifidelity Monte Carlo estimates of E[Q], with standard errors.

Q has q components (one column per scalar quantity of interest); every function works on
all columns at once. The multifidelity estimator is the two-model case of Peherstorfer,
Willcox & Gunzburger, "Optimal model management for multifidelity Monte Carlo estimation",
SIAM J. Sci. Comput. 38(5), 2016 (PWG16), §3.1::

    Ê = mean_K(Q_hf) + α (mean_N(Q_lf) − mean_K(Q_lf)),

the K ≤ N samples of the high-fidelity model Q_hf being the first K of the N samples of the
low-fidelity model Q_lf. For any fixed α it is unbiased for E[Q_hf] (PWG16, Lemma 3.1), so α
is taken from an independent pilot (:mod:`surrogate.uq.allocation`), never from these samples.
Its variance (PWG16, Lemma 3.2, two models)

    Var Ê = σ_hf²/K + (1/K − 1/N)(α² σ_lf² − 2 α ρ σ_hf σ_lf)

is estimated in the equivalent form of two independent means,
Ê = mean_K(Q_hf − β Q_lf) + α (N − K)/N · mean_{N−K}(Q_lf) with β = α (1 − K/N):

    Var Ê = Var(Q_hf − β Q_lf)/K + α² (N − K) σ_lf² / N²,

which is never negative when the variances are sample variances. Intervals are normal:
Ê ± z σ̂(Ê) with z = 1.959964 (95 %). Torch-free; numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from surrogate.core.errors import InputError

Z95 = 1.959963984540054
"""The 97.5 % quantile of the standard normal: 95 % two-sided intervals."""


@dataclass(frozen=True)
class Estimate:
    """Estimates of E[Q] (q,) with their standard errors (q,) and the evaluations used."""

    mean: np.ndarray
    standard_error: np.ndarray
    n_high: int
    n_low: int = 0

    @property
    def low(self) -> np.ndarray:
        """Lower end of the 95 % interval, (q,)."""
        return self.mean - Z95 * self.standard_error

    @property
    def high(self) -> np.ndarray:
        """Upper end of the 95 % interval, (q,)."""
        return self.mean + Z95 * self.standard_error

    def covers(self, truth: np.ndarray) -> np.ndarray:
        """Whether the 95 % interval holds ``truth`` (q,), per component."""
        return (self.low <= truth) & (truth <= self.high)

    def column(self, j: int) -> dict[str, float | int]:
        """JSON-safe record of component ``j``."""
        return {"mean": float(self.mean[j]), "standard_error": float(self.standard_error[j]),
                "ci95": [float(self.low[j]), float(self.high[j])],
                "n_high": self.n_high, "n_low": self.n_low}


def as_samples(values: np.ndarray, name: str = "samples") -> np.ndarray:
    """``values`` as a float64 (n, q) array (a vector is one quantity); InputError when not
    finite or of another shape."""
    array = np.asarray(values, dtype=np.float64)
    array = array[:, None] if array.ndim == 1 else array
    if array.ndim != 2 or not np.isfinite(array).all():
        raise InputError(f"{name} must be a finite (n, q) array, got shape {np.shape(values)}")
    return array


def mc_estimate(q_hf: np.ndarray) -> Estimate:
    """Plain Monte Carlo: mean_K(Q) ± s/√K over K ≥ 2 samples (K, q)."""
    q_hf = as_samples(q_hf, "high-fidelity samples")
    k = len(q_hf)
    if k < 2:
        raise InputError(f"a Monte Carlo estimate needs at least 2 samples, got {k}")
    return Estimate(q_hf.mean(axis=0), np.sqrt(q_hf.var(axis=0, ddof=1) / k), k, 0)


def mfmc_estimate(q_hf: np.ndarray, q_lf: np.ndarray, alpha: np.ndarray) -> Estimate:
    """Two-model MFMC (PWG16 §3.1) from Q_hf (K, q) on the first K of the N samples of Q_lf
    (N, q), with the fixed weights ``alpha`` (q,); the variance as in the module docstring."""
    q_hf = as_samples(q_hf, "high-fidelity samples")
    q_lf = as_samples(q_lf, "low-fidelity samples")
    k, n = len(q_hf), len(q_lf)
    if k < 2 or n < k or q_lf.shape[1] != q_hf.shape[1]:
        raise InputError(f"MFMC needs 2 ≤ K ≤ N samples of the same quantities, got "
                         f"{q_hf.shape} high-fidelity and {q_lf.shape} low-fidelity")
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (q_hf.shape[1],))
    shared = q_lf[:k]
    mean = q_hf.mean(axis=0) + alpha * (q_lf.mean(axis=0) - shared.mean(axis=0))
    beta = alpha * (1.0 - k / n)
    corrected = q_hf - beta * shared
    variance = corrected.var(axis=0, ddof=1) / k
    if n > k:
        variance = variance + alpha ** 2 * (n - k) * q_lf.var(axis=0, ddof=1) / n ** 2
    return Estimate(mean, np.sqrt(variance), k, n)


__all__ = ["Z95", "Estimate", "as_samples", "mc_estimate", "mfmc_estimate"]
