"""Output locations: checks before any work starts (a folder files can be created in, room
for what will be written) and staged folders, moved into place only when complete.

Permission bits alone mislead (root ignores them, read-only mounts and ACLs do not show in
them), so writability is probed: a temporary file is created in the folder and removed.
Standard library only. Where a failure cannot be foreseen (the disk fills up while writing),
the atomic writers keep the final names clean and the command line reports the OSError.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
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


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _merge_into(src: Path, dest: Path) -> None:
    """Move the tree ``src`` into ``dest``: files replace same-named files, others stay."""
    if not dest.exists():
        os.replace(src, dest)
        return
    if not dest.is_dir() or not src.is_dir():
        if dest.is_dir():
            shutil.rmtree(dest)
        os.replace(src, dest)
        return
    for child in src.iterdir():
        _merge_into(child, dest / child.name)
    src.rmdir()


@contextlib.contextmanager
def staged_outputs(targets: list[Path]) -> Iterator[dict[Path, Path]]:
    """Yield {final folder: temporary folder}; move them into place only on success.

    Folders nested in another target are staged inside that target's temporary folder.
    Temporary folders are siblings of the final ones (same file system, so moves are renames).
    On an error or an interrupt nothing is left behind; an existing output folder keeps files
    it had that are not written again. The move holds interrupt signals back until it is done,
    so an output folder is never half updated.
    """
    finals = [t.resolve() for t in targets]
    roots = [t for t in dict.fromkeys(finals)
             if not any(o != t and _is_within(t, o) for o in finals)]
    created_parents: list[Path] = []
    temps: dict[Path, Path] = {}
    try:
        with held_signals():  # every folder created here is recorded for the clean-up
            for root in roots:
                missing = [p for p in [root.parent, *root.parent.parents] if not p.exists()]
                for parent in reversed(missing):
                    parent.mkdir()
                    created_parents.append(parent)
                temps[root] = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-",
                                                    dir=root.parent))
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temps[root], 0o777 & ~umask)  # mkdtemp creates 0700
        staged = {}
        for final in finals:
            root = next(r for r in roots if _is_within(final, r))
            staged[final] = temps[root] / final.relative_to(root)
            staged[final].mkdir(parents=True, exist_ok=True)
        yield staged
    except BaseException:
        for tmp in temps.values():
            shutil.rmtree(tmp, ignore_errors=True)
        for parent in reversed(created_parents):
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise
    with held_signals():  # an interrupt cannot leave a half-merged output folder
        for root, tmp in temps.items():
            _merge_into(tmp, root)


__all__ = ["check_output_file", "check_output_folder", "nearest_existing", "staged_outputs"]
