"""The toy backend's callables: skfem's N0 best approximation and mixed solve under the name
"toy" (the solution API the registry asks of every backend: ``order``, ``backend``, ``ndofs``,
``timings``, ``solve_info``, ``values_at``, ``curl_at``, ``fields_at_quadrature``)."""

from dataclasses import replace

from surrogate.fem.hcurl.skfem import n0


def best_approximation_toy(mesh, problem, *, solver: str = "auto", rtol: float = 1e-10):
    """N0 best approximation, labelled "toy"."""
    return replace(n0.best_approximation(mesh, problem, solver=solver, rtol=rtol),
                   backend="toy")


def solve_maxwell_toy(mesh, problem, *, solver: str = "auto", rtol: float = 1e-10):
    """N0 mixed solve, labelled "toy"."""
    return replace(n0.solve_maxwell(mesh, problem, solver=solver, rtol=rtol), backend="toy")
