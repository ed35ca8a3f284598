"""held_signals: SIGINT/SIGTERM recorded during a block and delivered when it ends."""

import os
import signal

import pytest

from surrogate.core.interrupts import held_signals


def _send(signum=signal.SIGINT):
    os.kill(os.getpid(), signum)


def test_a_signal_waits_for_the_end_of_the_block():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            _send()
            done.append("after the signal")  # still runs
    assert done == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_deliver_hands_the_signal_over_where_the_caller_chooses():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals() as held:
            _send()
            steps.append(held.pending)
            held.deliver()
            steps.append("not reached")
    assert steps == [True]


def test_a_second_signal_passes_when_asked():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals(second_passes=True):
            _send()
            steps.append(1)
            _send()
            steps.append(2)
    assert steps == [1]


def test_an_error_in_the_block_does_not_swallow_the_signal():
    with pytest.raises(KeyboardInterrupt) as info:
        with held_signals():
            _send()
            raise OSError("disk full")
    assert isinstance(info.value.__context__, OSError)


def test_default_handlers_are_left_alone_on_request():
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with held_signals(python_handlers_only=True):
            assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        with held_signals():
            assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_block_without_signals_changes_nothing():
    with held_signals() as held:
        pass
    assert not held.pending
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
