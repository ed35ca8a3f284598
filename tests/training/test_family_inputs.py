"""Rows of a family dataset per inputs kind, and fits of families (params, fields)."""

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.domains import get_domain
from surrogate.fem.families import get_family, sensor_layout, sensor_names, sensor_values
from surrogate.training.family_inputs import (
    family_record,
    family_rows,
    network_inputs,
    training_dataset,
)

POINT_COLUMNS = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")


@dataclass(frozen=True)
class FakeDataset:
    """The reader's Dataset fields that training reads, plus ``family``."""

    path: Path
    kind: str
    inputs: np.ndarray
    targets: np.ndarray
    input_names: tuple
    target_names: tuple
    splits: dict
    problem: str = "maxwell-family"
    domain: str = "cylinder"
    recipe: dict = field(default_factory=dict)
    seed: int = 0
    version: int = 2
    content_hash: str = "sha256:" + "0" * 64
    attrs: dict = field(default_factory=dict)
    family: object = None
    time: object = None

    def split(self, name):
        idx = self.splits[name]
        return self.inputs[idx], self.targets[idx]

    def __len__(self):
        return len(self.inputs)


def radial_dataset(problems: int = 6, points: int = 40, seed: int = 0,
                   family: bool = True) -> tuple[FakeDataset, object]:
    """A tiny radial family on the cylinder: problems 0..P-3 train, P-2 val, P-1 test."""
    fam, cylinder = get_family("radial"), get_domain("cylinder")
    sensors = sensor_layout(fam, n_volume=4, n_boundary=2)
    mus = fam.sample(problems, seed)
    rng = np.random.default_rng(seed)
    x = [cylinder.sample(points, rng) for _ in mus]
    members = [fam.problem(mu) for mu in mus]
    inputs = np.concatenate([m.inputs(p) for m, p in zip(members, x, strict=True)])
    targets = np.concatenate([m.u(p) for m, p in zip(members, x, strict=True)])
    problem_id = np.repeat(np.arange(problems), points)
    data = SimpleNamespace(
        name="radial", params=mus, param_names=fam.param_names, problem_id=problem_id,
        sensor_values=np.stack([sensor_values(m, sensors) for m in members]),
        sensor_names=sensor_names(sensors), volume_points=sensors.volume_points,
        boundary_points=sensors.boundary_points, boundary_normals=sensors.boundary_normals,
        box=fam.box, truth="exact")
    splits = {"train": np.flatnonzero(problem_id < problems - 2),
              "val": np.flatnonzero(problem_id == problems - 2),
              "test": np.flatnonzero(problem_id == problems - 1)}
    dataset = FakeDataset(Path("radial.h5"), "pointwise", inputs, targets, POINT_COLUMNS,
                          ("u1", "u2", "u3"), splits, attrs={"generation_seconds": 1.5},
                          family=data if family else None)
    return dataset, sensors


@pytest.mark.parametrize("kind", ["pointwise", "params", "fields"])
def test_training_rows_are_the_rows_a_new_problem_gets(kind):
    dataset, sensors = radial_dataset()
    view = training_dataset(dataset, kind)
    width = {"pointwise": 7, "params": 3 + 6, "fields": 3 + 4 * 3 + 4 + 2 * 3}[kind]
    assert view.inputs.shape == (len(dataset), width) and len(view.input_names) == width
    assert view.splits is dataset.splits and view.content_hash == dataset.content_hash
    fam = get_family("radial")
    for pid in (0, 4):
        rows = np.flatnonzero(dataset.family.problem_id == pid)
        problem = fam.problem(dataset.family.params[pid])
        expected = network_inputs(kind, dataset.inputs[rows, :3], problem,
                                  sensor_values=sensor_values(problem, sensors))
        np.testing.assert_allclose(view.inputs[rows], expected, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(
        family_rows(kind, dataset.inputs, dataset.family.problem_id, dataset.family),
        view.inputs)


def test_params_rows_from_mu_and_bad_requests():
    points = np.zeros((4, 3))
    rows = network_inputs("params", points, params=np.arange(6.0))
    np.testing.assert_array_equal(rows[:, 3:], np.tile(np.arange(6.0), (4, 1)))
    with pytest.raises(InputError, match="unknown inputs"):
        network_inputs("sensors", points, params=np.arange(6.0))
    with pytest.raises(InputError, match="sensor_values"):
        network_inputs("fields", points, object())
    with pytest.raises(InputError, match="shape"):
        network_inputs("params", np.zeros((4, 2)), params=np.arange(6.0))
    single, _ = radial_dataset(problems=3, points=5, family=False)
    assert training_dataset(single, "pointwise") is single
    assert family_record(single) == {}
    for kind in ("params", "fields"):
        with pytest.raises(InputError, match="single problem"):
            training_dataset(single, kind)


def test_family_record_holds_what_evaluation_rebuilds():
    dataset, sensors = radial_dataset()
    record = family_record(dataset)
    assert record["family"] == "radial" and record["generation_seconds"] == 1.5
    assert record["param_names"] == list(get_family("radial").param_names)
    np.testing.assert_array_equal(record["sensors"]["volume_points"], sensors.volume_points)
    np.testing.assert_array_equal(record["sensors"]["boundary_normals"],
                                  sensors.boundary_normals)
    assert len(record["sensors"]["names"]) == 4 * 3 + 4 + 2 * 3


def test_generation_seconds_come_from_the_summary_of_the_same_file(tmp_path):
    from dataclasses import replace

    dataset, _ = radial_dataset()
    dataset = replace(dataset, path=tmp_path / "radial.h5", attrs={})
    summary = tmp_path / "radial.h5.json"
    assert family_record(dataset)["generation_seconds"] is None  # no summary
    summary.write_text(json.dumps({"content_hash": dataset.content_hash,
                                   "generation_seconds": 2.25}))
    assert family_record(dataset)["generation_seconds"] == 2.25
    summary.write_text(json.dumps({"content_hash": "sha256:" + "1" * 64,
                                   "generation_seconds": 2.25}))
    assert family_record(dataset)["generation_seconds"] is None  # another file's summary
    summary.write_text("{not json")
    assert family_record(dataset)["generation_seconds"] is None
    summary.write_text("[1, 2]")  # valid JSON, not a summary
    assert family_record(dataset)["generation_seconds"] is None


@pytest.mark.parametrize("kind", ["params", "fields"])
def test_fit_of_a_family_writes_a_run_that_predicts_new_members(kind, tmp_path,
                                                                single_torch_thread):
    from surrogate.core.metrics import relative_l2_error
    from surrogate.runs.load import load_run
    from surrogate.runs.predict import predict_array
    from surrogate.training.loop import fit

    dataset, sensors = radial_dataset()
    model = {"arch": "resnet", "inputs": kind, "width": 16, "depth": 2, "code_size": 4,
             "encoder_width": 8}
    run = fit(dataset, model, {"epochs": 30, "lr": 1e-2, "batch_size": 64}, tmp_path / kind)
    loaded = load_run(tmp_path / kind)
    assert loaded.model_config.inputs == kind
    assert loaded.dataset["family"] == "radial" and loaded.dataset["generation_seconds"] == 1.5
    assert loaded.metrics["train_seconds"] > 0
    assert loaded.normalisation.in_features == training_dataset(dataset, kind).inputs.shape[1]
    # the test problem through network_inputs gives the run's own test error
    test = dataset.splits["test"]
    problem = get_family("radial").problem(dataset.family.params[-1])
    rows = network_inputs(kind, dataset.inputs[test, :3], problem,
                          sensor_values=sensor_values(problem, sensors))
    error = relative_l2_error(predict_array(loaded.model, loaded.normalisation, rows),
                              dataset.targets[test])
    assert error == pytest.approx(run.metrics["relative_l2_error"]["test"], rel=1e-6)
    assert run.metrics["relative_l2_error"]["train"] < 0.5  # it learned something


def test_rows_beyond_the_memory_budget_are_one_input_error(monkeypatch):
    """A join larger than half the available memory fails in one line (not an OOM kill)."""
    dataset, _ = radial_dataset(problems=3, points=5)
    family = dataset.family
    need = len(family.problem_id) * (3 + np.asarray(family.sensor_values).shape[1]) * 8
    monkeypatch.setattr("surrogate.training.family_inputs.memory_budget", lambda: need - 1)
    with pytest.raises(InputError, match=r"--inputs fields joins \d+ values to each of 15 "
                                         r"rows: .* more than the .* this process may use"):
        family_rows("fields", dataset.inputs, family.problem_id, family)
    monkeypatch.setattr("surrogate.training.family_inputs.memory_budget", lambda: need)
    assert family_rows("fields", dataset.inputs, family.problem_id, family).nbytes == need


def inclusion_dataset(problems: int = 5, points: int = 60, seed: int = 0) -> FakeDataset:
    """A tiny inclusion family with stand-in targets (a smooth function of x and μ, with the
    ball's kink): rows and predictions only, no FEM truth."""
    fam, cylinder = get_family("inclusion"), get_domain("cylinder")
    mus = fam.sample(problems, seed)
    rng = np.random.default_rng(seed)
    x = [cylinder.sample(points, rng) for _ in mus]
    inputs = np.concatenate([fam.problem(mu).inputs(p) for mu, p in zip(mus, x, strict=True)])
    problem_id = np.repeat(np.arange(problems), points)
    mu_rows = mus[problem_id]
    kink = np.abs(np.linalg.norm(inputs[:, :3] - mu_rows[:, :3], axis=1) - mu_rows[:, 3])
    targets = np.column_stack([kink, np.sin(inputs[:, 0] + mu_rows[:, 5]), inputs[:, 2] ** 2])
    data = SimpleNamespace(name="inclusion", params=mus, param_names=fam.param_names,
                           problem_id=problem_id, sensor_values=np.zeros((problems, 1)),
                           sensor_names=("s",), volume_points=np.zeros((1, 3)),
                           boundary_points=np.zeros((0, 3)), boundary_normals=np.zeros((0, 3)),
                           box=fam.box, truth="fem")
    splits = {"train": np.flatnonzero(problem_id < problems - 2),
              "val": np.flatnonzero(problem_id == problems - 2),
              "test": np.flatnonzero(problem_id == problems - 1)}
    return FakeDataset(Path("inclusion.h5"), "pointwise", inputs, targets, POINT_COLUMNS,
                       ("u1", "u2", "u3"), splits, attrs={"generation_seconds": 2.0},
                       family=data)


def test_geometry_rows_are_the_signed_distance_to_each_members_ball():
    dataset = inclusion_dataset()
    view = training_dataset(dataset, "params-geometry")
    assert view.input_names == ("x1", "x2", "x3", *get_family("inclusion").param_names,
                                "interface_distance")
    distance = view.inputs[:, -1]
    # negative exactly where φ is the member's contrast (inside its ball), |d| <= diameter
    inside = dataset.inputs[:, 6] != 1.0
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(distance < 0, inside)
    fam = get_family("inclusion")
    for pid in (0, 3):
        rows = np.flatnonzero(dataset.family.problem_id == pid)
        problem = fam.problem(dataset.family.params[pid])
        expected = network_inputs("params-geometry", dataset.inputs[rows, :3], problem)
        np.testing.assert_allclose(view.inputs[rows], expected, rtol=1e-14, atol=1e-14)
        c, radius = problem.centre, problem.radius
        np.testing.assert_allclose(
            expected[:, -1], np.linalg.norm(dataset.inputs[rows, :3] - c, axis=1) - radius,
            rtol=1e-14, atol=1e-14)


def test_geometry_inputs_need_a_family_with_a_moving_geometry():
    radial, _ = radial_dataset(problems=3, points=5)
    with pytest.raises(InputError, match="family 'radial' has no geometry"):
        training_dataset(radial, "params-geometry")
    with pytest.raises(InputError, match="need the family"):
        network_inputs("params-geometry", np.zeros((2, 3)), params=np.zeros(8))
    with pytest.raises(InputError, match=r"parameters \(N, 8\) or \(8,\)"):
        get_family("inclusion").geometry_features(np.zeros((2, 3)), np.zeros((3, 8)))
    from surrogate.models.registry import config_from_dict

    with pytest.raises(InputError, match="vary with x"):
        config_from_dict({"arch": "deeponet", "inputs": "params-geometry", "in_features": 12,
                          "out_features": 3})


def test_geometry_run_predicts_what_evaluate_computes(tmp_path, single_torch_thread):
    """A params-geometry run: its training test error = the rows of a new member through
    network_inputs; the batched Predictor = evaluate's FamilyPredictor on the cube."""
    from surrogate.core.metrics import relative_l2_error
    from surrogate.evaluation.family.measure import FamilyPredictor
    from surrogate.predict import Predictor
    from surrogate.predict.point_sets import PointSet
    from surrogate.runs.load import load_run
    from surrogate.runs.predict import predict_array
    from surrogate.training.loop import fit

    dataset = inclusion_dataset()
    model = {"arch": "resnet", "inputs": "params-geometry", "width": 16, "depth": 2}
    run = fit(dataset, model, {"epochs": 20, "lr": 1e-2, "batch_size": 64}, tmp_path / "g")
    loaded = load_run(tmp_path / "g")
    assert loaded.model_config.inputs == "params-geometry"
    assert loaded.normalisation.in_features == 3 + 8 + 1
    fam = get_family("inclusion")
    test = dataset.splits["test"]
    rows = network_inputs("params-geometry", dataset.inputs[test, :3],
                          fam.problem(dataset.family.params[-1]))
    error = relative_l2_error(predict_array(loaded.model, loaded.normalisation, rows),
                              dataset.targets[test])
    assert error == pytest.approx(run.metrics["relative_l2_error"]["test"], rel=1e-6)
    cube = PointSet.from_domain("cube", 2)
    mu = fam.sample(3, 7)
    reference = FamilyPredictor.from_run("run", loaded, None)
    expected = np.stack([reference(cube.points, fam.problem(m)) for m in mu])
    scale = np.abs(expected).max()
    for dtype in ("float32", "float64"):  # row blocks of 1,000 cut across problems
        predictor = Predictor(loaded, cube, dtype=dtype, batch_rows=1000)
        np.testing.assert_allclose(predictor.predict(mu), expected, rtol=2e-5, atol=2e-6 * scale)
        np.testing.assert_allclose(predictor.predict(mu[2]), expected[2], rtol=2e-5,
                                   atol=2e-6 * scale)
