"""The LEM paper's sequence benchmarks: FitzHugh–Nagumo (eq. 5.117) and the adding problem."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.stats import kstest

from surrogate.core.errors import InputError
from surrogate.datasets import (
    AddingRecipe,
    FitzHughNagumoRecipe,
    content_hash,
    dataset_summary,
    generate_adding,
    generate_dataset,
    generate_fitzhugh_nagumo,
    read_dataset,
    recipe_from_dict,
    validate_dataset,
)
from surrogate.datasets.sequence.lem_benchmarks import (
    initial_v,
    integrate_fitzhugh_nagumo,
    sequence_seeds,
)

SHORT = {"t_end": 40.0, "steps": 100}  # a tenth of the paper's interval, same Δt = 0.4


def _fhn_reference(v0: float, times: np.ndarray) -> np.ndarray:
    """v(times) of eq. 5.117 with the paper's constants from (v0, 0): DOP853, rtol 1e-12."""
    def rhs(t, y):
        v, w = y
        return np.array([v - v**3 / 3.0 - w + 0.5, 0.02 * (v + 0.7 - 0.8 * w)])

    sol = solve_ivp(rhs, (0.0, times[-1]), [v0, 0.0], method="DOP853", t_eval=times,
                    rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.y[0]


def _same(a, b) -> bool:
    return np.array_equal(a.inputs, b.inputs) and np.array_equal(a.targets, b.targets)


def test_fitzhugh_nagumo_defaults_are_the_papers():
    recipe = FitzHughNagumoRecipe()
    assert (recipe.n_train, recipe.n_val, recipe.n_test) == (128, 128, 1024)
    assert (recipe.steps, recipe.t_end) == (1000, 400.0)
    assert (recipe.tau, recipe.i_ext, recipe.a, recipe.b) == (0.02, 0.5, 0.7, 0.8)
    assert recipe.to_dict()["kind"] == "fitzhugh-nagumo"
    assert recipe_from_dict(FitzHughNagumoRecipe, recipe.to_dict()) == recipe


def test_fitzhugh_nagumo_matches_an_independent_dop853_reference():
    data = generate_fitzhugh_nagumo(FitzHughNagumoRecipe(n_train=2, n_val=0, n_test=0))
    times = np.linspace(0.0, 400.0, 1001)
    assert data.inputs.shape == data.targets.shape == (2, 1000, 1)
    np.testing.assert_allclose(data.time, times[:-1], rtol=0, atol=1e-12)  # Δt = 0.4
    np.testing.assert_array_equal(data.targets[:, :-1], data.inputs[:, 1:])  # y_n = u_{n+1}
    for i in range(2):
        reference = _fhn_reference(float(data.inputs[i, 0, 0]), times)
        np.testing.assert_allclose(data.inputs[i, :, 0], reference[:-1], rtol=0, atol=1e-7)
        np.testing.assert_allclose(data.targets[i, :, 0], reference[1:], rtol=0, atol=1e-7)
    assert data.inputs.min() < -1.5 and data.inputs.max() > 1.5  # relaxation oscillations


def test_trajectories_satisfy_eq_5_117_by_finite_differences():
    recipe = FitzHughNagumoRecipe()
    v0 = np.array([-1.0, 0.0, 0.7])
    times = np.linspace(0.0, 60.0, 12001)  # h = 0.005
    v, w = integrate_fitzhugh_nagumo(v0, times, recipe)
    np.testing.assert_array_equal(v[:, 0], v0)
    np.testing.assert_array_equal(w[:, 0], 0.0)
    h = times[1] - times[0]
    dv, dw = (v[:, 2:] - v[:, :-2]) / (2 * h), (w[:, 2:] - w[:, :-2]) / (2 * h)
    vm, wm = v[:, 1:-1], w[:, 1:-1]
    np.testing.assert_allclose(dv, vm - vm**3 / 3 - wm + 0.5, rtol=0, atol=1e-4)
    np.testing.assert_allclose(dw, 0.02 * (vm + 0.7 - 0.8 * wm), rtol=0, atol=1e-6)


def test_initial_v_is_uniform_on_minus_one_one_and_starts_every_sequence():
    v0 = initial_v(sequence_seeds(0, {"train": 4000, "val": 0, "test": 0})["train"])
    assert v0.min() >= -1.0 and v0.max() <= 1.0
    assert kstest(v0, "uniform", args=(-1.0, 2.0)).pvalue > 1e-3
    recipe = FitzHughNagumoRecipe(n_train=3, n_val=2, n_test=2, **SHORT)
    data = generate_fitzhugh_nagumo(recipe)
    seeds = sequence_seeds(0, {"train": 3, "val": 2, "test": 2})
    for name in ("train", "val", "test"):
        np.testing.assert_array_equal(data.inputs[data.splits[name], 0, 0],
                                      initial_v(seeds[name]))


def test_fitzhugh_nagumo_is_deterministic_and_splits_are_independent(tmp_path, monkeypatch):
    recipe = FitzHughNagumoRecipe(n_train=3, n_val=2, n_test=2, **SHORT)
    a, b = generate_fitzhugh_nagumo(recipe), generate_fitzhugh_nagumo(recipe)
    assert _same(a, b)
    assert not _same(a, generate_fitzhugh_nagumo(FitzHughNagumoRecipe(
        n_train=3, n_val=2, n_test=2, seed=1, **SHORT)))
    more = generate_fitzhugh_nagumo(FitzHughNagumoRecipe(n_train=3, n_val=2, n_test=5, **SHORT))
    rows = np.arange(5)  # train and val rows do not depend on n_test
    np.testing.assert_array_equal(more.inputs[rows], a.inputs[rows])
    assert [a.splits[k].tolist() for k in ("train", "val", "test")] == [[0, 1, 2], [3, 4],
                                                                        [5, 6]]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    for name in ("x.h5", "y.h5"):
        generate_dataset(recipe, tmp_path / name)
    assert (tmp_path / "x.h5").read_bytes() == (tmp_path / "y.h5").read_bytes()


def test_progress_is_reported_in_order_and_skips_empty_splits():
    calls = []
    generate_fitzhugh_nagumo(FitzHughNagumoRecipe(n_train=2, n_val=0, n_test=1, **SHORT),
                             lambda done, total, text: calls.append((done, total, text)))
    done = [c[0] for c in calls]
    assert done == sorted(done) and {c[1] for c in calls} == {201} and done[-1] == 200
    assert {c[2] for c in calls} == {"integrating train (2 sequences)",
                                     "integrating test (1 sequence)", "writing"}
    calls.clear()
    generate_adding(AddingRecipe(length=8, n_train=5, n_val=0, n_test=0), chunk=2,
                    on_progress=lambda done, total, text: calls.append((done, total)))
    assert calls == [(0, 6), (2, 6), (4, 6), (5, 6)]


def test_adding_markers_one_in_each_half_and_target_is_the_marked_sum():
    recipe = AddingRecipe(length=101, n_train=300, n_val=20, n_test=30, seed=3)
    data = generate_adding(recipe)
    values, markers = data.inputs[..., 0], data.inputs[..., 1]
    assert data.inputs.shape == (350, 101, 2) and data.targets.shape == (350, 1, 1)
    assert data.attrs == {"readout": "last"} and data.kind == "sequence"
    assert values.min() >= 0.0 and values.max() < 1.0
    assert set(np.unique(markers)) == {0.0, 1.0}
    assert np.array_equal(markers[:, :50].sum(axis=1), np.ones(350))  # halves [0, 50), [50, 101)
    assert np.array_equal(markers[:, 50:].sum(axis=1), np.ones(350))
    np.testing.assert_allclose(data.targets[:, 0, 0], (values * markers).sum(axis=1),
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(data.time, np.arange(101.0))
    first, second = markers[:, :50].argmax(axis=1), markers[:, 50:].argmax(axis=1)
    assert len(np.unique(first)) > 40 and len(np.unique(second)) > 40  # spread over each half
    assert abs(values.mean() - 0.5) < 0.01


def test_adding_is_the_same_whatever_the_chunking_and_the_other_splits():
    recipe = AddingRecipe(length=16, n_train=23, n_val=5, n_test=4)
    whole = generate_adding(recipe)
    for chunk in (1, 7, 1000):
        assert _same(generate_adding(recipe, chunk=chunk), whole)
    more = generate_adding(AddingRecipe(length=16, n_train=23, n_val=5, n_test=9))
    np.testing.assert_array_equal(more.inputs[:28], whole.inputs[:28])
    assert not _same(generate_adding(AddingRecipe(length=16, n_train=23, n_val=5, n_test=4,
                                                  seed=1)), whole)
    with pytest.raises(InputError, match="chunk=0"):
        generate_adding(recipe, chunk=0)


def test_adding_float32_target_is_the_sum_of_the_stored_values():
    data = generate_adding(AddingRecipe(length=40, n_train=50, n_val=0, n_test=0,
                                        dtype="float32"))
    assert data.inputs.dtype == np.float32
    stored = (data.inputs[..., 0].astype(np.float64) * data.inputs[..., 1]).sum(axis=1)
    np.testing.assert_array_equal(data.targets[:, 0, 0].astype(np.float32),
                                  stored.astype(np.float32))


def test_adding_file_round_trip(tmp_path):
    recipe = AddingRecipe(length=30, n_train=12, n_val=3, n_test=5, seed=7)
    path = tmp_path / "adding.h5"
    summary = generate_dataset(recipe, path)
    ds = read_dataset(path)
    data = generate_adding(recipe)
    np.testing.assert_array_equal(ds.inputs, data.inputs)
    np.testing.assert_array_equal(ds.targets, data.targets)
    assert ds.content_hash == content_hash(data.inputs, data.targets) == summary["content_hash"]
    assert (ds.kind, ds.readout, ds.problem, ds.domain) == ("sequence", "last", "adding", "steps")
    assert ds.input_names == ("value", "marker") and ds.target_names == ("sum",)
    assert ds.recipe == recipe.to_dict() and ds.seed == 7
    assert {k: v.size for k, v in ds.splits.items()} == {"train": 12, "val": 3, "test": 5}
    assert validate_dataset(path) == []
    assert dataset_summary(path)["readout"] == "last" and summary["targets_shape"] == [20, 1, 1]


def test_sizes_beyond_the_readers_memory_budget_are_refused_before_any_work(monkeypatch):
    monkeypatch.setattr("surrogate.core.limits.memory_budget", lambda: 1 << 20)
    with pytest.raises(InputError, match=r"adding: 100 sequences need about .* lower the sizes"):
        generate_adding(AddingRecipe(length=1000, n_train=100, n_val=0, n_test=0))
    with pytest.raises(InputError, match="fitzhugh-nagumo: 1280 sequences need about"):
        generate_fitzhugh_nagumo(FitzHughNagumoRecipe())


@pytest.mark.parametrize(("cls", "values", "message"), [
    (AddingRecipe, {"length": 1}, "recipe length=1: expected int >= 2"),
    (AddingRecipe, {"n_train": 0}, "recipe n_train=0: expected int >= 1"),
    (AddingRecipe, {"n_val": -1}, "recipe n_val=-1: expected int >= 0"),
    (AddingRecipe, {"dtype": "float16"}, "unknown dtype 'float16'"),
    (FitzHughNagumoRecipe, {"steps": 0}, "recipe steps=0: expected int >= 1"),
    (FitzHughNagumoRecipe, {"t_end": 0.0}, "recipe t_end=0.0: expected float > 0"),
    (FitzHughNagumoRecipe, {"rtol": 1e-16}, "expected 1e-13 <= rtol < 1"),
    (FitzHughNagumoRecipe, {"a": float("nan")}, "recipe a=nan: expected a finite float"),
    (FitzHughNagumoRecipe, {"n_test": 1.5}, "recipe n_test=1.5: expected int >= 0"),
    (FitzHughNagumoRecipe, {"omega": 1}, "unknown recipe keys: omega"),
])
def test_bad_recipe_values_are_one_line_input_errors(cls, values, message):
    with pytest.raises(InputError) as info:
        recipe_from_dict(cls, values)
    assert message in str(info.value) and "\n" not in str(info.value)
