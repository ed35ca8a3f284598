"""Sobol indices through SALib against the Ishigami function's closed-form indices."""

import numpy as np
import pytest

from surrogate.uq.distributions import input_distribution
from surrogate.uq.sobol import sobol_comparison, sobol_indices

A, B = 7.0, 0.1


def _ishigami(mu):
    x1, x2, x3 = mu.T
    return (np.sin(x1) + A * np.sin(x2) ** 2 + B * x3 ** 4 * np.sin(x1))[:, None]


def test_ishigami_indices_match_the_closed_form_with_narrow_intervals():
    pi = np.pi
    # V = a²/8 + bπ⁴/5 + b²π⁸/18 + 1/2; V1 = (1 + bπ⁴/5)²/2, V2 = a²/8, V13 = b²π⁸ (1/18 − 1/50)
    v1, v2, v13 = 0.5 * (1 + B * pi ** 4 / 5) ** 2, A ** 2 / 8, B ** 2 * pi ** 8 * (1 / 18 - 1 / 50)
    total = A ** 2 / 8 + B * pi ** 4 / 5 + B ** 2 * pi ** 8 / 18 + 0.5
    exact = {"S1": (v1 / total, v2 / total, 0.0), "ST": ((v1 + v13) / total, v2 / total,
                                                          v13 / total)}
    box = np.array([[-pi, pi]] * 3)
    distribution = input_distribution(("x1", "x2", "x3"), box)
    result = sobol_indices(_ishigami, distribution, ("f",), base=3000, seed=2)
    assert result["base_samples"] == 4096 and result["evaluations"] == 4096 * 5
    for kind, values in exact.items():
        for name, value in zip(("x1", "x2", "x3"), values, strict=True):
            entry = result["quantities"]["f"][kind][name]
            assert entry["index"] == pytest.approx(value, abs=0.03)
            low, high = entry["ci95"]
            assert high - low < 0.1


def test_a_constant_quantity_has_no_indices():
    distribution = input_distribution(("x1",), np.array([[0.0, 1.0]]))
    result = sobol_indices(lambda mu: np.ones((len(mu), 1)), distribution, ("c",), base=64)
    assert result["quantities"]["c"] is None


def test_the_comparison_shows_a_surrogate_s_effect_and_none_of_the_reference_itself():
    distribution = input_distribution(("x1", "x2", "x3"), np.array([[-np.pi, np.pi]] * 3))

    def crude(mu):  # drops the x1-x3 interaction: S_T of x3 falls to 0
        return (np.sin(mu[:, 0]) + A * np.sin(mu[:, 1]) ** 2)[:, None]

    same = sobol_comparison(_ishigami, _ishigami, distribution, ("f",), base=256,
                            high_base=64)
    assert same["high_fidelity"]["largest_difference"]["f"] == {"S1": 0.0, "ST": 0.0}
    assert same["high_fidelity"]["evaluations"] == 64 * 5
    other = sobol_comparison(crude, _ishigami, distribution, ("f",), base=256, high_base=64)
    assert other["high_fidelity"]["largest_difference"]["f"]["ST"] > 0.15
    assert "high_fidelity" not in sobol_comparison(crude, _ishigami, distribution, ("f",),
                                                   base=256, high_base=0)
