"""Random source signals: exact derivatives, switch-on, ranges, determinism."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets.sequence.source_signals import BandLimited, GaussianPulse, draw_signal

RANGES = {"frequency": (0.25, 1.0), "width": (0.3, 0.8), "delay": (1.5, 4.0)}


@pytest.mark.parametrize("family", ["pulse", "bandlimited"])
def test_derivative_matches_central_differences(family):
    signal = draw_signal(np.random.default_rng(3), family, **RANGES)
    t = np.linspace(0.0, 8.0, 401)
    t = t[np.abs(t - 1.0) > 1e-3]  # the ramp's end: s'' jumps there (s' is continuous)
    h = 1e-5
    s, ds = signal(t)
    fd = (signal(t + h)[0] - signal(t - h)[0]) / (2 * h)
    np.testing.assert_allclose(ds, fd, atol=1e-7 * np.abs(ds).max())
    assert np.abs(s).max() <= 1.0 + 1e-12


def test_families_draw_their_parameters_from_the_ranges():
    rng = np.random.default_rng(0)
    pulses = [draw_signal(rng, "pulse", **RANGES) for _ in range(50)]
    assert all(isinstance(p, GaussianPulse) for p in pulses)
    assert all(0.25 <= p.frequency <= 1.0 and 0.3 <= p.width <= 0.8 and 1.5 <= p.delay <= 4.0
               and 0.5 <= abs(p.amplitude) <= 1.0 for p in pulses)
    band = draw_signal(rng, "bandlimited", **RANGES)
    assert isinstance(band, BandLimited) and np.isclose(sum(band.amplitudes), 1.0)
    s, ds = band(np.array([0.0]))
    assert s[0] == 0.0 and ds[0] == 0.0  # switched on smoothly from rest
    kinds = {type(draw_signal(rng, "mixed", **RANGES)) for _ in range(20)}
    assert kinds == {GaussianPulse, BandLimited}


def test_same_generator_seed_gives_the_same_signal():
    a = draw_signal(np.random.default_rng(7), "mixed", **RANGES)
    b = draw_signal(np.random.default_rng(7), "mixed", **RANGES)
    assert a == b
    with pytest.raises(InputError, match="unknown signal family 'chirp'"):
        draw_signal(np.random.default_rng(0), "chirp", **RANGES)
