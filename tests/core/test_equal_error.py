import math

from surrogate.core.equal_error import (
    FemCandidate,
    equal_error_comparison,
    fastest_at_equal_error,
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
    assert "FEM wins" in lost["verdict"] and lost["fem"]["label"] == "order 2, level 2"
    none = equal_error_comparison(CANDIDATES, 1e-6, 0.01)
    assert none["lower_bound"] and none["fem"]["level"] == 3 and none["fem"]["order"] == 2
