"""Recipes (typed, TOML) and split parsing / drawing."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.datasets import (
    MaxwellRecipe,
    load_recipe_toml,
    make_splits,
    parse_split,
    recipe_from_dict,
)


@pytest.mark.parametrize("text", ["0.8,0.1", "0.8,0.3,0.1", "-0.1,0.6,0.5", "a,b,c", "nan,0,1"])
def test_bad_splits_raise_input_error(text):
    with pytest.raises(InputError, match="--split"):
        parse_split(text)


def test_make_splits_partitions_indices():
    rng = np.random.default_rng(0)
    s = make_splits(1001, parse_split("0.7,0.2,0.1"), rng)
    assert [s[k].size for k in ("train", "val", "test")] == [701, 200, 100]
    joined = np.sort(np.concatenate(list(s.values())))
    np.testing.assert_array_equal(joined, np.arange(1001))
    assert all(np.all(np.diff(v) > 0) for v in s.values())
    empty = make_splits(10, (1.0, 0.0, 0.0), rng)
    assert empty["val"].size == 0 and empty["train"].size == 10


def test_recipe_validation_and_toml_override(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('[recipe]\ndomain = "cube"\nn = 500\nsplit = [0.5, 0.25, 0.25]\n')
    values = load_recipe_toml(path)
    values.update({"n": 40})  # a CLI flag overrides the file
    recipe = recipe_from_dict(MaxwellRecipe, values)
    assert (recipe.domain, recipe.n, recipe.split) == ("cube", 40, (0.5, 0.25, 0.25))
    assert recipe_from_dict(MaxwellRecipe, recipe.to_dict()) == recipe
    with pytest.raises(InputError, match="unknown recipe keys: colour"):
        recipe_from_dict(MaxwellRecipe, {"colour": 1})
    for bad in ({"n": 0}, {"level": 0}, {"noise": -1.0}, {"source": "x"}, {"dtype": "int8"},
                {"seed": "a"}, {"n": 2.5}, {"noise": float("nan")}, {"n": True}):
        with pytest.raises(InputError):
            MaxwellRecipe(**bad)
