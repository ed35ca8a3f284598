"""The FEM of reference: the user's words, an evaluation's fastest FEM at the run's error, or
the documented default."""

import json

import pytest

from surrogate.core.errors import InputError
from surrogate.uq.options import ModelOptions
from surrogate.uq.reference_fem import DEFAULT_FEM, reference_fem


def _evaluation(tmp_path, run_path):
    fem = {"backend": "ngsolve", "order": 2, "level": 1, "error": 0.004, "seconds": 0.006,
           "ndofs": 244, "label": "ngsolve order 2 level 1"}
    table = {"queries": {"field": {"median_problem": {"fem": fem, "surrogate_error": 0.005,
                                                      "fem_lower_bound": False}}}}
    path = tmp_path / "evaluation.json"
    path.write_text(json.dumps({"runs": {"sep": {"path": str(run_path)}, "other": {}},
                                "break_even_queries": {"sep": {"cylinder": table,
                                                               "cube": table}}}))
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
