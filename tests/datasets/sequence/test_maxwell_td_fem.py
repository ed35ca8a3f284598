"""``maxwell-td`` recipes by FEM backend, order, substeps and Richardson; the converged defaults,
the old (N0) recipe's bytes pinned, old files read as N0."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.hashing import content_hash
from surrogate.datasets.recipe_migration import N0_TD_SETTINGS
from surrogate.datasets.recipes import recipe_from_dict
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    build_setup,
    generate_maxwell_td,
    sample_signals,
    simulate_samples,
)
from surrogate.datasets.sequence.td_snapshots import sample_snapshots

# recorded from the code before fem_backend/fem_order/substeps/richardson existed: the then
# default recipe (skfem N0, level 3, one Newmark step per output step), now given explicitly,
# must keep its bytes
N0_TINY = {"n": 3, "steps": 20, "probes": 2, "n_materials": 2, "level": 3, **N0_TD_SETTINGS}
# recorded on two CPUs (OpenBLAS's kernels differ between AVX-512 and AVX2-only machines)
N0_TINY_HASHES = ("sha256:b611ce281e24c496b8bb9bbffbacaec6a34bfcdc7b729f628b704ec3f92eb6a6",
                  "sha256:fa71f5a6c45e7c1fad2613af3a6494cbca6f96ebe73f4b73efa34388be531e3c")
FEM_FIELDS = ("fem_backend", "fem_order", "substeps", "richardson")


def high_order(order: int) -> dict:
    """A tiny recipe of ngsolve ``order`` on cube level 1 with substeps 2 and Richardson."""
    return {"level": 1, "n": 3, "steps": 20, "dt": 0.1, "probes": 2, "n_materials": 2,
            "fem_backend": "ngsolve", "fem_order": order, "substeps": 2, "richardson": True,
            "seed": 5}


def test_the_defaults_are_the_converged_truth():
    """ngsolve order 5 on level 2, 2 substeps and Richardson (benchmarks/td_truth.py: within
    0.13–0.41 % median of a finer reference); the output grid as before."""
    pytest.importorskip("ngsolve")
    recipe = MaxwellTDRecipe()
    assert (recipe.fem_backend, recipe.fem_order, recipe.level, recipe.substeps,
            recipe.richardson) == ("ngsolve", 5, 2, 2, True)
    assert (recipe.dt, recipe.steps, recipe.n, recipe.n_materials, recipe.probes) == \
        (0.05, 200, 512, 8, 8)


def test_the_old_n0_recipe_keeps_its_bytes(tmp_path):
    recipe = MaxwellTDRecipe(**N0_TINY)
    data = generate_maxwell_td(recipe)
    assert content_hash(data.inputs, data.targets) in N0_TINY_HASHES
    assert generate_dataset(recipe, tmp_path / "d.h5")["content_hash"] in N0_TINY_HASHES


def test_files_written_before_the_fem_fields_read_as_n0_not_as_the_defaults(tmp_path):
    """An old file's recipe stores no fem_backend/fem_order/substeps/richardson: reading it
    fills in skfem / 0 / 1 / False (the migration shim), so it rebuilds to the same recipe;
    a user's recipe without them takes the (converged) defaults, ngsolve's."""
    import json

    import h5py

    from surrogate.fem.hcurl.registry import backend_installed

    recipe = MaxwellTDRecipe(**N0_TINY)
    path = tmp_path / "old.h5"
    generate_dataset(recipe, path)
    with h5py.File(path, "r+") as f:  # as the code before the fields wrote it
        stored = json.loads(f.attrs["recipe"])
        f.attrs["recipe"] = json.dumps({k: v for k, v in stored.items()
                                        if k not in FEM_FIELDS}, sort_keys=True)
    old = read_dataset(path)
    assert {k: old.recipe[k] for k in FEM_FIELDS} == N0_TD_SETTINGS
    assert recipe_from_dict(MaxwellTDRecipe, old.recipe) == recipe
    assert old.content_hash in N0_TINY_HASHES
    given = {k: v for k, v in N0_TINY.items() if k not in FEM_FIELDS}
    if not backend_installed("ngsolve"):
        with pytest.raises(InputError, match=r"pip install 'surrogate\[ngsolve\]'"):
            recipe_from_dict(MaxwellTDRecipe, given)
        return
    fresh = recipe_from_dict(MaxwellTDRecipe, given)
    assert (fresh.fem_backend, fresh.fem_order, fresh.substeps, fresh.richardson) == \
        ("ngsolve", 5, 2, True)


@pytest.mark.parametrize("order", [2, 5])
def test_high_order_substeps_and_richardson_agree_with_a_direct_run(tmp_path, order):
    from surrogate.fem.time_domain import Material, NewmarkStepper, newmark_run
    from surrogate.fem.time_domain_operators import (
        cavity_system,
        fine_step_loads,
        richardson_in_time,
    )

    pytest.importorskip("ngsolve")
    recipe = MaxwellTDRecipe(**high_order(order))
    setup = build_setup(recipe)
    calls = []
    inputs, targets = simulate_samples(setup, np.arange(recipe.n),
                                       lambda done, total, text: calls.append((done, total)))
    assert calls[-1][0] == calls[-1][1] == 2 * (2 + 4) * recipe.steps + recipe.n
    system = cavity_system(setup.ops.mesh, order, "ngsolve", setup.domain.bounds.mean(axis=1),
                           recipe.source_width, setup.probe_points)
    assert system.n_free == setup.ops.n_free == {2: 294, 5: 3612}[order]  # not N0's 26
    for i, signal in enumerate(sample_signals(recipe, range(recipe.n))):
        histories = []
        for r in (2, 4):
            stepper = NewmarkStepper(system.ops, Material(*setup.materials[i % 2]),
                                     recipe.dt / r)
            observed, _ = newmark_run(stepper, r * recipe.steps, load_vector=system.load,
                                      coefficients=fine_step_loads(signal, recipe.dt,
                                                                   recipe.steps, r),
                                      observe=system.observe)
            histories.append(observed[::r])
        direct = richardson_in_time(*histories)
        scale = np.abs(direct).max()
        assert scale > 0
        np.testing.assert_allclose(targets[i], direct, rtol=0, atol=1e-11 * scale)
    summary = generate_dataset(recipe, tmp_path / "h.h5")  # the streamed writer: same rows
    stored = read_dataset(tmp_path / "h.h5")
    assert np.array_equal(stored.targets, targets) and np.array_equal(stored.inputs, inputs)
    assert recipe_from_dict(MaxwellTDRecipe, stored.recipe) == recipe
    assert summary["recipe"]["fem_order"] == order and summary["recipe"]["richardson"] is True
    snap = sample_snapshots(recipe, 0, setup)  # ParaView fields of any order: the same E_h
    np.testing.assert_allclose((setup.observe @ snap.dofs.T).T, targets[0], rtol=0,
                               atol=1e-11 * np.abs(targets[0]).max())
    assert snap.at_cells().shape == (recipe.steps + 1, setup.ops.mesh.t.shape[1], 3)


def test_n0_snapshots_follow_substeps_and_richardson():
    recipe = MaxwellTDRecipe(level=1, n=2, steps=12, dt=0.1, probes=2, n_materials=1,
                             fem_backend="skfem", fem_order=0, substeps=2, richardson=True)
    setup = build_setup(recipe)
    _, targets = simulate_samples(setup, [1])
    snap = sample_snapshots(recipe, 1, setup)
    probes = (setup.observe @ snap.dofs.T).T
    assert np.abs(probes - targets[0]).max() <= 1e-11 * np.abs(targets[0]).max()


@pytest.mark.parametrize(("values", "message"), [
    ({"fem_order": 2}, r"recipe fem_order=2: the skfem time-domain backend offers orders \(0,\)"),
    ({"fem_backend": "nope"}, "unknown FEM backend 'nope'"),
    ({"substeps": 0}, "recipe substeps=0: expected int >= 1"),
    ({"fem_order": -1}, "recipe fem_order=-1: expected int >= 0"),
    ({"richardson": "yes"}, "recipe richardson='yes': expected true or false"),
    ({"fem_order": 5}, r"the skfem time-domain backend offers orders \(0,\)"),
    ({"fem_backend": "ngsolve", "fem_order": 7},
     r"the ngsolve time-domain backend offers orders \(0, 1, 2, 3, 4, 5, 6\)"),
])
def test_bad_fem_fields_are_one_line_input_errors(values, message):
    if values.get("fem_backend") == "ngsolve":
        pytest.importorskip("ngsolve")
    with pytest.raises(InputError, match=message):
        MaxwellTDRecipe(**{**N0_TINY, **values})
