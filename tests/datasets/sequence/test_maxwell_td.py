"""``maxwell-td`` sequence datasets: determinism, grouping invariance, shapes, round trip."""

import hashlib

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.datasets.recipes import recipe_from_dict
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    build_setup,
    material_pool,
    sample_signals,
    simulate_samples,
)
from surrogate.datasets.sequence.td_snapshots import sample_snapshots

TINY = {"level": 2, "n": 7, "steps": 30, "dt": 0.1, "probes": 3, "n_materials": 3,
        "signal": "mixed", "seed": 11, **N0_TD_SETTINGS}  # the fast N0 path


@pytest.fixture(scope="module")
def recipe():
    return MaxwellTDRecipe(**TINY)


@pytest.fixture(scope="module")
def setup(recipe):
    return build_setup(recipe)


@pytest.fixture(scope="module")
def arrays(setup, recipe):
    return simulate_samples(setup, np.arange(recipe.n))


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_seed_gives_an_identical_file(tmp_path, monkeypatch, recipe):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a = generate_dataset(recipe, tmp_path / "a.h5")
    b = generate_dataset(recipe, tmp_path / "b.h5")
    c = generate_dataset(MaxwellTDRecipe(**{**TINY, "seed": 12}), tmp_path / "c.h5")
    assert a["content_hash"] == b["content_hash"] != c["content_hash"]
    assert _sha256(tmp_path / "a.h5") == _sha256(tmp_path / "b.h5")


def test_rows_do_not_depend_on_grouping_or_sample_count(setup, recipe, arrays):
    inputs, targets = arrays
    subset = [5, 1, 3]
    sub_inputs, sub_targets = simulate_samples(setup, subset)
    assert np.array_equal(sub_inputs, inputs[subset])
    assert np.array_equal(sub_targets, targets[subset])  # bitwise
    longer = MaxwellTDRecipe(**{**TINY, "n": 10})
    long_inputs, long_targets = simulate_samples(build_setup(longer), np.arange(10))
    assert np.array_equal(long_inputs[:7], inputs) and np.array_equal(long_targets[:7], targets)


def test_a_longer_horizon_extends_the_same_sequences(arrays):
    longer = MaxwellTDRecipe(**{**TINY, "steps": 45})
    inputs, targets = simulate_samples(build_setup(longer), [0, 6])
    assert inputs.shape[1] == 46
    assert np.array_equal(inputs[:, :31], arrays[0][[0, 6]])
    np.testing.assert_allclose(targets[:, :31], arrays[1][[0, 6]], rtol=0,
                               atol=1e-12 * np.abs(targets).max())


def test_shapes_channels_and_signals(setup, recipe, arrays):
    inputs, targets = arrays
    steps = recipe.steps
    assert inputs.shape == (7, steps + 1, 4) and targets.shape == (7, steps + 1, 9)
    assert setup.target_names[:4] == ("E1_p0", "E2_p0", "E3_p0", "E1_p1")
    pool = material_pool(recipe)
    assert pool.shape == (3, 3)
    for lo_hi, column in zip((recipe.eps, recipe.mu, recipe.sigma), pool.T, strict=True):
        assert np.all((column >= lo_hi[0]) & (column <= lo_hi[1]))
    for i, signal in enumerate(sample_signals(recipe, range(7))):
        assert np.array_equal(inputs[i, :, 0], signal(recipe.time)[0])
        assert np.all(inputs[i, :, 1:] == pool[i % 3])
    assert np.all(targets[:, 0] == 0) and np.abs(targets).max() > 0  # from rest, then driven
    # the same material and a scaled signal would give scaled targets; different samples differ
    assert not np.allclose(targets[0], targets[3])


def test_reader_round_trip(tmp_path, recipe, arrays):
    path = tmp_path / "mtd.h5"
    summary = generate_dataset(recipe, path)
    ds = read_dataset(path)
    assert ds.kind == "sequence" and ds.problem == "maxwell-td" and ds.domain == "cube"
    assert np.array_equal(ds.inputs, arrays[0]) and np.array_equal(ds.targets, arrays[1])
    np.testing.assert_allclose(ds.time, recipe.time)
    assert ds.input_names == ("s", "eps", "mu", "sigma") and len(ds.target_names) == 9
    assert np.asarray(ds.attrs["probe_points"]).shape == (3, 3)
    assert sum(v.size for v in ds.splits.values()) == 7
    assert recipe_from_dict(MaxwellTDRecipe, ds.recipe) == recipe
    assert summary["recipe"]["kind"] == "maxwell-td" and summary["groups"] == ["mesh"]


def test_snapshots_agree_with_the_probe_targets(setup, recipe, arrays):
    snap = sample_snapshots(recipe, 4, setup)
    assert snap.dofs.shape == (recipe.steps + 1, setup.ops.n_free)  # walls: PEC, no DOFs
    probes = (setup.observe @ snap.dofs.T).T
    scale = np.abs(arrays[1][4]).max()
    assert np.abs(probes - arrays[1][4]).max() <= 1e-11 * scale
    assert snap.at_cells().shape == (recipe.steps + 1, snap.mesh.t.shape[1], 3)
    assert snap.at_nodes().shape == (recipe.steps + 1, snap.mesh.p.shape[1], 3)


def test_explicit_probe_points_and_fixed_materials():
    recipe = MaxwellTDRecipe(**{**TINY, "probe_points": "0.3,0.3,0.3;0.7,0.6,0.5",
                                "eps": "1.5", "sigma": 0, "n_materials": 2})
    assert recipe.probes == 2 and recipe.eps == (1.5, 1.5) and recipe.sigma == (0.0, 0.0)
    setup = build_setup(recipe)
    assert np.array_equal(setup.probe_points, [[0.3, 0.3, 0.3], [0.7, 0.6, 0.5]])
    assert np.all(setup.materials[:, 0] == 1.5) and np.all(setup.materials[:, 2] == 0)


@pytest.mark.parametrize(("values", "message"), [
    ({"eps": "2,1"}, "recipe eps='2,1'"),
    ({"mu": (0.0, 1.0)}, "recipe mu=(0.0, 1.0)"),
    ({"steps": 0}, "recipe steps=0: expected int >= 1"),
    ({"dt": -0.1}, "recipe dt=-0.1"),
    ({"signal": "chirp"}, "unknown signal family 'chirp'"),
    ({"probe_points": "1,2"}, "recipe probe_points='1,2'"),
    ({"source_centre": "3,3,3"}, "source centre [3.0, 3.0, 3.0] lies outside the cube"),
    ({"probe_points": "2,2,2"}, "1 of 1 points lie outside the mesh"),
])
def test_bad_recipes_are_one_line_input_errors(values, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):
        build_setup(MaxwellTDRecipe(**{**TINY, **values}))
