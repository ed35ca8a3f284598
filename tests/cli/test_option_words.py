"""The words a user follows: every flag a library module names in its messages and docstrings
is an option of the command that calls it (no ``--sensors`` that ``predict`` lacks), and the
messages of a family run name the option that takes its problems."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer.main

from surrogate.cli.app import app
from surrogate.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SPEAKERS = {
    "predict": ("surrogate/predict/to_files.py", "surrogate/predict/options.py",
                "surrogate/predict/point_sets.py", "surrogate/predict/parameters.py",
                "surrogate/predict/tables.py", "surrogate/predict/outputs.py"),
    "fem convergence": ("fem/convergence_options.py",),
    "prune": ("surrogate/training/pruning.py", "surrogate/training/prune_options.py"),
    "mesh generate": ("fem/gmsh_meshing.py",),
}
"""Command -> the modules whose messages speak to its user."""

def _flags(name: str) -> set[str]:
    """The visible flags of command ``name`` ("fem convergence")."""
    command = typer.main.get_command(app)
    for part in name.split():
        command = command.commands[part]
    return {opt for param in command.params if not param.hidden
            for opt in (*param.opts, *param.secondary_opts) if opt.startswith("--")}


@pytest.mark.parametrize("command", sorted(SPEAKERS))
def test_every_flag_a_module_names_is_an_option_of_its_command(command):
    flags = _flags(command)
    for path in SPEAKERS[command]:
        named = set(FLAG.findall((ROOT / path).read_text(encoding="utf-8")))
        assert named <= flags, (path, named - flags)


def test_a_fields_run_is_told_its_sensor_values_go_to_params():
    from surrogate.predict.options import PredictOptions
    from surrogate.predict.to_files import problems_of

    options = PredictOptions(domain="cube")
    for inputs, expected in (("fields", "--params (its sensor values)"), ("params", "--params")):
        run = SimpleNamespace(path="runs/x", dataset={"family": "radial"},
                              model_config=SimpleNamespace(inputs=inputs))
        with pytest.raises(InputError, match=re.escape(f"give the problems with {expected},")):
            problems_of(options, run, print)
    single = SimpleNamespace(path="runs/s", dataset={}, model_config=SimpleNamespace())
    with pytest.raises(InputError, match="drop --params$"):
        problems_of(PredictOptions(domain="cube", params="mu.csv"), single, print)
