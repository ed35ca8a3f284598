"""Fields that several run kinds' evaluation options share, declared once.

The command line makes one option of a field that several kinds' options classes declare alike
(``--domain``, ``--levels``, ...); declaring them here keeps their help, parsing and choices
one. Torch-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surrogate.core.level_ranges import level_tuple
from surrogate.core.typed_config import setting
from surrogate.evaluation.devices import DEVICE_CHOICES
from surrogate.fem.hcurl.registry import (
    BACKENDS,
    backend_names,
    parse_backends,
    parse_orders,
    shared_solvers,
)


def distinct(values: Sequence[str]) -> tuple[str, ...]:
    """``values`` without repeats, in their order."""
    return tuple(dict.fromkeys(values))


def domains_field(default: tuple[str, ...] | None, shown: str | None = None) -> Any:
    """``--domain/-d`` (repeatable): the test domains."""
    return setting(default, doc="Test domain (repeatable): cylinder, cube, ball, l-prism, shell, "
                   "or a tet mesh file (.msh, .vtu, .xdmf, .mesh).", flag="domain", short="-d",
                   multiple=True, parse=distinct, shown=shown)


def levels_field(default: tuple[int, ...] | None, shown: str) -> Any:
    """``--levels``: mesh levels of the test domains."""
    return setting(default, doc="Mesh levels of the test domains: '1-5', '3', '1,2,4'.",
                   parse=level_tuple, shown=shown)


def fem_backends_field() -> Any:
    """``--fem-backend``: the FEM backends whose solves are the candidates of every verdict."""
    return setting(None, doc="FEM backends to compare with, comma-separated ("
                   f"{', '.join(backend_names())}): every verdict names the fastest FEM at the "
                   "run's error over all their orders and levels (backend, order, level, "
                   "DOFs, seconds). Asking for one that is not installed is an error.",
                   flag="fem-backend", parse=parse_backends, shown="every installed backend")


def parse_order_list(text: str) -> tuple[int, ...]:
    """``"0,2"`` -> (0, 2): orders any backend offers (docs/cli.md's naming)."""
    return parse_orders(text, None)


def fem_orders_field() -> Any:
    """``--fem-order``: the Nédélec orders of the FEM compared with."""
    return setting(None, doc="FEM orders to compare with, comma-separated (docs/cli.md's "
                   "naming: 0 = N0, 1 = complete linear, 2 = complete quadratic, ...), each "
                   "run by every chosen backend that offers it.", flag="fem-order",
                   parse=parse_order_list,
                   shown="each backend's defaults: " + "; ".join(
                       f"{b.name} {','.join(map(str, b.default_orders))}"
                       for b in BACKENDS.values()))


def fem_max_dofs_field(default: int) -> Any:
    """``--fem-max-dofs``: the largest FEM candidate an evaluation solves."""
    return setting(default, doc="Largest FEM candidate in H(curl) DOFs: a (backend, order, "
                   "level) with more is not solved (a note lists it), so high orders stay on "
                   "coarse meshes and the evaluation stays quick.")


def solver_field() -> Any:
    """``--solver``: the linear solver of the FEM baseline (one every backend offers)."""
    return setting("auto", doc="Linear solver of the FEM baseline.", choices=shared_solvers())


def intorder_field() -> Any:
    """``--intorder``: quadrature order of the L² errors."""
    return setting(4, doc="Quadrature order of the L² errors.")


def batch_size_field() -> Any:
    """``--batch-size``: points or sequences per surrogate forward pass."""
    return setting(None, doc="Points (sequences) per forward pass of a surrogate.",
                   shown="all at once")


def device_field() -> Any:
    """``--device``: where the surrogates run."""
    return setting("cpu", doc="Where the surrogates run (the FEM always runs on the CPU).",
                   choices=DEVICE_CHOICES)


__all__ = ["batch_size_field", "device_field", "distinct", "domains_field",
           "fem_backends_field", "fem_max_dofs_field", "fem_orders_field", "intorder_field",
           "levels_field", "parse_order_list", "solver_field"]
