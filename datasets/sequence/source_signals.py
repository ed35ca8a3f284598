"""Random source signals s(t) with their exact derivatives s'(t), for J(x, t) = s(t) J₀(x).

Families (``draw_signal(rng, family, ...)``):

- ``pulse``: a modulated Gaussian pulse
  s(t) = a exp(−(t − t₀)² / (2 w²)) cos(2π f (t − t₀) + φ), with centre frequency f, centre
  time t₀ and width w uniform in their ranges, amplitude a uniform in [0.5, 1] with a random
  sign, phase φ uniform in [0, 2π).
- ``bandlimited``: a random band-limited signal switched on smoothly,
  s(t) = r(t) Σ_{k=1}^{K} a_k sin(2π f_k t + φ_k), K = 8, f_k uniform in the frequency range,
  φ_k uniform in [0, 2π), a_k uniform in [0, 1] normalised to Σ a_k = 1 (so |s| ≤ 1), and the
  ramp r(t) = sin²(π t / (2 τ)) for t < τ, 1 after (τ = 1, so s(0) = s'(0) = 0).
- ``mixed``: each signal is a pulse or band-limited with probability ½.

Each signal is drawn from its own ``numpy.random.Generator`` in a fixed order (family, then
parameters), so it depends only on that generator's seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from surrogate.core.errors import InputError

SIGNAL_FAMILIES = ("pulse", "bandlimited", "mixed")
BAND_COMPONENTS = 8  # K sinusoids of a band-limited signal
RAMP_TIME = 1.0  # τ of the band-limited signals' switch-on ramp
AMPLITUDE_RANGE = (0.5, 1.0)  # |a| of a pulse


@dataclass(frozen=True)
class GaussianPulse:
    """s(t) = a exp(−(t − t₀)²/(2w²)) cos(2πf(t − t₀) + φ)."""

    amplitude: float
    frequency: float
    delay: float
    width: float
    phase: float

    def __call__(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(s(t), s'(t)) at times t (T,)."""
        tau = np.asarray(t, dtype=np.float64) - self.delay
        envelope = self.amplitude * np.exp(-0.5 * tau**2 / self.width**2)
        omega = 2.0 * np.pi * self.frequency
        cos, sin = np.cos(omega * tau + self.phase), np.sin(omega * tau + self.phase)
        return envelope * cos, envelope * (-tau / self.width**2 * cos - omega * sin)


@dataclass(frozen=True)
class BandLimited:
    """s(t) = r(t) Σ_k a_k sin(2π f_k t + φ_k), r(t) = sin²(π t/(2τ)) for t < τ, else 1."""

    amplitudes: tuple[float, ...]
    frequencies: tuple[float, ...]
    phases: tuple[float, ...]
    ramp: float = RAMP_TIME

    def __call__(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(s(t), s'(t)) at times t (T,)."""
        t = np.asarray(t, dtype=np.float64)
        a, f, phi = (np.asarray(x)[:, None] for x in (self.amplitudes, self.frequencies,
                                                      self.phases))
        arg = 2.0 * np.pi * f * t[None, :] + phi
        wave = np.sum(a * np.sin(arg), axis=0)
        dwave = np.sum(a * 2.0 * np.pi * f * np.cos(arg), axis=0)
        on = t < self.ramp
        r = np.where(on, np.sin(0.5 * np.pi * t / self.ramp) ** 2, 1.0)
        dr = np.where(on, 0.5 * np.pi / self.ramp * np.sin(np.pi * t / self.ramp), 0.0)
        return r * wave, dr * wave + r * dwave


def check_range(name: str, value, minimum: float = 0.0, strict: bool = False
                ) -> tuple[float, float]:
    """A (low, high) pair of finite floats with minimum ≤ low ≤ high (low > minimum if strict)."""
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(f"recipe {name}={value!r}: expected two numbers (low, high)") from None
    bad_low = low <= minimum if strict else low < minimum
    if not (np.isfinite(low) and np.isfinite(high)) or bad_low or high < low:
        raise InputError(f"recipe {name}={value!r}: expected finite {minimum:g} "
                         f"{'<' if strict else '<='} low <= high")
    return low, high


def draw_signal(rng: np.random.Generator, family: str, frequency: tuple[float, float],
                width: tuple[float, float], delay: tuple[float, float]
                ) -> GaussianPulse | BandLimited:
    """One random signal of ``family`` (see the module docstring) from ``rng``."""
    if family not in SIGNAL_FAMILIES:
        raise InputError(f"unknown signal family {family!r}; choose one of: "
                         f"{', '.join(SIGNAL_FAMILIES)}")
    if family == "mixed":
        family = ("pulse", "bandlimited")[int(rng.integers(2))]
    if family == "pulse":
        sign = 1.0 if rng.random() < 0.5 else -1.0
        return GaussianPulse(amplitude=sign * rng.uniform(*AMPLITUDE_RANGE),
                             frequency=rng.uniform(*frequency), delay=rng.uniform(*delay),
                             width=rng.uniform(*width), phase=rng.uniform(0.0, 2.0 * np.pi))
    amplitudes = rng.uniform(0.0, 1.0, BAND_COMPONENTS)
    amplitudes /= max(amplitudes.sum(), 1e-300)
    return BandLimited(amplitudes=tuple(amplitudes.tolist()),
                       frequencies=tuple(rng.uniform(*frequency, BAND_COMPONENTS).tolist()),
                       phases=tuple(rng.uniform(0.0, 2.0 * np.pi, BAND_COMPONENTS).tolist()))


__all__ = ["SIGNAL_FAMILIES", "GaussianPulse", "BandLimited", "draw_signal", "check_range",
           "BAND_COMPONENTS", "RAMP_TIME"]
