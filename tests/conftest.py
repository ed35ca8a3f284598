"""Shared pytest configuration: small thread counts, SIGINT as in a foreground run, and the
warm `surrogate` / `python` of tests/warm_cli.py."""

import os
import signal

os.environ.setdefault("OMP_NUM_THREADS", "2")
# A run started in the background of a non-interactive shell (`make test &` in a script)
# inherits SIGINT ignored, and Python then keeps it ignored; the interrupt tests send SIGINT
# to this process and expect Python's default handler, as in a foreground run.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

import pytest  # noqa: E402  (after the environment is set)


@pytest.fixture
def single_torch_thread():
    """Tiny problems: one intra-op thread is fastest (and immune to a loaded machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def warm_commands(tmp_path_factory):
    """``surrogate`` and ``python`` served warm by one interpreter that has imported torch
    and the package once (tests/warm_cli.py), for tests that run many short programs."""
    import shutil
    import sys
    from pathlib import Path

    from .warm_cli import warm_surrogate

    bin_dir = Path(sys.executable).parent
    entry_point = shutil.which("surrogate", path=str(bin_dir)) or "surrogate"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # what a runtime reads once when it loads
    with warm_surrogate(tmp_path_factory.mktemp("warm"), entry_point, env) as commands:
        yield commands
