"""The one TOML reader: ``tomllib`` on Python >= 3.11, ``tomli`` (same API) on 3.10."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from surrogate.core.errors import DataFormatError, InputError


def toml_module() -> ModuleType:
    """``tomllib`` where the interpreter has it, else ``tomli``; InputError naming the fix."""
    try:
        import tomllib
    except ImportError:  # Python 3.10 (or tomllib hidden): the tomli backport, same API
        try:
            import tomli as tomllib
        except ImportError:
            raise InputError(f"reading TOML on Python {sys.version_info.major}."
                             f"{sys.version_info.minor} needs tomli: pip install tomli") from None
    return tomllib


def parse_toml(text: str, what: str) -> dict[str, Any]:
    """TOML text -> dict; InputError naming ``what`` (one line) on a syntax error."""
    toml = toml_module()
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise InputError(f"{what}: not valid TOML: {exc}") from None


def read_toml(path: str | os.PathLike, what: str = "config file") -> dict[str, Any]:
    """Read a TOML file into a dict; DataFormatError when missing or unreadable or not TOML."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFormatError(f"{what} {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"{what} {path} cannot be read: {exc}") from None
    try:
        return parse_toml(text, str(path))
    except InputError as exc:
        raise DataFormatError(str(exc)) from None


__all__ = ["toml_module", "parse_toml", "read_toml"]
