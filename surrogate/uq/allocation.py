"""The pilot's statistics and the optimal two-model MFMC allocation (K, N, α).

From a pilot of shared samples: per quantity the means, standard deviations σ_hf, σ_lf and
the correlation ρ of Q_hf and Q_lf, and the seconds per sample w_hf, w_lf. Peherstorfer,
Willcox & Gunzburger (SIAM J. Sci. Comput. 38(5), 2016; PWG16), Theorem 3.4, for k = 2
models (ρ_{1,3} = 0):

    α = ρ σ_hf / σ_lf,        r = N/K = sqrt(w_hf ρ² / (w_lf (1 − ρ²))),
    K = p / (w_hf + r w_lf) for a budget of p seconds,

and with this α the variance of PWG16 Lemma 3.2 is

    Var Ê = σ_hf²/K · (1 − (1 − 1/r) ρ²)         (so K = σ_hf² (1 − (1 − 1/r) ρ²) / se²
                                                    for a target standard error se),
    Var Ê = σ_hf²/p · (sqrt(w_hf (1 − ρ²)) + sqrt(w_lf ρ²))²     at the optimum for budget p,

against σ_hf² w_hf / p for plain Monte Carlo at the same cost. r > 1 is, for k = 2, the
ordering condition of PWG16 Theorem 3.4, w_hf/w_lf > (1 − ρ²)/ρ²; below it the surrogate
does not pay and r = 1 (N = K: the estimate is Monte Carlo on the high-fidelity samples).

Why written here rather than taken from MXMCPy or PyApprox: for two models the optimum is
the closed form above (a dozen lines), while we need what those libraries do not expose in
one place: integer K and N with K ≥ 2, the pilot's α kept fixed (the estimator stays unbiased
because α does not depend on the main samples), several quantities sharing one allocation,
and a budget that names seconds. MXMCPy's last release is from 2020; PyApprox would be a
large dependency for one formula. Torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from surrogate.core.errors import InputError
from surrogate.uq.estimators import as_samples

MAX_RATIO = 1e9
"""Cap on r = N/K (ρ = 1 exactly would ask for infinitely many surrogate samples)."""


@dataclass(frozen=True)
class PilotStatistics:
    """Per quantity (q,): means, standard deviations and correlation of the two models on
    the pilot's n shared samples; seconds per sample w_hf and w_lf."""

    n: int
    mean_hf: np.ndarray
    mean_lf: np.ndarray
    sigma_hf: np.ndarray
    sigma_lf: np.ndarray
    rho: np.ndarray
    w_hf: float
    w_lf: float

    @property
    def alpha(self) -> np.ndarray:
        """α = ρ σ_hf / σ_lf (PWG16 Theorem 3.4); 0 where the surrogate is constant."""
        return np.divide(self.rho * self.sigma_hf, self.sigma_lf,
                         out=np.zeros_like(self.rho), where=self.sigma_lf > 0)


def pilot_statistics(q_hf: np.ndarray, q_lf: np.ndarray, w_hf: float, w_lf: float
                     ) -> PilotStatistics:
    """The statistics of n ≥ 3 shared pilot samples (n, q) of both models; ρ = 0 where either
    model is constant on the pilot."""
    q_hf, q_lf = as_samples(q_hf, "pilot high-fidelity"), as_samples(q_lf, "pilot surrogate")
    if q_hf.shape != q_lf.shape or len(q_hf) < 3:
        raise InputError(f"the pilot needs the same n ≥ 3 samples of both models, got "
                         f"{q_hf.shape} and {q_lf.shape}")
    if not (w_hf > 0 and w_lf > 0):
        raise InputError(f"seconds per sample must be positive, got {w_hf!r} and {w_lf!r}")
    sigma_hf, sigma_lf = q_hf.std(axis=0, ddof=1), q_lf.std(axis=0, ddof=1)
    centred = (q_hf - q_hf.mean(axis=0)) * (q_lf - q_lf.mean(axis=0))
    covariance = centred.sum(axis=0) / (len(q_hf) - 1)
    scale = sigma_hf * sigma_lf
    rho = np.divide(covariance, scale, out=np.zeros_like(scale), where=scale > 0)
    return PilotStatistics(len(q_hf), q_hf.mean(axis=0), q_lf.mean(axis=0), sigma_hf, sigma_lf,
                           np.clip(rho, -1.0, 1.0), float(w_hf), float(w_lf))


def optimal_ratio(rho: float, w_hf: float, w_lf: float) -> float:
    """r = sqrt(w_hf ρ² / (w_lf (1 − ρ²))) (PWG16 Theorem 3.4, k = 2), at least 1 and at
    most :data:`MAX_RATIO`."""
    rho2 = float(rho) ** 2
    if rho2 >= 1.0:
        return MAX_RATIO
    return float(min(max(math.sqrt(w_hf * rho2 / (w_lf * (1.0 - rho2))), 1.0), MAX_RATIO))


def mfmc_variance(sigma_hf: np.ndarray, rho: np.ndarray, k: float, ratio: float) -> np.ndarray:
    """Var Ê = σ_hf²/K (1 − (1 − 1/r) ρ²): PWG16 Lemma 3.2 with α = ρ σ_hf/σ_lf, N = r K."""
    return np.asarray(sigma_hf) ** 2 / k * (1.0 - (1.0 - 1.0 / ratio) * np.asarray(rho) ** 2)


def optimal_variance(sigma_hf: float, rho: float, w_hf: float, w_lf: float,
                     budget: float) -> float:
    """Var Ê = σ_hf²/p (sqrt(w_hf (1 − ρ²)) + sqrt(w_lf ρ²))²: the optimum of PWG16
    Theorem 3.4 for a budget p with real-valued K and N (r from :func:`optimal_ratio`; where
    r is clipped to 1, plain Monte Carlo's σ_hf² (w_hf + w_lf)/p)."""
    ratio = optimal_ratio(rho, w_hf, w_lf)
    return float(mfmc_variance(sigma_hf, rho, budget / (w_hf + ratio * w_lf), ratio))


@dataclass(frozen=True)
class Allocation:
    """K high-fidelity and N ≥ K surrogate samples; r the optimal ratio they round; the
    index of the quantity that set them."""

    k: int
    n: int
    ratio: float
    driver: int = 0

    def cost(self, w_hf: float, w_lf: float) -> float:
        """Seconds of the main sampling: K w_hf + N w_lf."""
        return self.k * w_hf + self.n * w_lf


def _samples(k: int, ratio: float, driver: int) -> Allocation:
    return Allocation(int(k), int(max(k, math.ceil(ratio * k - 1e-9))), float(ratio), driver)


def allocate_for_rse(stats: PilotStatistics, rse: float, driver: int = 0) -> Allocation:
    """The cheapest (K, N) whose predicted standard error of quantity ``driver`` is ``rse``
    × |E| (the pilot's mean): K = σ_hf² (1 − (1 − 1/r) ρ²) / (rse · |mean|)²."""
    if not rse > 0:
        raise InputError(f"the relative standard error must be positive, got {rse!r}")
    mean = abs(float(stats.mean_hf[driver]))
    if mean == 0.0:
        raise InputError("a relative standard error needs a quantity whose mean is not 0 "
                         "(on the pilot); give a budget instead")
    ratio = optimal_ratio(stats.rho[driver], stats.w_hf, stats.w_lf)
    variance = float(mfmc_variance(stats.sigma_hf[driver], stats.rho[driver], 1.0, ratio))
    return _samples(max(2, math.ceil(variance / (rse * mean) ** 2)), ratio, driver)


def allocate_for_budget(stats: PilotStatistics, budget: float, driver: int = 0
                        ) -> Allocation:
    """The optimal (K, N) for ``budget`` seconds of main sampling: K = ⌊p / (w_hf + r w_lf)⌋
    (N = ⌈r K⌉ may overrun p by less than one surrogate sample per unit of r); InputError
    when that leaves fewer than 2 high-fidelity samples."""
    ratio = optimal_ratio(stats.rho[driver], stats.w_hf, stats.w_lf)
    k = math.floor(budget / (stats.w_hf + ratio * stats.w_lf)) if budget > 0 else 0
    if k < 2:
        raise InputError(f"a budget of {budget:.3g} s after the pilot leaves {max(k, 0)} "
                         f"high-fidelity samples (at {stats.w_hf:.3g} s each); at least 2 "
                         "are needed: raise the budget")
    return _samples(k, ratio, driver)


def equal_cost_reduction(sigma_hf: np.ndarray, w_hf: float, cost: float,
                         variance: np.ndarray) -> np.ndarray:
    """Var of high-fidelity-only Monte Carlo at ``cost`` seconds, σ_hf² w_hf / cost, over
    ``variance``: how many times less variance the estimate has at the same cost (= how many
    times more a Monte Carlo estimate of the same variance costs)."""
    mc = np.asarray(sigma_hf) ** 2 * w_hf / cost
    variance = np.asarray(variance, dtype=float)
    return np.divide(mc, variance, out=np.full_like(variance, np.inf), where=variance > 0)


__all__ = ["MAX_RATIO", "PilotStatistics", "pilot_statistics", "optimal_ratio",
           "mfmc_variance", "optimal_variance", "Allocation", "allocate_for_rse",
           "allocate_for_budget", "equal_cost_reduction"]
