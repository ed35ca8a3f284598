"""The Maxwell generator: determinism, noise, and agreement of exact vs FEM targets."""


import numpy as np
import pytest

from surrogate.datasets import (
    MaxwellRecipe,
    add_relative_noise,
    generate_dataset,
    generate_maxwell,
    read_dataset,
)


def test_generated_inputs_and_targets(fake_fem, tmp_path):
    recipe = MaxwellRecipe(domain="cube", n=300, seed=1)
    summary = generate_dataset(recipe, tmp_path / "d.h5")
    ds = read_dataset(tmp_path / "d.h5")
    x = ds.inputs[:, :3]
    np.testing.assert_allclose(ds.inputs[:, 3:6], fake_fem.f(x), rtol=0, atol=0)
    np.testing.assert_allclose(ds.inputs[:, 6], fake_fem.phi(x), rtol=0, atol=0)
    np.testing.assert_allclose(ds.targets, fake_fem.u(x), rtol=0, atol=0)
    assert ds.recipe == recipe.to_dict() and ds.seed == 1
    assert summary["splits"] == {"train": 240, "val": 30, "test": 30}
    assert summary["content_hash"] == ds.content_hash


def test_same_seed_identical_different_seed_differs(fake_fem, tmp_path):
    a = generate_dataset(MaxwellRecipe(domain="cube", n=500, seed=7), tmp_path / "a.h5")
    b = generate_dataset(MaxwellRecipe(domain="cube", n=500, seed=7), tmp_path / "b.h5")
    c = generate_dataset(MaxwellRecipe(domain="cube", n=500, seed=8), tmp_path / "c.h5")
    assert a["content_hash"] == b["content_hash"] != c["content_hash"]
    da, db, dc = (read_dataset(tmp_path / f"{k}.h5") for k in "abc")
    np.testing.assert_array_equal(da.inputs, db.inputs)
    for k in da.splits:
        np.testing.assert_array_equal(da.splits[k], db.splits[k])
    assert not np.any(np.all(da.inputs[:, :3] == dc.inputs[:, :3], axis=1))


def test_file_bytes_identical_with_source_date_epoch(fake_fem, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    for name in ("a", "b"):
        generate_dataset(MaxwellRecipe(domain="cube", n=200, seed=3), tmp_path / f"{name}.h5")
    assert (tmp_path / "a.h5").read_bytes() == (tmp_path / "b.h5").read_bytes()


def test_float32_and_noise(fake_fem):
    clean = generate_maxwell(MaxwellRecipe(domain="cube", n=20000, seed=2))
    noisy = generate_maxwell(MaxwellRecipe(domain="cube", n=20000, seed=2, noise=0.1))
    np.testing.assert_array_equal(clean.inputs, noisy.inputs)
    rms = np.sqrt(np.mean(clean.targets**2, axis=0))
    rel = np.std(noisy.targets - clean.targets, axis=0) / rms
    np.testing.assert_allclose(rel, 0.1, rtol=0.03)
    u = np.ones((4, 3))
    assert add_relative_noise(u, 0.0, np.random.default_rng(0)) is u


@pytest.mark.slow
def test_fem_source_agrees_with_exact_solution(tmp_path):
    errors = []
    for level in (2, 3):
        recipe = dict(domain="cube", n=3000, seed=0, level=level)
        exact = generate_maxwell(MaxwellRecipe(**recipe))
        fem = generate_maxwell(MaxwellRecipe(source="fem", **recipe))
        np.testing.assert_array_equal(exact.inputs, fem.inputs)  # cube: mesh covers domain
        diff = np.linalg.norm(fem.targets - exact.targets) / np.linalg.norm(exact.targets)
        errors.append(diff)
        assert fem.mesh["cells"].shape[1] == 4 and fem.fem["dofs"].ndim == 1
    assert errors[1] < 0.05
    assert errors[1] < 0.75 * errors[0]
    generate_dataset(MaxwellRecipe(source="fem", domain="cube", n=100, level=2), tmp_path / "f.h5")
    ds = read_dataset(tmp_path / "f.h5")
    assert ds.recipe["source"] == "fem"


def test_a_fem_source_dataset_is_bit_identical_to_earlier_releases(tmp_path):
    """Pinned content hash (recorded before the mesh sampler and the checked LU solve became
    one function each in fem/): the same RNG draws of points in the cylinder's mesh, the same
    N0 mixed solve."""
    recipe = MaxwellRecipe(domain="cylinder", n=200, seed=5, source="fem", level=1)
    # recorded on two CPUs (OpenBLAS's kernels differ between AVX-512 and AVX2-only machines)
    assert generate_dataset(recipe, tmp_path / "d.h5")["content_hash"] in (
        "sha256:7d8dc05134b3af7d89406e3a81d93e56dac45409c0e8b3fc3ffd714850527c27",
        "sha256:46cf4966ebadcdd2f62d6a149cb24c9254b7173d4382d54bb617797aa419f19f")
