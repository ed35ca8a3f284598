"""The thread settings a timing depends on (benchmarks record them next to every figure)."""

from __future__ import annotations

import os
from typing import Any

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


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


__all__ = ["thread_settings", "THREAD_VARIABLES"]
