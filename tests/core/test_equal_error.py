import math

from surrogate.core.equal_error import (
    COARSEST_NOTE,
    FemCandidate,
    equal_error_comparison,
    fastest_at_equal_error,
    fastest_fem,
)

CANDIDATES = [FemCandidate(1, level, 1e-2 / 2 ** (level - 1), 0.01 * 8 ** (level - 1))
              for level in range(1, 5)] + [
    FemCandidate(2, level, 3e-3 / 4 ** (level - 1), 0.02 * 8 ** (level - 1))
    for level in range(1, 4)]


def test_fastest_candidate_at_or_below_the_target_error():
    best = fastest_at_equal_error(CANDIDATES, 2e-3)
    assert (best.order, best.level) == (2, 2)  # 7.5e-4 in 0.16 s beats order 1 level 4
    assert fastest_at_equal_error(CANDIDATES, 1e-2).level == 1
    assert fastest_at_equal_error(CANDIDATES, 1e-6) is None


def test_comparison_names_the_winner_and_a_lower_bound_when_nothing_matches():
    won = equal_error_comparison(CANDIDATES, 2e-3, 0.01)
    assert math.isclose(won["speedup"], 16.0) and "surrogate wins" in won["verdict"]
    lost = equal_error_comparison(CANDIDATES, 2e-3, 1.0)
    assert "FEM wins" in lost["verdict"] and lost["fem"]["label"] == "skfem order 2, level 2"
    none = equal_error_comparison(CANDIDATES, 1e-6, 0.01)
    assert none["lower_bound"] and none["fem"]["level"] == 3 and none["fem"]["order"] == 2


def test_the_verdict_picks_the_fastest_candidate_over_backends_and_names_it():
    """Fake candidates of two backends: the fastest at the target error wins whatever its
    backend, and the verdict names backend, order, level, DOFs and seconds."""
    ours = [FemCandidate(1, level, 1e-2 / 4 ** (level - 1), 0.01 * 8 ** (level - 1),
                         196 * 8 ** (level - 1)) for level in (1, 2, 3)]
    theirs = [FemCandidate(order, level, 10.0 ** -(order + level), 0.004 * order * level,
                           654 * level, backend="ngsolve") for order in (2, 3)
              for level in (1, 2)]
    choice = fastest_fem(ours + theirs, 1.2e-3)  # ours need level 3 (80 ms)
    assert choice["fem"]["backend"] == "ngsolve" and choice["fem"]["order"] == 2
    assert choice["fem"]["level"] == 1 and not choice["lower_bound"]
    assert choice["at_coarsest_level"]
    verdict = equal_error_comparison(ours + theirs, 1.2e-3, 0.002)["verdict"]
    assert "ngsolve order 2, level 1 (654 DOFs)" in verdict and "0.008 s" in verdict
    assert COARSEST_NOTE in verdict
    # ours only: the fastest is at level 3, not the coarsest
    only_ours = equal_error_comparison(ours, 1.2e-3, 0.002)
    assert only_ours["fem"]["backend"] == "skfem" and only_ours["fem"]["level"] == 3
    assert not only_ours["at_coarsest_level"] and COARSEST_NOTE not in only_ours["verdict"]
    # a faster candidate of our own at the coarsest level beats theirs
    fast_ours = FemCandidate(1, 1, 1e-3, 0.001, 196, method="best")
    best = fastest_fem(ours + theirs + [fast_ours], 1.2e-3)["fem"]
    assert (best["backend"], best["method"]) == ("skfem", "best")
    assert best["label"] == "skfem order 1 best approximation, level 1 (196 DOFs)"


def test_a_time_domain_candidate_names_its_stepping_after_the_dofs():
    stepped = FemCandidate(4, 2, 1e-3, 0.5, 17420, "ngsolve", "Newmark Δt/2 + Richardson")
    assert stepped.label == "ngsolve order 4, level 2 (17420 DOFs), Newmark Δt/2 + Richardson"
    assert FemCandidate(1, 2, 1e-3, 0.5, method="best").label == \
        "skfem order 1 best approximation, level 2"
