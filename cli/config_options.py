"""Command-line options made from typed config fields: one declaration per option, the field.

A field declared with :func:`~surrogate.core.typed_config.setting` becomes ``--<name>`` (``_``
as ``-``; its ``flag`` renames it, ``short`` adds an alias) with the field's help text, the
default it shows, its choices (a ``str`` Enum, so ``--help`` lists them; ``listed`` choices
only as the metavar, checked by the config) and its panel; a ``bool`` field becomes
``--name/--no-name``; a tuple field and a ``text`` field are read as text that the config
parses. Every option defaults to None: "not given". A field's ``deprecated`` flags become
hidden aliases (:attr:`ConfigOption.aliases`): the command takes them, with a one-line notice.

Options come in :class:`OptionGroup` s whose *scopes* each have their own config class (the
architectures of ``fit``, for instance): a field that several scopes share is one option that
knows them; a flag given for another scope is a one-line error (see
:mod:`surrogate.cli.generated_command`). Two different fields under one flag are refused when
the options are built, naming both, so an architecture's fields never collide with another's.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import Annotated, Any

import typer

from surrogate.core.typed_config import default_text


@dataclass(frozen=True)
class OptionGroup:
    """Config classes that feed one command's options, one per scope.

    ``scopes`` maps a scope name (an architecture, a recipe) to its config class; ``noun``
    says what a scope is in messages (``"arch"``). With ``dispatch`` (a field name, e.g.
    ``"arch"``) the group gets one option choosing the scope, help ``dispatch_doc``, default
    ``default_scope``. ``skip`` names fields that are not options of this command,
    ``arguments`` fields that are its positional arguments (required); ``refusal`` is the
    message for an option given for another scope.
    """

    name: str
    scopes: Mapping[str, type]
    noun: str = ""
    dispatch: str | None = None
    dispatch_doc: str = ""
    default_scope: str | None = None
    skip: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    refusal: str = "{flags} {verb} to {noun} {scopes}, not {scope!r}"


@dataclass(frozen=True, eq=False)
class ConfigOption:
    """One option: its parameter name, flag, the field it sets in each scope that has it
    (``fields``), and how its value becomes the field's (``parse``, ``multiple``)."""

    name: str
    flag: str
    field: str
    group: str
    fields: Mapping[str, str]
    annotation: Any = dataclasses.field(repr=False)
    argument: bool = False
    parse: Any = None
    multiple: bool = False
    aliases: Mapping[str, tuple[str, Any]] = dataclasses.field(default_factory=dict, repr=False)
    """Parameter name -> (deprecated flag, annotation) of each old spelling (hidden)."""

    @property
    def scopes(self) -> tuple[str, ...]:
        """The scopes whose config has this option's field."""
        return tuple(self.fields)

    @property
    def chooses_scope(self) -> bool:
        """True for the option that picks the scope (``--arch``)."""
        return not self.scopes


class OptionCollision(ValueError):
    """Two different config fields were declared under one flag."""


def field_type(cls: type, name: str) -> type:
    """The base type of field ``name`` (``int | None`` -> int, ``tuple[...]`` -> tuple)."""
    hint = typing.get_type_hints(cls)[name]
    if isinstance(hint, UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    return typing.get_origin(hint) or hint


def flag_of(f: dataclasses.Field) -> str:
    """The long flag of a field: its ``flag`` metadata or ``--<name>`` (``_`` as ``-``)."""
    return "--" + (f.metadata.get("flag") or f.name.replace("_", "-"))


def is_option(f: dataclasses.Field, group: OptionGroup) -> bool:
    """Whether field ``f`` is an option of ``group`` (not ``cli=False``, skipped, dispatch)."""
    return f.metadata.get("cli", True) and f.name not in group.skip and f.name != group.dispatch


def _meaning(cls: type, f: dataclasses.Field) -> tuple:
    """What must agree for two scopes' fields to share one flag."""
    keys = ("doc", "choices", "text", "parse", "multiple", "short", "panel", "listed",
            "deprecated")
    return (field_type(cls, f.name), *(f.metadata.get(k) for k in keys))


def _choices(flag: str, values: tuple[str, ...]) -> type[Enum]:
    """A ``str`` Enum of ``values`` (so that ``--help`` lists them)."""
    name = "".join(part.title() for part in flag.strip("-").split("-")) + "Choice"
    return Enum(name, {v.replace("-", "_"): v for v in values}, type=str)


def _option_type(cls: type, f: dataclasses.Field) -> type:
    """The type the command line reads for field ``f``."""
    kind = field_type(cls, f.name)
    if f.metadata.get("choices"):
        kind = _choices(flag_of(f), f.metadata["choices"])
    elif f.metadata.get("text") or kind is tuple and not f.metadata.get("multiple"):
        kind = str
    elif kind is tuple:
        kind = typing.get_args(typing.get_type_hints(cls)[f.name])[0]
        kind = next((a for a in typing.get_args(kind) if a is not type(None)), kind)
    return list[kind] if f.metadata.get("multiple") else kind


def _declarations(f: dataclasses.Field, kind: type) -> tuple[str, ...]:
    flag = flag_of(f)
    if kind is bool:
        return (f"{flag}/--no-{flag[2:]}",)
    short = f.metadata.get("short")
    return (flag, short) if short else (flag,)


def _metavar(f: dataclasses.Field) -> str | None:
    """``[a|b]`` of a field's ``listed`` choices, as the registry holds them now."""
    listed = f.metadata.get("listed")
    return "[" + "|".join(map(str, listed())) + "]" if listed is not None else None


def deprecated_flags(f: dataclasses.Field) -> tuple[str, ...]:
    """The old flags of field ``f`` (``--backend``), still accepted with a notice."""
    return tuple("--" + old for old in f.metadata.get("deprecated") or ())


def _aliases(f: dataclasses.Field, kind: type) -> dict[str, tuple[str, Any]]:
    """Parameter name -> (old flag, hidden option of the field's type) per deprecated flag."""
    aliases = {}
    for old in deprecated_flags(f):
        declaration = f"{old}/--no-{old[2:]}" if kind is bool else old
        info = typer.Option(declaration, hidden=True, metavar=_metavar(f))
        aliases["deprecated_" + old[2:].replace("-", "_")] = (old, Annotated[kind | None, info])
    return aliases


def _help(group: OptionGroup, owners: list[tuple[str, type, dataclasses.Field]]) -> str:
    """The field's help, prefixed by its scopes when it is theirs alone, naming its deprecated
    spellings, ending in the default."""
    f = owners[0][2]
    doc = f.metadata["doc"]
    if deprecated_flags(f):
        doc += f" Formerly {', '.join(deprecated_flags(f))} (deprecated)."
    scopes = [scope for scope, _, _ in owners]
    if len(scopes) < len(group.scopes) and f.name not in _base_field_names(owners[0][1]):
        doc = ", ".join(scopes) + ": " + (doc[0].lower() + doc[1:] if doc[1:2].islower() else doc)
    defaults = {scope: default_text(cls, field.name) for scope, cls, field in owners}
    if len(set(defaults.values())) == 1:
        shown = next(iter(defaults.values()))
    else:
        shown = ", ".join(f"{scope} {text}" for scope, text in defaults.items())
    return f"{doc} \\[default: {shown}]"


def _dispatch_base(cls: type) -> type | None:
    """The base class whose subclasses are the scopes (``ModelConfig``), if any."""
    return next((c for c in cls.__mro__ if c.__dict__.get("dispatch_field")), None)


def _base_field_names(cls: type) -> list[str]:
    """The fields of the dispatch base of ``cls`` (every scope has them), in order."""
    base = _dispatch_base(cls)
    return [f.name for f in dataclasses.fields(base)] if base is not None else []


def _ordered_fields(cls: type) -> list[dataclasses.Field]:
    """The fields of ``cls``: those of its dispatch base first, in the base's order."""
    first = _base_field_names(cls)
    fields = dataclasses.fields(cls)
    return sorted(fields, key=lambda f: first.index(f.name) if f.name in first else len(first))


def _field_owners(group: OptionGroup) -> dict[str, list[tuple[str, type, dataclasses.Field]]]:
    """Flag -> the (scope, config class, field) that declare it, checked to mean one thing."""
    owners: dict[str, list[tuple[str, type, dataclasses.Field]]] = {}
    for scope, cls in group.scopes.items():
        for f in _ordered_fields(cls):
            if not is_option(f, group):
                continue
            if not f.metadata.get("doc"):
                raise OptionCollision(f"{cls.__name__}.{f.name} has no help text; declare it "
                                      "with setting(..., doc=...)")
            entries = owners.setdefault(flag_of(f), [])
            if entries and _meaning(entries[0][1], entries[0][2]) != _meaning(cls, f):
                first_scope, first_cls, _ = entries[0]
                raise OptionCollision(
                    f"{flag_of(f)} would set {first_cls.__name__}.{entries[0][2].name} "
                    f"({first_scope}) and {cls.__name__}.{f.name} ({scope}); give one its own "
                    "flag: setting(..., flag=...)")
            entries.append((scope, cls, f))
    return owners


def _dispatch_option(group: OptionGroup, panel: str | None) -> ConfigOption:
    """The option that picks the scope (``--arch``): the scope names as choices."""
    flag = "--" + group.dispatch.replace("_", "-")
    kind = _choices(flag, tuple(group.scopes))
    info = typer.Option(flag, help=f"{group.dispatch_doc} \\[default: {group.default_scope}]",
                        rich_help_panel=panel)
    return ConfigOption(group.dispatch, flag, group.dispatch, group.name, {},
                        Annotated[kind | None, info])


def group_options(group: OptionGroup) -> list[ConfigOption]:
    """The options of ``group``: the scope choice first, then the fields in declaration order."""
    owners = _field_owners(group)
    options = []
    for flag, entries in owners.items():
        _, cls, f = entries[0]
        kind = _option_type(cls, f)
        fields = {scope: field.name for scope, _, field in entries}
        extra = {"parse": f.metadata.get("parse"), "multiple": bool(f.metadata.get("multiple"))}
        if f.name in group.arguments:
            info = typer.Argument(help=f.metadata["doc"], metavar=f.name.upper(),
                                  show_default=False)
            options.append(ConfigOption(f.name, f.name.upper(), f.name, group.name, fields,
                                        Annotated[kind, info], argument=True, **extra))
            continue
        info = typer.Option(*_declarations(f, kind),
                            help=_help(group, entries), metavar=_metavar(f),
                            rich_help_panel=f.metadata.get("panel") or None)
        options.append(ConfigOption(flag[2:].replace("-", "_"), flag, f.name, group.name,
                                    fields, Annotated[kind | None, info],
                                    aliases=_aliases(f, kind), **extra))
    if group.dispatch:
        first = next(iter(group.scopes.values()))
        field = (_dispatch_base(first) or first).__dataclass_fields__[group.dispatch]
        options.insert(0, _dispatch_option(group, field.metadata.get("panel") or None))
    return options


def command_options(groups: list[OptionGroup]) -> list[ConfigOption]:
    """The options of every group of a command; OptionCollision when two share a flag (or a
    deprecated spelling)."""
    options = [option for group in groups for option in group_options(group)]
    seen: dict[str, ConfigOption] = {}
    for option in options:
        for flag in (option.flag, *(old for old, _ in option.aliases.values())):
            other = seen.setdefault(flag, option)
            if other is not option:
                raise OptionCollision(f"{flag} is an option of both {other.group} and "
                                      f"{option.group}")
    return options


__all__ = ["ConfigOption", "OptionCollision", "OptionGroup", "command_options",
           "deprecated_flags", "field_type", "flag_of", "group_options", "is_option"]
