"""Lazy re-exports of a package's public names (PEP 562): a name's module loads on first use.

A package ``__init__`` declares what it re-exports as one table, submodule -> names, and gets
back its ``__all__``, ``__getattr__`` and ``__dir__``::

    __all__, __getattr__, __dir__ = lazy_exports(__name__, {"load": ("load_run",)})

so ``import surrogate.runs`` loads no submodule (and neither torch nor h5py) until
``surrogate.runs.load_run`` is first read. ``tests/test_architecture.py`` reads the same table
as the package's import edges.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, tuple[str, ...]]
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` of ``package`` re-exporting ``exports`` lazily.

    ``exports`` maps a submodule, relative to ``package`` (``"load"``, ``"models.registry"``),
    to the names it defines that the package re-exports; a name listed twice is a ValueError.
    """
    module_of: dict[str, str] = {}
    for module, names in exports.items():
        for name in names:
            if name in module_of:
                raise ValueError(f"{package}: {name!r} exported by both {module_of[name]!r} "
                                 f"and {module!r}")
            module_of[name] = module

    def __getattr__(name: str) -> Any:
        """Import the submodule that defines ``name`` on first access."""
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{module_of[name]}"), name)

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(module_of))

    return sorted(module_of), __getattr__, __dir__
