"""Convergence study of N0 approximations: errors and observed rates over mesh levels.

Observed rate between levels k−1 and k: log(e_{k−1}/e_k) / log(h_{k−1}/h_k); for lowest-order
Nédélec elements and a smooth solution both the L² and the curl-L² errors decay like O(h).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from surrogate.core.errors import InputError

METHODS = ("best", "solve")
SOLVERS = ("auto", "direct", "iterative")

ProgressCallback = Callable[[int, int, str], None]


def observed_rate(e_coarse: float, e_fine: float, h_coarse: float, h_fine: float) -> float | None:
    """log(e_coarse/e_fine) / log(h_coarse/h_fine); None when undefined (zero error, equal h)."""
    if e_coarse <= 0 or e_fine <= 0 or h_coarse <= 0 or h_fine <= 0 or h_coarse == h_fine:
        return None
    return math.log(e_coarse / e_fine) / math.log(h_coarse / h_fine)


def check_study_options(levels: Sequence[int], method: str, solver: str) -> list[int]:
    """Validate levels (integers ≥ 1, increasing), method and solver; return the levels."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    if solver not in SOLVERS:
        raise InputError(f"unknown solver {solver!r}; choose one of: {', '.join(SOLVERS)}")
    levels = [int(level) for level in levels]
    if not levels:
        raise InputError("no mesh level given")
    if min(levels) < 1:
        raise InputError(f"mesh levels start at 1, got {min(levels)}")
    if any(b <= a for a, b in zip(levels[:-1], levels[1:], strict=True)):
        raise InputError(f"mesh levels must increase, got {levels}")
    return levels


def convergence_study(
    domain: str,
    levels: Sequence[int],
    *,
    method: str = "best",
    solver: str = "auto",
    problem: str = "maxwell",
    rtol: float = 1e-10,
    on_progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]:
    """N0 errors against the exact solution on ``domain.mesh(level)`` for each level.

    ``method`` "best" = H(curl) best approximation, "solve" = mixed Maxwell solve.
    Returns one plain dict per level with keys level, h, n_tets, ndofs, l2_error,
    curl_l2_error, l2_rate, curl_l2_rate (None on the first level), seconds, timings
    (mesh, basis, assembly, solve, errors), solver (method, iterations, residual, ...).
    ``on_progress(done, total, description)`` is called before and after each level.
    """
    from surrogate.fem.domains import get_domain
    from surrogate.fem.nedelec import best_approximation, hcurl_errors, solve_maxwell
    from surrogate.fem.problems import get_problem

    levels = check_study_options(levels, method, solver)
    dom, prob = get_domain(domain), get_problem(problem)
    approximate = best_approximation if method == "best" else solve_maxwell
    progress = on_progress or (lambda done, total, description: None)
    rows: list[dict[str, Any]] = []
    for k, level in enumerate(levels):
        progress(k, len(levels), f"level {level}: mesh and {method}")
        start = time.perf_counter()
        mesh = dom.mesh(level)
        t_mesh = time.perf_counter() - start
        solution = approximate(mesh, prob, solver=solver, rtol=rtol)
        t_err = time.perf_counter()
        e_l2, e_curl = hcurl_errors(solution, prob.u, prob.curl_u)
        end = time.perf_counter()
        row = {
            "level": level,
            "h": float(dom.mesh_size(level)),
            "n_tets": int(mesh.t.shape[1]),
            "ndofs": solution.ndofs,
            "l2_error": e_l2,
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
