"""The predictor: a run bound to a point set answers u for one problem or a batch.

Tiny runs on a tiny radial family (6 problems × 60 points): the separable model and the
`params` ResNet (and both with `fields` inputs), a `pointwise` family run and a
single-problem run. Its values must be evaluate's (the same network on the same rows).
"""

import numpy as np
import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.evaluation.family.measure import FamilyPredictor
from surrogate.fem.families import get_family
from surrogate.predict import Predictor
from surrogate.predict.point_sets import PointSet
from surrogate.runs.load import load_run
from surrogate.training.loop import fit

pytestmark = pytest.mark.usefixtures("single_torch_thread")

TINY = {"width": 8, "depth": 2, "code_size": 3, "encoder_width": 5}
TRAIN = {"epochs": 2, "batch_size": 64, "lr": 3e-3}
RUNS = {"deeponet-params": {"arch": "deeponet", "inputs": "params", "basis": 5},
        "resnet-params": {"arch": "resnet", "inputs": "params"},
        "deeponet-fields": {"arch": "deeponet", "inputs": "fields", "basis": 5},
        "resnet-fields": {"arch": "resnet", "inputs": "fields"},
        "resnet-pointwise": {"arch": "resnet", "inputs": "pointwise"}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from surrogate.datasets import MaxwellFamilyRecipe, MaxwellRecipe, generate_dataset

    root = tmp_path_factory.mktemp("predictor")
    family_data, single_data = root / "radial.h5", root / "maxwell.h5"
    generate_dataset(MaxwellFamilyRecipe(family="radial", problems=6, points=60, seed=1,
                                         n_volume=4, n_boundary=2), family_data)
    generate_dataset(MaxwellRecipe(n=120, seed=2), single_data)
    out = {name: fit(family_data, {**TINY, **model}, TRAIN, root / name).path
           for name, model in RUNS.items()}
    out["single"] = fit(single_data, {"arch": "resnet", "width": 8, "depth": 2}, TRAIN,
                        root / "single").path
    return {name: load_run(path) for name, path in out.items()}


@pytest.fixture(scope="module")
def cube():
    return PointSet.from_domain("cube", 2)


def _mu(count, seed=5):
    return get_family("radial").sample(count, seed)


def _evaluate_values(run, points, mu):
    """What ``surrogate evaluate`` computes: FamilyPredictor on the same points."""
    predictor = FamilyPredictor.from_run("run", run, None)
    family = get_family("radial")
    return np.stack([predictor(points, family.problem(m)) for m in mu])


@pytest.mark.parametrize("name", [n for n in RUNS])
def test_values_are_evaluates_to_float_precision(runs, cube, name):
    mu = _mu(4)
    expected = _evaluate_values(runs[name], cube.points, mu)
    scale = np.abs(expected).max()
    for dtype in ("float32", "float64"):
        predictor = Predictor(runs[name], cube, dtype=dtype)
        batch = predictor.predict(mu)
        assert batch.shape == (4, len(cube), 3) and batch.dtype == np.dtype(dtype)
        np.testing.assert_allclose(batch, expected, rtol=2e-5, atol=2e-6 * scale)
        np.testing.assert_allclose(predictor.predict(mu[1]), expected[1], rtol=2e-5,
                                   atol=2e-6 * scale)


def test_separable_runs_cache_the_trunk_and_batch_without_a_loop(runs, cube):
    predictor = Predictor(runs["deeponet-params"], cube, dtype="float64")
    assert predictor.separable and predictor.features.shape == (len(cube), 5)
    calls = {"trunk": 0, "branch": []}
    core = predictor.core
    core.trunk.register_forward_hook(lambda *a: calls.__setitem__("trunk", calls["trunk"] + 1))
    core.branch.register_forward_hook(lambda m, args, out: calls["branch"].append(args[0].shape))
    mu = _mu(7)
    batch = predictor.predict(mu)
    assert calls == {"trunk": 0, "branch": [(7, 6)]}  # one branch call for the whole batch
    for b in range(7):
        np.testing.assert_allclose(batch[b], predictor.predict(mu[b]), rtol=1e-12, atol=1e-14)
    # u = s (Σ_k b_k t_k + β) + m, from the model's own parts
    model, norm = predictor.model, runs["deeponet-params"].normalisation
    with torch.no_grad():
        t = model.trunk_features(torch.as_tensor(norm.normalise_inputs(
            np.hstack([cube.points, np.zeros((len(cube), 6))]))[:, :3]))
        b = model.branch_coefficients(torch.as_tensor((mu[2] - norm.input_mean[3:])
                                                      / norm.input_std[3:])[None])[0]
        direct = (t @ b.T + model.output_bias).numpy() * norm.target_std + norm.target_mean
    np.testing.assert_allclose(batch[2], direct, rtol=1e-12, atol=1e-12)


def test_the_resnet_caches_the_normalised_points(runs, cube):
    predictor = Predictor(runs["resnet-params"], cube, dtype="float64", batch_rows=50)
    assert not predictor.separable and predictor.features is None
    norm = runs["resnet-params"].normalisation
    np.testing.assert_allclose(predictor.points_hat.numpy(),
                               (cube.points - norm.input_mean[:3]) / norm.input_std[:3])
    mu = _mu(3)  # rows built in blocks of 50 that cross problem boundaries
    np.testing.assert_allclose(predictor.predict(mu), Predictor(
        runs["resnet-params"], cube, dtype="float64").predict(mu), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["deeponet-fields", "resnet-fields"])
def test_fields_runs_take_parameters_or_sensor_values(runs, cube, name):
    predictor = Predictor(runs[name], cube, dtype="float64")
    mu = _mu(3)
    sensors = predictor.sensor_values(mu)
    assert sensors.shape == (3, runs[name].normalisation.in_features - 3)
    np.testing.assert_allclose(predictor.predict_sensors(sensors), predictor.predict(mu),
                               rtol=1e-12, atol=1e-12)
    with pytest.raises(InputError, match="sensor values must be"):
        predictor.predict_sensors(sensors[:, :-1])


def test_a_single_problem_run_predicts_its_problem(runs, cube):
    from surrogate.fem.problems import get_problem

    run = runs["single"]
    predictor = Predictor(run, cube.points, dtype="float64")
    expected = run.predict(get_problem("maxwell").inputs(cube.points))
    np.testing.assert_allclose(predictor.predict(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(InputError, match="trained on one problem"):
        predictor.predict(_mu(1)[0])


def test_bad_requests_are_one_line(runs, cube):
    predictor = Predictor(runs["deeponet-params"], cube)
    for bad, message in [(np.zeros(5), r"shape \(6,\) or \(B, 6\)"),
                         (np.full(6, np.nan), "non-finite"), (None, "family run")]:
        with pytest.raises(InputError, match=message) as error:
            predictor.predict(bad)
        assert "\n" not in str(error.value)
    with pytest.raises(InputError, match="dtype"):
        Predictor(runs["deeponet-params"], cube, dtype="float16")
    with pytest.raises(InputError, match="sensor values are the inputs of 'fields'"):
        predictor.predict_sensors(np.zeros((1, 4)))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("name", ["deeponet-params", "resnet-params"])
def test_cuda_gives_the_cpu_values(runs, cube, name):
    mu = _mu(5)
    cpu = Predictor(runs[name], cube, dtype="float64").predict(mu)
    gpu = Predictor(runs[name], cube, device="cuda", dtype="float64").predict(mu)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-10, atol=1e-12)
