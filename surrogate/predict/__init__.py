"""Use a trained surrogate: a run bound to a point set answers u for problems (the predictor),
the parameter and point tables a user hands in, and the files ``surrogate predict`` writes.

Exports are lazy (PEP 562): importing this package loads neither torch nor h5py.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "predictor": ("Predictor",),
    "point_sets": ("PointSet",),
    "parameters": ("parameter_rows", "outside_box"),
    "tables": ("read_table",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first access."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
