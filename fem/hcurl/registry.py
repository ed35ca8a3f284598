"""FEM baselines by polynomial order: order 1 = N0 (the τ-learning paper's), order 2 = the
complete-linear hierarchical space
(:class:`~surrogate.fem.hcurl.complete_linear_element.ElementTetN2`).

One entry point for everything that compares against finite elements (convergence studies,
evaluation, benchmarks), so that no caller branches on the order itself.
"""

from __future__ import annotations

from typing import Any

from surrogate.core.errors import InputError

FEM_ORDERS = (1, 2)
METHODS = ("best", "solve")


def check_order(order: Any) -> int:
    """``order`` as an int in :data:`FEM_ORDERS`; InputError naming the choices otherwise."""
    try:
        value = int(order)
    except (TypeError, ValueError):
        value = None
    if value not in FEM_ORDERS or str(order).strip() != str(value):
        raise InputError(f"unknown FEM order {order!r}; choose one of: "
                         f"{', '.join(map(str, FEM_ORDERS))} (1 = N0, 2 = complete linear)")
    return value


def parse_orders(text: str) -> tuple[int, ...]:
    """``"1,2"`` -> (1, 2): distinct orders, increasing; InputError on anything else."""
    parts = [part.strip() for part in str(text).split(",")]
    if not parts or any(not part for part in parts):
        raise InputError(f"FEM orders {text!r}: expected a comma-separated list such as '1,2'")
    return tuple(sorted({check_order(part) for part in parts}))


def fem_approximation(mesh, problem, *, order: int = 1, method: str = "best",
                      solver: str = "auto", rtol: float = 1e-10):
    """H(curl) best approximation ("best") or mixed Maxwell solve ("solve", eq. 7.1) of
    ``problem`` on ``mesh`` in the space of ``order``; the solution has ``.order``."""
    order = check_order(order)
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    if order == 1:
        from surrogate.fem.hcurl import n0

        fun = n0.best_approximation if method == "best" else n0.solve_maxwell
    else:
        from surrogate.fem.hcurl import complete_linear

        fun = (complete_linear.best_approximation2 if method == "best"
               else complete_linear.solve_maxwell2)
    return fun(mesh, problem, solver=solver, rtol=rtol)


def solution_order(solution) -> int:
    """1 for an N0 solution, 2 for an order-2 one."""
    return int(getattr(solution, "order", 1))


def fem_hcurl_errors(solution, exact, exact_curl) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h) for a solution of either order."""
    if solution_order(solution) == 2:
        from surrogate.fem.hcurl.complete_linear_eval import hcurl_errors2

        return hcurl_errors2(solution, exact, exact_curl)
    from surrogate.fem.hcurl.n0 import hcurl_errors

    return hcurl_errors(solution, exact, exact_curl)


__all__ = ["FEM_ORDERS", "METHODS", "check_order", "fem_approximation", "fem_hcurl_errors",
           "parse_orders", "solution_order"]
