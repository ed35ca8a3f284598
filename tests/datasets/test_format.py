"""Round trip, validation of corrupt files, hashing, atomic writes."""

import json
import os

import h5py
import numpy as np
import pytest

from surrogate.core.errors import DataFormatError, InputError
from surrogate.datasets import (
    FORMAT_VERSION,
    content_hash,
    read_dataset,
    validate_dataset,
    write_dataset,
)
from surrogate.datasets import writer as writer_module

from .conftest import IN_NAMES, OUT_NAMES, small_arrays


def test_round_trip_preserves_arrays_and_attributes(small_file):
    path, inputs, targets, splits = small_file
    ds = read_dataset(path)
    np.testing.assert_array_equal(ds.inputs, inputs)
    np.testing.assert_array_equal(ds.targets, targets)
    for name in ("train", "val", "test"):
        np.testing.assert_array_equal(ds.splits[name], splits[name])
    assert ds.input_names == IN_NAMES and ds.target_names == OUT_NAMES
    assert (ds.kind, ds.problem, ds.domain, ds.seed) == ("pointwise", "maxwell", "cube", 0)
    assert ds.version == FORMAT_VERSION
    assert ds.recipe == {"kind": "maxwell", "n": 200}
    assert ds.content_hash == content_hash(inputs, targets)
    assert ds.attrs["dtype"] == "float64" and "created" in ds.attrs
    assert ds.inputs.dtype == np.float64
    x, y = ds.split("val")
    np.testing.assert_array_equal(x, inputs[splits["val"]])
    np.testing.assert_array_equal(y, targets[splits["val"]])
    with h5py.File(path) as f:
        np.testing.assert_array_equal(f["mesh/points"][()], np.eye(3))
        np.testing.assert_array_equal(f["fem/dofs"][()], np.arange(5.0))
        assert f["fem"].attrs["level"] == 2
    assert validate_dataset(path) == []


def test_sequence_kind_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    x, y, t = rng.random((10, 4, 2)), rng.random((10, 4, 1)), np.linspace(0, 1, 4)
    splits = {"train": np.arange(8), "val": np.array([8]), "test": np.array([9])}
    path = tmp_path / "seq.h5"
    write_dataset(path, kind="sequence", inputs=x, targets=y, input_names=("a", "b"),
                  target_names=("c",), splits=splits, problem="p", domain="d", recipe={},
                  seed=3, time=t, dtype="float32")
    ds = read_dataset(path)
    assert ds.kind == "sequence" and ds.inputs.dtype == np.float32
    np.testing.assert_allclose(ds.time, t, rtol=1e-7)
    np.testing.assert_array_equal(ds.targets, y.astype(np.float32))
    assert ds.readout == "sequence" and "readout" not in ds.attrs


def _write_sequence(path, targets, **kwargs):
    x = np.random.default_rng(2).random((6, 5, 2))
    splits = {"train": np.arange(4), "val": np.array([4]), "test": np.array([5])}
    write_dataset(path, kind=kwargs.pop("kind", "sequence"), inputs=x, targets=targets,
                  input_names=("a", "b"), target_names=("c",), splits=splits, problem="p",
                  domain="d", recipe={}, seed=0, time=np.arange(5.0), **kwargs)


def test_sequence_readout_last_stores_one_target_per_sequence(tmp_path):
    path = tmp_path / "last.h5"
    _write_sequence(path, np.arange(6.0).reshape(6, 1, 1), attrs={"readout": "last"})
    ds = read_dataset(path)
    assert ds.readout == "last" and ds.targets.shape == (6, 1, 1) and ds.time.shape == (5,)
    assert validate_dataset(path) == []
    _edit(path, lambda f: f.attrs.__delitem__("readout"))  # (N, 1, k) now means T = 1
    with pytest.raises(DataFormatError, match=r"'targets' shape \(6, 1, 1\) does not match"):
        read_dataset(path)
    _edit(path, lambda f: f.attrs.__setitem__("readout", "first"))
    assert validate_dataset(path) == ["readout attribute is 'first', expected one of: "
                                      "sequence, last"]


@pytest.mark.parametrize(("targets", "kwargs", "message"), [
    ((6, 1, 1), {}, "readout 'sequence' needs targets of shape (6, 5, k)"),
    ((6, 5, 1), {"attrs": {"readout": "last"}}, "readout 'last' needs targets of shape (6, 1, k)"),
    ((6, 1, 1), {"attrs": {"readout": "all"}}, "unknown readout 'all'"),
])
def test_writer_checks_the_readout(tmp_path, targets, kwargs, message):
    with pytest.raises(InputError) as info:
        _write_sequence(tmp_path / "x.h5", np.zeros(targets), **kwargs)
    assert message in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_readout_last_is_refused_on_pointwise_files(small_file, tmp_path):
    x, y, _ = small_arrays(10)
    splits = {"train": np.arange(10), "val": np.array([], int), "test": np.array([], int)}
    with pytest.raises(InputError, match="readout 'last' applies to sequence datasets only"):
        write_dataset(tmp_path / "a.h5", inputs=x, targets=y, input_names=IN_NAMES,
                      target_names=OUT_NAMES, splits=splits, problem="p", domain="d",
                      recipe={}, seed=0, attrs={"readout": "last"})
    _edit(small_file[0], lambda f: f.attrs.__setitem__("readout", "last"))
    assert validate_dataset(small_file[0]) == [
        "readout attribute 'last' is only allowed for kind 'sequence', not 'pointwise'"]


def test_hash_is_canonical():
    x, y, _ = small_arrays(50)
    h = content_hash(x, y)
    assert h.startswith("sha256:") and len(h) == 7 + 64
    assert content_hash(x.astype(">f8"), np.asfortranarray(y)) == h  # byte order, layout
    assert content_hash(x.astype(np.float32), y) != h  # dtype is part of the hash
    assert content_hash(x.reshape(25, 14), y) != h  # shape is part of the hash
    y2 = y.copy()
    y2[3, 1] = np.nextafter(y2[3, 1], 1)
    assert content_hash(x, y2) != h


def _edit(path, fn):
    with h5py.File(path, "r+") as f:
        fn(f)


def _set_nan(f):
    f["targets"][5, 1] = np.nan


def _set_inf(f):
    f["inputs"][0, 0] = np.inf


def _reshape_targets(f):
    del f["targets"]
    ds = f.create_dataset("targets", data=np.zeros((199, 3)))
    ds.attrs["names"] = list(OUT_NAMES)


def _range(f):
    del f["splits/test"]
    f["splits/test"] = np.array([0, 1000])


def _overlap(f):
    train = f["splits/train"][()]
    del f["splits/val"]
    f["splits/val"] = train[:3]


CORRUPTIONS = {
    "wrong format": (lambda f: f.attrs.__setitem__("format", "other"), "format attribute"),
    "newer version": (lambda f: f.attrs.__setitem__("version", FORMAT_VERSION + 1),
                      "newer than the supported"),
    "missing inputs": (lambda f: f.__delitem__("inputs"), "missing dataset 'inputs'"),
    "mis-shaped targets": (_reshape_targets, "does not match 'inputs'"),
    "nan": (_set_nan, "non-finite values (NaN)"),
    "inf": (_set_inf, "non-finite values (inf)"),
    "split out of range": (_range, "split 'test' has indices out of range"),
    "overlapping splits": (_overlap, "splits overlap: train/val"),
    "missing split": (lambda f: f.__delitem__("splits/val"), "missing split 'splits/val'"),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_validator_rejects_corruption(small_file, name):
    path = small_file[0]
    corrupt, message = CORRUPTIONS[name]
    _edit(path, corrupt)
    with pytest.raises(DataFormatError) as info:
        read_dataset(path)
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text
    assert any(message in p for p in validate_dataset(path))


def test_hash_mismatch_detected(small_file):
    path = small_file[0]
    _edit(path, lambda f: f["targets"].__setitem__((0, 0), 12.5))
    with pytest.raises(DataFormatError, match="content hash mismatch"):
        read_dataset(path)
    assert read_dataset(path, verify_hash=False).targets[0, 0] == 12.5
    assert any("content hash mismatch" in p for p in validate_dataset(path))


def test_truncated_and_non_hdf5_files(small_file, tmp_path):
    path = small_file[0]
    data = path.read_bytes()
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFormatError, match="truncated"):
        read_dataset(truncated)
    text = tmp_path / "notes.h5"
    text.write_text("hello, not HDF5\n")
    with pytest.raises(DataFormatError, match="not an HDF5 file"):
        read_dataset(text)
    with pytest.raises(DataFormatError, match="no such file"):
        read_dataset(tmp_path / "missing.h5")
    assert validate_dataset(text) == ["not an HDF5 file"]


def test_writer_rejects_bad_arrays(tmp_path):
    x, y, _ = small_arrays(10)
    y[0, 0] = np.nan
    splits = {"train": np.arange(10), "val": np.array([], int), "test": np.array([], int)}
    with pytest.raises(InputError, match="NaN"):
        write_dataset(tmp_path / "a.h5", inputs=x, targets=y, input_names=IN_NAMES,
                      target_names=OUT_NAMES, splits=splits, problem="p", domain="d",
                      recipe={}, seed=0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt()])
def test_interrupted_write_leaves_no_file(tmp_path, monkeypatch, exc):
    x, y, rng = small_arrays(100)
    splits = {"train": np.arange(80), "val": np.arange(80, 90), "test": np.arange(90, 100)}
    calls = []

    def failing_put(group, name, data):
        calls.append(name)
        if name == "targets":
            raise exc
        return original(group, name, data)

    original = writer_module._put
    monkeypatch.setattr(writer_module, "_put", failing_put)
    with pytest.raises(type(exc)):
        write_dataset(tmp_path / "out.h5", inputs=x, targets=y, input_names=IN_NAMES,
                      target_names=OUT_NAMES, splits=splits, problem="p", domain="d",
                      recipe={}, seed=0)
    assert calls == ["inputs", "targets"]
    assert os.listdir(tmp_path) == []


def test_source_date_epoch_fixes_created(small_file, monkeypatch, tmp_path):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert writer_module.creation_time() == "1970-01-01T00:00:00Z"
    with h5py.File(small_file[0]) as f:
        assert json.loads(f.attrs["recipe"])["n"] == 200
