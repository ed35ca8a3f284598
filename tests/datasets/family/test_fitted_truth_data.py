"""The ``inclusion`` data on the fitted truth: the recipe's truth fields, old files
as the level truth, the rows equal to ``fitted_truth(...).values_at``, workers = serial, and
bad combinations as one-line InputErrors.

The generated files are tiny (3 problems × 20 points, order 1 on maxh 0.6: ≈ 0.3 s a problem).
"""

import json

import h5py
import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import (
    MaxwellFamilyRecipe,
    generate_dataset,
    read_dataset,
    recipe_from_dict,
)
from surrogate.datasets.recipe_migration import stored_recipe
from surrogate.datasets.summary import dataset_summary
from surrogate.fem.families import get_family
from surrogate.fem.families.truth import TruthSpec

TINY = {"family": "inclusion", "problems": 3, "points": 20, "seed": 4,
        "truth_fem_order": 1, "truth_maxh": 0.6}


def test_the_truth_fields_resolve_per_family_and_round_trip():
    fitted = MaxwellFamilyRecipe(family="inclusion")
    assert (fitted.truth_mesh, fitted.truth_fem_order, fitted.truth_maxh,
            fitted.truth_level) == ("fitted", 3, 0.25, None)
    assert fitted.truth == TruthSpec(3, None, "fitted", 0.25)
    assert fitted.truth.backend == "ngsolve" and fitted.truth.curve_order == 3
    level = MaxwellFamilyRecipe(family="inclusion", truth_mesh="level")
    assert level.truth == TruthSpec(1, 3) and level.truth_maxh is None
    assert level.truth.backend == "skfem" and level.truth.curve_order is None
    radial = MaxwellFamilyRecipe(family="radial")  # other families: the level truth as before
    assert (radial.truth_mesh, radial.truth_level, radial.truth_fem_order) == ("level", 3, 1)
    for recipe in (fitted, level, radial, MaxwellFamilyRecipe(**TINY)):
        stored = json.loads(json.dumps(recipe.to_dict()))
        assert recipe_from_dict(MaxwellFamilyRecipe, stored) == recipe
        assert recipe_from_dict(MaxwellFamilyRecipe, stored_recipe(stored)) == recipe
    assert "fitted" in fitted.truth.description("cylinder")
    assert "maxh 0.25, curved to degree 3" in fitted.truth.description("cylinder")


def test_a_recipe_stored_before_the_fields_reads_as_its_level_truth():
    old = MaxwellFamilyRecipe(family="inclusion", truth_mesh="level", truth_level=2).to_dict()
    del old["truth_mesh"], old["truth_maxh"]
    filled = stored_recipe(old)
    assert filled["truth_mesh"] == "level" and filled["truth_maxh"] is None
    assert recipe_from_dict(MaxwellFamilyRecipe, filled).truth == TruthSpec(1, 2)


@pytest.mark.parametrize("values, message", [
    ({"family": "radial", "truth_mesh": "fitted"},
     "family 'radial' has no fitted geometry: truth_mesh 'fitted' exists for inclusion only"),
    ({"truth_level": 2}, "truth_level applies to truth_mesh 'level' only"),
    ({"truth_mesh": "level", "truth_maxh": 0.3}, "truth_maxh applies to truth_mesh 'fitted'"),
    ({"truth_maxh": 0}, "truth_maxh must be a finite number > 0"),
    ({"truth_maxh": -1.0}, "truth_maxh=-1.0: expected float >= 0"),
    ({"truth_fem_order": 5}, r"truth_fem_order=5: expected an NGSolve order 0-4"),
    ({"truth_mesh": "level", "truth_fem_order": 3}, r"truth_fem_order=3: expected 0 \(N0\)"),
    ({"truth_mesh": "curved"}, "unknown truth mesh 'curved'; choose one of: level, fitted"),
])
def test_bad_truth_combinations_are_input_errors(values, message):
    with pytest.raises(InputError, match=message):
        recipe_from_dict(MaxwellFamilyRecipe, {"family": "inclusion", **values})


@pytest.fixture(scope="module")
def fitted_file(tmp_path_factory):
    pytest.importorskip("ngsolve")
    path = tmp_path_factory.mktemp("fitted") / "incl.h5"
    summary = generate_dataset(MaxwellFamilyRecipe(**TINY), path)
    return path, summary


def test_rows_are_the_fitted_truth_at_points_in_the_cylinder(fitted_file):
    from surrogate.fem.fitted import fitted_truth

    path, _ = fitted_file
    with h5py.File(path, "r") as f:
        attrs = dict(f.attrs)
    assert attrs["truth_mesh"] == "fitted" and attrs["truth_backend"] == "ngsolve"
    assert (attrs["truth_fem_order"], attrs["truth_maxh"], attrs["truth_curve_order"]) == \
        (1, 0.6, 2)
    assert "truth_level" not in attrs
    ds = read_dataset(path)
    family = ds.family
    assert (family.truth, family.truth_mesh, family.truth_fem_order, family.truth_maxh,
            family.truth_curve_order, family.truth_level) == ("fem", "fitted", 1, 0.6, 2, None)
    assert ds.recipe["truth_mesh"] == "fitted" and ds.recipe["truth_maxh"] == 0.6
    x = ds.inputs[:, :3]
    assert np.all(np.hypot(x[:, 0], x[:, 1]) <= 1.0) and np.all((x[:, 2] >= 0) & (x[:, 2] <= 1))
    inclusion = get_family("inclusion")
    for i, mu in enumerate(family.params):
        rows = family.problem_id == i
        truth = fitted_truth(inclusion.problem(mu), 1, 0.6)
        np.testing.assert_allclose(ds.targets[rows],
                                   truth.values_at(x[rows], outside="extrapolate"),
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(ds.inputs[rows], inclusion.problem(mu).inputs(x[rows]))
    assert np.abs(ds.targets).max() > 1e-3
    truth = dataset_summary(path)["truth"]
    assert truth == {"kind": "fem", "backend": "ngsolve", "order": 1, "mesh": "fitted",
                     "maxh": 0.6, "curve_order": 2, "description": attrs["truth_description"]}
    assert "(ngsolve)" in truth["description"] and "maxh 0.6" in truth["description"]


def test_two_workers_write_the_serial_content(fitted_file, tmp_path):
    """The parent has meshed (the fixture): the pool forks from a server, not from it."""
    from surrogate.datasets.executors import open_executor

    with open_executor(workers=2) as executor:
        pool = generate_dataset(MaxwellFamilyRecipe(**TINY), tmp_path / "pool.h5",
                                executor=executor)
    assert pool["content_hash"] == fitted_file[1]["content_hash"]


def test_a_level_file_without_the_new_fields_reads_as_the_level_truth(tmp_path):
    recipe = MaxwellFamilyRecipe(family="inclusion", problems=3, points=10, seed=1,
                                 truth_mesh="level", truth_level=1)
    path = tmp_path / "level.h5"
    generate_dataset(recipe, path)
    with h5py.File(path, "r") as f:
        assert (f.attrs["truth_mesh"], f.attrs["truth_backend"]) == ("level", "skfem")
        assert f.attrs["truth_description"] == \
            "complete linear mixed solve on level 1 of cylinder"
    with h5py.File(path, "r+") as f:  # a file written before the fields existed
        for key in ("truth_mesh", "truth_backend", "truth_description"):
            del f.attrs[key]
        stored = json.loads(f.attrs["recipe"])
        del stored["truth_mesh"], stored["truth_maxh"]
        f.attrs["recipe"] = json.dumps(stored)
    ds = read_dataset(path)
    assert ds.family.truth_mesh == "level" and ds.family.truth_level == 1
    assert recipe_from_dict(MaxwellFamilyRecipe, ds.recipe) == recipe
    assert dataset_summary(path)["truth"] == {
        "kind": "fem", "backend": "skfem", "order": 1, "mesh": "level", "level": 1,
        "description": "complete linear mixed solve on level 1 of cylinder"}
