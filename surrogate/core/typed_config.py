"""A base for frozen dataclass configs whose field metadata drives validation and help.

Each field is declared with :func:`setting`: its help text, bounds or choices and the CLI
panel it is shown in. :class:`TypedConfig` then checks every value against its annotation
(``int``, ``float``, ``str``, ``bool``, optionally ``| None``) and its metadata, builds
itself from a mapping (:meth:`~TypedConfig.from_dict`: unknown keys and wrong types are one
line each) or from TOML, and states its defaults for the command line's help
(:func:`default_text`). Torch-free.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from types import UnionType
from typing import Any, ClassVar

from surrogate.core.errors import InputError
from surrogate.core.toml_files import parse_toml


def setting(default: Any = dataclasses.MISSING, *, doc: str, panel: str = "",
            ge: float | None = None, gt: float | None = None, le: float | None = None,
            lt: float | None = None, choices: Sequence[str] | None = None,
            shown: str | None = None, flag: str | None = None, short: str | None = None,
            text: bool = False, parse: Callable[[Any], Any] | None = None,
            multiple: bool = False, cli: bool = True,
            listed: Callable[[], Sequence[str]] | None = None,
            deprecated: Sequence[str] = ()) -> Any:
    """A dataclass field with its help text ``doc``, bounds, ``choices`` and CLI ``panel``.

    ``shown`` replaces the default in the help (e.g. ``"learned"`` for ``tau=None``). The
    command line's option is ``--<name>`` with ``_`` as ``-`` unless ``flag`` names it (e.g.
    ``"cornn-gamma"``); ``short`` adds an alias (``"-n"``); ``text`` reads the value as text
    that the config's reader parses (``tau``: ``learned`` or a number), or ``parse`` turns
    into the field's value (or into a mapping of fields); ``multiple`` makes it repeatable
    (a tuple); ``cli=False`` gives the field no option (its value comes from the data, a file
    or another field's option). ``listed`` returns the values ``--help`` lists when the app is
    built, for choices a registry holds and the config checks itself (a value registered
    later is accepted; a wrong one is the config's one-line error); ``deprecated`` names old
    flags (``"backend"``) still accepted, each with a one-line notice.
    """
    metadata = {"doc": doc, "panel": panel, "ge": ge, "gt": gt, "le": le, "lt": lt,
                "choices": tuple(choices) if choices is not None else None, "shown": shown,
                "flag": flag, "short": short, "text": text or parse is not None,
                "parse": parse, "multiple": multiple, "cli": cli, "listed": listed,
                "deprecated": tuple(deprecated)}
    return dataclasses.field(default=default, metadata=metadata)


@cache
def _field_types(cls: type) -> dict[str, tuple[type, bool]]:
    """Field name -> (base type, optional) from the annotations (``int | None`` -> int, True)."""
    hints = typing.get_type_hints(cls)
    types = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = typing.get_args(hint) if isinstance(hint, UnionType) or \
            typing.get_origin(hint) is typing.Union else ()
        optional = type(None) in args
        base = next((a for a in args if a is not type(None)), hint) if args else hint
        types[f.name] = (base, optional)
    return types


def _checked(name: str, value: Any, kind: type, meta: Mapping[str, Any]) -> Any:
    """``value`` checked against ``kind`` and the bounds/choices in ``meta`` (floats coerced)."""
    if kind is bool:
        if not isinstance(value, bool):
            raise InputError(f"{name} must be true or false, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise InputError(f"{name} must be a string, got {value!r}")
        choices = meta.get("choices")
        if choices is not None and value not in choices:
            raise InputError(f"unknown {name} {value!r}; choose one of: {', '.join(choices)}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{name} must be an integer, got {value!r}")
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{name} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise InputError(f"{name} must be finite, got {value!r}")
        value = float(value)
    what = "an integer " if kind is int else ""
    low = meta.get("ge") if meta.get("ge") is not None else meta.get("gt")
    high = meta.get("le") if meta.get("le") is not None else meta.get("lt")
    if low is not None and high is not None:
        inside = (value >= low if meta.get("ge") is not None else value > low) and \
            (value <= high if meta.get("le") is not None else value < high)
        if not inside:
            left = "[" if meta.get("ge") is not None else "("
            right = "]" if meta.get("le") is not None else ")"
            raise InputError(f"{name} must lie in {left}{low:g}, {high:g}{right}, got {value!r}")
    for key, op, ok in (("ge", ">=", value.__ge__), ("gt", ">", value.__gt__),
                        ("le", "<=", value.__le__), ("lt", "<", value.__lt__)):
        bound = meta.get(key)
        if bound is not None and not ok(bound):
            raise InputError(f"{name} must be {what}{op} {bound:g}, got {value!r}")
    return value


def _descendants(cls: type) -> list[type]:
    """Every loaded subclass of ``cls``, depth first."""
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_descendants(sub)]
    return found


class TypedConfig:
    """Mixin of frozen dataclasses declared with :func:`setting` fields.

    Subclasses add cross-field checks in :meth:`check` and may name themselves in
    ``config_name`` (used in error messages, e.g. ``"training config"``).
    """

    config_name: ClassVar[str] = "config"
    #: A base whose subclasses are told apart by this field's default (e.g. ``"arch"``):
    #: calling the base with that field builds the matching subclass.
    dispatch_field: ClassVar[str | None] = None

    def __new__(cls, *args: Any, **kwargs: Any):
        """``Base(arch="resnet", ...)`` builds the loaded subclass whose ``arch`` is "resnet"."""
        name = cls.__dict__.get("dispatch_field")
        if name is not None and name in kwargs:
            matches = [sub for sub in _descendants(cls) if dataclasses.is_dataclass(sub)
                       and sub.__dataclass_fields__[name].default == kwargs[name]]
            if len(matches) == 1:
                return super().__new__(matches[0])
        return super().__new__(cls)

    def __post_init__(self) -> None:
        types = _field_types(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind, optional = types[f.name]
            if value is None and optional:
                continue
            checked = _checked(f.name, value, kind, f.metadata)
            if checked is not value:
                object.__setattr__(self, f.name, checked)
        self.check()

    def check(self) -> None:
        """Cross-field checks (InputError); nothing by default."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (round-trips through :meth:`from_dict`)."""
        return dataclasses.asdict(self)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Names of the fields, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        """Build from a mapping of (some) fields; one-line InputError on unknown keys/values."""
        if not isinstance(data, Mapping):
            raise InputError(f"{cls.config_name} must be a mapping, got {type(data).__name__}")
        known = cls.field_names()
        unknown = sorted(map(str, set(data) - set(known)))
        if unknown:
            raise InputError(f"unknown {cls.config_name} key(s): {', '.join(unknown)}; "
                             f"valid keys: {', '.join(sorted(known))}")
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in data
                   and f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING]
        if missing:
            raise InputError(f"{cls.config_name} is missing: {', '.join(missing)}")
        return cls(**dict(data))

    @classmethod
    def from_toml(cls, text: str, table: str | None = None):
        """Build from TOML text: one flat table, or the ``[table]`` table when present."""
        data = parse_toml(text, cls.config_name)
        return cls.from_dict(data.get(table, data) if table else data)


def default_text(cls: type, name: str) -> str:
    """The default of field ``name`` as the help shows it (``off`` for None/False)."""
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    if f.metadata.get("shown") is not None:
        return f.metadata["shown"]
    value = f.default
    if value is None or value is False:
        return "off"
    if value is True:
        return "on"
    if isinstance(value, tuple):
        return ",".join(default_value_text(v) for v in value)
    return default_value_text(value)


def default_value_text(value: Any) -> str:
    """One default value as the help shows it (floats in ``g`` format)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["setting", "TypedConfig", "default_text", "default_value_text"]
