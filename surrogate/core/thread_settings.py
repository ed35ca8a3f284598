"""The thread settings a timing depends on, and the OpenMP wait policy training runs under.

Wait policy: torch's OpenMP runtime (GNU libgomp in the Linux wheels) lets an idle worker
thread spin for about 3 ms (300,000 spins) before it sleeps. On a machine where another
process keeps a core busy, the spinning workers and that process share the core in
scheduler slices, and every parallel region waits for the slowest worker: 200 epochs of the
demo's Frac-DNN took 120 s with 2 threads against 13 s with 1 thread and 12.8 s with 2
threads under ``OMP_WAIT_POLICY=PASSIVE`` (workers sleep at once when idle; 6.4 s on the quiet
machine). :func:`set_default_wait_policy` therefore sets ``OMP_WAIT_POLICY=PASSIVE`` when the
environment does not say otherwise. The runtime reads the variable once, when torch loads,
so it is called on importing the :mod:`surrogate` package, which every entry point (the
command line, ``surrogate.fit``, any ``surrogate.*`` module) passes before torch loads.
Passive waiting makes every parallel region pay a wake-up, so ``fit`` trains small steps on
one thread (:mod:`surrogate.training.threads`, decided by the data and the configuration);
otherwise the count is torch's (``OMP_NUM_THREADS``, else the cores): a count that followed
the machine's load would change the results' last bits from run to run. Standard library only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
WAIT_POLICY_VARIABLE = "OMP_WAIT_POLICY"
DEFAULT_WAIT_POLICY = "PASSIVE"
SET_BY_SURROGATE = "surrogate"
SET_BY_ENVIRONMENT = "environment"
TOO_LATE = "runtime default (torch was imported before surrogate)"

_wait_policy_set_by: str | None = None


def set_default_wait_policy() -> str:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the environment sets it or torch is loaded;
    who decided the policy (:data:`SET_BY_SURROGATE`, :data:`SET_BY_ENVIRONMENT` or
    :data:`TOO_LATE`). The first call decides; later calls report it."""
    global _wait_policy_set_by
    if _wait_policy_set_by is None:
        if WAIT_POLICY_VARIABLE in os.environ:
            _wait_policy_set_by = SET_BY_ENVIRONMENT
        elif "torch" in sys.modules:
            _wait_policy_set_by = TOO_LATE
        else:
            os.environ[WAIT_POLICY_VARIABLE] = DEFAULT_WAIT_POLICY
            _wait_policy_set_by = SET_BY_SURROGATE
    return _wait_policy_set_by


def wait_policy() -> dict[str, Any]:
    """The OpenMP wait policy in force: ``{"omp_wait_policy": value or None (the runtime's
    default), "set_by": ...}``."""
    set_by = set_default_wait_policy()
    value = None if set_by == TOO_LATE else os.environ.get(WAIT_POLICY_VARIABLE)
    return {"omp_wait_policy": value, "set_by": set_by,
            "gomp_spincount": os.environ.get("GOMP_SPINCOUNT")}


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cap_blas_threads(threads: int) -> None:
    """Cap this process's BLAS/OpenMP pools at ``threads``: through the environment for the
    libraries it loads from now on, and with threadpoolctl (when installed) for those loaded
    already (numpy's, scipy's and NGSolve's OpenBLAS each start one thread per core, so N
    worker processes on N cores would otherwise run N² threads)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=threads)


def thread_settings() -> dict[str, Any]:
    """The BLAS/OpenMP thread variables and, with threadpoolctl installed, its pools' sizes."""
    info: dict[str, Any] = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        info["threadpoolctl"] = None
    else:
        info["threadpoolctl"] = [{k: p.get(k) for k in ("internal_api", "num_threads")}
                                 for p in threadpool_info()]
    return info


__all__ = ["cap_blas_threads", "thread_settings", "THREAD_VARIABLES", "set_default_wait_policy",
           "wait_policy", "available_cpus", "WAIT_POLICY_VARIABLE", "DEFAULT_WAIT_POLICY",
           "SET_BY_SURROGATE", "SET_BY_ENVIRONMENT", "TOO_LATE"]
