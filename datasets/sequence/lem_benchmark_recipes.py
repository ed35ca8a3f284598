"""Recipes of the LEM paper's sequence benchmarks (Rusch's thesis, ch. 5, §5.3).

``FitzHughNagumoRecipe``: eq. 5.117 with the paper's constants and sizes (128 train,
128 validation, 1024 test sequences of N = 1000 steps on [0, 400]). ``AddingRecipe``: the
"very long adding problem" with sequence length T (the paper's N = 2000, 5000, 10000).
Both are frozen, JSON-safe (``to_dict``) and loadable through ``recipe_from_dict``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.datasets.format import DTYPES
from surrogate.datasets.recipes import _number

MIN_RTOL = 1e-13
"""Smallest relative tolerance accepted (scipy raises smaller ones to 100 ε ≈ 2.2e-14)."""


def _positive(name: str, value: Any) -> float:
    """``value`` as a finite float > 0, or InputError."""
    number = _number(name, value, float, 0.0)
    if number <= 0:
        raise InputError(f"recipe {name}={value!r}: expected float > 0")
    return number


def _finite(name: str, value: Any) -> float:
    """``value`` as a finite float of either sign, or InputError."""
    try:
        ok = (isinstance(value, int | float) and not isinstance(value, bool)
              and math.isfinite(value))
    except OverflowError:  # an int beyond the float range
        ok = False
    if not ok:
        raise InputError(f"recipe {name}={value!r}: expected a finite float")
    return float(value)


def _check_sizes(recipe: Any) -> None:
    """n_train >= 1, n_val >= 0, n_test >= 0, seed >= 0 (integers); dtype known."""
    for key, minimum in (("n_train", 1), ("n_val", 0), ("n_test", 0), ("seed", 0)):
        object.__setattr__(recipe, key, _number(key, getattr(recipe, key), int, minimum))
    if recipe.dtype not in DTYPES:
        raise InputError(f"unknown dtype {recipe.dtype!r}; choose one of: {', '.join(DTYPES)}")


@dataclass(frozen=True)
class FitzHughNagumoRecipe:
    """FitzHugh–Nagumo sequences, eq. 5.117: v' = v − v³/3 − w + I_ext, w' = τ(v + a − b w)."""

    n_train: int = setting(128, doc="Training sequences.")
    n_val: int = setting(128, doc="Validation sequences.")
    n_test: int = setting(1024, doc="Test sequences.")
    steps: int = setting(1000, doc="Steps N per sequence: t_n = t_end n/N.")
    t_end: float = setting(400.0, doc="Final time of the RK45 run.")
    tau: float = setting(0.02, doc="τ of w' = τ (v + a − b w).")
    i_ext: float = setting(0.5, doc="External current I_ext of v' = v − v³/3 − w + I_ext.")
    a: float = setting(0.7, doc="a of w' = τ (v + a − b w).")
    b: float = setting(0.8, doc="b of w' = τ (v + a − b w).")
    rtol: float = setting(1e-10, doc="Relative tolerance of RK45.")
    atol: float = setting(1e-10, doc="Absolute tolerance of RK45.")
    seed: int = setting(0, doc="Random seed.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        _check_sizes(self)
        object.__setattr__(self, "steps", _number("steps", self.steps, int, 1))
        for key in ("t_end", "tau", "atol"):
            object.__setattr__(self, key, _positive(key, getattr(self, key)))
        for key in ("i_ext", "a", "b"):
            object.__setattr__(self, key, _finite(key, getattr(self, key)))
        rtol = _positive("rtol", self.rtol)
        if not MIN_RTOL <= rtol < 1:
            raise InputError(f"recipe rtol={self.rtol!r}: expected {MIN_RTOL:g} <= rtol < 1")
        object.__setattr__(self, "rtol", rtol)

    @property
    def n(self) -> int:
        """Number of sequences (all splits)."""
        return self.n_train + self.n_val + self.n_test

    def estimated_bytes(self) -> int:
        """Rough file size: inputs and targets (N, steps, 1), time, splits, header."""
        itemsize = 4 if self.dtype == "float32" else 8
        return self.n * (2 * self.steps * itemsize + 8) + self.steps * itemsize + 64 * 1024

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return {"kind": "fitzhugh-nagumo", **dataclasses.asdict(self)}


@dataclass(frozen=True)
class AddingRecipe:
    """Adding problem (§5.3): T steps of (value ~ U[0, 1), marker), target = sum of 2 marked."""

    length: int = setting(2000, doc="Sequence length T (the paper: 2000, 5000, 10000).",
                          short="-T")
    n_train: int = setting(8000, doc="Training sequences.")
    n_val: int = setting(1000, doc="Validation sequences.")
    n_test: int = setting(1000, doc="Test sequences.")
    seed: int = setting(0, doc="Random seed.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        _check_sizes(self)
        object.__setattr__(self, "length", _number("length", self.length, int, 2))

    @property
    def n(self) -> int:
        """Number of sequences (all splits)."""
        return self.n_train + self.n_val + self.n_test

    def estimated_bytes(self) -> int:
        """Rough file size: inputs (N, T, 2), targets (N, 1, 1), time, splits, header."""
        itemsize = 4 if self.dtype == "float32" else 8
        return (self.n * ((2 * self.length + 1) * itemsize + 8) + self.length * itemsize
                + 64 * 1024)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return {"kind": "adding", **dataclasses.asdict(self)}


__all__ = ["FitzHughNagumoRecipe", "AddingRecipe", "MIN_RTOL"]
