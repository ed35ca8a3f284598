"""The registry of problem families: name -> module holding ``FAMILY`` (loaded on first use).

Adding a family = one module defining ``FAMILY`` (a :class:`~.family.Family`) + one line here.
"""

from __future__ import annotations

from importlib import import_module

from surrogate.core.errors import InputError

FAMILY_MODULES: dict[str, str] = {
    "radial": "surrogate.fem.families.radial",
    "inclusion": "surrogate.fem.families.inclusion",
}


def family_names() -> list[str]:
    """Names accepted by :func:`get_family`."""
    return list(FAMILY_MODULES)


def get_family(name: str):
    """The family registered under ``name``; InputError naming the valid names otherwise."""
    if not isinstance(name, str) or name not in FAMILY_MODULES:
        raise InputError(f"unknown family {name!r}; choose one of: {', '.join(FAMILY_MODULES)}")
    return import_module(FAMILY_MODULES[name]).FAMILY


__all__ = ["FAMILY_MODULES", "family_names", "get_family"]
