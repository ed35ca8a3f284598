"""What a FEM backend declares, once: its callables per (order, method), solvers, threads.

A :class:`Backend` enters :data:`surrogate.fem.hcurl.registry.BACKENDS` by one
:func:`~surrogate.fem.hcurl.registry.register_backend` line; its callables are usually
:func:`lazy` import paths, so declaring a backend imports none of its code (nor NGSolve).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

METHODS = ("best", "solve")
"""H(curl) best approximation, mixed solve (eq. 7.1)."""


@dataclass(frozen=True)
class Lazy:
    """A backend's callable named by its import path ``"module:function"``, imported on the
    first call (so the registry loads no backend), called with ``keywords`` added."""

    target: str
    keywords: tuple[tuple[str, Any], ...] = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(import_module(module), name)(*args, **dict(self.keywords), **kwargs)


def lazy(target: str, **keywords: Any) -> Lazy:
    """``"module:function"`` as a callable imported on first use, ``keywords`` fixed."""
    return Lazy(target, tuple(keywords.items()))


@dataclass(frozen=True)
class Backend:
    """A FEM backend, declared once: ``functions[(order, method)]`` is its callable
    ``f(mesh, problem, *, solver, rtol[, threads]) -> solution`` (the solution API of
    :class:`FemMethod`); its orders and methods are the keys'. ``solvers``: the linear solvers
    of every order, ``order_solvers``: those of one order only (skfem order 1's
    "monolithic"); ``threads``: whether its callables take ``threads``; ``requires``: the
    modules it imports (``extra``: the pip extra that installs them);
    ``default_orders``: the orders an evaluation compares with unless told otherwise;
    ``exact_free_orders``: the orders whose mixed solve needs no exact u (boundary data);
    ``exports_vtk``: its solutions carry the skfem basis the VTK export projects to nodes;
    ``time_domain[order]``: its PEC cavity system for time stepping, ``f(mesh, centre, width,
    points) -> CavitySystem`` (mass, curl–curl, dipole load, probe matrix:
    :mod:`surrogate.fem.time_domain_operators`)."""

    name: str
    functions: Mapping[tuple[int, str], Callable[..., Any]]
    solvers: tuple[str, ...] = ("auto", "direct", "iterative")
    order_solvers: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    threads: bool = False
    requires: tuple[str, ...] = ()
    extra: str = ""
    default_orders: tuple[int, ...] = ()
    exact_free_orders: tuple[int, ...] = ()
    exports_vtk: bool = False
    time_domain: Mapping[int, Callable[..., Any]] = field(default_factory=dict)

    @property
    def orders(self) -> tuple[int, ...]:
        """The orders it offers, increasing."""
        return tuple(sorted({order for order, _ in self.functions}))

    @property
    def methods(self) -> tuple[str, ...]:
        """The methods it offers at some order, in :data:`METHODS` order."""
        return tuple(m for m in METHODS if any(m == method for _, method in self.functions))

    def order_methods(self, order: int) -> tuple[str, ...]:
        """The methods it offers at ``order``."""
        return tuple(m for m in METHODS if (int(order), m) in self.functions)

    def solvers_of(self, order: int | None = None) -> tuple[str, ...]:
        """The linear solvers of ``order`` (None: those of every order)."""
        return self.solvers + (() if order is None else
                               tuple(self.order_solvers.get(int(order), ())))


__all__ = ["METHODS", "Backend", "Lazy", "lazy"]
