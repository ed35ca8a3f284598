"""The run directory: save (:mod:`.save`), load (:mod:`.load`), safe loading
(:mod:`.safe_load`), validation (:mod:`.validate`), checkpoints, history and predictions.

Exports are lazy (PEP 562), like :mod:`surrogate`: importing this package loads nothing else.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "run": ("Run",),
    "save": ("save_run",),
    "load": ("load_run", "read_config", "run_summary"),
    "validate": ("validate_run",),
    "checkpoints": ("save_checkpoint", "load_checkpoint"),
    "predict": ("predict_array", "predict_sequences"),
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
