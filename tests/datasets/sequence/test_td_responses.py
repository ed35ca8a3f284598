"""A maxwell-td material's impulse responses with their timings, kept in a ResponseStore (in
memory and on disk, atomically; a corrupt file recomputed with a warning), and the batched
targets of many signals equal to the per-signal ones."""

import dataclasses
import os

import numpy as np
import pytest

import surrogate.datasets.sequence.td_responses as td
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    build_setup,
    sample_signals,
    simulate_samples,
)

TINY = {"level": 1, "n": 4, "steps": 12, "dt": 0.1, "probes": 2, "n_materials": 2, "seed": 2,
        **N0_TD_SETTINGS}  # the fast N0 path


@pytest.fixture(scope="module")
def setup():
    return build_setup(MaxwellTDRecipe(**TINY))


def test_the_store_round_trips_through_its_directory(setup, tmp_path, monkeypatch):
    store = td.ResponseStore(tmp_path / "cache")
    material = setup.materials[1]
    first = td.material_response(setup, material, store=store)
    assert first.response.shape == (TINY["steps"], 6) and first.factorise_s > 0
    assert first.seconds == first.factorise_s + first.impulse_s
    np.testing.assert_array_equal(first.response, td.impulse_responses(setup, material))
    files = list((tmp_path / "cache").iterdir())
    assert [f.name for f in files] == [f"{td.response_key(setup, material)}.npz"]
    umask = os.umask(0)
    os.umask(umask)
    assert files[0].stat().st_mode & 0o777 == 0o666 & ~umask  # an ordinary file, not 0600

    def no_run(*args, **kwargs):
        raise AssertionError("recomputed a stored response")

    monkeypatch.setattr(td, "timed_responses", no_run)
    again = td.material_response(setup, material, store=td.ResponseStore(tmp_path / "cache"))
    np.testing.assert_array_equal(again.response, first.response)
    assert (again.factorise_s, again.impulse_s) == (first.factorise_s, first.impulse_s)


def test_the_key_changes_with_every_fem_field_and_the_material(setup):
    key = td.response_key(setup, setup.materials[0])
    assert key == td.response_key(setup, setup.materials[0].copy())
    assert key != td.response_key(setup, setup.materials[1])
    for change in ({"substeps": 2}, {"richardson": True}, {"dt": 0.05}, {"steps": 13},
                   {"level": 2}, {"source_width": 0.2}, {"seed": 9, "n": 5}):
        other = dataclasses.replace(setup, recipe=dataclasses.replace(setup.recipe, **change))
        same = set(change) <= {"seed", "n"}
        assert (td.response_key(other, setup.materials[0]) == key) == same, change
    moved = dataclasses.replace(setup, probe_points=setup.probe_points + 0.01)
    assert td.response_key(moved, setup.materials[0]) != key


def test_a_corrupt_file_is_recomputed_with_a_warning(setup, tmp_path):
    material = setup.materials[0]
    path = tmp_path / f"{td.response_key(setup, material)}.npz"
    path.write_bytes(b"not an npz file")
    with pytest.warns(UserWarning, match="unreadable"):
        computed = td.material_response(setup, material, store=td.ResponseStore(tmp_path))
    np.testing.assert_array_equal(computed.response, td.impulse_responses(setup, material))
    reread = td.ResponseStore(tmp_path).get(td.response_key(setup, material))
    np.testing.assert_array_equal(reread.response, computed.response)


def test_simulate_samples_with_a_store_keeps_its_bytes_and_reuses_the_responses(setup):
    store = td.ResponseStore()
    plain = simulate_samples(setup, np.arange(4))
    stored = simulate_samples(setup, np.arange(4), store=store)
    assert len(store.memory) == 2
    again = simulate_samples(setup, np.arange(4), store=store)
    for a, b, c in zip(plain, stored, again, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("changes", [{}, {"substeps": 2, "richardson": True}])
def test_batched_targets_equal_the_per_signal_ones(changes):
    recipe = MaxwellTDRecipe(**{**TINY, **changes})
    setup = build_setup(recipe)
    response = td.impulse_responses(setup, setup.materials[0])
    signals = sample_signals(recipe, np.arange(4))
    batched = td.batch_response_targets(recipe, response, signals)
    single = np.stack([td.response_targets(recipe, response, s) for s in signals])
    assert batched.shape == (4, TINY["steps"] + 1, 6)
    np.testing.assert_allclose(batched, single, rtol=0, atol=1e-12 * np.abs(single).max())
