"""Files this process wrote, or probed, skip the forked probe until anything changes them."""

import os

import pytest

import surrogate.datasets.reader as reader
from surrogate.datasets import read_dataset, validate_dataset
from surrogate.datasets import trusted_files as trusted


@pytest.fixture
def probes(monkeypatch):
    """Count the reader's forked probes (each still runs)."""
    calls = []
    real = reader.crash_probe

    def counted(probe, timeout):
        calls.append(timeout)
        return real(probe, timeout)

    monkeypatch.setattr(reader, "crash_probe", counted)
    return calls


def test_a_file_this_process_wrote_is_read_without_a_probe(small_file, probes):
    path, inputs, _, _ = small_file
    assert trusted.is_trusted(path.stat())
    data = read_dataset(path)
    assert validate_dataset(path) == [] and probes == []
    assert (data.inputs == inputs).all()


def test_any_change_to_the_file_brings_the_probe_back(small_file, probes):
    path = small_file[0]
    with open(path, "ab") as f:  # grows: the size and the times change
        f.write(b"\0" * 8)
    assert not trusted.is_trusted(path.stat())
    read_dataset(path)
    assert len(probes) == 1
    read_dataset(path)  # probed and unchanged since: trusted again
    assert len(probes) == 1
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # touched: probed again
    read_dataset(path)
    assert len(probes) == 2


def test_a_file_put_in_its_place_is_probed(small_file, probes, tmp_path):
    path = small_file[0]
    copy = tmp_path / "copy.h5"
    copy.write_bytes(path.read_bytes())  # same bytes, another inode: not ours
    os.replace(copy, path)
    read_dataset(path)
    assert len(probes) == 1


def test_the_memory_of_trusted_files_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(trusted, "_TRUSTED", {})
    monkeypatch.setattr(trusted, "LIMIT", 3)
    stats = []
    for k in range(4):
        (tmp_path / f"f{k}").write_bytes(b"x" * (k + 1))
        stats.append((tmp_path / f"f{k}").stat())
        trusted.trust(stats[-1])
    assert [trusted.is_trusted(s) for s in stats] == [False, True, True, True]
