"""The options of every command are config fields: every field of every config that feeds a
command has exactly one flag (its deprecated spellings hidden aliases of it), and every flag of
every command is a field or one of the documented run-control options."""

import dataclasses

import pytest
import typer.main

from surrogate.cli.app import app, build_app
from surrogate.cli.config_options import deprecated_flags, flag_of

GEN_DATA = {"out", "recipe", "as_json", "quiet", "workers", "scheduler", "dask_cluster", "resume"}
RUN_CONTROL = {
    "fit": {"data", "out", "config", "resume", "overwrite", "as_json", "quiet"},
    "prune": {"run_dir", "out", "data", "overwrite", "as_json", "quiet"},
    "evaluate": {"run_dirs", "out", "vtk", "plots", "report", "problem", "data", "as_json",
                 "quiet"},
    "report": {"run_dirs", "out", "vtk", "problem", "as_json", "quiet"},
    "predict": {"run", "out", "vtk", "as_json", "quiet"},
    "uq": {"run", "out", "as_json", "quiet"},
    "serve": {"run", "quiet"},
    "fem convergence": {"out", "as_json", "quiet"},
    "mesh generate": {"geo", "out", "as_json", "quiet"},
    "mesh check": {"mesh", "as_json"},
    "validate": {"path", "as_json"},
    "info": {"path", "as_json", "quiet"},
    **{f"gen-data {name}": GEN_DATA for name in ("maxwell", "toy", "maxwell-td", "maxwell-nl",
                                                   "fitzhugh-nagumo", "adding", "maxwell-family")},
}
"""Options that are not config fields: inputs, outputs, the config/recipe file, printing."""

DEPRECATED = {"fem convergence": {"--backend": "--fem-backend", "--order": "--fem-order",
                                  "--threads": "--fem-threads", "--method": "--fem-method"},
              "evaluate": {"--fem": "--fem-method"}, "report": {"--fem": "--fem-method"},
              "prune": {"--tol": "--prune-tol"}}
"""Old spellings still accepted for one release (hidden, with a one-line notice)."""

NOT_OPTIONS = {
    ("ModelConfig", "in_features"), ("ModelConfig", "out_features"),  # from the dataset
    ("SequenceModelConfig", "in_features"), ("SequenceModelConfig", "out_features"),
    ("SequenceModelConfig", "response_steps"),  # the bank's length, from the dataset's steps
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


def _click_commands(command=None, path=()):
    """(name, click command) of every command of the app, groups walked."""
    command = command or typer.main.get_command(app)
    if not hasattr(command, "commands"):
        return [(" ".join(path), command)]
    return [found for name, sub in command.commands.items()
            for found in _click_commands(sub, (*path, name))]


def _alias_names(callback) -> set[str]:
    return {name for option in callback.config_options for name in option.aliases}


def test_the_commands_of_the_issue_have_generated_options():
    names = {name for name, _ in _commands()}
    assert {"fit", "evaluate", "report", "gen-data maxwell", "gen-data toy",
            "gen-data maxwell-td", "gen-data fitzhugh-nagumo", "gen-data adding",
            "gen-data maxwell-family", "fem convergence", "predict", "prune",
            "mesh generate"} <= names


@pytest.mark.parametrize("name, command", _click_commands(),
                         ids=[n for n, _ in _click_commands()])
def test_every_option_of_every_command_is_a_field_or_run_control(name, command):
    """validate, info and mesh check have no config: their flags are run control only."""
    callback = dict(_commands()).get(name)
    generated = set() if callback is None else \
        {o.name for o in callback.config_options} | _alias_names(callback)
    own = {param.name for param in command.params} - generated
    assert own <= RUN_CONTROL[name], own - RUN_CONTROL[name]


@pytest.mark.parametrize("name", sorted(DEPRECATED))
def test_deprecated_spellings_are_hidden_aliases_of_their_options(name):
    callback = dict(_commands())[name]
    click_command = dict(_click_commands())[name]
    aliases = {old: option.flag for option in callback.config_options
               for old, _ in option.aliases.values()}
    assert aliases == DEPRECATED[name]
    hidden = {opt for param in click_command.params if param.hidden for opt in param.opts}
    assert hidden == set(DEPRECATED[name])
    for option in callback.config_options:
        for group in callback.option_groups:
            for cls in group.scopes.values():
                for f in dataclasses.fields(cls):
                    if f.name == option.field and deprecated_flags(f):
                        assert {old for old, _ in option.aliases.values()} == \
                            set(deprecated_flags(f))


def test_registry_choices_are_listed_when_the_app_is_built(monkeypatch):
    """A backend registered before build_app() is in --fem-backend's list and accepted."""
    from surrogate.fem.convergence_options import ConvergenceOptions
    from surrogate.fem.hcurl import registry

    before = tuple(registry.BACKENDS)
    toy = dataclasses.replace(registry.BACKENDS["skfem"], name="toy")
    monkeypatch.setitem(registry.BACKENDS, "toy", toy)
    command = typer.main.get_command(build_app()).commands["fem"].commands["convergence"]
    backend = next(p for p in command.params if p.opts == ["--fem-backend"])
    assert backend.metavar == "[" + "|".join((*before, "toy")) + "]"
    assert ConvergenceOptions(fem_backend="toy", fem_order=1).fem_backend == "toy"
    monkeypatch.delitem(registry.BACKENDS, "toy")
    command = typer.main.get_command(build_app()).commands["fem"].commands["convergence"]
    assert next(p for p in command.params if p.opts == ["--fem-backend"]).metavar == \
        "[" + "|".join(before) + "]"


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
    generated = {option.name for option in callback.config_options} | _alias_names(callback)
    own = {param.name for param in click_command.params} - generated
    assert own <= RUN_CONTROL[name], own - RUN_CONTROL[name]
    assert generated <= {param.name for param in click_command.params}


def test_options_of_fit_are_listed_in_the_reference():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = text.split("## `surrogate fit`")[1].split("## `surrogate prune`")[0]
    fit = dict(_commands())["fit"]
    for option in fit.config_options:
        assert f"`{option.flag} " in section or f"`{option.flag} /" in section, option.flag


def test_a_deprecated_spelling_is_a_hidden_alias_with_one_notice():
    """The machinery, on a config of its own: the old flag sets the field, says so in one
    line, and given together with the new one is a one-line error."""
    from dataclasses import dataclass

    from typer.testing import CliRunner

    from surrogate.cli.config_options import OptionGroup
    from surrogate.cli.generated_command import command_with_options
    from surrogate.core.typed_config import setting

    @dataclass(frozen=True)
    class Toy:
        new_name: int = setting(1, doc="A number.", deprecated=("old-name", "older"))
        switch: bool = setting(False, doc="A switch.", deprecated=("toggle",))

    group = OptionGroup("toy", {"toy": Toy})

    def show(*, options) -> None:
        toy = Toy(**options.fields(group))
        print(toy.new_name, toy.switch)

    toy_app = typer.Typer()
    toy_app.command()(command_with_options(show, [group]))
    runner = CliRunner()
    result = runner.invoke(toy_app, ["--old-name", "7", "--toggle"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "7 True"
    assert result.stderr.splitlines() == ["warning: --old-name is deprecated; use --new-name",
                                          "warning: --toggle is deprecated; use --switch"]
    assert "Formerly --old-name, --older (deprecated)." in runner.invoke(
        toy_app, ["--help"], env={"COLUMNS": "200"}).stdout
    both = runner.invoke(toy_app, ["--older", "2", "--new-name", "3"])
    assert both.exit_code == 2
    assert both.stderr.splitlines()[-1] == \
        "error: --older and --new-name are one option; give --new-name only"
