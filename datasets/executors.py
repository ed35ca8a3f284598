"""Executors for data generation: this process, a local process pool, or a Dask cluster.

``--workers N`` starts a ``ProcessPoolExecutor`` of N processes; ``--scheduler tcp://host:port``
connects to a running Dask scheduler (a SLURM/Kubernetes cluster started with dask-jobqueue
or dask-kubernetes) and ``--dask-cluster local:N`` starts a Dask ``LocalCluster`` of N
single-threaded workers; both hand out ``Client.get_executor()``. Dask is optional
(``pip install surrogate[distributed]``) and imported only here, when asked for.

Pool workers ignore SIGINT/SIGTERM: the parent, the one process that writes, handles the
interrupt, keeps what was written and kills them; a worker whose parent vanished (SIGKILL)
ends itself within :data:`PARENT_POLL_S` seconds. Each worker caps its BLAS pools at its share
of the CPUs (numpy, scipy and NGSolve each load an OpenBLAS that starts one thread per core).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor

from surrogate.core.errors import InputError

DASK_EXTRA = "pip install surrogate[distributed]"
CONNECT_TIMEOUT_S = 10
PARENT_POLL_S = 1.0


def _worker_start(parent: int, blas_threads: int) -> None:
    """Pool workers leave Ctrl-C and SIGTERM to the parent, which stops them (no tracebacks
    from them), end themselves when the parent is gone (killed before it could), and share
    the cores: ``blas_threads`` BLAS threads each."""
    from surrogate.core.thread_settings import cap_blas_threads

    cap_blas_threads(blas_threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:  # it exists
            pass


def import_distributed():
    """The ``distributed`` module, or InputError naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise InputError(f"Dask is not installed: {DASK_EXTRA}") from None
    return distributed


def parse_local_cluster(spec: str) -> int:
    """``"local:N"`` -> N >= 1 (the number of single-threaded local Dask workers)."""
    kind, _, count = spec.partition(":")
    if kind != "local" or not count.isdigit() or int(count) < 1:
        raise InputError(f"--dask-cluster {spec!r}: expected local:N with N >= 1")
    return int(count)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued tasks and end the workers now (an interrupt must not wait for them)."""
    kill = getattr(pool, "kill_workers", None)  # Python >= 3.14
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    if kill is not None:
        with contextlib.suppress(Exception):
            kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()  # they ignore SIGTERM


def _start_method() -> str:
    """``fork`` on Linux (workers start at once with the modules loaded; the tasks use no
    threads or locks of the parent), ``forkserver`` there once netgen has meshed in this
    process (its meshing leaves a thread, and a forked child's own meshing waits on it for
    ever: the fitted truth meshes in every task), else the platform's default (``spawn`` on
    macOS)."""
    if not sys.platform.startswith("linux"):
        return multiprocessing.get_start_method()
    return "forkserver" if "netgen" in sys.modules and _native_threads() > 1 else "fork"


def _native_threads() -> int:
    """The threads of this process, Python's and native ones (Linux's /proc)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def blas_threads_per_worker(workers: int) -> int:
    """BLAS threads of each of ``workers`` pool processes: the available CPUs shared out,
    at least 1."""
    from surrogate.core.thread_settings import available_cpus

    return max(1, available_cpus() // max(1, workers))


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes that ignore Ctrl-C, end with their parent and share
    the CPUs (:func:`blas_threads_per_worker` BLAS threads each)."""
    context = multiprocessing.get_context(_start_method())
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_worker_start,
                               initargs=(os.getpid(), blas_threads_per_worker(workers)))
    try:
        yield pool
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def dask_executor(scheduler: str | None = None, local_workers: int | None = None,
                  processes: bool = True) -> Iterator[Executor]:
    """``Client.get_executor()`` of the scheduler at ``scheduler`` or of a new LocalCluster of
    ``local_workers`` single-threaded workers (``processes=False``: threads of this process)."""
    distributed = import_distributed()
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            try:
                client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S,
                                            set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise InputError(f"cannot reach the Dask scheduler {scheduler}: {reason}") \
                    from None
        else:
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=local_workers, threads_per_worker=1, processes=processes,
                dashboard_address=None, silence_logs=logging.ERROR))
            client = distributed.Client(cluster, set_as_default=False)
        stack.callback(client.close)
        executor = client.get_executor(pure=False)
        try:
            yield executor
        except BaseException:
            executor.shutdown(wait=False)
            raise


@contextlib.contextmanager
def open_executor(workers: int = 1, scheduler: str | None = None,
                  dask_cluster: str | None = None) -> Iterator[Executor | None]:
    """The executor the flags ask for; None (this process) for ``workers=1`` and no Dask."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"--workers {workers!r}: expected an integer >= 1")
    chosen = [name for name, used in (("--workers", workers > 1), ("--scheduler", scheduler),
                                      ("--dask-cluster", dask_cluster)) if used]
    if len(chosen) > 1:
        raise InputError(f"choose one of {', '.join(chosen)}")
    if scheduler is not None:
        if "://" not in scheduler:
            raise InputError(f"--scheduler {scheduler!r}: expected an address like "
                             "tcp://host:8786")
        with dask_executor(scheduler=scheduler) as executor:
            yield executor
    elif dask_cluster is not None:
        count = parse_local_cluster(dask_cluster)
        with dask_executor(local_workers=count) as executor:
            yield executor
    elif workers > 1:
        with process_pool(workers) as pool:
            yield pool
    else:
        yield None


__all__ = ["blas_threads_per_worker", "open_executor", "process_pool", "dask_executor",
           "import_distributed", "parse_local_cluster", "DASK_EXTRA"]
