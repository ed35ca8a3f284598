"""Input distributions: scipy.stats marginals per parameter, checked against the box."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.uq.distributions import input_distribution

NAMES = ("k", "a")
BOX = np.array([[0.5, 2.0], [0.5, 2.0]])


def test_default_is_uniform_over_the_box_and_marginals_follow_scipy():
    rng = np.random.default_rng(0)
    uniform = input_distribution(NAMES, BOX).sample(20000, rng)
    assert uniform.min() >= 0.5 and uniform.max() <= 2.0
    np.testing.assert_allclose(uniform.mean(axis=0), 1.25, atol=0.01)
    spec = {"k": {"distribution": "truncnorm", "a": -1.0, "b": 1.0, "loc": 1.2, "scale": 0.3},
            "a": {"distribution": "lognorm", "s": 0.1, "scale": 1.0}}
    warned = []
    draws = input_distribution(NAMES, BOX, spec, warned.append).sample(20000, rng)
    assert 0.9 <= draws[:, 0].min() and draws[:, 0].max() <= 1.5  # loc ± 1 scale
    assert np.median(draws[:, 1]) == pytest.approx(1.0, abs=0.01)  # lognorm's median = scale
    assert warned == []  # P(lognorm(0.1) outside [0.5, 2]) ≈ 2e-12: inside


def test_mass_outside_the_box_is_said_and_refused_when_strict():
    spec = {"k": {"distribution": "norm", "loc": 1.9, "scale": 0.1}}
    warned = []
    input_distribution(NAMES, BOX, spec, warned.append)
    assert warned == ["parameter k: 15.9 % of its distribution lies outside the training box "
                      "[0.5, 2]"]
    with pytest.raises(InputError, match=r"parameter k: 15.9 %.*\(--strict\)"):
        input_distribution(NAMES, BOX, spec, strict=True)


@pytest.mark.parametrize("spec, match", [
    ({"q": {"distribution": "norm", "loc": 1, "scale": 1}}, "unknown parameter q"),
    ({"k": {"distribution": "gamma", "a": 1}}, "unknown distribution 'gamma'"),
    ({"k": {"distribution": "norm", "mean": 1}}, "norm takes the numbers loc, scale"),
    ({"k": {"distribution": "norm", "loc": 1, "scale": -1}}, "not a proper distribution"),
])
def test_bad_distributions_are_one_line_errors(spec, match):
    with pytest.raises(InputError, match=match):
        input_distribution(NAMES, BOX, spec)
