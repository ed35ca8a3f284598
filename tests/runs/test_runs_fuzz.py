"""Fuzzing the run-directory readers (read_config, run_summary, load_run, load_checkpoint).

Corrupted, truncated, bit-flipped or crafted config.json, metrics.json, metadata.json,
history.csv, model.pt and checkpoint.pt must end in a DataFormatError with a one-line
message (or load fine when the damage is harmless), never another exception, a hang, a
memory blow-up or code run from a pickle. One real run (a 2-epoch fit) is built per module;
each case restores its files from memory and damages one of them.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import shutil

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from surrogate.core.errors import DataFormatError
from surrogate.datasets import make_splits, write_dataset
from surrogate.runs.checkpoints import load_checkpoint
from surrogate.runs.load import load_run, read_config, run_summary
from surrogate.training.loop import fit

from ..fuzz_support import CaseCounter, fuzz_settings, guarded_case, outcome

pytestmark = pytest.mark.usefixtures("single_torch_thread")

COUNTER = CaseCounter()
READERS = ("read_config", "run_summary", "load_run", "load_checkpoint")
RUN_FILES = ("config.json", "metrics.json", "metadata.json", "history.csv", "model.pt")
JSON_FILES = ("config.json", "metrics.json", "metadata.json")


class Crafted:
    """A pickle payload that would create ``marker`` when unpickled by a full unpickler."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


class BaseRun:
    """Bytes of every file of a valid run; restores them into ``work``. Short repr."""

    def __init__(self, source, work) -> None:
        self.files = {p.name: p.read_bytes() for p in source.iterdir() if p.is_file()}
        self.work = work
        self.state = torch.load(source / "model.pt", weights_only=True)
        self.checkpoint = torch.load(source / "checkpoint.pt", weights_only=True)

    def restore(self):
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir()
        for name, data in self.files.items():
            (self.work / name).write_bytes(data)
        return self.work

    def __repr__(self) -> str:
        return f"BaseRun({self.work})"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs_fuzz")
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (40, 7))
    names_in = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
    write_dataset(folder / "d.h5", inputs=x, targets=np.sin(x[:, :3]), input_names=names_in,
                  target_names=("u1", "u2", "u3"), splits=make_splits(40, (0.6, 0.2, 0.2), rng),
                  problem="maxwell", domain="cube", recipe={"kind": "maxwell"}, seed=0)
    torch.set_num_threads(1)
    fit(folder / "d.h5", {"arch": "frac-dnn", "width": 4, "depth": 3}, {"epochs": 2, "seed": 0},
        folder / "run")
    assert (folder / "run" / "checkpoint.pt").is_file()
    return BaseRun(folder / "run", folder / "work")


def check_run_readers(run_dir, readers=("read_config", "run_summary", "load_run")) -> dict:
    """Run the given readers; each ends "ok" or in a one-line DataFormatError."""
    functions = {"read_config": read_config, "run_summary": run_summary, "load_run": load_run}
    with guarded_case():
        results = {name: outcome(functions[name], run_dir)[0] for name in readers}
    COUNTER.add(*readers)
    if results.get("load_run") == "ok":  # a loadable run is readable by the light readers
        assert results.get("read_config", "ok") == "ok" and results.get("run_summary",
                                                                         "ok") == "ok"
    if results.get("run_summary") == "ok":
        json.dumps(run_summary(run_dir))
    return results


# ----------------------------------------------------------------------------- byte damage


@st.composite
def damaged_bytes(draw, original: bytes) -> bytes | None:
    """Truncation, bit flips, an overwritten run of bytes, an empty file, or None (deleted)."""
    how = draw(st.sampled_from(["truncate", "flip", "overwrite", "empty", "delete"]))
    size = len(original)
    if how == "truncate":
        return original[:draw(st.integers(0, size - 1))]
    if how == "empty":
        return b""
    if how == "delete":
        return None
    data = bytearray(original)
    if how == "flip":
        for offset, bit in draw(st.lists(st.tuples(st.integers(0, size - 1),
                                                   st.integers(0, 7)), min_size=1, max_size=8)):
            data[offset] ^= 1 << bit
    else:
        start = draw(st.integers(0, size - 1))
        chunk = draw(st.binary(min_size=1, max_size=64))
        data[start:start + len(chunk)] = chunk[:size - start]
    return bytes(data)


def _put(path, data: bytes | None) -> None:
    if data is None:
        path.unlink()
    else:
        path.write_bytes(data)


@fuzz_settings(max_examples=250)
@given(name=st.sampled_from(RUN_FILES), data=st.data())
def test_damaged_run_files_fail_cleanly(base, name, data):
    run_dir = base.restore()
    damage = data.draw(damaged_bytes(base.files[name]))
    _put(run_dir / name, damage)
    results = check_run_readers(run_dir)
    if not damage:  # deleted or empty
        assert results["load_run"] == "error"
    if name == "model.pt" and results["load_run"] == "ok":  # damage outside the entries
        state = load_run(run_dir).model.state_dict()  # CRC-32 checked: weights are intact
        assert all(torch.equal(state[k], v) for k, v in base.state.items())


@fuzz_settings(max_examples=250)
@given(data=st.data())
def test_damaged_checkpoints_fail_cleanly(base, data):
    run_dir = base.restore()
    damage = data.draw(damaged_bytes(base.files["checkpoint.pt"]))
    _put(run_dir / "checkpoint.pt", damage)
    with guarded_case():
        status, _ = outcome(load_checkpoint, run_dir / "checkpoint.pt")
    COUNTER.add("load_checkpoint")
    if status == "ok":  # damage outside the zip entries (padding); the weights are intact
        model = load_checkpoint(run_dir / "checkpoint.pt")["model"]
        assert all(torch.equal(model[k], v) for k, v in base.checkpoint["model"].items())


# ------------------------------------------------------------------------------ JSON damage

JSON_JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8,
) | st.sampled_from([10**9, 2**62, -1, 0, 1e308, "1e999", [[[[[]]]]]])


def _paths(value, prefix=()):
    """Every (path, value) inside a JSON document (the root included)."""
    yield prefix, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


def _edit(document, path, action, junk):
    if not path:
        return junk
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    if action == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    return document


@fuzz_settings(max_examples=250)
@given(name=st.sampled_from(JSON_FILES), data=st.data())
def test_wrong_types_and_values_in_json_files_fail_cleanly(base, name, data):
    run_dir = base.restore()
    document = json.loads(base.files[name])
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p, _ in _paths(document)]
        path = data.draw(st.sampled_from(paths))
        action = data.draw(st.sampled_from(["delete", "replace"])) if path else "replace"
        # a copy: sampled_from hands out the same list object, and later edits go inside it
        document = _edit(document, path, action, copy.deepcopy(data.draw(JSON_JUNK)))
    (run_dir / name).write_text(json.dumps(document))
    check_run_readers(run_dir)


@pytest.mark.parametrize("field", ["width", "depth"])
def test_a_huge_model_config_is_refused_before_the_model_is_built(base, field):
    run_dir = base.restore()
    config = json.loads(base.files["config.json"])
    config["model"][field] = 10**9  # building it would need terabytes
    (run_dir / "config.json").write_text(json.dumps(config))
    with guarded_case(), pytest.raises(DataFormatError, match="needs at least"):
        load_run(run_dir)


def test_deeply_nested_json_is_refused(base):
    run_dir = base.restore()
    (run_dir / "metrics.json").write_text('{"a": ' + "[" * 50_000 + "]" * 50_000 + "}")
    with pytest.raises(DataFormatError, match="metrics.json: not valid JSON"):
        run_summary(run_dir)
    (run_dir / "metrics.json").write_text('{"a": ' + "[" * 500 + "]" * 500 + "}")
    with pytest.raises(DataFormatError, match="nested deeper than"):
        run_summary(run_dir)


# ------------------------------------------------------------------------ state_dict damage


def _state_mutation(state: dict, draw, marker: str):
    """A damaged copy of a state_dict (or another object in its place)."""
    state = dict(state)
    key = draw(st.sampled_from(sorted(state)))
    what = draw(st.sampled_from(["drop", "extra", "reshape", "dtype", "non-finite",
                                 "not-a-tensor", "not-a-dict", "crafted", "sparse", "empty"]))
    if what == "drop":
        del state[key]
    elif what == "extra":
        state[draw(st.text(max_size=10))] = torch.zeros(draw(st.integers(0, 4)))
    elif what == "reshape":
        shape = tuple(draw(st.lists(st.integers(0, 6), max_size=3)))
        state[key] = torch.zeros(shape, dtype=state[key].dtype)
    elif what == "dtype":
        dtype = draw(st.sampled_from([torch.int64, torch.float16, torch.bfloat16,
                                      torch.complex64, torch.bool, torch.uint8, torch.float32]))
        state[key] = state[key].to(dtype)
    elif what == "non-finite":
        value = state[key].clone().reshape(-1)
        if value.numel():
            value[draw(st.integers(0, value.numel() - 1))] = draw(
                st.sampled_from([math.nan, math.inf, -math.inf]))
        state[key] = value.reshape(state[key].shape)
    elif what == "not-a-tensor":
        state[key] = draw(st.sampled_from([1.0, 3, "w", [1.0, 2.0], {"a": 1}, None]))
    elif what == "not-a-dict":
        return draw(st.sampled_from([[state[key]], state[key], 7, "state", None]))
    elif what == "crafted":
        state[key] = Crafted(marker)
    elif what == "sparse":
        state[key] = state[key].reshape(-1).to_sparse() if state[key].numel() else state[key]
    else:
        return {}
    return state


@fuzz_settings(max_examples=200)
@given(data=st.data())
def test_damaged_state_dicts_fail_cleanly(base, data):
    run_dir = base.restore()
    marker = run_dir / "pwned"
    replacement = _state_mutation(base.state, data.draw, str(marker))
    torch.save(replacement, run_dir / "model.pt")
    results = check_run_readers(run_dir, ("load_run",))
    assert not marker.exists()  # no code from the file ever runs
    if results["load_run"] == "ok":
        run = load_run(run_dir)
        assert all(torch.isfinite(p).all() for p in run.model.state_dict().values())


@pytest.mark.parametrize("filename", ["model.pt", "checkpoint.pt"])
def test_crafted_pickles_are_refused_without_running(base, filename):
    run_dir = base.restore()
    marker = run_dir / "pwned"
    torch.save({"output.weight": Crafted(str(marker))}, run_dir / filename)
    with pytest.raises(DataFormatError, match="weights_only"):
        (load_run if filename == "model.pt" else load_checkpoint)(
            run_dir if filename == "model.pt" else run_dir / filename)
    (run_dir / filename).write_bytes(pickle.dumps(Crafted(str(marker))))  # a bare pickle
    with pytest.raises(DataFormatError, match="not a zip-format torch file"):
        (load_run if filename == "model.pt" else load_checkpoint)(
            run_dir if filename == "model.pt" else run_dir / filename)
    assert not marker.exists()


# ------------------------------------------------------------------------ checkpoint fields


@fuzz_settings(max_examples=300)
@given(data=st.data())
@pytest.mark.slow
def test_damaged_checkpoint_fields_fail_cleanly(base, data):
    run_dir = base.restore()
    payload = dict(base.checkpoint)
    for _ in range(data.draw(st.integers(1, 2))):
        key = data.draw(st.sampled_from(sorted(payload) + ["version", "format"]))
        action = data.draw(st.sampled_from(["delete", "junk", "state"]))
        if action == "delete":
            payload.pop(key, None)
        elif action == "junk":
            payload[key] = data.draw(JSON_JUNK | st.just(torch.zeros(2)))
        else:
            payload["model"] = _state_mutation(base.checkpoint["model"], data.draw,
                                               str(run_dir / "pwned"))
    torch.save(payload, run_dir / "checkpoint.pt")
    with guarded_case():
        status, value = outcome(load_checkpoint, run_dir / "checkpoint.pt")
    COUNTER.add("load_checkpoint")
    assert not (run_dir / "pwned").exists()
    if status == "ok":
        assert isinstance(value["model"], dict) and isinstance(value["epoch"], int)


# ------------------------------------------------------------------------ history and CLI


@fuzz_settings(max_examples=100)
@given(text=st.text(alphabet=st.sampled_from(list("0123456789.,-e\n\"abnNI_ ")), max_size=200),
       keep_header=st.booleans())
def test_malformed_history_fails_cleanly(base, text, keep_header):
    run_dir = base.restore()
    header = base.files["history.csv"].split(b"\n", 1)[0].decode() + "\n"
    (run_dir / "history.csv").write_text((header if keep_header else "") + text)
    check_run_readers(run_dir)


@pytest.mark.parametrize(("name", "damage"), [
    ("config.json", b"{"), ("config.json", b'{"format": "surrogate-run", "version": "1"}'),
    ("metrics.json", b"[1, 2]"), ("metadata.json", b"\xff\xfe"),
])
def test_info_on_a_corrupt_run_exits_2_with_one_line(base, name, damage):
    from surrogate.cli.app import app

    run_dir = base.restore()
    (run_dir / name).write_bytes(damage)
    result = CliRunner().invoke(app, ["info", str(run_dir)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and name in lines[0], result.output


def test_every_reader_reached_at_least_500_cases():
    """Runs last in this module: the fuzz tests above fed every reader >= 500 cases."""
    assert all(COUNTER.counts.get(name, 0) >= 500 for name in READERS), COUNTER.counts
    print(f"\ncases per reader: {COUNTER.counts}")
