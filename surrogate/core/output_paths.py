"""Checks of an output location before any work starts: a folder files can be created in,
and room for what will be written.

Permission bits alone mislead (root ignores them, read-only mounts and ACLs do not show in
them), so writability is probed: a temporary file is created in the folder and removed.
Standard library only. Where a failure cannot be foreseen (the disk fills up while writing),
the atomic writers keep the final names clean and the command line reports the OSError.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from surrogate.core.errors import InputError
from surrogate.core.interrupts import held_signals


def nearest_existing(path: str | os.PathLike) -> Path:
    """``path`` itself if it exists, else its closest existing ancestor."""
    path = Path(path).absolute()
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor)


def check_output_folder(folder: str | os.PathLike, *, needed_bytes: int = 0,
                        what: str = "output folder") -> None:
    """InputError (one line naming the path) unless files can be created in ``folder``.

    ``folder`` may not exist yet (the writers create it): then its nearest existing ancestor
    must be a writable folder. ``needed_bytes`` > 0 also requires that much free space.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{what} {folder} exists and is not a folder")
    problem = _unwritable(folder, needed_bytes)
    if problem:
        raise InputError(f"cannot write {what} {folder}: {problem}")


def check_output_file(path: str | os.PathLike, *, needed_bytes: int = 0,
                      what: str = "output file") -> None:
    """InputError unless ``path`` can be written (atomically: created in its folder)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{what} {path} is a folder; give a file name")
    problem = _unwritable(path.parent, needed_bytes)
    if problem:
        raise InputError(f"cannot write {what} {path}: {problem}")


def _unwritable(folder: Path, needed_bytes: int) -> str | None:
    """Why files cannot be created in ``folder`` (None when they can)."""
    base = nearest_existing(folder)
    if not base.is_dir():
        return f"{base} is a file, not a folder"
    with held_signals():  # an interrupt leaves no probe file behind
        try:
            fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=base)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            return f"{base} is not writable ({exc.strerror or exc})"
    if needed_bytes > 0:
        free = shutil.disk_usage(base).free
        if free < needed_bytes:
            return (f"needs about {_size(needed_bytes)}, only {_size(free)} free on the file "
                    f"system of {base}")
    return None


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


__all__ = ["check_output_file", "check_output_folder", "nearest_existing"]
