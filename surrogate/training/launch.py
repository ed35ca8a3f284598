"""``surrogate fit --nproc N``: the command itself, run as N processes by torchrun's launcher.

:func:`launch_processes` hands the same command line to
``torch.distributed.launcher.elastic_launch`` (the engine behind ``torchrun --standalone``):
N workers on this machine, a c10d rendezvous on a free local port, no restarts. Each worker
sees ``WORLD_SIZE = N`` and trains its share (:mod:`surrogate.training.distributed`). Rank 0
writes to this terminal; the other ranks' output goes to log files, kept and named when one of them
fails. An interrupt (Ctrl-C, SIGTERM) is passed to the workers, which checkpoint at the end
of the epoch and stop together.
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from surrogate.core.errors import InputError

SHUTDOWN_TIMEOUT_S = 60  # time the workers get to checkpoint after an interrupt


@dataclass(frozen=True)
class LaunchResult:
    """How the launch ended: the exit code to return and, on failure, one line why."""

    exit_code: int
    message: str | None = None


def _worker_logs(log_dir: Path, rank: int) -> str:
    """The log files of a rank (the launcher nests them per attempt)."""
    files = sorted(str(p) for p in log_dir.rglob("*") if p.is_file() and f"/{rank}/" in str(p))
    return ", ".join(files) or str(log_dir)


def launch_processes(nproc: int, argv: Sequence[str]) -> LaunchResult:
    """Run ``python -m surrogate *argv`` as ``nproc`` data-parallel processes; wait for them."""
    if nproc < 2:
        raise InputError(f"--nproc {nproc}: launch two or more processes (1 trains here)")
    import torch.distributed as dist

    if not dist.is_available():
        raise InputError("this torch build has no torch.distributed; train with one process")
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, SignalException, Std
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    for name in list(logging.root.manager.loggerDict):  # the agent's own warnings and errors
        if name.startswith("torch.distributed"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    log_dir = Path(tempfile.mkdtemp(prefix="surrogate-fit-"))
    quiet_ranks = {rank: Std.ALL for rank in range(1, nproc)}
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=nproc, run_id=str(uuid.uuid4()),
        rdzv_backend="c10d", rdzv_endpoint="localhost:0", max_restarts=0,
        monitor_interval=0.1, start_method="spawn", shutdown_timeout=SHUTDOWN_TIMEOUT_S,
        logs_specs=DefaultLogsSpecs(log_dir=str(log_dir), redirects=quiet_ranks))
    keep_logs = False
    try:
        elastic_launch(config, sys.executable)("-m", "surrogate", *argv)
        return LaunchResult(0)
    except ChildFailedError as exc:
        rank, failure = min(exc.failures.items())
        code = failure.exitcode if failure.exitcode > 0 else 128 - failure.exitcode
        if rank == 0 or failure.exitcode < 0:
            return LaunchResult(code)  # rank 0 said why on this terminal, or a signal did
        keep_logs = True
        return LaunchResult(code, f"training process {rank} of {nproc} failed (exit code "
                                  f"{failure.exitcode}); its output: {_worker_logs(log_dir, rank)}")
    except SignalException as exc:
        return LaunchResult(128 + int(exc.sigval), None)
    finally:
        if not keep_logs:
            shutil.rmtree(log_dir, ignore_errors=True)


__all__ = ["launch_processes", "LaunchResult"]
