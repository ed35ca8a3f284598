"""Options of a static (pointwise) evaluation: test domains, levels, FEM baseline and orders,
slice."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.evaluation.devices import DEVICE_CHOICES
from surrogate.evaluation.option_fields import (
    batch_size_field,
    device_field,
    domains_field,
    fem_backends_field,
    fem_max_dofs_field,
    fem_orders_field,
    intorder_field,
    levels_field,
    solver_field,
)
from surrogate.fem.hcurl.registry import (
    check_backend,
    check_order,
    check_solver,
    evaluation_methods,
)

FEM_CHOICES = ("best", "solve", "none")
AXES = {"x": 0, "y": 1, "z": 2, "x1": 0, "x2": 1, "x3": 2}
AXIS_NAMES = ("x1", "x2", "x3")


@dataclass(frozen=True)
class EvaluationOptions:
    """Resolved options of one evaluation (written into ``evaluation.json``)."""

    domains: tuple[str, ...] = domains_field(("cube",))
    levels: tuple[int, ...] = levels_field((1, 2, 3, 4), shown="1-4")
    fem: str = setting("best", doc="FEM baseline: H(curl) best approximation (by the backends "
                       "that offer it; the others solve), the mixed solve, or none.",
                       choices=FEM_CHOICES, flag="fem-method", deprecated=("fem",))
    fem_backends: tuple[str, ...] | None = fem_backends_field()
    fem_orders: tuple[int, ...] | None = fem_orders_field()
    fem_max_dofs: int = fem_max_dofs_field(40_000)
    solver: str = solver_field()
    intorder: int = intorder_field()
    slice_axis: int = setting(2, doc="Plane of the slice figures, AXIS=VALUE.", flag="slice",
                              parse=lambda text: slice_fields(text), shown="z=0.5")
    slice_value: float = setting(0.5, doc="Where the slice plane cuts its axis (set by --slice).",
                                 cli=False)
    slice_resolution: int = setting(201, doc="Points per side of the slice figures' grid.")
    batch_size: int | None = batch_size_field()
    device: str = device_field()

    def __post_init__(self) -> None:
        if not self.domains:
            raise InputError("at least one --domain is needed")
        if not self.levels or min(self.levels) < 0:
            raise InputError(f"levels must be >= 0, got {list(self.levels)}")
        if self.fem not in FEM_CHOICES:
            raise InputError(f"unknown FEM baseline {self.fem!r}; choose one of: "
                             f"{', '.join(FEM_CHOICES)}")
        if self.fem_orders is not None and not self.fem_orders:
            raise InputError("at least one FEM order is needed")
        for order in self.fem_orders or ():
            check_order(order, None)
        for backend in self.fem_backends or ():
            check_backend(backend)
        evaluation_methods(self.fem_backends, self.fem_orders)
        if self.fem_max_dofs < 1:
            raise InputError(f"--fem-max-dofs must be >= 1, got {self.fem_max_dofs}")
        check_solver(self.solver)
        if self.device not in DEVICE_CHOICES:
            raise InputError(f"unknown device {self.device!r}; choose one of: "
                             f"{', '.join(DEVICE_CHOICES)}")
        if self.intorder < 1:
            raise InputError(f"quadrature order must be >= 1, got {self.intorder}")
        if self.slice_axis not in (0, 1, 2):
            raise InputError(f"slice axis must be 0, 1 or 2, got {self.slice_axis}")
        if self.slice_resolution < 2:
            raise InputError(f"slice resolution must be >= 2, got {self.slice_resolution}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (the slice as ``"x3=0.5"``)."""
        out = asdict(self)
        out["domains"], out["levels"] = list(self.domains), list(self.levels)
        for key in ("fem_backends", "fem_orders"):
            out[key] = None if out[key] is None else list(out[key])
        out["slice"] = f"{AXIS_NAMES[self.slice_axis]}={self.slice_value:g}"
        return out


def parse_slice(text: str) -> tuple[int, float]:
    """Parse ``"z=0.5"`` (also ``x``, ``y``, ``x1``, ``x2``, ``x3``) into (axis index, value)."""
    name, sep, value = text.partition("=")
    axis = AXES.get(name.strip().lower())
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not sep or axis is None or not np.isfinite(number):
        raise InputError(f"--slice {text!r}: expected AXIS=VALUE with AXIS one of x, y, z "
                         "(e.g. 'z=0.5')")
    return axis, number


def slice_fields(text: str) -> dict[str, Any]:
    """``--slice z=0.5`` as the fields it sets: ``slice_axis`` and ``slice_value``."""
    axis, value = parse_slice(text)
    return {"slice_axis": axis, "slice_value": value}


__all__ = ["AXES", "AXIS_NAMES", "EvaluationOptions", "FEM_CHOICES",
           "parse_slice", "slice_fields"]
