"""Shared helpers of the fuzz suites: settings, a hang watchdog, a memory guard, outcomes."""

from __future__ import annotations

import contextlib
import faulthandler
import resource
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, settings

from surrogate.core.errors import DataFormatError


def fuzz_settings(max_examples: int) -> settings:
    """Deterministic, deadline-free hypothesis settings for CI (no example database)."""
    return settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


HANG_SECONDS = 60
"""One case taking longer than this is a hang: the watchdog dumps tracebacks and exits."""
MEMORY_GROWTH_BYTES = 512 << 20
"""Largest growth of the process's peak RSS one case may cause."""


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@contextlib.contextmanager
def guarded_case() -> Iterator[None]:
    """Kill the run on a hang (even inside C code) and fail on a memory blow-up."""
    before = peak_rss_bytes()
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
    growth = peak_rss_bytes() - before
    assert growth < MEMORY_GROWTH_BYTES, f"one case raised the peak RSS by {growth >> 20} MiB"


def outcome(reader: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", value) or ("error", message) for a DataFormatError; anything else propagates.

    The message of the documented error must be one line (the CLI prints it as is).
    """
    try:
        return "ok", reader(*args, **kwargs)
    except DataFormatError as exc:
        message = str(exc)
        assert message and "\n" not in message, f"not a one-line message: {message!r}"
        return "error", message


class CaseCounter:
    """How many fuzz cases reached each reader (printed by the suites' last test)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, *readers: str) -> None:
        for name in readers:
            self.counts[name] = self.counts.get(name, 0) + 1
