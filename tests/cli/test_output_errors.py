"""Unwritable or full output locations, through the real app.

Where it can be seen before any work (a folder below a regular file, a read-only file system,
too little free space) the command stops at once with one line naming the path and exit 2.
Where it cannot (the disk fills up or the file system turns read-only while writing) the
OSError becomes one line and exit 2, the atomic writers remove their temporary files and the
previous output stays as it was. Tests run as root, so read-only folders and full disks are
simulated by making the system calls fail (chmod does not stop root).
"""

import errno
import json
import os
import tempfile
from collections import namedtuple
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

import surrogate.core.output_paths as output_paths
from surrogate.cli.app import app
from surrogate.datasets import read_dataset

runner = CliRunner()
GEN = ["gen-data", "maxwell", "-n", "200", "-q"]
FIT = ["--depth", "2", "--width", "6", "--epochs", "5", "-q"]

pytestmark = pytest.mark.usefixtures("single_torch_thread")


def _invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _leftovers(folder: Path) -> list[str]:
    """Temporary files or folders (hidden names, *.tmp) anywhere under ``folder``."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.startswith(".") or p.name.endswith(".tmp"))


def _no_work(*_args, **_kwargs):
    raise AssertionError("work started although the output cannot be written")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("outerr") / "maxwell.h5"
    assert _invoke(*GEN, "--seed", "1", "-o", path).exit_code == 0
    return path


@pytest.fixture(scope="module")
def run(data):
    out = data.parent / "run"
    assert _invoke("fit", data, "-o", out, *FIT).exit_code == 0
    return out


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command gets past its output checks."""
    import surrogate.evaluation.static.measure as evaluation
    import surrogate.training.loop as training
    from surrogate.datasets import generators

    kinds = dict(generators.RECIPE_KINDS)
    kinds["maxwell"] = (kinds["maxwell"][0], _no_work)
    monkeypatch.setattr(generators, "RECIPE_KINDS", kinds)
    monkeypatch.setattr(training, "load_training_data", _no_work)
    monkeypatch.setattr(evaluation, "evaluate_runs", _no_work)


def _commands(tmp_path: Path, out: Path, data: Path) -> dict[str, list]:
    run_dir = tmp_path / "some-run"
    run_dir.mkdir(exist_ok=True)
    return {"gen-data": [*GEN, "-o", out / "d.h5"],
            "fit": ["fit", data, "-o", out / "run", *FIT],
            "evaluate": ["evaluate", run_dir, "--levels", "1", "--out", out / "eval", "-q"]}


@pytest.mark.parametrize("command", ["gen-data", "fit", "evaluate"])
def test_output_below_a_regular_file_fails_before_work(command, data, tmp_path, no_work):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    args = _commands(tmp_path, blocker / "sub", data)[command]
    _one_line_error(_invoke(*args), str(blocker / "sub"), f"{blocker} is a file")
    assert blocker.read_text() == "a file, not a folder"


@pytest.mark.parametrize("command", ["gen-data", "fit", "evaluate"])
def test_read_only_output_folder_fails_before_work(command, data, tmp_path, no_work,
                                                   monkeypatch):
    out = tmp_path / "mounted-read-only"
    out.mkdir()
    real_mkstemp = tempfile.mkstemp

    def read_only(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).is_relative_to(out):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(output_paths.tempfile, "mkstemp", read_only)
    line = _one_line_error(_invoke(*_commands(tmp_path, out, data)[command]), str(out),
                           "Read-only file system")
    assert "Traceback" not in line
    assert list(out.iterdir()) == []


def test_too_little_free_space_for_the_dataset_fails_before_work(tmp_path, no_work,
                                                                 monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(output_paths.shutil, "disk_usage",
                        lambda path: usage(10**6, 10**6 - 4096, 4096))
    out = tmp_path / "d.h5"
    _one_line_error(_invoke(*GEN, "-n", "100000", "-o", out), str(out), "needs about",
                    "only 4.0 KiB free")
    assert not out.exists()


def test_disk_full_while_writing_a_dataset_keeps_the_previous_one(tmp_path, monkeypatch):
    import surrogate.datasets.writer as writer

    out = tmp_path / "data" / "d.h5"
    assert _invoke(*GEN, "--seed", "1", "-o", out).exit_code == 0
    before, summary = read_dataset(out).content_hash, out.with_name("d.h5.json").read_text()
    real_put, calls = writer._put, []

    def full_disk(group, name, array):
        calls.append(name)
        if len(calls) == 3:  # inputs and targets are written, the splits are not
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_put(group, name, array)

    monkeypatch.setattr(writer, "_put", full_disk)
    _one_line_error(_invoke(*GEN, "--seed", "2", "-o", out), "No space left on device",
                    "ENOSPC")
    assert read_dataset(out, verify_hash=True).content_hash == before
    assert out.with_name("d.h5.json").read_text() == summary
    assert _leftovers(out.parent) == []


def test_file_system_turning_read_only_at_the_rename_keeps_the_previous_dataset(
        tmp_path, monkeypatch):
    out = tmp_path / "data" / "d.h5"
    assert _invoke(*GEN, "--seed", "1", "-o", out).exit_code == 0
    before = read_dataset(out).content_hash

    def read_only(src, dst):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(src))

    monkeypatch.setattr(os, "replace", read_only)
    _one_line_error(_invoke(*GEN, "--seed", "2", "-o", out), "Read-only file system")
    monkeypatch.undo()
    assert read_dataset(out, verify_hash=True).content_hash == before
    assert json.loads(out.with_name("d.h5.json").read_text())["content_hash"] == before
    assert _leftovers(out.parent) == []


def test_disk_full_during_training_keeps_the_last_checkpoint_and_resumes(data, tmp_path,
                                                                         monkeypatch):
    from surrogate.runs.checkpoints import load_checkpoint
    from surrogate.runs.load import load_run

    real_save, saves = torch.save, []

    def filling_disk(obj, fh, *args, **kwargs):
        saves.append(1)
        if len(saves) >= 3:  # checkpoints of epochs 1 and 2 fit, the third does not
            fh.write(b"PK\x03\x04 half a checkpoint")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_save(obj, fh, *args, **kwargs)

    monkeypatch.setattr(torch, "save", filling_disk)
    out = tmp_path / "run"
    _one_line_error(_invoke("fit", data, "-o", out, "--checkpoint-every", "1", *FIT),
                    "No space left on device")
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.pt"]
    assert load_checkpoint(out / "checkpoint.pt")["epoch"] == 2
    monkeypatch.undo()  # space freed
    result = _invoke("fit", data, "-o", out, "--resume", "-q")
    assert result.exit_code == 0, result.output
    assert [row["epoch"] for row in load_run(out).history] == [1, 2, 3, 4, 5]


def test_disk_full_while_writing_an_evaluation_keeps_the_previous_one(run, tmp_path,
                                                                      monkeypatch):
    import surrogate.evaluation.api as evaluation_api

    out = tmp_path / "eval"
    args = ["evaluate", run, "--domain", "cube", "--levels", "1", "--out", out, "-q"]
    assert _invoke(*args).exit_code == 0
    before = (out / "evaluation.json").read_bytes()

    def full_disk(path, payload):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(evaluation_api, "write_json_file", full_disk)
    _one_line_error(_invoke(*args, "--vtk", tmp_path / "vtk"), "No space left on device")
    assert (out / "evaluation.json").read_bytes() == before
    assert not (tmp_path / "vtk").exists()
    assert _leftovers(tmp_path) == []
