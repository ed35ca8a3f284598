"""Interrupt signals (SIGINT, SIGTERM) held back while work must not be cut in two.

Python raises KeyboardInterrupt on SIGINT between two bytecodes, anywhere. Two kinds of code
must not be cut there: a *commit* (renaming finished temporary files into place, where an
interrupt between two renames would leave outputs that do not belong together) and a
*training epoch* (stopped at its end, the state can be checkpointed and resumed exactly).
:func:`held_signals` swaps the Python-level handlers of SIGINT and SIGTERM for one that only
records the signal, and hands a recorded signal to the original handler when asked
(:meth:`HeldSignals.deliver`) or when the block ends. Standard library only; outside the main
thread (where handlers cannot be set) it holds nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class HeldSignals:
    """The signals recorded during a :func:`held_signals` block and their original handlers."""

    previous: dict[int, Any] = field(default_factory=dict)
    received: list[tuple[int, FrameType | None]] = field(default_factory=list)

    @property
    def pending(self) -> bool:
        """True when a held signal waits to be delivered."""
        return bool(self.received)

    def deliver(self) -> None:
        """Hand the first recorded signal to its original handler (which usually raises
        KeyboardInterrupt); a default handler ends the process as the signal would have."""
        if not self.received:
            return
        signum, frame = self.received[0]
        self.received.clear()
        _call_handler(self.previous[signum], signum, frame)


def _call_handler(handler: Any, signum: int, frame: FrameType | None) -> None:
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


def _holdable(handler: Any, python_handlers_only: bool) -> bool:
    if handler is None or handler == signal.SIG_IGN:
        return False
    return callable(handler) or not python_handlers_only


@contextlib.contextmanager
def held_signals(*, python_handlers_only: bool = False, second_passes: bool = False
                 ) -> Iterator[HeldSignals]:
    """Record SIGINT/SIGTERM instead of acting on them; deliver the first one when the block
    ends, also when it ends by an exception (unless :meth:`HeldSignals.deliver` already did).

    ``python_handlers_only``: leave signals alone whose handler is the OS default (a library
    user's SIGTERM still ends the process at once). ``second_passes``: a second signal of a
    kind already held goes to the original handler at once (a second Ctrl-C stops now).
    """
    held = HeldSignals()
    if threading.current_thread() is not threading.main_thread():
        yield held
        return

    def record(signum: int, frame: FrameType | None) -> None:
        if second_passes and any(s == signum for s, _ in held.received):
            _call_handler(held.previous[signum], signum, frame)
            return
        held.received.append((signum, frame))

    installed: list[int] = []
    try:
        for signum in INTERRUPT_SIGNALS:
            handler = signal.getsignal(signum)
            if _holdable(handler, python_handlers_only):
                held.previous[signum] = handler
                signal.signal(signum, record)
                installed.append(signum)
        yield held
    finally:
        for signum in installed:
            signal.signal(signum, held.previous[signum])
        held.deliver()


def on_interrupt_signals(handler: Callable[[int, FrameType | None], None]) -> None:
    """Install ``handler`` for SIGINT and SIGTERM (main thread only), except for a signal the
    parent set to be ignored (e.g. SIGINT of a background job in a shell script)."""
    for signum in INTERRUPT_SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, handler)


__all__ = ["HeldSignals", "INTERRUPT_SIGNALS", "held_signals", "on_interrupt_signals"]
