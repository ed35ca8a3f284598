"""Fuzzing the dataset readers (read_dataset, validate_dataset, dataset_summary).

Every corrupted, truncated or crafted file must end in a DataFormatError with a one-line
message (or read fine when the damage is harmless), never another exception, a hang or a
memory blow-up; validate_dataset never raises and agrees with read_dataset. One valid base
file per kind is built per module; each case mutates a copy (bytes in memory or via h5py).
"""

from __future__ import annotations

import contextlib
import json

import h5py
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from surrogate.core.errors import DataFormatError
from surrogate.datasets import dataset_summary, make_splits, read_dataset, validate_dataset
from surrogate.datasets.format import REQUIRED_ATTRS
from surrogate.datasets.hashing import content_hash
from surrogate.datasets.hdf5_safety import hard_dataset

from ..fuzz_support import CaseCounter, fuzz_settings, guarded_case, outcome
from .conftest import IN_NAMES, OUT_NAMES

READERS = ("read_dataset", "validate_dataset", "dataset_summary")
COUNTER = CaseCounter()
KIND_NAMES = ("pointwise", "sequence")
ROWS = {"pointwise": 16, "sequence": 6}
FUZZ_BUDGET = 64 << 20


def _write_base(path, kind: str) -> None:
    rng = np.random.default_rng(3)
    n = ROWS[kind]
    shape_in, shape_out = ((n, 7), (n, 3)) if kind == "pointwise" else ((n, 4, 7), (n, 4, 3))
    from surrogate.datasets import write_dataset

    write_dataset(path, inputs=rng.standard_normal(shape_in),
                  targets=rng.standard_normal(shape_out), input_names=IN_NAMES,
                  target_names=OUT_NAMES, splits=make_splits(n, (0.5, 0.25, 0.25), rng),
                  problem="maxwell", domain="cube", recipe={"kind": "maxwell", "n": n},
                  seed=3, kind=kind, time=np.linspace(0.0, 1.0, 4) if kind == "sequence"
                  else None)


class BaseFiles:
    """One valid file per kind (bytes) and a work folder; short repr for hypothesis reports."""

    def __init__(self, files: dict[str, bytes], folder) -> None:
        self.files, self.folder = files, folder

    def __repr__(self) -> str:
        return f"BaseFiles({self.folder})"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """Valid base files; the reader's memory budget lowered to 64 MiB for the whole module,
    so a corrupt size field that makes libhdf5 allocate more fails fast (and visibly)."""
    folder = tmp_path_factory.mktemp("reader_fuzz")
    files = {}
    for kind in KIND_NAMES:
        _write_base(folder / f"{kind}.h5", kind)
        assert validate_dataset(folder / f"{kind}.h5") == []
        files[kind] = (folder / f"{kind}.h5").read_bytes()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("surrogate.datasets.reader.memory_budget", lambda: FUZZ_BUDGET)
        yield BaseFiles(files, folder)


def check_readers(path) -> str:
    """Run every reader on ``path``; return "ok" or "error" (they must agree)."""
    with guarded_case():
        problems = validate_dataset(path)
        assert isinstance(problems, list) and all(isinstance(p, str) and "\n" not in p
                                                  for p in problems), problems
        status, value = outcome(read_dataset, path)
        summary_status, summary = outcome(dataset_summary, path)
    COUNTER.add(*READERS)
    assert status == summary_status, (value, summary)
    assert (status == "ok") == (problems == []), (value, problems)
    if status == "ok":
        assert np.isfinite(value.inputs).all() and np.isfinite(value.targets).all()
        assert content_hash(value.inputs, value.targets) == value.content_hash
        json.dumps(summary, allow_nan=False)
    return status


# ----------------------------------------------------------------------------- byte damage


@st.composite
def byte_damage(draw, size: int):
    """A list of (offset, new bytes) edits or a truncation length."""
    how = draw(st.sampled_from(["truncate", "flip", "overwrite", "zero-run"]))
    if how == "truncate":
        return how, draw(st.integers(0, size - 1))
    if how == "flip":
        flips = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 7)),
                              min_size=1, max_size=8))
        return how, flips
    start = draw(st.integers(0, size - 1))
    length = draw(st.integers(1, 64))
    data = (draw(st.binary(min_size=length, max_size=length)) if how == "overwrite"
            else bytes(length))
    return how, (start, data)


def apply_damage(original: bytes, damage) -> bytes:
    how, arg = damage
    if how == "truncate":
        return original[:arg]
    data = bytearray(original)
    if how == "flip":
        for offset, bit in arg:
            data[offset] ^= 1 << bit
    else:
        start, chunk = arg
        data[start:start + len(chunk)] = chunk[:len(data) - start]
    return bytes(data)


@fuzz_settings(max_examples=300)
@given(kind=st.sampled_from(KIND_NAMES), data=st.data())
@pytest.mark.slow
def test_truncated_and_bit_flipped_files_fail_cleanly(base, kind, data):
    files, folder = base.files, base.folder
    damage = data.draw(byte_damage(len(files[kind])))
    path = folder / "damaged.h5"
    path.write_bytes(apply_damage(files[kind], damage))
    status = check_readers(path)
    if damage[0] == "truncate":
        assert status == "error"  # every byte of the base file matters


# ------------------------------------------------------------------------ structural damage

JUNK_VALUES = st.one_of(
    st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.binary(max_size=20), st.booleans(),
    st.lists(st.integers(-5, 5), min_size=1, max_size=5).map(np.array),
    st.lists(st.text(max_size=4), min_size=1, max_size=4),
)
BIG_ROWS = st.integers(10**3, 10**13)
ARRAY_PATHS = ("inputs", "targets", "time", "splits/train", "splits/val", "splits/test")


def _dataset(f: h5py.File, name: str) -> h5py.Dataset:
    """The dataset ``name`` as the readers see it (hard links only), else KeyError.

    Not ``f[name]``: after a "link" mutation ``name`` may be a soft link to itself, which h5py
    resolves with RuntimeError ("Special link traversal failed"), or a dangling/external link.
    """
    ds = hard_dataset(f, name)
    if ds is None:
        raise KeyError(f"{name} is absent or not a hard-linked dataset")
    return ds


def _replace(f: h5py.File, name: str, **kwargs) -> h5py.Dataset:
    if name in f:
        del f[name]
    return f.create_dataset(name, **kwargs)


def mutate(f: h5py.File, kind: str, draw) -> None:
    """Apply one structural change, drawn from a catalogue of plausible and crafted faults.

    Nodes are reached through :func:`_dataset`: a change that needs a node an earlier change
    removed or replaced by a link raises KeyError (the caller skips it).
    """
    n = ROWS[kind]  # rows of the base file (the split changes index against them)
    what = draw(st.sampled_from([
        "drop-attr", "junk-attr", "version", "drop-node", "wrong-dtype", "wrong-shape",
        "non-finite", "bad-names", "split-values", "split-dtype", "huge-unwritten",
        "huge-compressed", "huge-split", "link", "recipe", "hash"]))
    if what == "drop-attr":
        del f.attrs[draw(st.sampled_from(REQUIRED_ATTRS))]
    elif what == "junk-attr":
        f.attrs[draw(st.sampled_from([*REQUIRED_ATTRS, "dtype"]))] = draw(JUNK_VALUES)
    elif what == "version":
        f.attrs["version"] = draw(st.sampled_from([0, -1, 3, 99, 1.0, "1", True, b"1"]))
    elif what == "drop-node":
        name = draw(st.sampled_from([*ARRAY_PATHS, "splits"]))
        if name in f:
            del f[name]
    elif what == "wrong-dtype":
        name = draw(st.sampled_from(ARRAY_PATHS))
        shape = _dataset(f, name).shape
        dtype = draw(st.sampled_from(["i4", "u1", "f2", "c16", "S3", "f4,f4", "?",
                                      "f8" if name.startswith("splits") else "i8"]))
        _replace(f, name, shape=shape, dtype=dtype)
    elif what == "wrong-shape":
        name = draw(st.sampled_from(ARRAY_PATHS))
        shape = tuple(draw(st.lists(st.integers(0, 9), min_size=0, max_size=4)))
        dtype = "i8" if name.startswith("splits") else "f8"
        _replace(f, name, data=np.zeros(shape, dtype=dtype))
    elif what == "non-finite":
        name = draw(st.sampled_from(["inputs", "targets", "time"]))
        ds = _dataset(f, name)
        values = ds[()]
        flat = values.reshape(-1)
        spots = draw(st.lists(st.integers(0, flat.size - 1), min_size=1, max_size=4))
        flat[spots] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        ds[...] = values
        if draw(st.booleans()) and name != "time":  # a hash that matches the bad data
            f.attrs["content_hash"] = content_hash(_dataset(f, "inputs")[()],
                                                   _dataset(f, "targets")[()])
    elif what == "bad-names":
        ds = _dataset(f, draw(st.sampled_from(["inputs", "targets"])))
        if draw(st.booleans()):
            del ds.attrs["names"]
        else:
            ds.attrs["names"] = draw(JUNK_VALUES)
    elif what == "split-values":
        name = draw(st.sampled_from(["train", "val", "test"]))
        values = draw(st.lists(st.integers(-2 * n, 2 * n), max_size=n))
        _replace(f, f"splits/{name}", data=np.array(values, dtype=np.int64))
    elif what == "split-dtype":
        name = draw(st.sampled_from(["train", "val", "test"]))
        _replace(f, f"splits/{name}", data=np.array([0, 1],
                                                    dtype=draw(st.sampled_from(["u8", "f8",
                                                                                "i1", "S2"]))))
    elif what == "huge-unwritten":  # resizable, chunked, nothing written: reads as fill value
        name = draw(st.sampled_from(["inputs", "targets"]))
        tail = _dataset(f, name).shape[1:]
        rows = draw(BIG_ROWS)
        _replace(f, name, shape=(rows, *tail), maxshape=(None, *tail), dtype="f8",
                 chunks=(min(rows, 1024), *tail))
    elif what == "huge-compressed":  # one chunk of zeros written, the rest declared
        name = draw(st.sampled_from(["inputs", "targets"]))
        tail = _dataset(f, name).shape[1:]
        ds = _replace(f, name, shape=(draw(BIG_ROWS), *tail), dtype="f8",
                      chunks=(4096, *tail), compression="gzip")
        ds[:4096] = np.zeros((4096, *tail))
    elif what == "huge-split":
        name = draw(st.sampled_from(["train", "val", "test"]))
        rows = draw(st.integers(n + 1, 10**13))
        ds = _replace(f, f"splits/{name}", shape=(rows,), maxshape=(None,), dtype="i8",
                      chunks=(min(rows, 1 << 16),), compression="gzip")
        ds[:min(rows, 100)] = np.zeros(min(rows, 100), dtype=np.int64)
    elif what == "link":
        name = draw(st.sampled_from(["inputs", "targets", "splits/train"]))
        target = draw(st.sampled_from(["soft", "soft-loop", "external"]))
        del f[name]
        f[name] = (h5py.SoftLink(f"/{name}_elsewhere") if target == "soft"
                   else h5py.SoftLink(f"/{name}") if target == "soft-loop"
                   else h5py.ExternalLink("/etc/hostname", "/x"))
    elif what == "recipe":
        f.attrs["recipe"] = draw(st.sampled_from(["[1, 2]", "not json", "null", "{",
                                                  "[" * 5000 + "]" * 5000, '"text"']))
    else:
        f.attrs["content_hash"] = draw(st.sampled_from(
            ["sha256:" + "0" * 64, "md5:abc", "", "sha256:" + "G" * 64]))


def mutate_if_applicable(f: h5py.File, kind: str, draw) -> None:
    """:func:`mutate`, skipped when it does not apply to what earlier changes left (e.g. a
    deleted node, a node replaced by a link, a scalar where an array was)."""
    with contextlib.suppress(KeyError, ValueError, TypeError, IndexError):
        mutate(f, kind, draw)


@fuzz_settings(max_examples=300)
@given(kind=st.sampled_from(KIND_NAMES), data=st.data())
@pytest.mark.slow
def test_structurally_damaged_files_fail_cleanly(base, kind, data):
    files, folder = base.files, base.folder
    path = folder / "mutated.h5"
    path.write_bytes(files[kind])
    with h5py.File(path, "a") as f:
        for _ in range(data.draw(st.integers(1, 3))):
            mutate_if_applicable(f, kind, data.draw)
    check_readers(path)


def scripted(*values):
    """A ``draw`` for :func:`mutate` that returns ``values`` in order (one per draw)."""
    script = iter(values)
    return lambda strategy: next(script)


@pytest.mark.parametrize("name", ["inputs", "targets", "splits/train"])
@pytest.mark.parametrize("then", [
    ("wrong-dtype", "inputs", "i4"), ("non-finite", "targets", [0], np.nan, False),
    ("bad-names", "inputs", True), ("split-values", "val", [0, 1]),
    ("link", "inputs", "soft-loop"),
])
def test_a_mutation_after_a_soft_link_loop_applies_and_the_file_fails_cleanly(base, name, then):
    """Regression: a soft link to itself made the next mutate() raise RuntimeError ("Special
    link traversal failed") where it read the looped node, which the fuzz test did not expect."""
    path = base.folder / "soft-loop.h5"
    path.write_bytes(base.files["pointwise"])
    with h5py.File(path, "a") as f:
        mutate_if_applicable(f, "pointwise", scripted("link", name, "soft-loop"))
        assert f.get(name, getlink=True).path == f"/{name}"
        mutate_if_applicable(f, "pointwise", scripted(*then))
    assert check_readers(path) == "error"


# --------------------------------------------------------------------- targeted properties


def _mutated(base, kind: str, change) -> object:
    files, folder = base.files, base.folder
    path = folder / "targeted.h5"
    path.write_bytes(files[kind])
    with h5py.File(path, "a") as f:
        change(f)
    return path


@pytest.mark.parametrize("rows", [10**5, 10**9, 2**40])
def test_huge_declared_arrays_are_refused_before_allocation(base, rows):
    def change(f):
        _replace(f, "inputs", shape=(rows, 7), maxshape=(None, 7), dtype="f8", chunks=(512, 7))

    path = _mutated(base, "pointwise", change)
    with guarded_case(), pytest.raises(DataFormatError, match="'inputs' declares shape"):
        read_dataset(path)


def test_compression_bomb_within_the_ratio_is_refused_by_the_memory_budget(base, monkeypatch):
    def change(f):
        ds = _replace(f, "targets", shape=(200_000, 3), dtype="f8", chunks=(20_000, 3),
                      compression="gzip", compression_opts=1)
        ds[...] = np.zeros((200_000, 3))  # 4.8 MB of zeros in a few kB: under 1100:1

    path = _mutated(base, "pointwise", change)
    monkeypatch.setattr("surrogate.datasets.reader.memory_budget", lambda: 1 << 20)
    with pytest.raises(DataFormatError, match="of the 1 MiB this reader may use"):
        read_dataset(path)


def test_split_claiming_more_rows_than_the_data_is_refused_unread(base):
    def change(f):
        _replace(f, "splits/val", shape=(10**10,), maxshape=(None,), dtype="i8",
                 chunks=(1 << 16,), compression="gzip")

    path = _mutated(base, "pointwise", change)
    with guarded_case(), pytest.raises(DataFormatError, match="declares 10000000000 indices"):
        read_dataset(path)


def test_links_to_other_files_are_not_followed(base):
    def change(f):
        del f["targets"]
        f["targets"] = h5py.ExternalLink("/etc/hostname", "/x")

    path = _mutated(base, "pointwise", change)
    assert "missing dataset 'targets'" in validate_dataset(path)


@pytest.mark.parametrize(("attr", "value", "message"), [
    ("seed", "abc", "seed attribute"),
    ("version", True, "version attribute"),
    ("recipe", "[1, 2]", "recipe attribute is not a JSON object"),
    ("content_hash", 7, "content_hash attribute"),
    ("problem", 3, "must be strings"),
])
def test_wrongly_typed_root_attributes_are_named(base, attr, value, message):
    path = _mutated(base, "pointwise", lambda f: f.attrs.__setitem__(attr, value))
    with pytest.raises(DataFormatError, match=message):
        read_dataset(path)


def test_empty_arrays_and_scalar_names_are_format_errors(base):
    def change(f):
        _replace(f, "inputs", data=np.zeros((0, 7)))
        f["targets"].attrs["names"] = 5

    problems = validate_dataset(_mutated(base, "pointwise", change))
    assert any("every axis must be non-empty" in p for p in problems), problems
    assert any("'targets' has no 'names'" in p for p in problems), problems


def test_validate_lists_every_problem_of_a_file(base):
    def change(f):
        f["inputs"][0, 0] = np.nan
        f["splits/val"][0] = f["splits/train"][0]
        del f["targets"].attrs["names"]

    problems = validate_dataset(_mutated(base, "pointwise", change))
    text = "\n".join(problems)
    for expected in ("non-finite values (NaN)", "splits overlap: train/val", "no 'names'",
                     "content hash mismatch"):
        assert expected in text, problems


@pytest.mark.parametrize("damage", ["truncated", "heap-loop", "huge", "nan", "external"])
def test_info_on_a_corrupt_file_exits_2_with_one_line(base, damage):
    from typer.testing import CliRunner

    from surrogate.cli.app import app

    files, folder = base.files, base.folder
    path = folder / "cli.h5"
    original = files["pointwise"]
    if damage == "truncated":
        path.write_bytes(original[: len(original) // 2])
    elif damage == "heap-loop":  # a zero-sized free-space object: libhdf5 would loop forever
        start = original.index(b"GCOL\x01\x00\x00\x00") + 16
        data = bytearray(original)
        data[start:start + 16] = bytes(16)  # object index 0 (free space), size 0
        path.write_bytes(bytes(data))
    else:
        path = _mutated(base, "pointwise", {
            "huge": lambda f: _replace(f, "inputs", shape=(10**10, 7), maxshape=(None, 7),
                                       dtype="f8", chunks=(256, 7)),
            "nan": lambda f: f["targets"].__setitem__((3, 1), np.nan),
            "external": lambda f: (f.__delitem__("inputs"), f.__setitem__(
                "inputs", h5py.ExternalLink("/etc/hostname", "/x"))),
        }[damage])
    result = CliRunner().invoke(app, ["info", str(path)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path.name) in lines[0], result.output
    if damage == "heap-loop":
        assert "global heap" in lines[0]


def test_every_reader_reached_at_least_500_cases():
    """Runs last in this module: the fuzz tests above fed every reader >= 500 cases."""
    assert all(COUNTER.counts.get(name, 0) >= 500 for name in READERS), COUNTER.counts
    print(f"\ncases per reader: {COUNTER.counts}")
