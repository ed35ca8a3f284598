"""The options of a convergence study (``surrogate fem convergence``), checked against the
FEM registry: the backends, orders, methods and solvers it lists are the registry's
(:mod:`surrogate.fem.hcurl.registry`), the domains the domain registry's. Torch-free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.level_ranges import level_tuple
from surrogate.core.typed_config import setting
from surrogate.fem.hcurl import registry


def solver_names() -> tuple[str, ...]:
    """The linear solvers some registered backend offers at some order, in the registry's
    order (each backend and order checks its own: :func:`registry.check_solver`)."""
    return tuple(dict.fromkeys(s for b in registry.BACKENDS.values() for order in b.orders
                               for s in b.solvers_of(order)))


def order_names() -> tuple[str, ...]:
    """The toolkit's FEM orders (0 = N0, 1 = complete linear, ...) as text."""
    return tuple(map(str, registry.FEM_ORDERS))


def parse_order(text: str) -> int:
    """``"2"`` -> 2: an order some backend may offer (the backend's own check follows)."""
    return registry.check_order(text, None)


@dataclass(frozen=True)
class ConvergenceOptions:
    """What a convergence study computes: the domain and levels, the FEM method of one
    (backend, order), the linear solver and threads, the problem with an exact solution."""

    # examples, not the list: the domain registry imports skfem, which every command line
    # would then pay for; an unknown name's error lists the registry's domains
    domain: str = setting("cube", doc="Domain: a built-in one (cube, cylinder, ...) or a tet "
                          "mesh file (.msh, .vtu, .xdmf, .mesh).")
    levels: tuple[int, ...] = setting((1, 2, 3, 4), doc="Mesh levels: a range '1-5', one level "
                                      "'3' or a list '1,2,4'.", parse=level_tuple, shown="1-4")
    method: str = setting("best", doc="best: H(curl) best approximation (where the backend "
                          "offers it); solve: mixed Maxwell solve.",
                          listed=lambda: registry.METHODS, flag="fem-method",
                          deprecated=("method",))
    solver: str = setting("auto", doc="Linear solver: direct, iterative (CG-HX / MINRES), auto "
                          "by size; monolithic: one LU of the whole saddle-point system "
                          "(skfem order 1).", listed=solver_names)
    fem_backend: str = setting(registry.OWN_BACKEND, doc="FEM backend: the toolkit's own "
                               f"({registry.OWN_BACKEND}) or an optional one, installed as its "
                               "extra (pip install 'surrogate[NAME]'); each backend's orders "
                               "are in the table of FEM orders (docs/cli.md).",
                               listed=registry.backend_names, deprecated=("backend",))
    fem_order: int = setting(0, doc="FEM order, NGSolve's numbering: 0 = lowest-order Nédélec "
                             "(N0), 1 = complete linear (L² error O(h²)), 2 = complete "
                             "quadratic, ... (the table in docs/cli.md).", parse=parse_order,
                             listed=order_names, deprecated=("order",))
    fem_threads: int = setting(1, doc="Threads of the FEM solve, for a backend that runs "
                               "threads (recorded in the JSON).", deprecated=("threads",))
    problem: str = setting("maxwell", doc="Problem with an exact solution.")

    def __post_init__(self) -> None:
        from surrogate.fem.convergence import check_study_options

        backend = registry.check_backend(self.fem_backend)
        object.__setattr__(self, "fem_order", registry.check_order(self.fem_order, backend))
        levels = level_tuple(self.levels) if isinstance(self.levels, str) else tuple(self.levels)
        object.__setattr__(self, "levels", tuple(check_study_options(
            levels, self.method, self.solver, self.fem_order, backend)))
        if isinstance(self.fem_threads, bool) or not isinstance(self.fem_threads, int) \
                or self.fem_threads < 1:
            raise InputError(f"--fem-threads must be an integer >= 1, got {self.fem_threads!r}")

    def record(self) -> dict[str, Any]:
        """The options as the study's JSON records them (keys of the rows: backend, order)."""
        return {"domain": self.domain, "levels": list(self.levels),
                "backend": self.fem_backend, "order": int(self.fem_order),
                "method": self.method, "solver": self.solver, "problem": self.problem,
                "threads": self.fem_threads}


def run_convergence_study(options: ConvergenceOptions,
                          on_progress: Callable[[int, int, str], None] | None = None
                          ) -> list[dict[str, Any]]:
    """:func:`surrogate.fem.convergence.convergence_study` of ``options`` (its rows; the
    levels, domain and problem are checked there before any work)."""
    from surrogate.fem.convergence import convergence_study

    return convergence_study(options.domain, options.levels, method=options.method,
                             solver=options.solver, order=options.fem_order,
                             backend=options.fem_backend, problem=options.problem,
                             threads=options.fem_threads, on_progress=on_progress)


__all__ = ["ConvergenceOptions", "order_names", "parse_order",
           "run_convergence_study", "solver_names"]
