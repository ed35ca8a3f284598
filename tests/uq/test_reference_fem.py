"""The FEM of reference: the user's words, an evaluation's fastest FEM at the run's error, or
the documented default."""

import json

import pytest

from surrogate.core.errors import InputError
from surrogate.evaluation.family.fitted import fitted_maxh_of, fitted_mesh_name
from surrogate.uq.options import ModelOptions
from surrogate.uq.reference_fem import DEFAULT_FEM, reference_fem


def _evaluation(tmp_path, run_path, **fem_fields):
    fem = {"backend": "ngsolve", "order": 2, "level": 1, "error": 0.004, "seconds": 0.006,
           "ndofs": 244, "label": "ngsolve order 2 level 1", **fem_fields}
    table = {"queries": {"field": {"median_problem": {"fem": fem, "surrogate_error": 0.005,
                                                      "fem_lower_bound": False}}}}
    path = tmp_path / "evaluation.json"
    path.write_text(json.dumps({"runs": {"sep": {"path": str(run_path)}, "other": {}},
                                "break_even_queries": {"sep": {"cylinder": table,
                                                               "cube": table},
                                                       "other": {}}}))
    return path


def test_the_evaluation_s_fastest_fem_at_the_run_s_error_and_the_options_win(tmp_path):
    run = tmp_path / "run"
    assert reference_fem(ModelOptions(), run, "cube") == {
        "backend": DEFAULT_FEM[0], "order": DEFAULT_FEM[1], "level": DEFAULT_FEM[2],
        "domain": None, "source": "default"}
    chosen = reference_fem(ModelOptions(evaluation=str(_evaluation(tmp_path, run))), run, "cube")
    assert (chosen["backend"], chosen["order"], chosen["level"], chosen["domain"]) == (
        "ngsolve", 2, 1, "cube")
    assert chosen["source"] == "evaluation" and chosen["run_label"] == "sep"
    mixed = reference_fem(ModelOptions(evaluation=str(tmp_path / "evaluation.json"),
                                       fem_level=3), run, "cube")
    assert (mixed["backend"], mixed["level"], mixed["source"]) == ("ngsolve", 3,
                                                                   "evaluation and options")


@pytest.mark.parametrize("content, fragment", [
    ("{}", "not a family evaluation.json"),
    ('{"break_even_queries": {"a": {}, "b": {}}}', "no break-even table of the run"),
])
def test_a_wrong_evaluation_is_one_input_error(tmp_path, content, fragment):
    path = tmp_path / "evaluation.json"
    path.write_text(content)
    with pytest.raises(InputError, match=fragment):
        reference_fem(ModelOptions(evaluation=str(path)), tmp_path / "run", "cube")
    with pytest.raises(InputError, match="was not evaluated on 'sphere'"):
        reference_fem(ModelOptions(evaluation=str(_evaluation(tmp_path, "r")), domain="sphere"),
                      "r", "cube")


def test_an_evaluation_s_fitted_fem_stays_fitted(tmp_path):
    # the fastest FEM at the run's error may be solved on each member's own fitted mesh:
    # taken as such (maxh), its points on the default level, not the level errors were read on
    run = tmp_path / "run"
    path = str(_evaluation(tmp_path, run, order=3, level=3, mesh=fitted_mesh_name(0.5)))
    chosen = reference_fem(ModelOptions(evaluation=path), run, "cylinder")
    assert (chosen["backend"], chosen["order"], chosen["maxh"], chosen["level"],
            chosen["error_level"]) == ("ngsolve", 3, 0.5, DEFAULT_FEM[2], 3)
    finer = reference_fem(ModelOptions(evaluation=path, fem_maxh=0.35), run, "cylinder")
    assert finer["maxh"] == 0.35 and finer["source"] == "evaluation and options"
    level = reference_fem(ModelOptions(evaluation=path, fem_maxh=0.0), run, "cylinder")
    assert "maxh" not in level and level["order"] == 3
    # a run path recorded relative to where evaluate ran: the run of the same folder name
    relative = _evaluation(tmp_path, "runs/run", order=3, level=3, mesh=fitted_mesh_name(0.5))
    assert reference_fem(ModelOptions(evaluation=str(relative)), run, "cylinder")["maxh"] == 0.5
    assert fitted_maxh_of(fitted_mesh_name(0.35)) == 0.35
    assert fitted_maxh_of(None) is None and fitted_maxh_of("fitted maxh x") is None
