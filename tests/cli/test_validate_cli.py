"""`surrogate validate FILE|RUN_DIR` through Typer's CliRunner: OK, every problem, exit codes."""

from __future__ import annotations

import json
import os
import shutil

import h5py
import numpy as np
import pytest
import torch
import typer
from typer.testing import CliRunner

from surrogate.cli.commands import validate as validate_commands
from surrogate.datasets import make_splits, write_dataset
from surrogate.training.loop import fit

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("single_torch_thread")


def _app() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True)

    @app.callback()
    def _root() -> None:
        """Test root."""

    validate_commands.register(app)
    return app


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A valid dataset and a 2-epoch run trained on it."""
    folder = tmp_path_factory.mktemp("validate_cli")
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (40, 7))
    write_dataset(folder / "d.h5", inputs=x, targets=np.sin(x[:, :3]),
                  input_names=("x1", "x2", "x3", "f1", "f2", "f3", "phi"),
                  target_names=("u1", "u2", "u3"), splits=make_splits(40, (0.6, 0.2, 0.2), rng),
                  problem="maxwell", domain="cube", recipe={"kind": "maxwell"}, seed=2)
    torch.set_num_threads(1)
    fit(folder / "d.h5", {"arch": "resnet", "width": 4, "depth": 2}, {"epochs": 2},
        folder / "run")
    return folder / "d.h5", folder / "run"


def test_valid_dataset_and_run_print_ok(made):
    for path in made:
        result = runner.invoke(_app(), ["validate", str(path)])
        assert result.exit_code == 0, result.output
        assert result.output == "OK\n"
    result = runner.invoke(_app(), ["validate", str(made[1]), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output) == {"path": str(made[1]), "kind": "run", "ok": True,
                                         "problems": []}


def test_every_dataset_problem_is_printed_with_exit_1(made, tmp_path):
    path = tmp_path / "bad.h5"
    shutil.copy(made[0], path)
    with h5py.File(path, "a") as f:
        f["inputs"][0, 1] = np.inf
        f["splits/test"][0] = f["splits/train"][0]
    result = runner.invoke(_app(), ["validate", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 3, lines
    assert "'inputs' contains 1 non-finite values (inf)" in lines[0]
    assert lines[1] == "splits overlap: train/test" and lines[2].startswith("content hash mismatch")


def test_every_run_problem_is_printed_with_exit_1(made, tmp_path):
    run = shutil.copytree(made[1], tmp_path / "run")
    state = torch.load(run / "model.pt", weights_only=True)
    state["layers.0.weight"][0, 0] = float("nan")
    torch.save(state, run / "model.pt")
    (run / "history.csv").write_text("epoch,train_loss\n1,0.5,7\n")
    result = runner.invoke(_app(), ["validate", str(run), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["ok"] is False and report["kind"] == "run"
    assert report["problems"] == [
        "model.pt: tensor 'layers.0.weight' has 1 non-finite values",
        "history.csv: not a valid history (row 1 has more cells than the header)",
    ]


def test_missing_path_or_special_file_exit_2_with_one_line(tmp_path):
    result = runner.invoke(_app(), ["validate", str(tmp_path / "nope.h5")])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "does not exist" in lines[0]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = runner.invoke(_app(), ["validate", str(fifo)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "neither a file nor a directory" in lines[0]


def test_help_has_an_example():
    result = runner.invoke(_app(), ["validate", "--help"])
    assert result.exit_code == 0 and "Example:" in result.output
