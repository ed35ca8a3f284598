"""``maxwell-td`` recipes by FEM backend, order, substeps and Richardson; old defaults pinned."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import generate_dataset, read_dataset
from surrogate.datasets.hashing import content_hash
from surrogate.datasets.recipes import recipe_from_dict
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    build_setup,
    generate_maxwell_td,
    sample_signals,
    sample_snapshots,
    simulate_samples,
)

# recorded from the code before fem_backend/fem_order/substeps/richardson existed: the default
# recipe (skfem N0, level 3, one Newmark step per output step) must keep its bytes
DEFAULT_TINY = {"n": 3, "steps": 20, "probes": 2, "n_materials": 2}
DEFAULT_TINY_HASH = "sha256:b611ce281e24c496b8bb9bbffbacaec6a34bfcdc7b729f628b704ec3f92eb6a6"
HIGH_ORDER = {"level": 1, "n": 3, "steps": 20, "dt": 0.1, "probes": 2, "n_materials": 2,
              "fem_backend": "ngsolve", "fem_order": 2, "substeps": 2, "richardson": True,
              "seed": 5}


def test_the_default_recipe_keeps_its_bytes(tmp_path):
    recipe = MaxwellTDRecipe(**DEFAULT_TINY)
    assert (recipe.fem_backend, recipe.fem_order, recipe.substeps, recipe.richardson) == \
        ("skfem", 0, 1, False)
    data = generate_maxwell_td(recipe)
    assert content_hash(data.inputs, data.targets) == DEFAULT_TINY_HASH
    assert generate_dataset(recipe, tmp_path / "d.h5")["content_hash"] == DEFAULT_TINY_HASH


def test_recipes_written_before_the_fem_fields_read_as_n0():
    stored = {k: v for k, v in MaxwellTDRecipe(**DEFAULT_TINY).to_dict().items()
              if k not in ("fem_backend", "fem_order", "substeps", "richardson")}
    recipe = recipe_from_dict(MaxwellTDRecipe, stored)
    assert (recipe.fem_backend, recipe.fem_order, recipe.substeps, recipe.richardson) == \
        ("skfem", 0, 1, False)


def test_high_order_substeps_and_richardson_agree_with_a_direct_run(tmp_path):
    from surrogate.fem.time_domain import Material, NewmarkStepper, newmark_run
    from surrogate.fem.time_domain_operators import (
        cavity_system,
        fine_step_loads,
        richardson_in_time,
    )

    pytest.importorskip("ngsolve")
    recipe = MaxwellTDRecipe(**HIGH_ORDER)
    setup = build_setup(recipe)
    calls = []
    inputs, targets = simulate_samples(setup, np.arange(recipe.n),
                                       lambda done, total, text: calls.append((done, total)))
    assert calls[-1][0] == calls[-1][1] == 2 * (2 + 4) * recipe.steps + recipe.n
    system = cavity_system(setup.ops.mesh, 2, "ngsolve", setup.domain.bounds.mean(axis=1),
                           recipe.source_width, setup.probe_points)
    assert system.n_free == setup.ops.n_free and system.n_free > 100  # order 2, not N0
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
    assert summary["recipe"]["fem_order"] == 2 and summary["recipe"]["richardson"] is True
    with pytest.raises(InputError, match="field snapshots .* ngsolve order 2"):
        sample_snapshots(recipe, 0, setup)


def test_n0_snapshots_follow_substeps_and_richardson():
    recipe = MaxwellTDRecipe(level=1, n=2, steps=12, dt=0.1, probes=2, n_materials=1,
                             substeps=2, richardson=True)
    setup = build_setup(recipe)
    _, targets = simulate_samples(setup, [1])
    snap = sample_snapshots(recipe, 1, setup)
    probes = (setup.observe @ snap.dofs[:, setup.ops.free].T).T
    assert np.abs(probes - targets[0]).max() <= 1e-11 * np.abs(targets[0]).max()


@pytest.mark.parametrize(("values", "message"), [
    ({"fem_order": 2}, r"recipe fem_order=2: the skfem time-domain backend offers orders \(0,\)"),
    ({"fem_backend": "nope"}, "unknown FEM backend 'nope'"),
    ({"substeps": 0}, "recipe substeps=0: expected int >= 1"),
    ({"fem_order": -1}, "recipe fem_order=-1: expected int >= 0"),
    ({"richardson": "yes"}, "recipe richardson='yes': expected true or false"),
])
def test_bad_fem_fields_are_one_line_input_errors(values, message):
    with pytest.raises(InputError, match=message):
        MaxwellTDRecipe(**{**DEFAULT_TINY, **values})
