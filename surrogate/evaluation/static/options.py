"""Options of a static (pointwise) evaluation: test domains, levels, FEM baseline and orders,
slice."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.devices import DEVICE_CHOICES
from surrogate.fem.hcurl.registry import check_order

FEM_CHOICES = ("best", "solve", "none")
SOLVER_CHOICES = ("auto", "direct", "iterative")
AXES = {"x": 0, "y": 1, "z": 2, "x1": 0, "x2": 1, "x3": 2}
AXIS_NAMES = ("x1", "x2", "x3")


@dataclass(frozen=True)
class EvaluationOptions:
    """Resolved options of one evaluation (written into ``evaluation.json``)."""

    domains: tuple[str, ...] = ("cube",)
    levels: tuple[int, ...] = (1, 2, 3, 4)
    fem: str = "best"
    fem_orders: tuple[int, ...] = (0, 1)
    solver: str = "auto"
    intorder: int = 4
    slice_axis: int = 2
    slice_value: float = 0.5
    slice_resolution: int = 201
    batch_size: int | None = None
    device: str = "cpu"

    def __post_init__(self) -> None:
        if not self.domains:
            raise InputError("at least one --domain is needed")
        if not self.levels or min(self.levels) < 1:
            raise InputError(f"levels must be >= 1, got {list(self.levels)}")
        if self.fem not in FEM_CHOICES:
            raise InputError(f"unknown FEM baseline {self.fem!r}; choose one of: "
                             f"{', '.join(FEM_CHOICES)}")
        if not self.fem_orders:
            raise InputError("at least one FEM order is needed (0, 1 or both)")
        for order in self.fem_orders:
            check_order(order)
        if self.solver not in SOLVER_CHOICES:
            raise InputError(f"unknown solver {self.solver!r}; choose one of: "
                             f"{', '.join(SOLVER_CHOICES)}")
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
        out["fem_orders"] = list(self.fem_orders)
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


__all__ = ["AXES", "AXIS_NAMES", "EvaluationOptions", "FEM_CHOICES", "SOLVER_CHOICES",
           "parse_slice"]
