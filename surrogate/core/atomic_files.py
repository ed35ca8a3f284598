"""Atomic file writes: a temporary file next to the target, renamed into place on success.

An interrupted or failing write never leaves a half-written file under the final name, and
the file gets the permissions of an ordinary new file (``0666 & ~umask``), not mkstemp's 0600.
Standard library only, so every part of the package (``fem`` included) can use it.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def ordinary_permissions(path: str | os.PathLike) -> None:
    """Give ``path`` the mode an ordinary ``open(path, "w")`` would: 0666 minus the umask."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path next to ``path`` to write to; rename it to ``path`` on success.

    The suffix keeps writers that pick a format by extension (meshio, matplotlib) working.
    """
    from surrogate.core.interrupts import held_signals

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with held_signals():  # Ctrl-C cannot fall between creating the file and recording it
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
            os.close(fd)
        yield Path(tmp)
        ordinary_permissions(tmp)
        os.replace(tmp, path)
    finally:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def write_atomic(path: str | os.PathLike, write: Callable[[io.BufferedWriter], object]) -> Path:
    """Call ``write(binary_file)`` on a temporary file next to ``path``, fsync, rename."""
    path = Path(path)
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) atomically."""
    return write_atomic(path, lambda fh: fh.write(text.encode("utf-8")))


__all__ = ["atomic_path", "ordinary_permissions", "write_atomic", "write_text_atomic"]
