"""A Typer command whose options are generated from config fields (:mod:`.config_options`).

Typer builds a command from its function's signature; :func:`command_with_options` gives a
small wrapper the signature of the command's own parameters (arguments first, then the
generated options, then its own options: ``--out``, ``--json``, ...). The wrapper hands the
generated options to the command as :class:`GivenOptions`, the ones the user gave. An old
spelling of an option (a field's ``deprecated`` flags) sets the option, with one line on
stderr: ``--backend is deprecated; use --fem-backend``.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import typer
from typer.models import ArgumentInfo

from surrogate.cli.config_options import ConfigOption, OptionGroup, command_options


class GivenOptions:
    """The generated options given on the command line (Enum choices as their values)."""

    def __init__(self, values: dict[ConfigOption, Any]) -> None:
        self.values = {option: value.value if isinstance(value, Enum) else value
                       for option, value in values.items() if value is not None}

    def scope(self, group: str) -> str | None:
        """The scope chosen by the group's dispatch option (``--arch``), if given."""
        return next((value for option, value in self.values.items()
                     if option.group == group and option.chooses_scope), None)

    def fields(self, group: OptionGroup, scope: str | None = None) -> dict[str, Any]:
        """Field -> value of the group's options given, parsed (``parse``, ``multiple``);
        InputError (``group.refusal``) naming those that ``scope`` does not have."""
        scope = scope if scope is not None else next(iter(group.scopes))
        given = {option: value for option, value in self.values.items()
                 if option.group == group.name and not option.chooses_scope}
        _refuse_foreign(group, scope, [o for o in given if scope not in o.fields])
        fields: dict[str, Any] = {}
        for option, value in given.items():
            if scope not in option.fields:
                continue  # an unknown scope: reported by its own check
            if option.multiple:
                value = tuple(item.value if isinstance(item, Enum) else item for item in value)
            value = option.parse(value) if option.parse is not None else value
            fields.update(value if isinstance(value, Mapping) else
                          {option.fields[scope]: value})
        return fields

    def flags(self) -> list[str]:
        """The flags given, in declaration order."""
        return [option.flag for option in self.values]


def _refuse_foreign(group: OptionGroup, scope: str, foreign: list[ConfigOption]) -> None:
    """InputError naming the options of ``foreign`` that share the first one's scopes."""
    from surrogate.core.errors import InputError

    if not foreign or scope not in group.scopes:
        return
    same = [o for o in foreign if o.scopes == foreign[0].scopes]
    message = group.refusal.format(flags=", ".join(o.flag for o in same), noun=group.noun,
                                   verb="applies" if len(same) == 1 else "apply",
                                   scopes=", ".join(foreign[0].scopes), scope=scope)
    raise InputError(message + (_own_flag_hint(group, scope, same[0].field)
                                if len(same) == 1 else ""))


def _own_flag_hint(group: OptionGroup, scope: str, field: str) -> str:
    """``" (cornn's gamma is --cornn-gamma)"`` when ``scope`` has ``field`` under another flag."""
    from surrogate.cli.config_options import flag_of

    own = {f.name: f for f in dataclasses.fields(group.scopes[scope])}.get(field)
    return f" ({scope}'s {field} is {flag_of(own)})" if own is not None else ""


def _take_aliases(options: list[ConfigOption], kwargs: dict[str, Any]) -> None:
    """Move the values given under deprecated flags to their options, one notice each;
    one-line error (exit 2) when an option is given under both spellings."""
    from surrogate.cli.common import err_console, fail

    for option in options:
        for name, (old, _) in option.aliases.items():
            value = kwargs.pop(name)
            if value is None:
                continue
            err_console.print(f"[bold yellow]warning:[/] {old} is deprecated; use "
                              f"{option.flag}", highlight=False, soft_wrap=True)
            if kwargs[option.name] is not None:
                raise fail(f"{old} and {option.flag} are one option; give {option.flag} only")
            kwargs[option.name] = value


def _is_leading(parameter: inspect.Parameter) -> bool:
    """Arguments and the Typer context come before the generated options."""
    if parameter.annotation is typer.Context:
        return True
    extras = typing.get_args(parameter.annotation)[1:] if \
        typing.get_origin(parameter.annotation) is typing.Annotated else ()
    return any(isinstance(extra, ArgumentInfo) for extra in extras)


def command_with_options(func: Callable[..., Any], groups: list[OptionGroup]
                         ) -> Callable[..., Any]:
    """``func(..., options: GivenOptions)`` as a Typer command with the options of ``groups``.

    The wrapper records ``option_groups`` and ``config_options`` (read by the tests and the
    reference) and keeps ``func``'s name and docstring (the command's help).
    """
    options = command_options(groups)
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
           for p in inspect.signature(func, eval_str=True).parameters.values()
           if p.name != "options"]
    generated = [inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY,
                                   default=inspect.Parameter.empty if option.argument else None,
                                   annotation=option.annotation) for option in options]
    generated.sort(key=lambda p: p.default is None)  # the arguments first
    generated += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                    annotation=annotation)
                  for option in options for name, (_, annotation) in option.aliases.items()]
    clash = {p.name for p in own} & {p.name for p in generated}
    if clash:
        raise ValueError(f"{func.__name__}: options {sorted(clash)} are both generated and own")

    def command(**kwargs: Any) -> Any:
        _take_aliases(options, kwargs)
        given = GivenOptions({option: kwargs.pop(option.name) for option in options})
        return func(**kwargs, options=given)

    command.__signature__ = inspect.Signature(
        [p for p in own if _is_leading(p)] + generated + [p for p in own if not _is_leading(p)])
    command.__annotations__ = {}
    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(command, attribute, getattr(func, attribute))
    command.option_groups = groups
    command.config_options = options
    return command


__all__ = ["GivenOptions", "command_with_options"]
