"""E[Q_hf] by multifidelity Monte Carlo: a pilot, the optimal allocation, the estimate.

1. Pilot: ``pilot`` shared draws μ evaluated by both models (timed): costs w_hf, w_lf per
   sample, σ_hf, σ_lf, ρ and α per quantity (:func:`~surrogate.uq.allocation.pilot_statistics`).
   Its samples are not reused, so α is independent of the estimate's samples and the
   estimate is unbiased (PWG16 Lemma 3.1).
2. Allocation for a target relative standard error ``rse`` of the first quantity, or for a
   ``budget`` of seconds (pilot included): K high-fidelity and N ≥ K surrogate samples
   (:mod:`surrogate.uq.allocation`; the first quantity sets them, the others are estimated on
   the same samples with their own α).
3. N fresh draws; the high-fidelity model on the first K, the surrogate on all N; the MFMC
   estimate with its standard error and 95 % interval
   (:func:`~surrogate.uq.estimators.mfmc_estimate`), Monte Carlo on the K high-fidelity
   samples alone, and the surrogate-only mean over N with its bias measured on the pilot,
   mean(Q_lf − Q_hf) ± its standard error (reported, never the answer).

The variance reduction compares MFMC with high-fidelity-only Monte Carlo at the cost of the
main sampling, K w_hf + N w_lf (σ_hf² w_hf/cost over the estimate's variance), and at that
cost plus the run's one-off (data + training seconds); the pilot's cost is listed apart.
``costs`` = (w_hf, w_lf) replaces the measured seconds per sample (reproducible allocations:
tests, benchmarks). Torch-free: the models are callables μ (B, p) -> Q (B, q).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.uq.allocation import (
    Allocation,
    PilotStatistics,
    allocate_for_budget,
    allocate_for_rse,
    equal_cost_reduction,
    mfmc_variance,
    optimal_variance,
    pilot_statistics,
)
from surrogate.uq.estimators import Estimate, mc_estimate, mfmc_estimate

Model = Callable[[np.ndarray], np.ndarray]
Progress = Callable[[int, int, str], None]
"""``(done, total, description)``, as the command line's progress display takes it."""
PILOT = 50
"""Default number of shared pilot samples."""
BLOCK = 16
"""High-fidelity samples per progress step."""


@dataclass(frozen=True)
class MfmcSettings:
    """What to estimate to: ``rse`` or ``budget`` (seconds, pilot included), exactly one."""

    rse: float | None = None
    budget: float | None = None
    pilot: int = PILOT
    seed: int = 0
    costs: tuple[float, float] | None = None
    one_off_seconds: float | None = None

    def __post_init__(self) -> None:
        if (self.rse is None) == (self.budget is None):
            raise InputError("give either a target relative standard error or a budget")
        if self.pilot < 3:
            raise InputError(f"the pilot needs at least 3 samples, got {self.pilot}")


@dataclass
class UqResult:
    """Everything one MFMC study measured (:meth:`to_dict` is ``uq.json``'s core);
    ``std_high``, ``std_low`` (q,): the sample standard deviations of the quantities over
    the K high-fidelity and the N surrogate samples; ``trace``: :func:`convergence_trace`."""

    names: tuple[str, ...]
    settings: MfmcSettings
    pilot: PilotStatistics
    allocation: Allocation
    mfmc: Estimate
    high_only: Estimate
    surrogate_only: Estimate
    bias: Estimate
    seconds: dict[str, float]
    std_high: np.ndarray | None = None
    std_low: np.ndarray | None = None
    trace: list[dict[str, Any]] | None = None

    def reduction(self, one_off: bool = False) -> np.ndarray:
        """Variance reduction (q,) against high-fidelity-only Monte Carlo at the main
        sampling's cost (plus the one-off when ``one_off``; None-recorded counts as 0)."""
        cost = self.allocation.cost(self.pilot.w_hf, self.pilot.w_lf)
        if one_off:
            cost += self.settings.one_off_seconds or 0.0
        sigma = self.high_only.standard_error * np.sqrt(self.high_only.n_high)
        return equal_cost_reduction(sigma, self.pilot.w_hf, cost, self.mfmc.standard_error ** 2)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record of the study."""
        stats, alloc = self.pilot, self.allocation
        predicted = np.sqrt(mfmc_variance(stats.sigma_hf, stats.rho, alloc.k, alloc.ratio))
        quantities = {}
        for j, name in enumerate(self.names):
            quantities[name] = {
                "mfmc": self.mfmc.column(j),
                "high_fidelity_mc": self.high_only.column(j),
                "surrogate_mc": {**self.surrogate_only.column(j),
                                 "bias_on_pilot": self.bias.column(j),
                                 "note": "biased by the surrogate's error; not the answer"},
                "pilot": {"mean_high": float(stats.mean_hf[j]),
                          "mean_surrogate": float(stats.mean_lf[j]),
                          "sigma_high": float(stats.sigma_hf[j]),
                          "sigma_surrogate": float(stats.sigma_lf[j]),
                          "rho": float(stats.rho[j]), "alpha": float(stats.alpha[j])},
                "standard_deviation": _spread(self, j),
                "convergence": [{"k": t["k"], "n": t["n"], "seconds": t["seconds"],
                                 "seconds_high": t["seconds_high"],
                                 "mfmc": t["mfmc"].column(j),
                                 "high_fidelity_mc": t["mc"].column(j)}
                                for t in self.trace or ()],
                "predicted_standard_error": float(predicted[j]),
                "predicted_variance_reduction": _predicted_reduction(stats, j),
                "variance_reduction": {"without_one_off": float(self.reduction()[j]),
                                       "with_one_off": float(self.reduction(True)[j])}}
        return {"quantities": quantities,
                "allocation": {"high_samples": alloc.k, "surrogate_samples": alloc.n,
                               "ratio": alloc.ratio, "set_by": self.names[alloc.driver]},
                "pilot": {"samples": stats.n, "seconds_per_sample": {
                    "high": stats.w_hf, "surrogate": stats.w_lf},
                    "costs_given": self.settings.costs is not None},
                "seconds": dict(self.seconds),
                "settings": {"rse": self.settings.rse, "budget": self.settings.budget,
                             "pilot": self.settings.pilot, "seed": self.settings.seed}}


def convergence_trace(y_high: np.ndarray, y_low: np.ndarray, alpha: np.ndarray,
                      w_hf: float, w_lf: float, steps: int = 6) -> list[dict[str, Any]]:
    """MFMC and high-fidelity Monte Carlo on nested prefixes of the samples (K/2^s FEM and
    N/2^s surrogate samples, s = steps − 1 .. 0; each an estimate of that smaller cost
    K w_hf + N w_lf, the Monte Carlo one of K w_hf): the estimate ± error against cost of
    the report."""
    k, n, out = len(y_high), len(y_low), []
    for s in range(steps - 1, -1, -1):
        kk, nn = k >> s, n >> s
        if kk >= 2:
            out.append({"k": kk, "n": nn, "seconds": kk * w_hf + nn * w_lf,
                        "seconds_high": kk * w_hf,
                        "mfmc": mfmc_estimate(y_high[:kk], y_low[:nn], alpha),
                        "mc": mc_estimate(y_high[:kk])})
    return out


def _spread(result: UqResult, j: int) -> dict[str, float | None]:
    """The standard deviation of quantity ``j`` over the input distribution: from the K
    high-fidelity samples and from the N surrogate samples (biased by the surrogate)."""
    return {name: None if values is None else float(values[j]) for name, values in
            (("high_fidelity", result.std_high), ("surrogate", result.std_low))}


def _predicted_reduction(stats: PilotStatistics, j: int) -> float | None:
    """The pilot's prediction of the variance reduction at the optimum (real-valued K, N):
    σ_hf² w_hf over p · Var Ê of :func:`~surrogate.uq.allocation.optimal_variance`."""
    sigma, rho = float(stats.sigma_hf[j]), float(stats.rho[j])
    if sigma == 0.0:
        return None
    return sigma ** 2 * stats.w_hf / optimal_variance(sigma, rho, stats.w_hf, stats.w_lf, 1.0)


def _timed(model: Model, mu: np.ndarray, progress: Progress | None, what: str,
           block: int | None = None) -> tuple[np.ndarray, float]:
    """(Q (B, q), seconds) of ``model`` on μ, in blocks of ``block`` with progress."""
    block = block or max(len(mu), 1)
    parts, seconds = [], 0.0
    for start in range(0, len(mu), block):
        begin = time.perf_counter()
        parts.append(np.asarray(model(mu[start:start + block]), dtype=np.float64))
        seconds += time.perf_counter() - begin
        if progress is not None:
            progress(min(start + block, len(mu)), len(mu), what)
    values = np.concatenate(parts)
    if values.ndim != 2 or len(values) != len(mu) or not np.isfinite(values).all():
        raise InputError(f"the {what} model returned {values.shape} values, some not finite, "
                         f"for {len(mu)} problems")
    return values, seconds


def _pilot(high: Model, low: Model, mu: np.ndarray, settings: MfmcSettings,
           progress: Progress | None) -> tuple[PilotStatistics, dict[str, float],
                                                 np.ndarray, np.ndarray]:
    """The pilot's statistics and seconds; InputError early when a budget cannot pay it."""
    first, first_seconds = _timed(high, mu[:1], None, "high-fidelity")
    w_first = settings.costs[0] if settings.costs else first_seconds
    if settings.budget is not None and len(mu) * w_first >= settings.budget:
        raise InputError(f"a budget of {settings.budget:.3g} s is too small for the pilot "
                         f"({len(mu)} high-fidelity samples at ≈ {w_first:.3g} s each)")
    rest, rest_seconds = _timed(high, mu[1:], progress, "pilot: high-fidelity", BLOCK)
    q_low, low_seconds = _timed(low, mu, None, "surrogate")
    q_high = np.concatenate([first, rest])
    seconds = {"high": first_seconds + rest_seconds, "surrogate": low_seconds}
    w_hf, w_lf = settings.costs or (seconds["high"] / len(mu), max(low_seconds / len(mu),
                                                                    1e-12))
    return pilot_statistics(q_high, q_low, w_hf, w_lf), seconds, q_high, q_low


def estimate_mean(high: Model, low: Model, sample: Callable[[int, np.random.Generator],
                  np.ndarray], settings: MfmcSettings, names: Sequence[str],
                  progress: Progress | None = None) -> UqResult:
    """E[Q_hf] of the quantities ``names`` by MFMC (module docstring): ``sample(n, rng)``
    draws μ (n, p) from the input distribution; ``high`` and ``low`` map μ to Q (n, q)."""
    rng = np.random.default_rng(settings.seed)
    stats, pilot_seconds, q_high, q_low = _pilot(high, low, sample(settings.pilot, rng),
                                                 settings, progress)
    if settings.rse is not None:
        allocation = allocate_for_rse(stats, settings.rse)
    else:
        spent = (settings.pilot * (stats.w_hf + stats.w_lf) if settings.costs
                 else sum(pilot_seconds.values()))
        allocation = allocate_for_budget(stats, settings.budget - spent)
    mu = sample(allocation.n, rng)
    y_high, high_seconds = _timed(high, mu[:allocation.k], progress, "high-fidelity", BLOCK)
    y_low, low_seconds = _timed(low, mu, None, "surrogate")
    bias = mc_estimate(q_low - q_high)
    surrogate = mc_estimate(y_low)
    return UqResult(
        tuple(names), settings, stats, allocation, mfmc_estimate(y_high, y_low, stats.alpha),
        mc_estimate(y_high), Estimate(surrogate.mean, surrogate.standard_error, 0, len(y_low)),
        Estimate(bias.mean, bias.standard_error, settings.pilot, settings.pilot),
        {"pilot_high": pilot_seconds["high"], "pilot_surrogate": pilot_seconds["surrogate"],
         "high": high_seconds, "surrogate": low_seconds,
         "one_off": settings.one_off_seconds},
        y_high.std(axis=0, ddof=1), y_low.std(axis=0, ddof=1),
        convergence_trace(y_high, y_low, stats.alpha, stats.w_hf, stats.w_lf))


__all__ = ["PILOT", "BLOCK", "MfmcSettings", "UqResult", "convergence_trace", "estimate_mean"]
