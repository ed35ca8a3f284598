"""``surrogate fit`` on a sequence dataset through the real app: LEM end to end with the run
files, ``info`` and ``validate`` on the run, ``--help`` with a sequence example, and bad
combinations exiting 2 with one line."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.datasets.writer import write_dataset

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("single_torch_thread")
RUN_FILES = ("model.pt", "config.json", "metadata.json", "history.csv", "metrics.json",
             "checkpoint.pt")


@pytest.fixture(scope="module")
def tiny_seq(tmp_path_factory):
    """16 sequences of 8 steps: y_n = u_n + u_{n-1} (seq-to-seq)."""
    u = np.random.default_rng(0).normal(size=(16, 8, 1))
    y = u + np.pad(u, ((0, 0), (1, 0), (0, 0)))[:, :-1]
    path = tmp_path_factory.mktemp("seqcli") / "tiny_seq.h5"
    write_dataset(path, inputs=u, targets=y, input_names=["u"], target_names=["y"],
                  splits={"train": np.arange(10), "val": np.arange(10, 13),
                          "test": np.arange(13, 16)},
                  problem="signal", domain="time", recipe={"kind": "test"}, seed=0,
                  kind="sequence", time=np.arange(8.0))
    return path


@pytest.fixture(scope="module")
def lem_run(tiny_seq, tmp_path_factory):
    out = tmp_path_factory.mktemp("seqcli_runs") / "lem"
    result = runner.invoke(app, ["fit", str(tiny_seq), "--arch", "lem", "--hidden", "6",
                                 "--learn-dt", "--dt", "0.5", "--epochs", "4", "--batch-size",
                                 "4", "--grad-clip", "1", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_fit_lem_end_to_end_writes_the_run(lem_run):
    out, metrics = lem_run
    assert all((out / name).is_file() for name in RUN_FILES)
    assert metrics["epochs_run"] == 4 and metrics["readout"] == "sequence"
    assert set(metrics["sequence_relative_l2_error"]["test"]) >= {"mean", "median", "pooled"}
    config = json.loads((out / "config.json").read_text())
    assert config["model"] == {**config["model"], "arch": "lem", "hidden": 6, "dt": 0.5,
                               "learn_dt": True}
    assert config["train"]["grad_clip"] == 1.0 and config["train"]["batch_size"] == 4
    assert "dt_mean" in (out / "history.csv").read_text().splitlines()[0]


def test_info_and_validate_on_a_sequence_run(lem_run):
    out, _ = lem_run
    result = runner.invoke(app, ["info", str(out)])
    assert result.exit_code == 0, result.output
    assert "run of lem, hidden 6, Δt learned, read-out sequence" in result.stdout
    assert "per seq. mean / median" in result.stdout
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0 and "OK" in result.stdout, result.output


def test_fit_summary_of_a_sequence_run(tiny_seq, tmp_path):
    result = runner.invoke(app, ["fit", str(tiny_seq), "--arch", "cornn", "--hidden", "4",
                                 "--damping", "explicit", "--cornn-gamma", "2", "--epsilon", "1",
                                 "--epochs", "2", "-o", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "cornn hidden 4" in result.stdout and "per sequence" in result.stdout
    model = json.loads((tmp_path / "c" / "config.json").read_text())["model"]
    assert (model["damping"], model["gamma"], model["epsilon"]) == ("explicit", 2.0, 1.0)


def test_config_file_takes_the_sequence_model_keys(tiny_seq, tmp_path):
    toml = tmp_path / "lstm.toml"
    toml.write_text('[model]\narch = "lstm"\nhidden = 3\nreadout = "last"\n\n'
                    '[train]\nepochs = 2\nbatch_size = 5\n')
    out = tmp_path / "r"
    result = runner.invoke(app, ["fit", str(tiny_seq), "--config", str(toml), "-o", str(out),
                                 "-q"])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert (config["model"]["hidden"], config["model"]["readout"]) == (3, "last")


def test_help_shows_a_sequence_example():
    result = runner.invoke(app, ["fit", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "Sequence example: surrogate fit" in result.stdout and "--learn-dt" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--arch", "resnet"], "arch 'resnet' trains on pointwise datasets"),
    (["--arch", "lem", "--lambda1", "0.1"], "arch 'lem' has no τ-layers: lambda1 must stay 0"),
    (["--arch", "lstm", "--learn-dt"], "learn_dt applies to arch 'lem' and 'cornn' only"),
    (["--arch", "lem", "--width", "8"], "--width applies to arch resnet, frac-dnn, densenet, "
                                        "implicit-resnet, ck-net, ode-net, deeponet, not 'lem'"),
    (["--arch", "cornn", "--cornn-gamma", "-1"], "gamma must be > 0"),
    (["--arch", "cornn", "--gamma", "0.5"], "(cornn's gamma is --cornn-gamma)"),
])
def test_bad_sequence_combinations_exit_2_with_one_line(tiny_seq, tmp_path, args, message):
    result = runner.invoke(app, ["fit", str(tiny_seq), "-o", str(tmp_path / "x"),
                                 "--epochs", "1", *args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], lines


def test_prune_refuses_a_sequence_run_in_one_line(lem_run, tmp_path):
    out, _ = lem_run
    result = runner.invoke(app, ["prune", str(out), "-o", str(tmp_path / "p")])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "lem run" in result.stderr
