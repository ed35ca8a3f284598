"""Family datasets (FORMAT v2): rows match the family's problems, splits by problem, sensors,
the FEM truth's rows, v1 files still read, and a split that mixes problems is refused."""

import h5py
import numpy as np
import pytest

from surrogate.core.errors import DataFormatError, InputError
from surrogate.datasets import (
    FORMAT_VERSION,
    MaxwellFamilyRecipe,
    generate_dataset,
    read_dataset,
    recipe_from_dict,
)
from surrogate.fem.families import fem_truth, get_family, sensor_layout, sensor_values


@pytest.fixture
def radial_file(tmp_path):
    recipe = MaxwellFamilyRecipe(family="radial", problems=10, points=50, seed=3)
    path = tmp_path / "radial.h5"
    summary = generate_dataset(recipe, path)
    assert summary["generation_seconds"] > 0
    return path, recipe


def test_radial_rows_are_the_exact_fields_of_their_problems(radial_file):
    path, recipe = radial_file
    ds = read_dataset(path)
    fam = ds.family
    assert ds.is_family and ds.version == FORMAT_VERSION == 2 and fam.name == "radial"
    assert ds.problem == "maxwell-family" and ds.domain == "cylinder" and fam.truth == "exact"
    assert "generation_seconds" not in ds.attrs  # measured time: in the JSON summary only
    family = get_family("radial")
    assert fam.param_names == family.param_names and fam.params.shape == (10, 6)
    np.testing.assert_array_equal(fam.box, family.box)
    assert np.all((fam.params >= fam.box[:, 0]) & (fam.params <= fam.box[:, 1]))
    np.testing.assert_array_equal(fam.problem_id, np.repeat(np.arange(10), 50))
    sensors = sensor_layout(family)
    np.testing.assert_array_equal(fam.volume_points, sensors.volume_points)
    for i, mu in enumerate(fam.params):
        rows = fam.problem_id == i
        problem = family.problem(mu)
        x = ds.inputs[rows, :3]
        np.testing.assert_array_equal(ds.inputs[rows], problem.inputs(x))
        np.testing.assert_array_equal(ds.targets[rows], problem.u(x))
        np.testing.assert_array_equal(fam.sensor_values[i], sensor_values(problem, sensors))
    assert np.all(np.hypot(ds.inputs[:, 0], ds.inputs[:, 1]) <= 1.0)


def test_splits_are_by_problem(radial_file):
    ds = read_dataset(radial_file[0])
    fam = ds.family
    sizes = {k: len(v) for k, v in fam.problem_splits.items()}
    assert sizes == {"train": 8, "val": 1, "test": 1}
    assert len(set(np.concatenate(list(fam.problem_splits.values())))) == 10
    for name, problems in fam.problem_splits.items():
        assert set(fam.problem_id[ds.splits[name]]) == set(problems.tolist())
        assert len(ds.splits[name]) == 50 * len(problems)


def test_a_split_that_mixes_problems_and_a_bad_family_group_are_refused(radial_file, tmp_path):
    path = radial_file[0]
    with h5py.File(path, "r+") as f:
        train, test = f["splits/train"][()], f["splits/test"][()]
        del f["splits/train"], f["splits/test"]
        f["splits/train"] = train[1:]
        f["splits/test"] = np.sort(np.append(test, train[0]))
    with pytest.raises(DataFormatError, match="split 'train' is not the rows of the problems"):
        read_dataset(path)
    with h5py.File(path, "r+") as f:
        del f["family/problem_id"]
    with pytest.raises(DataFormatError, match="without 'family/problem_id'"):
        read_dataset(path)


def test_version_1_files_still_read(small_file):
    path = small_file[0]
    with h5py.File(path, "r+") as f:
        f.attrs["version"] = 1
    ds = read_dataset(path)
    assert ds.version == 1 and ds.family is None and not ds.is_family


@pytest.mark.parametrize("order", [1, 0])
def test_inclusion_rows_are_the_fem_truth_at_the_points(tmp_path, order):
    recipe = MaxwellFamilyRecipe(family="inclusion", problems=3, points=40, seed=1,
                                 truth_mesh="level", truth_level=1, truth_fem_order=order)
    path = tmp_path / "incl.h5"
    generate_dataset(recipe, path)
    with h5py.File(path, "r") as f:
        assert (f.attrs["truth_level"], f.attrs["truth_fem_order"]) == (1, order)
        assert "truth_order" not in f.attrs
    ds = read_dataset(path)
    assert ds.family.truth == "fem" and ds.family.truth_level == 1
    assert ds.family.truth_fem_order == order
    family = get_family("inclusion")
    for i, mu in enumerate(ds.family.params):
        rows = ds.family.problem_id == i
        truth = fem_truth(family.problem(mu), "cylinder", 1, order=order)
        assert truth.ndofs == (496 if order == 1 else 248)  # 248 edges of cylinder level 1
        np.testing.assert_allclose(ds.targets[rows], truth.values_at(ds.inputs[rows, :3]),
                                   rtol=1e-12, atol=1e-14)
    assert np.abs(ds.targets).max() > 1e-3
    assert np.all(ds.family.sensor_values[:, -48:] == 0)  # u × n = 0 on the wall
    with h5py.File(path, "r+") as f:  # a file of the old naming: truth_order = ours + 1
        del f.attrs["truth_fem_order"]
        f.attrs["truth_order"] = order + 1
    assert read_dataset(path).family.truth_fem_order == order
    with h5py.File(path, "r+") as f:  # a file from before the truth's order (its truth is N0)
        del f.attrs["truth_order"]
    assert read_dataset(path).family.truth_fem_order is None


def test_a_legacy_truth_order_out_of_range_is_reported(tmp_path):
    from surrogate.datasets.family.file_group import _truth_fem_order

    problems: list[str] = []
    assert _truth_fem_order({"truth_order": 0}, problems) is None
    assert problems == ["family attribute 'truth_order' must be 1 or 2, got 0"]
    assert _truth_fem_order({"truth_fem_order": 1, "truth_order": 1}, []) == 1


def test_radial_files_record_no_truth_order(radial_file):
    with h5py.File(radial_file[0], "r") as f:
        assert "truth_fem_order" not in f.attrs and "truth_level" not in f.attrs
    assert read_dataset(radial_file[0]).family.truth_fem_order is None


@pytest.mark.parametrize("values, message", [
    ({"family": "nope"}, "unknown family 'nope'"),
    ({"problems": 2}, "need at least 3 problems"),
    ({"box": [[2, 1]] + [[0, 1]] * 5}, "empty or inverted for k"),
    ({"box": [[1, 1]] + [[0, 1]] * 5}, "empty or inverted for k"),
    ({"box": [[0, 1]]}, "box must have shape"),
    ({"sampler": "grid"}, "unknown sampler 'grid'"),
    ({"truth_fem_order": 2}, r"truth_fem_order=2: expected 0 \(N0\) or 1"),
    ({"truth_fem_order": True}, "truth_fem_order=True"),
])
def test_bad_recipes_are_input_errors(values, message):
    with pytest.raises(InputError, match=message):
        recipe_from_dict(MaxwellFamilyRecipe, {"family": "radial", **values})


def test_content_hash_covers_the_problem_parameters(radial_file):
    """Two files with the same rows but other problem parameters must not share a hash."""
    from surrogate.datasets.hashing import content_hash

    path = radial_file[0]
    ds = read_dataset(path)
    assert ds.content_hash != content_hash(ds.inputs, ds.targets)  # the v1 hash of the rows
    with h5py.File(path, "r+") as f:
        f["family/params"][0, 0] += 0.25
    with pytest.raises(DataFormatError, match="content hash mismatch"):
        read_dataset(path)


# each recorded on two CPUs: OpenBLAS picks its kernels by the CPU (AVX-512 or AVX2 only, e.g.
# AMD EPYC), so the last bits of a solve differ between them
@pytest.mark.parametrize("order, pinned", [
    (0, ("sha256:51365ff0effc2d137e3fd9fda75de8cd76d194f73b984f4ccbc97b8ee5fe7eb6",
         "sha256:d510cb4b0233f78d217acdafae294153c9908b58aff25dac69e0462dce9c3224")),
    (1, ("sha256:5f60dc058dfd73c63f5f3e7f4b62e4f5afefb24f92b7893d5e82b59557f55e73",
         "sha256:b8b88ee7add506c3b8fc07097124b76bd256678997419cacdac2c509ea527cb5"))])
def test_an_inclusion_dataset_is_bit_identical_to_earlier_releases(tmp_path, order, pinned):
    """Pinned content hashes (recorded before the mesh sampler and the checked LU solve became
    one function each in fem/): the same points in the truth mesh, the same FEM truth (48
    volume sensors: inclusion's default before it had its own, 1000)."""
    recipe = MaxwellFamilyRecipe(family="inclusion", problems=3, points=30, seed=1,
                                 truth_mesh="level", truth_level=1, truth_fem_order=order,
                                 n_volume=48)
    assert generate_dataset(recipe, tmp_path / "incl.h5")["content_hash"] in pinned
