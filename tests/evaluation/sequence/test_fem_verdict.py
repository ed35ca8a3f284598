"""The FEM verdict of a maxwell-td run: per set the fastest FEM at the surrogate's
error and N* per query kind; for a known material the stored impulse response's convolution
is faster ("never", in words); the data's own FEM has error 0; a ladder candidate's error is
the one of its own simulation; bad ``--fem-candidates`` are one-line errors."""

import dataclasses
import re

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.core.metrics import relative_errors_per_sequence
from surrogate.datasets import generate_dataset
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS, stored_recipe
from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe, build_setup, simulate_samples
from surrogate.evaluation.sequence.fem_verdict import fem_query_seconds
from surrogate.evaluation.sequence.measure import evaluate_sequence_run, prepare
from surrogate.evaluation.sequence.options import SequenceEvaluationOptions
from surrogate.evaluation.sequence.tables import sequence_tables
from surrogate.evaluation.sequence.td_candidates import DEFAULT_LADDER, parse_candidates
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

TINY = {"level": 1, "n": 8, "steps": 20, "dt": 0.1, "probes": 2, "n_materials": 2,
        "signal": "pulse", "delay": [0.3, 1.0], "split": [0.5, 0.25, 0.25], "seed": 3,
        **N0_TD_SETTINGS}  # the fast N0 path
LADDER = ("skfem:0:2:1", "skfem:0:1:2r")


@pytest.fixture(scope="module")
def verdict(tmp_path_factory):
    """A tiny maxwell-td run (LEM, 2 epochs) evaluated on all three sets with two ladder
    candidates and a response store on disk."""
    root = tmp_path_factory.mktemp("fem_verdict")
    generate_dataset(MaxwellTDRecipe(**TINY), root / "mtd.h5")
    run = fit(root / "mtd.h5", {"arch": "lem", "hidden": 6}, {"epochs": 2, "batch_size": 4},
              root / "run")
    options = SequenceEvaluationOptions(fresh=1, fem_candidates=LADDER,
                                        fem_cache=str(root / "fem"))
    evaluation = evaluate_sequence_run(run, options)
    return {"root": root, "run": run, "evaluation": evaluation, "json": evaluation.to_dict()}


@pytest.mark.parametrize("name", ["unseen-signals", "longer-horizon"])
def test_for_a_known_material_the_convolution_is_faster_and_said_in_words(verdict, name):
    fem = verdict["json"]["sets"][name]["fem_verdict"]
    assert fem["kind"] == "known material"
    for query in ("one", "batch"):
        entry = fem["queries"][query]
        assert entry["n_star"] is None and not entry["surrogate_faster"]
        assert entry["fem_seconds"] <= entry["surrogate_seconds"]
        # the fastest candidate at the surrogate's error (the data's FEM, error 0, is one;
        # the convolutions of equal length tie within timing noise, so any may win)
        reaching = [row for row in fem["candidates"]
                    if row["error"]["median"] <= entry["surrogate_error"]]
        assert any(row["own"] for row in reaching)
        assert entry["fem_seconds"] == min(fem_query_seconds(row, fem["kind"], query)
                                           for row in reaching)
        assert entry["text"].startswith("never: for a known material the FEM answers a "
                                        + ("new signal by one convolution of its stored "
                                           "impulse response" if query == "one" else
                                           "batch of new signals by one product"))
        assert "faster than the surrogate" in entry["text"]
        assert f"{entry['fem']['label']}), faster than the surrogate" in entry["text"]


def test_the_data_fem_has_error_zero_and_a_ladder_candidate_its_own_error(verdict):
    fem = verdict["json"]["sets"]["unseen-signals"]["fem_verdict"]
    own, level2, richardson = fem["candidates"]
    assert own["own"] and own["fem"] == "skfem:0:1:1" and own["error"]["median"] == 0.0
    assert own["setup_seconds"] is None and "error is 0 by construction" in fem["notes"][0]
    assert (level2["fem"], level2["dofs"], richardson["method"]) == \
        ("skfem:0:2:1", 316, "Newmark Δt/2 + Richardson")
    result = verdict["evaluation"].results["unseen-signals"]
    finer = MaxwellTDRecipe(**{**TINY, "n": 9, "level": 2,
                               "probe_points": verdict["evaluation"].plan.dataset.attrs[
                                   "probe_points"]})
    _, targets = simulate_samples(build_setup(finer), result.set.samples)
    errors = relative_errors_per_sequence(targets, result.target)
    assert level2["error"]["median"] == pytest.approx(np.median(errors), rel=1e-10)
    assert level2["error"]["max"] == pytest.approx(errors.max(), rel=1e-10)
    assert level2["setup_seconds"] > 0 and level2["seconds"]["material"] > 0


def test_a_new_material_is_charged_its_factorisation_and_impulse_run(verdict):
    fem = verdict["json"]["sets"]["unseen-materials"]["fem_verdict"]
    assert fem["kind"] == "new material" and fem["materials"] == 2
    for query, column in (("one", "convolution_one"), ("batch", "convolution_batch")):
        entry = fem["queries"][query]
        row = next(r for r in fem["candidates"] if r["method"] == entry["fem"]["method"])
        seconds = row["seconds"]
        assert seconds["material"] == pytest.approx(seconds["factorise"] + seconds["impulse"])
        assert entry["fem_seconds"] == pytest.approx(seconds["material"] + seconds[column])
        assert entry["text"].startswith(("never: for a new material", "N* = "))
    one_off = fem["one_off_seconds"]
    assert one_off["training"] > 0 and one_off["total"] >= one_off["training"]


def test_the_verdict_is_printed_and_the_store_is_reused(verdict):
    blocks = sequence_tables(verdict["json"])
    titles = [b.title for b in blocks if not isinstance(b, str)]
    assert "FEM verdict on unseen-signals (known material), error: median relative L²" in titles
    own_row = next(b for b in blocks if not isinstance(b, str)
                   and b.title.startswith("FEM verdict on unseen-materials")).rows[0]
    assert own_row[0] == "skfem:0:1:1*" and own_row[2] == "0.00e+00"
    files = sorted((verdict["root"] / "fem").glob("*.npz"))
    assert files and not list((verdict["root"] / "fem").glob(".*"))
    # a second evaluation reads every response from the directory: the same timings
    again = evaluate_sequence_run(verdict["run"], SequenceEvaluationOptions(
        fresh=1, sets=("unseen-materials",), fem_candidates=LADDER,
        fem_cache=str(verdict["root"] / "fem"))).to_dict()
    first = verdict["json"]["sets"]["unseen-materials"]["fem_verdict"]["candidates"]
    second = again["sets"]["unseen-materials"]["fem_verdict"]["candidates"]
    for a, b in zip(first, second, strict=True):
        assert a["seconds"]["material"] == b["seconds"]["material"]
        assert a["error"] == b["error"]


@pytest.mark.parametrize("spec, message", [
    ("ngsolve:4:2", "expected backend:order:level:substeps"),
    ("fenics:0:2:1", "unknown FEM backend 'fenics'"),
    ("skfem:2:2:1", "the skfem time-domain backend offers orders (0,)"),
    ("skfem:0:0:1", "level and substeps must be >= 1"),
    ("none,skfem:0:2:1", "give it alone"),
])
def test_bad_candidates_are_one_line_input_errors(spec, message):
    with pytest.raises(InputError, match=re.escape(message)) as error:
        SequenceEvaluationOptions(fem_candidates=(spec,))
    assert "\n" not in str(error.value)


def test_none_turns_the_verdict_off_and_a_missing_backend_is_a_note(verdict, monkeypatch):
    plan = prepare(verdict["run"], SequenceEvaluationOptions(fem_candidates=("none",)))
    assert plan.cache["fem_specs"] is None
    specs, notes = parse_candidates(None)
    assert [s.text for s in specs] == list(DEFAULT_LADDER) and not notes
    import surrogate.fem.hcurl.registry as registry

    monkeypatch.setattr(registry, "backend_installed", lambda name: name != "ngsolve")
    specs, notes = parse_candidates(None)
    assert [s.text for s in specs] == ["skfem:0:2:1", "skfem:0:3:1"]
    assert len(notes) == 5 and "ngsolve backend is not installed" in notes[0]


def test_an_old_n0_recipe_without_the_fem_fields_still_gets_its_verdict(verdict):
    plan = prepare(verdict["run"], SequenceEvaluationOptions(
        sets=("unseen-signals",), fem_candidates=("skfem:0:2:1",)))
    stored = stored_recipe({k: v for k, v in plan.dataset.recipe.items()  # as read_dataset
                            if k not in ("fem_backend", "fem_order", "substeps", "richardson")})
    old = dataclasses.replace(plan, dataset=dataclasses.replace(plan.dataset, recipe=stored))
    from surrogate.evaluation.sequence.sets import recipe_of

    _, recipe = recipe_of(old.dataset)
    evaluation = evaluate_sequence_run(verdict["run"], SequenceEvaluationOptions(
        sets=("unseen-signals",), fem_candidates=("skfem:0:2:1",)),
        plan=dataclasses.replace(old, recipe=recipe))
    fem = evaluation.to_dict()["sets"]["unseen-signals"]["fem_verdict"]
    assert fem["candidates"][0]["fem"] == "skfem:0:1:1"
    assert fem["queries"]["one"]["text"].startswith("never: for a known material")
