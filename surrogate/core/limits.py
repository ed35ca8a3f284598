"""Resource limits shared by the readers of untrusted files (datasets, run directories)."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator

MAX_COMPRESSION_RATIO = 1100
"""Largest expansion accepted for compressed data: deflate tops out near 1032:1."""
MAX_TEXT_BYTES = 64 << 20
"""Largest JSON/CSV file of a run directory that is read (history of 4000 epochs: ~1 MiB)."""
MAX_NESTING = 100
"""Deepest nesting of JSON containers accepted (run files nest 4 levels)."""


def memory_budget() -> int:
    """Bytes one array read from a file may take in memory: half the available memory.

    From ``/proc/meminfo`` (``MemAvailable``), else the physical page count, else 8 GiB.
    A file declaring more is refused before anything is allocated.
    """
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 // 2
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, OSError, ValueError):
        return 8 << 30


CEILING_SLACK = 256 << 20
"""Address space granted on top of the memory budget while a file is parsed (library use)."""
_ceiling_lock = threading.RLock()
_ceiling_depth = 0


def _virtual_size() -> int:
    """Current virtual memory size of this process in bytes (``VmSize``, Linux)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


@contextlib.contextmanager
def memory_ceiling(budget: int) -> Iterator[None]:
    """Cap this process's address space at its current size + ``budget`` + slack while
    parsing a file.

    Parsers in C (libhdf5, torch's zip reader) size some buffers from fields of the file;
    inside this block a corrupt field makes the allocation fail (an error the reader reports)
    instead of exhausting memory. ``budget`` is normally :func:`memory_budget`;
    :data:`CEILING_SLACK` is added for the libraries' own needs. The previous limit is
    restored on exit; nested and concurrent uses share the outermost ceiling. Where
    ``RLIMIT_AS`` or ``/proc`` is unavailable this is a no-op.
    """
    global _ceiling_depth
    with _ceiling_lock:
        _ceiling_depth += 1
        restore = None
        try:
            if _ceiling_depth == 1:
                restore = _set_ceiling(budget + CEILING_SLACK)
            yield
        finally:
            _ceiling_depth -= 1
            if restore is not None:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, restore)


def _set_ceiling(extra: int) -> tuple[int, int] | None:
    """Lower the soft RLIMIT_AS to current size + ``extra``; return the old limits or None."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = _virtual_size() + extra
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        return None  # an existing limit is already tighter
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (OSError, ValueError):
        return None
    return soft, hard


def crash_probe(probe: Callable[[], object], timeout: float) -> str | None:
    """Run ``probe`` in a forked child process; return why it died, or None if it finished.

    For C parsers (libhdf5) that can crash or loop forever on a corrupt file: the parent
    learns of a segfault or a hang without suffering it. Python exceptions in the child
    count as finished (the caller meets them again in-process and reports them). Where
    ``os.fork`` is missing or fails this returns None without probing. The child only runs
    ``probe`` and ``os._exit``: it never returns into the caller's stack.
    """
    if not hasattr(os, "fork"):
        return None
    try:
        with warnings.catch_warnings():  # Python >= 3.12 warns when other threads exist
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # no process to spare: read without the probe
        return None
    if pid == 0:  # the child: run the probe, never return into the caller's stack
        try:
            import faulthandler

            faulthandler.disable()
            probe()
        except BaseException:  # only a crash or a hang matters here
            pass
        finally:
            os._exit(0)
    try:
        finished = _wait_for(pid, timeout)
    except BaseException:
        _kill(pid)
        raise
    if not finished:
        _kill(pid)
        return f"did not finish within {timeout:g} s (corrupt file makes the parser loop?)"
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return f"crashes the parser ({name}; corrupt file)"
    return None


def _wait_for(pid: int, timeout: float) -> bool:
    """Whether child ``pid`` exits within ``timeout`` seconds (it is not reaped)."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        deadline, pause = time.monotonic() + timeout, 0.0005
        while time.monotonic() < deadline:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
            time.sleep(pause)
            pause = min(2 * pause, 0.05)
        return False
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, ChildProcessError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def size_text(n_bytes: int) -> str:
    """``n_bytes`` as a short human-readable size (MiB or GiB)."""
    return f"{n_bytes / 2**30:.3g} GiB" if n_bytes >= 2**30 else f"{n_bytes / 2**20:.3g} MiB"


__all__ = ["MAX_COMPRESSION_RATIO", "MAX_TEXT_BYTES", "MAX_NESTING", "CEILING_SLACK",
           "memory_budget", "memory_ceiling", "crash_probe", "size_text"]
