"""Sequence runs on sequences they never saw: unseen signals, materials, a longer horizon.

``measure`` (:func:`evaluate_sequence_run`), ``options``, ``sets`` (what each set is),
``builders``, ``maxwell_td``, ``metrics``, ``vtk``, ``plots``, ``report``, ``tables`` and
``run_kind`` (its registry entry). Names load on first use (PEP 562).
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "measure": ("SequenceEvaluation", "evaluate_sequence_run", "prepare"),
    "options": ("SequenceEvaluationOptions",),
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
