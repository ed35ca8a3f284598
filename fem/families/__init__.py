"""Families of static Maxwell problems: a parameter box, a sampler, one Problem per draw μ.

``get_family(name)`` / ``family_names()`` (the registry), ``sensor_layout`` /
``sensor_values`` / ``sensor_names`` (fixed sensor encodings) and ``fem_truth`` (the fine
complete-linear mixed solve of a family without a closed form). Names load on first use (PEP 562).
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "registry": ("get_family", "family_names", "FAMILY_MODULES"),
    "family": ("Family", "SAMPLERS", "check_box", "widened"),
    "sensors": ("Sensors", "sensor_layout", "sensor_values", "sensor_names"),
    "truth": ("fem_truth", "TRUTH_LEVEL", "TRUTH_ORDER"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` on first access (PEP 562)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)


def __dir__() -> list[str]:
    return __all__
