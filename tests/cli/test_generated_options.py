"""The options of ``fit``, ``evaluate``, ``report`` and ``gen-data *`` are the config fields:
every field of every config that feeds a command has exactly one flag, and every flag is a
field or one of the documented run-control options."""

import dataclasses

import pytest
import typer.main

from surrogate.cli.app import app
from surrogate.cli.config_options import flag_of

RUN_CONTROL = {
    "fit": {"data", "out", "config", "resume", "overwrite", "as_json", "quiet"},
    "evaluate": {"run_dirs", "out", "vtk", "plots", "report", "problem", "data", "as_json",
                 "quiet"},
    "report": {"run_dirs", "out", "vtk", "problem", "as_json", "quiet"},
    "gen-data": {"out", "recipe", "as_json", "quiet", "workers", "scheduler", "dask_cluster",
                 "resume"},
}
"""Options that are not config fields: inputs, outputs, the config/recipe file, printing."""

NOT_OPTIONS = {
    ("ModelConfig", "in_features"), ("ModelConfig", "out_features"),  # from the dataset
    ("SequenceModelConfig", "in_features"), ("SequenceModelConfig", "out_features"),
    ("MaxwellFamilyRecipe", "box"),  # pairs [low, high]: a --recipe TOML file
    ("EvaluationOptions", "slice_value"),  # set by --slice AXIS=VALUE with slice_axis
}
"""Fields without an option of their own (``setting(..., cli=False)``), and why."""


def _commands():
    """(name, callback) of every command whose options are generated."""
    found = []
    for info in app.registered_commands:
        found.append((info.name, info.callback))
    for group in app.registered_groups:
        for info in group.typer_instance.registered_commands:
            found.append((f"{group.name} {info.name}", info.callback))
    return [(name, callback) for name, callback in found if hasattr(callback, "option_groups")]


def test_the_commands_of_the_issue_have_generated_options():
    names = {name for name, _ in _commands()}
    assert {"fit", "evaluate", "report", "gen-data maxwell", "gen-data toy",
            "gen-data maxwell-td", "gen-data fitzhugh-nagumo", "gen-data adding",
            "gen-data maxwell-family"} <= names


@pytest.mark.parametrize("name, callback", _commands(), ids=[n for n, _ in _commands()])
def test_every_field_has_exactly_one_flag(name, callback):
    for group in callback.option_groups:
        for scope, cls in group.scopes.items():
            for f in dataclasses.fields(cls):
                declaring = next(c for c in cls.__mro__ if f.name in
                                 getattr(c, "__annotations__", {}))
                if f.name == group.dispatch:
                    owners = [o for o in callback.config_options if o.chooses_scope]
                elif not f.metadata.get("cli", True):
                    assert (declaring.__name__, f.name) in NOT_OPTIONS, (scope, f.name)
                    continue
                else:
                    owners = [o for o in callback.config_options
                              if o.group == group.name and o.fields.get(scope) == f.name]
                assert len(owners) == 1, (name, scope, f.name, owners)
                if not owners[0].argument and not owners[0].chooses_scope:
                    assert owners[0].flag == flag_of(f)


@pytest.mark.parametrize("name, callback", _commands(), ids=[n for n, _ in _commands()])
def test_every_flag_is_a_field_or_run_control(name, callback):
    click_command = typer.main.get_command(app)
    for part in name.split():
        click_command = click_command.commands[part]
    generated = {option.name for option in callback.config_options}
    own = {param.name for param in click_command.params} - generated
    assert own <= RUN_CONTROL[name.split()[0]], own - RUN_CONTROL[name.split()[0]]
    assert generated <= {param.name for param in click_command.params}


def test_options_of_fit_are_listed_in_the_reference():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = text.split("## `surrogate fit`")[1].split("## `surrogate prune`")[0]
    fit = dict(_commands())["fit"]
    for option in fit.config_options:
        assert f"`{option.flag} " in section or f"`{option.flag} /" in section, option.flag
