"""Toy datasets of the paper experiments: shapes, balance, geometry, determinism, files."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.recipes import TOY_DEFAULTS, ToyRecipe, recipe_from_dict
from surrogate.datasets.toy import BAND_INTERVALS, generate_toy, sine_function

SHAPES = {"sine": (1, ("x",), ("y",)), "spirals": (2, ("x1", "x2"), ("class0", "class1")),
          "bands": (1, ("x",), ("class0", "class1")),
          "circles": (2, ("x1", "x2"), ("class0", "class1"))}


def _split(data, name):
    idx = data.splits[name]
    return data.inputs[idx], data.targets[idx]


def _labels(data, name):
    return _split(data, name)[1].argmax(axis=1)


@pytest.mark.parametrize("name", list(TOY_DEFAULTS))
def test_default_shapes_names_and_contiguous_splits(name):
    data = generate_toy(ToyRecipe(name))
    n_train, n_val, n_test, noise = TOY_DEFAULTS[name]
    dim, input_names, target_names = SHAPES[name]
    n = n_train + n_val + n_test
    assert data.inputs.shape == (n, dim) and data.targets.shape == (n, len(target_names))
    assert data.input_names == input_names and data.target_names == target_names
    assert [data.splits[k].size for k in ("train", "val", "test")] == [n_train, n_val, n_test]
    assert np.array_equal(np.concatenate(list(data.splits.values())), np.arange(n))
    assert data.recipe == {"kind": "toy", "name": name, "n_train": n_train, "n_val": n_val,
                           "n_test": n_test, "noise": noise, "seed": 0, "dtype": "float64"}
    if name == "sine":
        assert data.attrs == {}
    else:  # exact one-hot rows
        assert data.attrs == {"classes": 2}
        assert set(np.unique(data.targets)) == {0.0, 1.0}
        assert np.array_equal(data.targets.sum(axis=1), np.ones(n))


def test_sine_targets_are_the_formula_on_the_interval():
    data = generate_toy(ToyRecipe("sine"))
    x, y = data.inputs[:, 0], data.targets[:, 0]
    np.testing.assert_allclose(y, np.sin(2 * np.pi * x) * np.exp(-x**2 / 2), rtol=0, atol=1e-15)
    assert np.all(np.abs(x) <= 1.0)
    np.testing.assert_array_equal(_split(data, "test")[0][:, 0], np.linspace(-1, 1, 200))
    # f(1/4) = e^{-1/32}, f(-x) = -f(x), f(0) = f(±1/2) = 0
    np.testing.assert_allclose(sine_function(np.array([0.25, -0.25, 0.0, 0.5])),
                               [np.exp(-1 / 32), -np.exp(-1 / 32), 0.0, 0.0], atol=1e-15)
    train_x = _split(data, "train")[0][:, 0]
    assert 0.3 < np.mean(train_x > 0) < 0.7 and train_x.min() < -0.9 and train_x.max() > 0.9


def test_sine_noise_is_on_the_targets_with_std_sigma():
    sigma = 0.1
    data = generate_toy(ToyRecipe("sine", n_train=20000, noise=sigma))
    x, y = _split(data, "train")
    residual = y[:, 0] - sine_function(x[:, 0])
    # std of the sample std of n normals is σ/sqrt(2n) ≈ 5e-4
    assert abs(residual.std() - sigma) < 5 * sigma / np.sqrt(2 * 20000)
    assert abs(residual.mean()) < 5 * sigma / np.sqrt(20000)


def test_spirals_interleave_train_and_validation_on_two_arms():
    data = generate_toy(ToyRecipe("spirals"))
    labels = {k: _labels(data, k) for k in ("train", "val", "test")}
    assert [int((labels["train"] == c).sum()) for c in (0, 1)] == [257, 256]
    assert [int((labels["val"] == c).sum()) for c in (0, 1)] == [256, 257]
    assert [int((labels["test"] == c).sum()) for c in (0, 1)] == [256, 256]
    for name in ("train", "val", "test"):  # noiseless: r = s + 0.2 k and angle 4πs
        x, _ = _split(data, name)
        s = np.hypot(x[:, 0], x[:, 1]) - 0.2 * labels[name]
        assert np.all((s >= -1e-12) & (s <= 1 + 1e-12))
        r = s + 0.2 * labels[name]
        np.testing.assert_allclose(x, np.column_stack([r * np.cos(4 * np.pi * s),
                                                       r * np.sin(4 * np.pi * s)]), atol=1e-12)
    # train ∪ val on arm 0 = 513 evenly spaced s in [0, 1], alternating train/val
    rows = [(_split(data, k)[0][labels[k] == 0], k) for k in ("train", "val")]
    s = np.concatenate([np.hypot(*x.T) for x, _ in rows])
    is_train = np.concatenate([np.full(len(x), k == "train") for x, k in rows])
    order = np.argsort(s)
    np.testing.assert_allclose(s[order], np.linspace(0, 1, 513), atol=1e-12)
    assert np.array_equal(is_train[order], np.arange(513) % 2 == 0)


def test_spirals_validation_is_zero_or_n_train():
    assert generate_toy(ToyRecipe("spirals", n_train=50, n_val=0)).splits["val"].size == 0
    assert ToyRecipe("spirals", n_train=257).n_val == 257  # n_val follows n_train if not given
    assert ToyRecipe("spirals").n_val == 513 and ToyRecipe("sine", n_train=7).n_val == 200
    with pytest.raises(InputError, match="spirals: n_val=3 must be 0 or n_train=50"):
        ToyRecipe("spirals", n_train=50, n_val=3)


def test_bands_are_blue_red_blue_and_no_threshold_beats_75_percent():
    data = generate_toy(ToyRecipe("bands", n_train=400))
    x, _ = _split(data, "train")
    x, red = x[:, 0], _labels(data, "train") == 1
    (l0, l1), (m0, m1), (r0, r1) = BAND_INTERVALS
    assert red.mean() == 0.5
    assert np.all((x[red] >= m0) & (x[red] <= m1))
    blue = x[~red]
    assert np.all(((blue >= l0) & (blue <= l1)) | ((blue >= r0) & (blue <= r1)))
    assert np.sum(blue < 0) == np.sum(blue > 0) == 100
    # a single threshold (the C¹ single-node case of Hauser et al.) classifies at most 75%
    cuts = np.linspace(-1.1, 1.1, 2201)
    above = x[None, :] > cuts[:, None]
    accuracy = np.maximum((above == red).mean(axis=1), (above != red).mean(axis=1))
    assert accuracy.max() == 0.75


def test_circles_radii_and_noise_statistics():
    sigma = 0.2
    clean = generate_toy(ToyRecipe("circles", noise=0.0))
    x, _ = _split(clean, "train")
    labels = _labels(clean, "train")
    np.testing.assert_allclose(np.hypot(*x.T), np.where(labels == 0, 1.0, 2.0), atol=1e-12)
    assert np.sum(labels == 0) == np.sum(labels == 1) == 200

    data = generate_toy(ToyRecipe("circles", n_train=20000, noise=sigma))
    x, _ = _split(data, "train")
    labels = _labels(data, "train")
    for label, radius in ((0, 1.0), (1, 2.0)):
        r2 = np.sum(x[labels == label] ** 2, axis=1)  # E|p + ξ|² = R² + 2σ²
        std = np.sqrt(4 * radius**2 * sigma**2 + 4 * sigma**4) / np.sqrt(10000)
        assert abs(r2.mean() - (radius**2 + 2 * sigma**2)) < 5 * std
        mean_point = x[labels == label].mean(axis=0)  # uniform angle: centred
        assert np.all(np.abs(mean_point) < 5 * radius / np.sqrt(2 * 10000))


@pytest.mark.parametrize("name", list(TOY_DEFAULTS))
def test_deterministic_per_seed_and_splits_independent(name):
    noise = 0.05
    a = generate_toy(ToyRecipe(name, seed=3, noise=noise))
    b = generate_toy(ToyRecipe(name, seed=3, noise=noise))
    c = generate_toy(ToyRecipe(name, seed=4, noise=noise))
    assert np.array_equal(a.inputs, b.inputs) and np.array_equal(a.targets, b.targets)
    assert not np.array_equal(a.inputs, c.inputs) or not np.array_equal(a.targets, c.targets)
    # the training rows do not depend on the size of the test split
    d = generate_toy(ToyRecipe(name, seed=3, noise=noise, n_test=7))
    for got, want in zip(_split(d, "train"), _split(a, "train"), strict=True):
        assert np.array_equal(got, want)
    assert d.splits["test"].size == 7


@pytest.mark.parametrize(("values", "message"), [
    ({"name": "moons"}, "unknown toy dataset 'moons'; choose one of: sine, spirals"),
    ({"name": "sine", "n_train": 0}, "recipe n_train=0: expected int >= 1"),
    ({"name": "circles", "n_test": -1}, "recipe n_test=-1: expected int >= 0"),
    ({"name": "circles", "noise": -0.1}, "recipe noise=-0.1: expected float >= 0"),
    ({"name": "bands", "noise": float("nan")}, "recipe noise=nan"),
    ({"name": "bands", "dtype": "float16"}, "unknown dtype 'float16'"),
    ({"name": "bands", "points": 3}, "unknown recipe keys: points"),
])
def test_bad_recipes_raise_input_error(values, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        recipe_from_dict(ToyRecipe, values)


def test_written_file_round_trips_with_classes_and_empty_validation(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    recipe = ToyRecipe("circles", n_train=40, n_test=10, seed=2, dtype="float32")
    summary = generate_dataset(recipe, tmp_path / "c.h5", summary_path=tmp_path / "c.h5.json")
    ds = read_dataset(tmp_path / "c.h5")
    assert ds.attrs["classes"] == 2 and ds.problem == "circles" and ds.domain == "plane"
    assert ds.inputs.dtype == np.float32 and ds.inputs.shape == (50, 2)
    assert {k: v.size for k, v in ds.splits.items()} == {"train": 40, "val": 0, "test": 10}
    assert ds.recipe == recipe.to_dict() and summary["content_hash"] == ds.content_hash
    generate_dataset(recipe, tmp_path / "d.h5")
    assert (tmp_path / "c.h5").read_bytes() == (tmp_path / "d.h5").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.h5", "c.h5.json", "d.h5"]
