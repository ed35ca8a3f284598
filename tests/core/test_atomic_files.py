"""Atomic writes: all or nothing under the final name, ordinary permissions."""

import os
import stat

import pytest

from surrogate.core.atomic_files import atomic_path, write_atomic, write_text_atomic


def test_written_file_has_umask_permissions_and_content(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_text_atomic(tmp_path / "sub" / "a.json", '{"x": 1}\n')
    finally:
        os.umask(old)
    assert path.read_text() == '{"x": 1}\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.json"]


def test_failure_mid_write_leaves_no_file_and_keeps_the_old_one(tmp_path):
    path = tmp_path / "b.bin"
    path.write_bytes(b"old")

    def half_then_fail(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, half_then_fail)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["b.bin"]


def test_atomic_path_keeps_the_suffix_for_format_sniffing_writers(tmp_path):
    with atomic_path(tmp_path / "c.vtu", ".vtu") as tmp:
        assert tmp.suffix == ".vtu" and tmp.parent == tmp_path
        tmp.write_text("x")
    assert (tmp_path / "c.vtu").read_text() == "x"
    assert not tmp.exists()
