"""``maxwell-nl`` sequence datasets: determinism, workers and resume, shapes, Richardson.

A tiny recipe (cube level 1, order 1, varistor octant, 12 steps) so that each sample is a
fraction of a second; the physics is tested in tests/fem/test_nonlinear_*.
"""

import dataclasses
import hashlib

import h5py
import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.executors import open_executor
from surrogate.datasets.partial_file import partial_path
from surrogate.datasets.sequence import nonlinear_cavity_stream as stream
from surrogate.datasets.sequence.nonlinear_cavity import (
    MaxwellNLRecipe,
    build_setup,
    sample_draws,
    simulate_samples,
)
from surrogate.fem.time_domain_operators.cavity import richardson_in_time

TINY = {"level": 1, "fem_order": 1, "n": 6, "steps": 12, "dt": 0.2, "probes": 2,
        "substeps": 1, "varistor_low": "0.5,0.5,0.5", "varistor_high": "1,1,1",
        "signal": "mixed", "seed": 3}


@pytest.fixture(autouse=True)
def fixed_clock_and_small_blocks(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 2_000)  # 2-row blocks


@pytest.fixture(scope="module")
def recipe():
    return MaxwellNLRecipe(**TINY)


@pytest.fixture(scope="module")
def setup(recipe):
    return build_setup(recipe)


@pytest.fixture(scope="module")
def arrays(setup, recipe):
    return simulate_samples(setup, np.arange(recipe.n))


@pytest.fixture(scope="module")
def serial(tmp_path_factory, recipe):
    path = tmp_path_factory.mktemp("serial") / "nl.h5"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", "1700000000")
        patch.setattr("surrogate.datasets.streaming.BLOCK_BYTES", 2_000)
        generate_dataset(recipe, path)
    return path


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_file_holds_simulate_samples_bitwise_and_depends_on_the_seed(serial, recipe,
                                                                         arrays, tmp_path):
    data = read_dataset(serial)
    assert np.array_equal(data.inputs, arrays[0]) and np.array_equal(data.targets, arrays[1])
    generate_dataset(recipe, tmp_path / "again.h5")
    assert _sha256(tmp_path / "again.h5") == _sha256(serial)
    other = generate_dataset(dataclasses.replace(recipe, seed=4), tmp_path / "other.h5")
    assert other["content_hash"] != read_dataset(serial).content_hash


def test_rows_do_not_depend_on_the_other_samples(setup, recipe, arrays):
    subset = [4, 1]
    inputs, targets = simulate_samples(setup, subset)
    assert np.array_equal(inputs, arrays[0][subset]) and np.array_equal(targets,
                                                                          arrays[1][subset])
    longer = dataclasses.replace(recipe, n=9)
    more_inputs, _ = simulate_samples(build_setup(longer), [1])
    assert np.array_equal(more_inputs[0], arrays[0][1])


def test_two_workers_write_the_serial_file(serial, recipe, tmp_path):
    with open_executor(workers=2) as executor:
        generate_dataset(recipe, tmp_path / "nl.h5", executor=executor, max_in_flight=3)
    assert _sha256(tmp_path / "nl.h5") == _sha256(serial)


def test_resume_runs_no_finished_sample_again(serial, recipe, tmp_path, monkeypatch):
    out, count = tmp_path / "nl.h5", [0]

    def crash(done, total, description):
        count[0] += 1
        if count[0] > 4:
            raise RuntimeError("simulated crash")

    with pytest.raises(RuntimeError, match="simulated crash"):
        generate_dataset(recipe, out, on_progress=crash)
    assert not out.exists() and partial_path(out).exists()
    with h5py.File(partial_path(out), "r") as f:  # written blocks and cached samples
        rows = f["samples"]["checksums"].shape[0] * stream.stream_maxwell_nl(recipe).block_rows()
        kept = set(range(rows)) | {int(k) for k in f["cache"]["key"][:]}
    assert 0 < len(kept) < recipe.n
    runs = []
    monkeypatch.setattr(stream, "worker_rows", lambda recipe, indices, run=stream.worker_rows:
                        runs.extend(indices) or run(recipe, indices))
    generate_dataset(recipe, out, resume=True)
    assert _sha256(out) == _sha256(serial)
    assert sorted(runs) == sorted(set(range(recipe.n)) - kept)  # each missing sample once


def test_shapes_channels_and_names(setup, recipe, arrays, serial):
    inputs, targets = arrays
    assert inputs.shape == (6, 13, 3) and targets.shape == (6, 13, 3 * 2 + 1)
    for row, (signal, amplitude, sigma0, e0) in enumerate(sample_draws(recipe, range(6))):
        np.testing.assert_array_equal(inputs[row, :, 0], amplitude * signal(recipe.time)[0])
        assert np.all(inputs[row, :, 1] == sigma0) and np.all(inputs[row, :, 2] == e0)
        assert recipe.sigma0[0] <= sigma0 <= recipe.sigma0[1]
        assert recipe.e0[0] <= e0 <= recipe.e0[1]
        assert recipe.amplitude[0] <= amplitude <= recipe.amplitude[1]
    assert np.all(targets[:, 0] == 0.0)
    power = targets[:, :, -1]  # Richardson may take it below 0 by its Δt error: ~1e-5 here
    assert np.all(power >= -1e-4 * power.max())
    assert targets[:, :, -1].max() > 0 and np.abs(targets[:, :, :-1]).max() > 0
    data = read_dataset(serial)
    assert data.input_names == ("s", "sigma0", "e0")
    assert data.target_names[:3] == ("E1_p0", "E2_p0", "E3_p0")
    assert data.target_names[-1] == "joule" and data.problem == "maxwell-nl"


def test_richardson_extrapolates_the_two_runs(recipe, arrays):
    """targets = (4 y_{Δt/2} − y_Δt) / 3 of the runs at substeps 1 and 2 (not Richardson)."""
    runs = [simulate_samples(build_setup(dataclasses.replace(recipe, richardson=False,
                                                             substeps=r)), [2])[1][0]
            for r in (1, 2)]
    np.testing.assert_allclose(arrays[1][2], richardson_in_time(*runs), rtol=0,
                               atol=1e-12 * np.abs(arrays[1][2]).max())
    assert all(np.all(run[:, -1] >= 0.0) for run in runs)  # each run's Joule power


@pytest.mark.parametrize("values, message", [
    ({"varistor_low": "0.5,0.5,0.5", "varistor_high": "0.5,1,1"}, "low < high"),
    ({"varistor_low": "0.5,0.5"}, "varistor_low"),
    ({"e0": "0,1"}, "e0"),
    ({"sigma0": "-1,1"}, "sigma0"),
    ({"amplitude": "2,1"}, "amplitude"),
    ({"fem_order": 9}, "fem_order"),
    ({"intorder": 0}, "intorder"),
    ({"newton_rtol": 0}, "newton_rtol"),
    ({"signal": "chirp"}, "signal"),
])
def test_bad_recipes_are_one_line_input_errors(values, message):
    with pytest.raises(InputError, match=message) as info:
        MaxwellNLRecipe(**{**TINY, **values})
    assert "\n" not in str(info.value)


def test_a_varistor_box_without_cells_is_an_input_error():
    recipe = MaxwellNLRecipe(**{**TINY, "varistor_low": "0.01,0.01,0.01",
                                "varistor_high": "0.02,0.02,0.02"})
    with pytest.raises(InputError, match="no cell"):
        build_setup(recipe)
