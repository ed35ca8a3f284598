"""MFMC on ``radial`` with the closed form as high fidelity: 200 repeated estimates of
E[energy] on a small budget cover the truth with their 95 % intervals 92–98 % of the time,
with the trained surrogate and with a deliberately poor (perturbed) one."""

import numpy as np
import pytest

from surrogate.fem.families import get_family
from surrogate.uq import (
    ExactQuantities,
    MfmcSettings,
    SurrogateQuantities,
    estimate_mean,
    parse_quantities,
    quantity_points,
    run_distribution,
)

pytestmark = pytest.mark.usefixtures("single_torch_thread")

REPEATS = 200
COSTS = (1.0, 0.01)  # seconds per sample given, so that every allocation is reproducible
BUDGET = 150.0       # pilot (20 × 1.01) + about 95 closed-form and 3,000 surrogate samples


@pytest.fixture(scope="module")
def models(radial_run):
    family = get_family("radial")
    points = quantity_points(parse_quantities(["energy"]), "cylinder", 1, 1)
    return (ExactQuantities(family, points), SurrogateQuantities.from_run(radial_run, points),
            run_distribution(radial_run))


@pytest.fixture(scope="module")
def truth(models):
    """E[energy] from 4 independent scrambles of 1,024 Sobol points each (randomised QMC):
    the mean of the four and its standard error from their spread."""
    from scipy.stats import qmc

    exact, _, box = models
    means = []
    for seed in range(4):
        unit = qmc.Sobol(d=len(box.names), scramble=True, seed=seed).random(1024)
        means.append(exact(box.box[:, 0] + unit * (box.box[:, 1] - box.box[:, 0]))[:, 0].mean())
    return float(np.mean(means)), float(np.std(means, ddof=1) / 2)


def _perturbed(low, box):
    """A poor surrogate: the run's energy plus a deterministic oscillation in μ of amplitude
    10, about 5 times the energy's spread (correlation with the exact energy ≈ 0.2)."""
    width = box.box[:, 1] - box.box[:, 0]

    def model(mu):
        phase = 40.0 * ((mu - box.box[:, 0]) / width) @ np.arange(1.0, len(width) + 1)
        return low(mu) + 10.0 * np.sin(phase)[:, None]

    return model


def _repeats(high, low, box):
    return [estimate_mean(high, low, box.sample, MfmcSettings(
        budget=BUDGET, pilot=20, seed=seed, costs=COSTS), ("energy",)) for seed in range(REPEATS)]


def test_truth_is_known_to_a_thousandth(truth):
    """≈ 1.20 ± 0.0009 (0.07 %); each test below checks it is < 5 % of every estimate's
    standard error, so its own error cannot move a coverage count."""
    mean, error = truth
    assert 0.5 < mean < 5.0 and error < 1e-3 * mean


@pytest.mark.parametrize("surrogate", ["trained", "perturbed"])
def test_mfmc_intervals_cover_the_exact_mean(models, truth, surrogate):
    exact, low, box = models
    low = low if surrogate == "trained" else _perturbed(low, box)
    results = _repeats(exact, low, box)
    covered = np.mean([r.mfmc.covers(np.array([truth[0]]))[0] for r in results])
    assert 0.92 <= covered <= 0.98
    errors = np.array([r.mfmc.mean[0] - truth[0] for r in results])
    se = np.array([r.mfmc.standard_error[0] for r in results])
    assert abs(errors.mean()) < 3 * errors.std() / np.sqrt(REPEATS)  # unbiased
    # the truth's own error is < 5 % of every standard error: it moves a 95 % interval's
    # coverage by < 0.1 percentage point
    assert truth[1] < 0.05 * se.min()
    reduction = np.median([r.reduction()[0] for r in results])
    rho = np.median([r.pilot.rho[0] for r in results])
    if surrogate == "trained":
        assert rho > 0.9 and reduction > 3.0
    else:
        assert abs(rho) < 0.4 and 0.8 < reduction < 1.2
