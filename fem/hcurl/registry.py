"""The registry of FEM methods: (backend, order) -> mixed solve, best approximation, errors,
point evaluation. Every caller that compares against finite elements goes through it; nothing
outside fem/hcurl/ branches on the backend or the order.

One naming of orders for the whole toolkit, NGSolve's ``order`` (:data:`ORDER_NAMES`):

| order | NGSolve `order` | Nédélec space (kind, degree)   | name               | L², curl rate |
|-------|-----------------|--------------------------------|--------------------|---------------|
| 0     | 0               | first kind, degree 1 (Whitney) | N0, lowest order   | 1, 1          |
| 1     | 1               | second kind, degree 1          | complete linear    | 2, 1          |
| 2     | 2               | second kind, degree 2          | complete quadratic | 3, 2          |
| 3     | 3               | second kind, degree 3          | complete cubic     | 4, 3          |
| 4     | 4               | second kind, degree 4          | complete quartic   | 5, 4          |
| 5     | 5               | second kind, degree 5          | complete quintic   | 6, 5          |
| 6     | 6               | second kind, degree 6          | complete sextic    | 7, 6          |

Static solves (mixed solve, best approximation) have orders 0–4 (:data:`FEM_ORDERS`); the
time-domain operators two more (:data:`TIME_DOMAIN_ORDERS`, ngsolve only): order 5, the
``maxwell-td`` recipe's default, and order 6, its next-order reference in
``benchmarks/td_truth.py``.

Backends (:data:`BACKENDS`, each declared once by :func:`register_backend`: its callables per
(order, method), solvers, thread support): ``skfem`` (ours, ``skfem/``: orders 0 and 1, best
approximation and mixed solve) and ``ngsolve`` (``ngsolve/``, the optional extra ``[ngsolve]``:
orders 0–4, mixed solve with static condensation; time-domain operators of orders 0–6).
Releases before this naming called N0
"order 1" and the complete-linear space "order 2" (:func:`order_from_legacy`).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, NamedTuple

from surrogate.core.errors import InputError
from surrogate.fem.hcurl.backend import METHODS, Backend, Lazy, lazy

METHOD_NAMES = {"best": "the best approximation (--fem-method best)",
                "solve": "the mixed solve (--fem-method solve)"}


class OrderName(NamedTuple):
    """One row of the naming table."""

    order: int
    ngsolve_order: int
    nedelec: str
    name: str
    l2_rate: int
    curl_rate: int


ORDER_NAMES = (
    OrderName(0, 0, "first kind, degree 1 (Whitney)", "N0", 1, 1),
    OrderName(1, 1, "second kind, degree 1", "complete linear", 2, 1),
    OrderName(2, 2, "second kind, degree 2", "complete quadratic", 3, 2),
    OrderName(3, 3, "second kind, degree 3", "complete cubic", 4, 3),
    OrderName(4, 4, "second kind, degree 4", "complete quartic", 5, 4),
    OrderName(5, 5, "second kind, degree 5", "complete quintic", 6, 5),
    OrderName(6, 6, "second kind, degree 6", "complete sextic", 7, 6),
)
FEM_ORDERS = (0, 1, 2, 3, 4)
"""The orders of static solves (mixed solve, best approximation)."""
TIME_DOMAIN_ORDERS = (*FEM_ORDERS, 5, 6)
"""The orders a backend's ``time_domain`` operators may have (ngsolve's: all of them)."""


BACKENDS: dict[str, Backend] = {}
"""The registered backends by name, the own one first (:func:`register_backend`)."""
OWN_BACKEND = "skfem"
"""The toolkit's own backend (always installed): records without a backend are its."""


def register_backend(backend: Backend) -> Backend:
    """Add ``backend`` to :data:`BACKENDS`; InputError for a name taken or an order or
    method outside the toolkit's naming (:data:`FEM_ORDERS`, :data:`METHODS`; time-domain
    orders :data:`TIME_DOMAIN_ORDERS`)."""
    if backend.name in BACKENDS:
        raise InputError(f"a FEM backend named {backend.name!r} is registered already")
    bad = [f"({order}, {method!r})" for order, method in backend.functions
           if order not in FEM_ORDERS or method not in METHODS]
    if bad or not backend.functions:
        raise InputError(f"FEM backend {backend.name!r}: (order, method) keys must pair an "
                         f"order of {FEM_ORDERS} with a method of {METHODS}, got "
                         f"{', '.join(bad) or 'none'}")
    bad_td = sorted(set(backend.time_domain) - set(TIME_DOMAIN_ORDERS))
    if bad_td:
        raise InputError(f"FEM backend {backend.name!r}: time-domain orders must be of "
                         f"{TIME_DOMAIN_ORDERS}, got {bad_td}")
    BACKENDS[backend.name] = backend
    return backend


def backend_names() -> tuple[str, ...]:
    """The registered backends' names, the own one first (the live list: a backend
    registered later is in it)."""
    return tuple(BACKENDS)


def __getattr__(name: str) -> Any:
    """``FEM_BACKENDS``: :func:`backend_names` under the module constant's older name, live."""
    if name == "FEM_BACKENDS":
        return backend_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SKFEM = "surrogate.fem.hcurl.skfem"
register_backend(Backend(
    "skfem", {(0, "best"): lazy(f"{_SKFEM}.n0:best_approximation"),
              (0, "solve"): lazy(f"{_SKFEM}.n0:solve_maxwell"),
              (1, "best"): lazy(f"{_SKFEM}.complete_linear.solve:"
                                "best_approximation_complete_linear"),
              (1, "solve"): lazy(f"{_SKFEM}.complete_linear.solve:"
                                 "solve_maxwell_complete_linear")},
    order_solvers={1: ("monolithic",)}, default_orders=(0, 1), exact_free_orders=(0,),
    exports_vtk=True,
    time_domain={0: lazy("surrogate.fem.time_domain_operators.cavity:n0_cavity_system")}))
register_backend(Backend(
    "ngsolve", {(k, "solve"): lazy("surrogate.fem.hcurl.ngsolve.solve:solve_maxwell_ngsolve",
                                   order=k) for k in FEM_ORDERS},
    threads=True, requires=("ngsolve", "netgen"), extra="ngsolve",
    default_orders=(0, 1, 2, 3),
    time_domain={k: lazy("surrogate.fem.time_domain_operators.ngsolve_operators:"
                         "hcurl_cavity_system", order=k) for k in TIME_DOMAIN_ORDERS}))


@dataclass(frozen=True)
class FemMethod:
    """One (backend, order): ``run(mesh, problem, method=..., solver=..., rtol=..., threads=...)``
    returns a solution with ``order``, ``backend``, ``ndofs``, ``timings``, ``solve_info``,
    ``values_at``, ``curl_at``, ``fields_at_quadrature`` and ``values_at_quadrature``."""

    backend: str
    order: int

    @property
    def label(self) -> str:
        """E.g. "skfem order 1 (complete linear)"."""
        return f"{self.backend} order {self.order} ({order_name(self.order)})"

    def run(self, mesh, problem, *, method: str = "solve", solver: str = "auto",
            rtol: float = 1e-10, threads: int = 1):
        """The best approximation ("best") or the mixed solve ("solve", eq. 7.1)."""
        backend = BACKENDS[self.backend]
        check_method(method, self.backend, self.order)
        check_solver(solver, self.backend, self.order)
        return backend.functions[(self.order, method)](
            mesh, problem, solver=solver, rtol=rtol,
            **({"threads": threads} if backend.threads else {}))

    def offered_method(self, requested: str) -> str:
        """``requested`` where this backend offers it, else the mixed solve ("solve")."""
        return requested if requested in BACKENDS[self.backend].order_methods(self.order) \
            else "solve"

    @property
    def needs_exact(self) -> bool:
        """Whether the mixed solve needs the exact u (for its boundary data)."""
        return self.order not in BACKENDS[self.backend].exact_free_orders

    @property
    def exports_vtk(self) -> bool:
        """Whether the static evaluation's VTK files can hold this method's fields."""
        return BACKENDS[self.backend].exports_vtk

    @property
    def key(self) -> str:
        """The record key, e.g. "ngsolve:2" (:func:`fem_key`)."""
        return fem_key(self.backend, self.order)


def order_name(order: int) -> str:
    """"N0", "complete linear", ... for a toolkit order."""
    return ORDER_NAMES[int(order)].name


def fem_name(backend: str, order: int) -> str:
    """A (backend, order) in tables: "N0", "complete linear" for the own backend (the names
    of older reports), "ngsolve: complete quadratic" for another."""
    name = order_name(order)
    return name if backend == OWN_BACKEND else f"{backend}: {name}"


def backend_rank(name: str) -> int:
    """Position of a backend in :func:`backend_names` (the own one 0; unknown names last):
    the order and line style of figures."""
    names = backend_names()
    return names.index(name) if name in names else len(names)


def backend_installed(name: str) -> bool:
    """Whether the modules ``name`` needs can be imported (without importing them)."""
    return all(_find_spec(module) is not None for module in BACKENDS[name].requires)


def installed_backends() -> tuple[str, ...]:
    """The backends usable here, skfem first."""
    return tuple(name for name in BACKENDS if backend_installed(name))


def check_backend(name: Any) -> str:
    """``name`` as a usable backend; InputError for an unknown or a missing one (one line
    naming the extra to install)."""
    if name not in BACKENDS:
        raise InputError(f"unknown FEM backend {name!r}; choose one of: "
                         f"{', '.join(BACKENDS)}")
    if not backend_installed(name):
        extra = BACKENDS[name].extra
        raise InputError(f"the {name} FEM backend needs {name}, which is not installed: "
                         f"pip install 'surrogate[{extra}]'")
    return str(name)


def parse_backends(text: str | None) -> tuple[str, ...]:
    """``"skfem,ngsolve"`` -> the backends, each checked; None or "all" -> every installed."""
    if text is None or str(text).strip() in ("", "all"):
        return installed_backends()
    parts = [part.strip() for part in str(text).split(",")]
    return tuple(dict.fromkeys(check_backend(part) for part in parts))


def check_order(order: Any, backend: str | None = "skfem") -> int:
    """``order`` as an int the backend offers (None: any backend); InputError naming the
    choices otherwise."""
    orders = BACKENDS[backend].orders if backend in BACKENDS else FEM_ORDERS
    try:
        value = int(order)
    except (TypeError, ValueError):
        value = None
    if isinstance(order, bool) or value not in orders or str(order).strip() != str(value):
        names = ", ".join(f"{k} = {order_name(k)}" for k in orders)
        where = f" for the {backend} backend" if backend in BACKENDS else ""
        raise InputError(f"unknown FEM order {order!r}{where}; choose one of: {names}")
    return value


def parse_orders(text: str, backend: str | None = "skfem") -> tuple[int, ...]:
    """``"0,1"`` -> (0, 1): distinct orders, increasing; InputError on anything else."""
    parts = [part.strip() for part in str(text).split(",")]
    if not parts or any(not part for part in parts):
        raise InputError(f"FEM orders {text!r}: expected a comma-separated list such as '0,1'")
    return tuple(sorted({check_order(part, backend) for part in parts}))


def shared_solvers() -> tuple[str, ...]:
    """The linear solvers every registered backend offers at every order (an evaluation
    hands its ``--solver`` to each)."""
    names = [BACKENDS[b].solvers_of() for b in BACKENDS]
    return tuple(s for s in names[0] if all(s in other for other in names[1:]))


def check_method(method: Any, backend: str, order: int) -> str:
    """``method`` as ``backend`` offers it at ``order``; InputError naming the choices."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    offered = BACKENDS[backend].order_methods(order)
    if method not in offered:
        raise InputError(f"the {backend} backend offers only "
                         f"{' and '.join(METHOD_NAMES[m] for m in offered)} at order {order}")
    return str(method)


def check_solver(solver: Any, backend: str | None = None, order: int | None = None) -> str:
    """``solver`` as one ``backend`` offers at ``order`` (None: every backend, every order);
    InputError naming the choices otherwise."""
    choices = shared_solvers() if backend is None else BACKENDS[backend].solvers_of(order)
    if solver not in choices:
        where = "" if backend is None else \
            f" ({backend}{'' if order is None else f' order {order}'})"
        raise InputError(f"unknown solver {solver!r}; choose one of: {', '.join(choices)}"
                         f"{where}")
    return str(solver)


def order_from_legacy(old: int) -> int:
    """The order of a file or run written before this naming (1 = N0, 2 = complete linear)."""
    if old not in (1, 2):
        raise InputError(f"a legacy FEM order is 1 (N0) or 2 (complete linear), got {old!r}")
    return int(old) - 1


def fem_method(backend: str = "skfem", order: int = 0) -> FemMethod:
    """The method of ``(backend, order)``; InputError for an unknown or missing backend or an
    order it does not offer."""
    backend = check_backend(backend)
    return FemMethod(backend, check_order(order, backend))


def fem_methods(backends: tuple[str, ...] | None = None,
                orders: tuple[int, ...] | None = None) -> list[FemMethod]:
    """Every (backend, order) of ``backends`` (default: all installed), optionally only
    ``orders``."""
    chosen = installed_backends() if backends is None else backends
    return [FemMethod(b, k) for b in chosen for k in BACKENDS[check_backend(b)].orders
            if orders is None or k in orders]


def evaluation_methods(backends: tuple[str, ...] | None = None,
                       orders: tuple[int, ...] | None = None) -> list[FemMethod]:
    """The (backend, order) candidates of an evaluation: each of ``backends`` (None: every
    installed one) with ``orders`` where it offers them (None: its ``default_orders``);
    InputError when that leaves none."""
    chosen = installed_backends() if backends is None else tuple(backends)
    methods = [FemMethod(b, k) for b in chosen for k in BACKENDS[check_backend(b)].orders
               if k in (BACKENDS[b].default_orders if orders is None else orders)]
    if not methods:
        raise InputError(f"no FEM backend of {', '.join(chosen)} offers the orders "
                         f"{', '.join(map(str, orders or ()))}")
    return methods


def backends_note(backends: tuple[str, ...] | None) -> str | None:
    """One line when the default choice (None: every installed backend) leaves some out."""
    if backends is not None:
        return None
    missing = [name for name in BACKENDS if not backend_installed(name)]
    if not missing:
        return None
    extras = ", ".join(f"pip install 'surrogate[{BACKENDS[m].extra}]'" for m in missing)
    return (f"FEM backends compared: {', '.join(installed_backends())} only; "
            f"{', '.join(missing)} is not installed ({extras}), so no verdict is held "
            "against it")


def hcurl_dofs(mesh, order: int) -> int:
    """H(curl) DOFs of the space of ``order`` on the tet ``mesh`` (any backend: the same
    space), without building it: N0 one per edge; order k ≥ 1 (second kind, degree k)
    k + 1 per edge, k² − 1 per face and (k − 2)(k − 1)(k + 1)/2 per tet."""
    return hcurl_dofs_of(int(mesh.edges.shape[1]), int(mesh.facets.shape[1]),
                         int(mesh.t.shape[1]), order)


def hcurl_dofs_of(edges: int, faces: int, cells: int, order: int) -> int:
    """:func:`hcurl_dofs` from a tet mesh's counts of edges, faces and cells (any mesh, e.g.
    a netgen one)."""
    k = int(order)
    if k == 0:
        return int(edges)
    return edges * (k + 1) + faces * (k * k - 1) + cells * (k - 2) * (k - 1) * (k + 1) // 2


def fem_key(backend: str, order: int) -> str:
    """The key of a (backend, order) in records: "skfem:0", "ngsolve:2"."""
    return f"{backend}:{int(order)}"


def parse_fem_key(key: str) -> tuple[str, int]:
    """(backend, order) of a record key; a bare order ("1", evaluation.json before backends)
    is the own backend's."""
    backend, _, order = str(key).rpartition(":")
    return (backend or OWN_BACKEND), int(order)


def fem_approximation(mesh, problem, *, backend: str = "skfem", order: int = 0,
                      method: str = "best", solver: str = "auto", rtol: float = 1e-10,
                      threads: int = 1):
    """The best approximation or mixed solve of ``problem`` on ``mesh`` by ``(backend,
    order)``; the solution has ``.backend`` and ``.order``."""
    return fem_method(backend, order).run(mesh, problem, method=method, solver=solver,
                                          rtol=rtol, threads=threads)


def fem_hcurl_errors(solution, exact, exact_curl) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h) for a solution of any backend and order,
    by the toolkit's quadrature of degree ``error_intorder(solution.order)``."""
    from surrogate.fem.hcurl.errors import hcurl_errors

    return hcurl_errors(solution, exact, exact_curl)


def naming_table() -> str:
    """The naming table as Markdown (docs/cli.md prints it)."""
    rows = ["| order | NGSolve `order` | Nédélec space (kind, degree) | name | L² rate | "
            "curl rate | backends |", "|---|---|---|---|---|---|---|"]
    for row in ORDER_NAMES:
        backends = ", ".join(b if row.order in BACKENDS[b].orders else f"{b} (time domain only)"
                             for b in BACKENDS if row.order in BACKENDS[b].orders
                             or row.order in BACKENDS[b].time_domain)
        rows.append(f"| {row.order} | {row.ngsolve_order} | {row.nedelec} | {row.name} | "
                    f"{row.l2_rate} | {row.curl_rate} | {backends} |")
    return "\n".join(rows)


def _find_spec(module: str):
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


__all__ = ["METHODS", "METHOD_NAMES", "ORDER_NAMES", "BACKENDS", "FEM_ORDERS",
           "TIME_DOMAIN_ORDERS", "OWN_BACKEND", "Backend", "Lazy", "lazy", "register_backend",
           "backend_names",
           "FemMethod", "order_name", "fem_name", "backend_rank", "backend_installed",
           "installed_backends", "shared_solvers", "check_solver",
           "check_backend", "check_method", "parse_backends", "check_order", "parse_orders",
           "order_from_legacy", "fem_method", "fem_methods", "evaluation_methods",
           "backends_note", "hcurl_dofs", "hcurl_dofs_of", "fem_key", "parse_fem_key",
           "fem_approximation", "fem_hcurl_errors", "naming_table"]
