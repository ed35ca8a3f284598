"""Fitted FEM candidates of a family evaluation: their label, the equal-error choice among
level and fitted solves, the option's resolution per family and its bad values (the
evaluation of an inclusion run with them: tests/evaluation/family/test_measure.py)."""

import pytest

from surrogate.core.equal_error import COARSEST_NOTE, FemCandidate, equal_error_comparison
from surrogate.core.errors import InputError
from surrogate.evaluation.family.fitted import FITTED_MAXH, fitted_solver, parse_maxh_list
from surrogate.evaluation.family.options import FamilyEvaluationOptions
from surrogate.fem.families import get_family


def test_the_fastest_at_equal_error_may_be_a_fitted_solve():
    level = [FemCandidate(1, lv, 0.05 / 2 ** lv, 0.1 * 8 ** lv, 100 * 8 ** lv, "ngsolve")
             for lv in (1, 2, 3)]
    fitted = FemCandidate(3, 1, 0.003, 4.5, 9120, "ngsolve", mesh="fitted maxh 0.35")
    assert fitted.label == "ngsolve order 3, fitted maxh 0.35 (9120 DOFs)"
    assert level[0].label == "ngsolve order 1, level 1 (800 DOFs)"
    comparison = equal_error_comparison(level + [fitted], 0.01, 1e-3)
    assert comparison["fem"]["label"] == fitted.label and comparison["fem"]["mesh"]
    assert not comparison["at_coarsest_level"] and COARSEST_NOTE not in comparison["verdict"]
    # the level-1 solve at a looser error is at the coarsest level; the fitted one never is
    assert equal_error_comparison(level + [fitted], 0.03, 1e-3)["at_coarsest_level"]
    fast = FemCandidate(1, 1, 0.02, 0.01, 700, "ngsolve", mesh="fitted maxh 0.5")
    choice = equal_error_comparison(level + [fast], 0.03, 1e-3)
    assert choice["fem"]["label"] == fast.label and not choice["at_coarsest_level"]


def test_families_without_fitted_geometry_and_bad_values():
    radial, inclusion = get_family("radial"), get_family("inclusion")
    assert FamilyEvaluationOptions().resolved(radial).fem_fitted_maxh == ()
    assert FamilyEvaluationOptions(fem_fitted_maxh=()).resolved(radial).fem_fitted_maxh == ()
    with pytest.raises(InputError, match="no fitted geometry"):
        FamilyEvaluationOptions(fem_fitted_maxh=(0.5,)).resolved(radial)
    assert parse_maxh_list("none") == () and parse_maxh_list("0.35,0.5") == (0.5, 0.35)
    for text in ("0.5,big", "0", "-1", ""):
        with pytest.raises(InputError, match="--fem-fitted-maxh"):
            parse_maxh_list(text)
    with pytest.raises(InputError, match="--fem-fitted-maxh"):
        FamilyEvaluationOptions(fem_fitted_maxh=(0.0,))
    with pytest.raises(InputError, match="ngsolve"):
        FamilyEvaluationOptions(fem_backends=("skfem",),
                                fem_fitted_maxh=(0.5,)).resolved(inclusion)
    skfem_only = FamilyEvaluationOptions(fem_backends=("skfem",)).resolved(inclusion)
    assert skfem_only.fem_fitted_maxh == ()
    assert FamilyEvaluationOptions(fem_fitted_maxh=()).resolved(inclusion).fem_fitted_maxh == ()
    pytest.importorskip("ngsolve")
    assert FamilyEvaluationOptions().resolved(inclusion).fem_fitted_maxh == FITTED_MAXH


def test_fitted_contenders_are_timed_with_their_fastest_solver():
    """'auto' is the direct solve on fitted meshes (≈ 3× faster there above 20k unknowns);
    a solver the user names is kept."""
    assert fitted_solver("auto") == "direct"
    assert fitted_solver("direct") == "direct"
