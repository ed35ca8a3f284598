"""The evaluation of a maxwell-nl run: its three sets rebuilt from the recipe (unseen
waveforms, amplitudes beyond the trained range with the same waveform shapes, a longer
horizon that extends the same sequences) and the FEM verdict, where every query is a whole
nonlinear run: the data's own FEM has error 0, a candidate's error is that of its own
simulation, N* = one-off / (FEM − surrogate per sequence); bad options are one-line errors."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.core.metrics import relative_errors_per_sequence
from surrogate.datasets import generate_dataset
from surrogate.datasets.sequence.nonlinear_cavity import (
    MaxwellNLRecipe,
    build_setup,
    sample_draws,
    simulate_sample,
)
from surrogate.evaluation.family.economics import break_even
from surrogate.evaluation.sequence.fem_verdict import NONLINEAR
from surrogate.evaluation.sequence.measure import evaluate_sequence_run, prepare
from surrogate.evaluation.sequence.options import SequenceEvaluationOptions
from surrogate.evaluation.sequence.tables import sequence_tables
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

TINY = {"level": 1, "fem_order": 1, "n": 8, "steps": 10, "dt": 0.2, "probes": 2,
        "substeps": 1, "richardson": False, "varistor_low": "0.5,0.5,0.5",
        "varistor_high": "1,1,1", "signal": "pulse", "delay": [0.3, 1.0],
        "amplitude": [0.5, 1.0], "split": [0.5, 0.25, 0.25], "seed": 5}
LADDER = ("ngsolve:2:1:1", "ngsolve:1:1:2r")
BEYOND = (2.0, 2.5)


@pytest.fixture(scope="module")
def verdict(tmp_path_factory):
    """A tiny maxwell-nl run (LEM, 2 epochs) evaluated on all three sets, one fresh
    sequence, amplitudes beyond the trained range, two ladder candidates."""
    root = tmp_path_factory.mktemp("nl_verdict")
    generate_dataset(MaxwellNLRecipe(**TINY), root / "mnl.h5")
    run = fit(root / "mnl.h5", {"arch": "lem", "hidden": 6}, {"epochs": 2, "batch_size": 4},
              root / "run")
    options = SequenceEvaluationOptions(
        fresh=1, fem_candidates=LADDER,
        material_ranges=(f"amplitude={BEYOND[0]},{BEYOND[1]}",))
    evaluation = evaluate_sequence_run(run, options)
    return {"run": run, "evaluation": evaluation, "json": evaluation.to_dict()}


def test_every_set_is_a_nonlinear_verdict_with_n_star_from_its_terms(verdict):
    for name in ("unseen-signals", "unseen-materials", "longer-horizon"):
        fem = verdict["json"]["sets"][name]["fem_verdict"]
        assert fem["kind"] == NONLINEAR and fem["sequences"] == 3
        for query in ("one", "batch"):
            entry = fem["queries"][query]
            row = next(r for r in fem["candidates"]
                       if entry["fem"] is not None and r["method"] == entry["fem"]["method"]
                       and r["order"] == entry["fem"]["order"])
            assert entry["fem_seconds"] == pytest.approx(row["seconds"]["solve"])
            assert entry["n_star"] == break_even(entry["one_off_seconds"],
                                                 entry["fem_seconds"],
                                                 entry["surrogate_seconds"])
            assert entry["text"].startswith(("N* = ", "never: the FEM"))
        one_off = fem["one_off_seconds"]
        assert one_off["training"] > 0 and one_off["total"] >= one_off["training"]


def test_the_data_fem_has_error_zero_and_a_candidate_the_error_of_its_own_run(verdict):
    evaluation = verdict["evaluation"]
    fem = verdict["json"]["sets"]["unseen-signals"]["fem_verdict"]
    own, order2, richardson = fem["candidates"]
    assert own["own"] and own["fem"] == "ngsolve:1:1:1" and own["error"]["median"] == 0.0
    assert own["seconds"]["runs"] == 1  # the builder's solve of the one fresh sequence
    assert (order2["fem"], richardson["method"]) == ("ngsolve:2:1:1",
                                                     "Newmark Δt/2 + Richardson")
    result = evaluation.results["unseen-signals"]
    points = evaluation.plan.dataset.attrs["probe_points"]
    finer = MaxwellNLRecipe(**{**TINY, "n": 9, "fem_order": 2,
                               "probe_points": tuple(map(tuple, points))})
    setup = build_setup(finer)
    targets = np.stack([simulate_sample(setup, d)[1]
                        for d in sample_draws(finer, result.set.samples)])
    errors = relative_errors_per_sequence(targets, result.target)
    assert order2["error"]["median"] == pytest.approx(np.median(errors), rel=1e-9)
    assert order2["error"]["max"] == pytest.approx(errors.max(), rel=1e-9)
    assert order2["error"]["median"] > 1e-3 and order2["dofs"] > own["dofs"]
    # the sets without fresh solves time the data's FEM by solving again
    again = verdict["json"]["sets"]["longer-horizon"]["fem_verdict"]["candidates"][0]
    assert again["seconds"]["runs"] == 3 and again["reproduced"] < 1e-12


def test_unseen_amplitudes_keep_the_waveform_shapes_beyond_the_trained_range(verdict):
    results = verdict["evaluation"].results
    samples = results["unseen-signals"].set.samples
    signals = results["unseen-signals"].set.inputs[:, :, 0]
    beyond = results["unseen-materials"].set.inputs[:, :, 0]
    trained = np.array([d[1] for d in sample_draws(MaxwellNLRecipe(**{**TINY, "n": 9}),
                                                   samples)])
    redrawn = np.array([d[1] for d in sample_draws(
        MaxwellNLRecipe(**{**TINY, "n": 9, "seed": TINY["seed"] + 1, "amplitude": BEYOND}),
        samples)])
    assert np.all((BEYOND[0] <= redrawn) & (redrawn <= BEYOND[1]))
    np.testing.assert_allclose(beyond / redrawn[:, None], signals / trained[:, None],
                               rtol=1e-12, atol=1e-14)
    assert "amplitude in [2, 2.5]" in results["unseen-materials"].set.source


def test_the_longer_horizon_extends_the_same_sequences(verdict):
    results = verdict["evaluation"].results
    short, longer = results["unseen-signals"].set, results["longer-horizon"].set
    assert longer.targets.shape[1] == 2 * TINY["steps"] + 1
    np.testing.assert_allclose(longer.targets[:, :TINY["steps"] + 1], short.targets,
                               rtol=1e-9, atol=1e-12 * np.abs(short.targets).max())


def test_the_verdict_is_printed(verdict):
    blocks = sequence_tables(verdict["json"])
    titles = [b.title for b in blocks if not isinstance(b, str)]
    assert f"FEM verdict on unseen-signals ({NONLINEAR}), error: median relative L²" in titles
    table = next(b for b in blocks if not isinstance(b, str)
                 and b.title.startswith("FEM verdict on unseen-materials"))
    assert table.rows[0][0] == "ngsolve:1:1:1*" and table.rows[0][4] == "–"


@pytest.mark.parametrize("options, message", [
    ({"fem_cache": "x"}, "maxwell-nl runs have none"),
    ({"fem_candidates": ("skfem:0:2:1",)}, "solved with the ngsolve backend only"),
    ({"material_ranges": ("eps=2,3",)}, "'maxwell-nl' data vary amplitude, sigma0, e0"),
])
def test_bad_options_for_maxwell_nl_are_one_line_input_errors(verdict, options, message):
    with pytest.raises(InputError, match=message) as info:
        prepare(verdict["run"], SequenceEvaluationOptions(**options))
    assert "\n" not in str(info.value)


def test_the_surrogate_truth_benchmark_reads_the_set_the_verdict_reads(verdict, tmp_path,
                                                                        monkeypatch, capsys):
    """benchmarks/nl_surrogate_truth.py with the data's own FEM as the reference: the data
    are 0 from it and the surrogate's error to it is its error to the data (the same draws,
    the same read-out); a second call reads the cached reference runs."""
    import json
    import runpy
    from pathlib import Path

    script = Path(__file__).parents[3] / "benchmarks" / "nl_surrogate_truth.py"
    cache = tmp_path / "reference.npz"
    reports = []
    for _ in range(2):
        monkeypatch.setattr("sys.argv", [str(script), str(verdict["run"].path), "--sequences",
                                         "2", "--reference", "ngsolve:1:1:1", "--cache",
                                         str(cache)])
        runpy.run_path(str(script), run_name="__main__")
        reports.append(json.loads(capsys.readouterr().out))
    first, second = reports
    assert first["sequences"] == 2 and cache.is_file()
    assert first["data_to_reference"]["max"] < 1e-10
    assert first["surrogate_to_reference"]["per_sequence"] == pytest.approx(
        first["surrogate_to_data"]["per_sequence"], rel=1e-8)
    test_errors = verdict["json"]["sets"]["unseen-signals"]["errors"]
    assert first["surrogate_to_data"]["max"] <= test_errors["max"] * (1 + 1e-9)
    assert second["surrogate_to_reference"] == first["surrogate_to_reference"]
    assert second["reference_seconds_per_sequence"] == first["reference_seconds_per_sequence"]
