"""Convergence study of an H(curl) FEM method (backend, order; :mod:`surrogate.fem.hcurl.registry`):
errors and observed rates over mesh levels.

Observed rate between levels k−1 and k: log(e_{k−1}/e_k) / log(h_{k−1}/h_k); for a smooth
solution the L² error of order k decays like O(h^{k+1}) (N0: O(h)), the curl-L² error like
O(h^{max(k, 1)}) (the complete-linear additions to N0 are gradients, curl-free).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from surrogate.core.errors import InputError, SolverError
from surrogate.fem.hcurl.registry import check_backend, check_method, check_order, check_solver

ProgressCallback = Callable[[int, int, str], None]


def observed_rate(e_coarse: float, e_fine: float, h_coarse: float, h_fine: float) -> float | None:
    """log(e_coarse/e_fine) / log(h_coarse/h_fine); None when undefined (zero error, equal h)."""
    if e_coarse <= 0 or e_fine <= 0 or h_coarse <= 0 or h_fine <= 0 or h_coarse == h_fine:
        return None
    return math.log(e_coarse / e_fine) / math.log(h_coarse / h_fine)


def check_study_options(levels: Sequence[int], method: str, solver: str,
                        order: int = 0, backend: str = "skfem") -> list[int]:
    """Validate levels (integers ≥ 0, increasing; the domain refuses a level it lacks),
    method, solver, backend and FEM order; return the levels."""
    order = check_order(order, check_backend(backend))
    check_method(method, backend, order)
    check_solver(solver, backend, order)
    levels = [int(level) for level in levels]
    if not levels:
        raise InputError("no mesh level given")
    if min(levels) < 0:
        raise InputError(f"mesh levels start at 0, got {min(levels)}")
    if any(b <= a for a, b in zip(levels[:-1], levels[1:], strict=True)):
        raise InputError(f"mesh levels must increase, got {levels}")
    return levels


def convergence_study(
    domain: str,
    levels: Sequence[int],
    *,
    method: str = "best",
    solver: str = "auto",
    order: int = 0,
    backend: str = "skfem",
    problem: str = "maxwell",
    rtol: float = 1e-10,
    threads: int = 1,
    on_progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]:
    """Errors of ``(backend, order)`` against the exact solution on ``domain.mesh(level)``.

    ``method`` "best" = H(curl) best approximation, "solve" = mixed Maxwell solve.
    Returns one plain dict per level with keys backend, order, level, h, n_tets, ndofs,
    l2_error, relative_l2_error (÷ ‖u‖ by the same rule), curl_l2_error, l2_rate,
    curl_l2_rate (None on the first level), seconds, timings (mesh, the backend's stages,
    errors), solver (method, iterations, residual, threads, ...); the times follow one untimed
    warm-up run on the domain's coarsest mesh. ``on_progress(done, total, description)`` is
    called before and after each level.
    """
    from surrogate.fem.domains import get_domain
    from surrogate.fem.hcurl.errors import error_intorder, field_l2_norm
    from surrogate.fem.hcurl.registry import fem_approximation, fem_hcurl_errors
    from surrogate.fem.problems import get_problem

    levels = check_study_options(levels, method, solver, order, backend)
    dom, prob = get_domain(domain), get_problem(problem)
    progress = on_progress or (lambda done, total, description: None)
    # One untimed run on the domain's coarsest mesh first: imports and a backend's first-call
    # set-up (NGSolve's ~0.2 s) belong to the process, not to the first level's time.
    with contextlib.suppress(SolverError):  # a mesh too coarse for the space: time cold
        fem_approximation(dom.mesh(dom.min_level), prob, backend=backend, order=order,
                          method=method, solver=solver, rtol=rtol, threads=threads)
    rows: list[dict[str, Any]] = []
    for k, level in enumerate(levels):
        progress(k, len(levels), f"level {level}: mesh and {method}")
        start = time.perf_counter()
        mesh = dom.mesh(level)
        t_mesh = time.perf_counter() - start
        solution = fem_approximation(mesh, prob, backend=backend, order=order, method=method,
                                     solver=solver, rtol=rtol, threads=threads)
        t_err = time.perf_counter()
        e_l2, e_curl = fem_hcurl_errors(solution, prob.u, prob.curl_u)
        end = time.perf_counter()
        norm = field_l2_norm(mesh, prob.u, intorder=error_intorder(order))
        row = {
            "backend": backend,
            "order": int(order),
            "level": level,
            "h": float(dom.mesh_size(level)),
            "n_tets": int(mesh.t.shape[1]),
            "ndofs": solution.ndofs,
            "l2_error": e_l2,
            "relative_l2_error": e_l2 / norm if norm > 0 else None,
            "curl_l2_error": e_curl,
            "l2_rate": None,
            "curl_l2_rate": None,
            "seconds": end - start,
            "timings": {"mesh": t_mesh, **solution.timings, "errors": end - t_err},
            "solver": solution.solve_info.to_dict(),
        }
        if rows:
            prev = rows[-1]
            row["l2_rate"] = observed_rate(prev["l2_error"], e_l2, prev["h"], row["h"])
            row["curl_l2_rate"] = observed_rate(prev["curl_l2_error"], e_curl, prev["h"], row["h"])
        rows.append(row)
        progress(k + 1, len(levels), f"level {level}: done")
    return rows
