"""Sequence evaluation (issue 6): the sets rebuilt from a tiny maxwell-td recipe, the JSON
numbers against numpy, the longer horizon extending the training sequences, new materials,
figures, the probe and FEM-field ``.pvd`` files read back with meshio, and one-line refusals
(another dataset, ``--vtk`` on data without a field, bad options)."""

import dataclasses

import meshio
import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe, FitzHughNagumoRecipe
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    build_setup,
    simulate_samples,
)
from surrogate.datasets.sequence.td_snapshots import sample_snapshots
from surrogate.datasets.writer import write_dataset
from surrogate.evaluation.sequence.measure import evaluate_sequence_run, prepare
from surrogate.evaluation.sequence.options import SequenceEvaluationOptions
from surrogate.evaluation.sequence.plots import make_sequence_figures
from surrogate.evaluation.sequence.vtk import frame_steps
from surrogate.fem.vtk import read_pvd
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

TINY = {"level": 1, "n": 8, "steps": 20, "dt": 0.1, "probes": 2, "n_materials": 2,
        "signal": "pulse", "delay": [0.3, 1.0], "split": [0.5, 0.25, 0.25], "seed": 3,
        **N0_TD_SETTINGS}  # the fast N0 path (snapshots need skfem's N0)


@pytest.fixture(scope="module")
def mtd(tmp_path_factory):
    """A tiny maxwell-td dataset, an LEM run trained on it for 3 epochs, and one evaluation
    (all three sets, 1 fresh sequence, VTK every 3rd step, one FEM candidate) with figures."""
    root = tmp_path_factory.mktemp("seq_eval")
    generate_dataset(MaxwellTDRecipe(**TINY), root / "mtd.h5")
    run = fit(root / "mtd.h5", {"arch": "lem", "hidden": 6},
              {"epochs": 3, "batch_size": 4}, root / "run")
    options = SequenceEvaluationOptions(fresh=1, vtk_every=3, sample=1,
                                        fem_candidates=("skfem:0:2:1",))
    evaluation = evaluate_sequence_run(run, options, vtk_dir=root / "vtk")
    figures = make_sequence_figures(evaluation, root / "plots")
    return {"root": root, "run": run, "dataset": read_dataset(root / "mtd.h5"),
            "evaluation": evaluation, "json": evaluation.to_dict(), "figures": figures}


def _per_sequence(prediction, target):
    n = len(target)
    diff = np.sqrt(np.sum((prediction - target).reshape(n, -1) ** 2, axis=1))
    return diff / np.sqrt(np.sum(target.reshape(n, -1) ** 2, axis=1))


@pytest.mark.parametrize("name", ["unseen-signals", "unseen-materials", "longer-horizon"])
def test_json_numbers_equal_a_direct_numpy_computation(mtd, name):
    built = mtd["evaluation"].results[name].set
    record = mtd["json"]["sets"][name]
    prediction = mtd["run"].predict(built.inputs)  # (n, T, 3P)
    target = np.asarray(built.targets, dtype=float)
    errors = _per_sequence(prediction, target)
    np.testing.assert_allclose(record["per_sequence"], errors, rtol=1e-12)
    summary = record["errors"]
    np.testing.assert_allclose([summary["mean"], summary["median"], summary["max"]],
                               [errors.mean(), np.median(errors), errors.max()], rtol=1e-12)
    pooled = np.linalg.norm(prediction - target) / np.linalg.norm(target)
    assert summary["pooled"] == pytest.approx(pooled, rel=1e-12)
    assert record["sequences"] == len(target) == 3 and record["steps"] == target.shape[1]
    # error over time: r_i(n) = |e_i(t_n)| / rms_i; its RMS over n is the per-sequence error
    rms = np.sqrt(np.mean(np.sum(target**2, axis=2), axis=1))
    ratio = np.linalg.norm(prediction - target, axis=2) / rms[:, None]
    np.testing.assert_allclose(np.sqrt(np.mean(ratio**2, axis=1)), errors, rtol=1e-10)
    curve = record["error_over_time"]
    np.testing.assert_allclose(curve["median"], np.median(ratio, axis=0), rtol=1e-12)
    np.testing.assert_allclose(curve["p90"], np.percentile(ratio, 90, axis=0), rtol=1e-12)
    np.testing.assert_allclose(curve["time"], built.time)


def test_longer_horizon_windows_and_physical_time(mtd):
    built = mtd["evaluation"].results["longer-horizon"].set
    record = mtd["json"]["sets"]["longer-horizon"]
    assert record["steps"] == 2 * TINY["steps"] + 1 and record["trained_steps"] == 21
    np.testing.assert_allclose(built.time, TINY["dt"] * np.arange(41))
    prediction, target = mtd["run"].predict(built.inputs), built.targets
    trained, after = _per_sequence(prediction[:, :21], target[:, :21]), \
        _per_sequence(prediction[:, 21:], target[:, 21:])
    windows = record["windows"]
    assert windows["trained_until"] == pytest.approx(2.0)
    assert windows["trained"]["median"] == pytest.approx(np.median(trained), rel=1e-12)
    assert windows["extrapolated"]["max"] == pytest.approx(after.max(), rel=1e-12)
    assert mtd["json"]["sets"]["unseen-signals"]["windows"] is None


def test_longer_horizon_starts_with_the_training_recipe_sequences(mtd):
    data, built = mtd["dataset"], mtd["evaluation"].results["longer-horizon"].set
    rows = data.splits["test"]
    in_file = len(rows)
    np.testing.assert_array_equal(built.samples[:in_file], rows)
    np.testing.assert_array_equal(built.inputs[:in_file, :21], data.inputs[rows])
    scale = np.abs(data.targets).max()
    np.testing.assert_allclose(built.targets[:in_file, :21], data.targets[rows], rtol=0,
                               atol=1e-12 * scale)


def test_unseen_signals_are_the_test_split_plus_a_fresh_sample(mtd):
    data, built = mtd["dataset"], mtd["evaluation"].results["unseen-signals"].set
    rows = data.splits["test"]
    assert list(built.samples) == [*rows.tolist(), TINY["n"]]
    np.testing.assert_array_equal(built.inputs[:len(rows)], data.inputs[rows])
    longer = MaxwellTDRecipe(**{**TINY, "n": TINY["n"] + 1})
    inputs, targets = simulate_samples(build_setup(longer), [TINY["n"]])
    np.testing.assert_array_equal(built.inputs[-1:], inputs)
    np.testing.assert_array_equal(built.targets[-1:], targets)
    assert not np.any(np.all(np.isclose(data.inputs[:, :, 0], inputs[0, :, 0]), axis=1))
    assert "test split" in mtd["json"]["sets"]["unseen-signals"]["source"]
    assert "1 regenerated samples 8" in mtd["json"]["sets"]["unseen-signals"]["source"]


def test_unseen_materials_are_new_with_the_same_signals(mtd):
    data = mtd["dataset"]
    signals = mtd["evaluation"].results["unseen-signals"].set
    built = mtd["evaluation"].results["unseen-materials"].set
    trained = {tuple(m) for m in data.inputs[:, 0, 1:4].round(12)}
    new = {tuple(m) for m in built.inputs[:, 0, 1:4].round(12)}
    assert new and not new & trained
    np.testing.assert_array_equal(built.inputs[:, :, 0], signals.inputs[:, :, 0])
    for column, (low, high) in zip(built.inputs[:, 0, 1:4].T, ([1, 2], [1, 2], [0, 0.3]),
                                   strict=True):
        assert np.all((column >= low) & (column <= high))
    assert mtd["json"]["sets"]["unseen-materials"]["recipe"]["material_seed"] == TINY["seed"] + 1


def test_material_ranges_extrapolate_outside_training(mtd):
    plan = prepare(mtd["run"], SequenceEvaluationOptions(sets=("unseen-materials",),
                                                         material_ranges=("eps=3,4",)))
    from surrogate.evaluation.sequence.builders import build_set

    built = build_set(plan, "unseen-materials")
    assert np.all(built.inputs[:, :, 1] >= 3) and np.all(built.inputs[:, :, 1] <= 4)
    assert built.recipe["eps"] == [3.0, 4.0]


def test_figures_are_non_empty_pngs(mtd):
    figures = mtd["figures"]["figures"]
    assert set(figures) == {"traces:unseen-signals", "traces:unseen-materials",
                            "traces:longer-horizon", "error_over_time"}
    for fig in figures.values():
        data = (mtd["root"] / "plots" / fig["file"]).read_bytes()
        assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"


def test_probe_pvd_has_the_steps_times_and_vector_arrays(mtd):
    vtk_dir, vtk = mtd["root"] / "vtk", mtd["json"]["vtk"]
    steps = frame_steps(21, 3)
    assert list(steps) == [0, 3, 6, 9, 12, 15, 18, 20] and vtk["steps"] == steps.tolist()
    entries = read_pvd(vtk_dir / "probes.pvd")
    assert len(entries) == len(steps)
    np.testing.assert_allclose([t for t, _ in entries], TINY["dt"] * steps, rtol=1e-6)
    result = mtd["evaluation"].results["unseen-signals"]
    points = mtd["dataset"].attrs["probe_points"]
    for (_, name), step in ((entries[0], 0), (entries[-1], 20)):
        mesh = meshio.read(vtk_dir / name)
        np.testing.assert_allclose(mesh.points, points)
        true = result.target[1, step].reshape(-1, 3)
        predicted = result.prediction[1, step].reshape(-1, 3)
        data = mesh.point_data
        assert {"E_true", "E_pred", "E_error"} <= set(data) and data["E_true"].shape == (2, 3)
        np.testing.assert_allclose(data["E_true"], true, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(data["E_pred"], predicted, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(data["E_error"], predicted - true, rtol=1e-12, atol=1e-15)
    assert np.abs(meshio.read(vtk_dir / entries[-1][1]).point_data["E_true"]).max() > 0


def test_field_pvd_matches_sample_snapshots(mtd):
    vtk_dir, vtk = mtd["root"] / "vtk", mtd["json"]["vtk"]
    sample_id = int(mtd["dataset"].splits["test"][1])
    assert vtk["sample_id"] == sample_id
    entries = read_pvd(vtk_dir / "field.pvd")
    assert [t for t, _ in entries] == pytest.approx(TINY["dt"] * frame_steps(21, 3))
    snapshots = sample_snapshots(MaxwellTDRecipe(**TINY), sample_id)
    nodes, cells = snapshots.at_nodes(), snapshots.at_cells()
    mesh = meshio.read(vtk_dir / entries[-2][1])  # step 18
    np.testing.assert_allclose(mesh.point_data["E"], nodes[18], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(mesh.cell_data["E"][0], cells[18], rtol=1e-10, atol=1e-14)
    assert np.abs(cells[18]).max() > 0 and mesh.points.shape == snapshots.mesh.p.T.shape


def test_another_dataset_is_refused_in_one_line(mtd, tmp_path):
    other = tmp_path / "other.h5"
    generate_dataset(MaxwellTDRecipe(**{**TINY, "seed": 4}), other)
    with pytest.raises(InputError, match="is not the dataset run .* was trained on"):
        prepare(mtd["run"], SequenceEvaluationOptions(), data_path=other)
    with pytest.raises(InputError, match="not found; pass --data"):
        prepare(mtd["run"], SequenceEvaluationOptions(), data_path=tmp_path / "missing.h5")


@pytest.mark.parametrize("kwargs, message", [
    ({"horizon_factor": 1.0}, "--horizon-factor must be a number > 1"),
    ({"material_ranges": ("rho=1,2",)}, "expected NAME=LOW,HIGH"),
    ({"material_ranges": ("eps=0,1",)}, "recipe eps"),
    ({"sets": ("unseen-weather",)}, "unknown evaluation set"),
    ({"fresh": -1}, "--fresh must be >= 0"),
])
def test_bad_options_are_one_line_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        SequenceEvaluationOptions(**kwargs)


def test_fitzhugh_nagumo_longer_horizon_keeps_dt_and_refuses_vtk(tmp_path):
    path = tmp_path / "fhn.h5"
    generate_dataset(FitzHughNagumoRecipe(n_train=4, n_val=1, n_test=3, steps=12, t_end=6.0),
                     path)
    run = fit(path, {"arch": "lem", "hidden": 3}, {"epochs": 1}, tmp_path / "run")
    with pytest.raises(InputError, match="--vtk needs a spatial field"):
        prepare(run, SequenceEvaluationOptions(), vtk=True)
    with pytest.raises(InputError, match="not available for 'fitzhugh-nagumo'"):
        prepare(run, SequenceEvaluationOptions(sets=("unseen-materials",)))
    evaluation = evaluate_sequence_run(run, SequenceEvaluationOptions(horizon_factor=1.5))
    data, longer = read_dataset(path), evaluation.results["longer-horizon"].set
    assert longer.inputs.shape == (3, 18, 1) and longer.recipe["t_end"] == pytest.approx(9.0)
    np.testing.assert_allclose(np.diff(longer.time), 0.5)
    np.testing.assert_allclose(longer.inputs[:, :12], data.inputs[data.splits["test"]],
                               rtol=0, atol=1e-8)
    assert evaluation.to_dict()["sets"]["longer-horizon"]["windows"]["trained_steps"] == 12


def test_plan_keeps_the_recipe_immutable(mtd):
    plan = prepare(mtd["run"], SequenceEvaluationOptions(fresh=2, max_sequences=3))
    assert plan.samples.tolist() == [*mtd["dataset"].splits["test"].tolist(), 8][:3]
    assert dataclasses.asdict(plan.recipe)["n"] == TINY["n"]


def test_adding_run_reads_out_the_last_step_on_longer_sequences(tmp_path):
    path = tmp_path / "adding.h5"
    generate_dataset(AddingRecipe(length=10, n_train=8, n_val=2, n_test=3), path)
    run = fit(path, {"arch": "lem", "hidden": 3}, {"epochs": 1}, tmp_path / "run")
    evaluation = evaluate_sequence_run(run, SequenceEvaluationOptions(fresh=1))
    for name, steps in (("unseen-signals", 10), ("longer-horizon", 20)):
        result, record = evaluation.results[name], evaluation.to_dict()["sets"][name]
        assert result.set.inputs.shape == (4, steps, 2) and result.prediction.shape == (4, 1)
        assert np.all(result.set.inputs[:, :, 1].sum(axis=1) == 2)  # two markers
        sums = result.set.targets[:, 0, 0]
        np.testing.assert_allclose(record["per_sequence"],
                                   np.abs(result.prediction[:, 0] - sums) / np.abs(sums),
                                   rtol=1e-12)
        assert record["error_over_time"] is None and record["windows"] is None
    data = read_dataset(path)
    np.testing.assert_array_equal(evaluation.results["unseen-signals"].set.inputs[:3],
                                  data.inputs[data.splits["test"]])


def test_a_recipe_without_generator_is_evaluated_on_its_test_split(tmp_path):
    u = np.random.default_rng(0).normal(size=(10, 6, 1))
    path = tmp_path / "signal.h5"
    write_dataset(path, inputs=u, targets=np.cumsum(u, axis=1), input_names=["u"],
                  target_names=["y"], splits={"train": np.arange(6), "val": np.arange(6, 8),
                                              "test": np.arange(8, 10)},
                  problem="signal", domain="time", recipe={"kind": "test"}, seed=0,
                  kind="sequence", time=np.arange(6.0))
    run = fit(path, {"arch": "lstm", "hidden": 3}, {"epochs": 1}, tmp_path / "run")
    evaluation = evaluate_sequence_run(run, SequenceEvaluationOptions())
    assert list(evaluation.results) == ["unseen-signals"]
    assert "cannot be regenerated" in evaluation.notes[0]
    with pytest.raises(InputError, match="--fresh needs a recipe that can be regenerated"):
        prepare(run, SequenceEvaluationOptions(fresh=2))
    with pytest.raises(InputError, match="'longer-horizon' is not available"):
        prepare(run, SequenceEvaluationOptions(sets=("longer-horizon",)))


def test_a_horizon_that_would_not_fit_in_memory_is_refused(mtd):
    with pytest.raises(InputError, match="lower --max-sequences or --horizon-factor"):
        prepare(mtd["run"], SequenceEvaluationOptions(horizon_factor=1e12))
