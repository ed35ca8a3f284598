"""Dataset files this process may open without a forked probe: its own, or probed before.

The reader scans a file in a forked child first (:func:`~surrogate.core.limits.crash_probe`),
so that a file which crashes libhdf5 or makes it loop is reported instead of killing this
process. A fork costs time in proportion to the forking process's memory (3 ms from a bare
interpreter, 20-40 ms from one that has imported torch and holds a model), and ``info``,
``fit`` or a script that writes and then reads a dataset would pay it for nothing: a file this
process has just written, or whose probe has finished, and that is unchanged since, is trusted.
"Unchanged" is the identity (device, inode, size, modification and change times): any write,
truncation or replacement changes it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

_TRUSTED: dict[tuple[int, ...], None] = {}
LIMIT = 256
"""Identities remembered at most (the oldest are forgotten first)."""


def identity(stat: os.stat_result) -> tuple[int, ...]:
    """(device, inode, size, mtime, ctime) of a file: what any change to it changes."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def is_trusted(stat: os.stat_result) -> bool:
    """Whether the file with this ``stat`` was written or probed by this process, unchanged."""
    return identity(stat) in _TRUSTED


def trust(stat: os.stat_result) -> None:
    """Remember the file with this ``stat`` as safe to open in this process."""
    key = identity(stat)
    _TRUSTED.pop(key, None)
    if len(_TRUSTED) >= LIMIT:
        del _TRUSTED[next(iter(_TRUSTED))]
    _TRUSTED[key] = None


def commit_own(tmp: Path, path: Path, commit: Callable[[Path, Path], None] | None) -> None:
    """Put the complete file ``tmp`` at ``path`` (``commit``, default ``os.replace``) and trust
    it when ``path`` is still the inode this process wrote."""
    written = os.stat(tmp)
    (commit or os.replace)(tmp, path)
    with contextlib.suppress(OSError):
        placed = os.stat(path)
        if identity(placed)[:4] == identity(written)[:4]:  # the rename changes only the ctime
            trust(placed)


__all__ = ["identity", "is_trusted", "trust", "commit_own"]
