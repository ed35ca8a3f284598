"""Training: the loop behind ``surrogate fit``, its epoch, checkpoints, metrics and pruning.

Exports are lazy (PEP 562): importing ``surrogate.training`` does not load torch.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "config": ("TrainConfig",),
    "loop": ("fit", "TrainingInterrupted"),
    "pruning": ("prune_run",),
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
