"""``surrogate fit`` / ``surrogate prune`` through the real app: gen-data → fit → prune end to
end, config files with flag overrides, one-line errors with exit 2, Ctrl-C with exit 130."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surrogate.cli.app import app

runner = CliRunner()
TINY = ["--depth", "3", "--width", "6", "--epochs", "12", "--quiet"]


pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "maxwell.h5"
    result = runner.invoke(app, ["gen-data", "maxwell", "-n", "200", "--seed", "1", "-o",
                                 str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


def test_choices_match_the_registry():
    import typing

    from surrogate.models.registry import activation_names, all_architecture_names

    fit = next(c.callback for c in app.registered_commands if c.name == "fit")
    choices = {}
    for option in fit.config_options:
        kind = typing.get_args(typing.get_args(option.annotation)[0])[0]
        if hasattr(kind, "__members__"):
            choices[option.name] = sorted(member.value for member in kind)
    assert choices["arch"] == all_architecture_names()
    assert choices["activation"] == activation_names()


def test_fit_then_prune_end_to_end(data, tmp_path):
    out = tmp_path / "fdnn"
    result = runner.invoke(app, ["fit", str(data), "--arch", "frac-dnn", "--tau", "learned",
                                 "--lambda2", "50", "--lr", "0.05", "-o", str(out), "--json",
                                 *TINY])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert metrics["epochs_run"] == 12 and len(metrics["taus"]) == 3
    for name in ("model.pt", "config.json", "metadata.json", "history.csv", "metrics.json",
                 "checkpoint.pt"):
        assert (out / name).is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["arch"] == "frac-dnn" and config["model"]["tau"] is None
    assert config["train"]["lambda2"] == 50.0
    assert config["dataset"]["input_names"] == ["x1", "x2", "x3", "f1", "f2", "f3", "phi"]
    tol = sorted(metrics["taus"])[1] * 1.0001  # removes exactly the smallest hidden step
    result = runner.invoke(app, ["prune", str(out), "--prune-tol", str(tol), "-o",
                                 str(tmp_path / "p"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["depth_after"] == report["depth_before"] - len(report["removed"])
    assert json.loads((tmp_path / "p" / "prune.json").read_text()) == report
    # the old spelling --tol: the same option for one release, with a one-line notice
    result = runner.invoke(app, ["prune", str(out), "--tol", "0.01", "-o", str(tmp_path / "p2")])
    assert result.exit_code == 0 and "rel. L² error before" in result.stdout
    assert result.stderr == "warning: --tol is deprecated; use --prune-tol\n"
    assert json.loads((tmp_path / "p2" / "prune.json").read_text())["tol"] == 0.01


def test_config_file_with_flag_overrides_is_written_into_the_run(data, tmp_path):
    toml = tmp_path / "run.toml"
    toml.write_text('[model]\narch = "resnet"\ntau = 0.5\nwidth = 5\n\n'
                    '[train]\nlr = 0.02\nepochs = 3\noptimizer = "sgd"\n')
    out = tmp_path / "r"
    result = runner.invoke(app, ["fit", str(data), "--config", str(toml), "--lr", "0.03",
                                 "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["tau"] == 0.5 and config["model"]["width"] == 5
    assert config["train"]["lr"] == 0.03 and config["train"]["optimizer"] == "sgd"
    assert config["train"]["epochs"] == 3


@pytest.mark.parametrize("args, message", [
    (["--tau", "abc"], "tau must be 'learned' or a number > 0"),
    (["--epochs", "0"], "epochs must be an integer >= 1"),
    (["--arch", "frac-dnn", "--gamma", "1.5"], "gamma must lie in (0, 1)"),
    (["--gamma", "0.3"], "--gamma applies to arch frac-dnn, deeponet, not 'resnet'"),
    (["--resume"], "no checkpoint to resume from"),
])
def test_bad_fit_input_is_one_line_and_exit_2(data, tmp_path, args, message):
    result = runner.invoke(app, ["fit", str(data), "-o", str(tmp_path / "x"), *args])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_missing_dataset_and_missing_run_are_one_line(tmp_path):
    result = runner.invoke(app, ["fit", str(tmp_path / "none.h5"), "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = runner.invoke(app, ["prune", str(tmp_path / "norun")])
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_architecture_exits_2(data, tmp_path):
    result = runner.invoke(app, ["fit", str(data), "--arch", "transformer"])
    assert result.exit_code == 2 and "transformer" in result.output


def test_ctrl_c_checkpoints_and_exits_130(data, tmp_path, monkeypatch):
    import surrogate.training.loop as training

    real_epoch = training.train_epoch

    def interrupted_epoch(state, config, x, y, reduction):
        if state.epoch == 4:
            raise KeyboardInterrupt
        return real_epoch(state, config, x, y, reduction)

    monkeypatch.setattr(training, "train_epoch", interrupted_epoch)
    out = tmp_path / "c"
    result = runner.invoke(app, ["fit", str(data), "-o", str(out), "--checkpoint-every", "1",
                                 *TINY])
    assert result.exit_code == 130
    assert "epoch 3" in result.stderr and "--resume" in result.stderr
    monkeypatch.setattr(training, "train_epoch", real_epoch)
    result = runner.invoke(app, ["fit", str(data), "-o", str(out), "--resume", "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "metrics.json").read_text())["epochs_run"] == 12


def test_skew_weights_flag_lands_in_config_json_and_the_loaded_run(data, tmp_path):
    from surrogate.runs.load import load_run

    out = tmp_path / "skew"
    result = runner.invoke(app, ["fit", str(data), "--arch", "implicit-resnet", "--tau", "0.5",
                                 "--skew-weights", "-o", str(out), *TINY[:4], "--epochs", "2",
                                 "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["model"]["skew_weights"] is True
    run = load_run(out)
    weight = run.model.hidden_weights()[1]
    assert run.model_config.skew_weights and bool((weight == -weight.T).all())
    result = runner.invoke(app, ["fit", str(data), "--arch", "densenet", "--skew-weights",
                                 "-o", str(tmp_path / "d"), *TINY])
    assert result.exit_code == 2 and \
        "--skew-weights applies to arch resnet, implicit-resnet, not 'densenet'" in \
        result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_quadratic_output_flag_lands_in_config_json_and_is_trained(data, tmp_path):
    import torch

    from surrogate.runs.load import load_run

    out = tmp_path / "quadratic"
    result = runner.invoke(app, ["fit", str(data), "--arch", "resnet", "--quadratic-output",
                                 "-o", str(out), *TINY[:4], "--epochs", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["model"]["quadratic_output"] is True
    run = load_run(out)
    assert run.model_config.quadratic_output
    assert torch.count_nonzero(run.model.quadratic_output.weight) > 0  # trained from 0


def test_step_lipschitz_flag_lands_in_config_json_and_the_loaded_run(data, tmp_path):
    import torch

    from surrogate.runs.load import load_run

    out = tmp_path / "bounded"
    result = runner.invoke(app, ["fit", str(data), "--arch", "resnet", "--tau", "0.5",
                                 "--step-lipschitz", "0.25", "-o", str(out), *TINY[:4],
                                 "--epochs", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["model"]["step_lipschitz"] == 0.25
    run = load_run(out)
    with torch.no_grad():
        weights = run.model.effective_weights(run.model.taus())[1:]
    assert run.model_config.step_lipschitz == 0.25
    assert all(0.5 * float(torch.linalg.matrix_norm(w, ord=2)) <= 0.25 + 1e-6 for w in weights)
    result = runner.invoke(app, ["fit", str(data), "--arch", "densenet", "--step-lipschitz",
                                 "0.5", "-o", str(tmp_path / "d"), *TINY])
    assert result.exit_code == 2 and \
        "--step-lipschitz applies to arch resnet, ck-net, not 'densenet'" in \
        result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_resume_without_out_continues_the_run_of_the_data_whatever_its_arch(data, tmp_path,
                                                                            monkeypatch):
    """Bug: ``fit DATA --resume`` looked in runs/resnet, not where a frac-dnn run was written."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["fit", str(data), "--arch", "frac-dnn", "--depth", "2",
                                 "--width", "4", "--epochs", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "runs" / "frac-dnn" / "checkpoint.pt").is_file()
    result = runner.invoke(app, ["fit", str(data), "--resume", "--epochs", "4", "--json"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert metrics["path"] == str(Path("runs") / "frac-dnn") and metrics["epochs_run"] == 4
    # the first command line plus --resume continues it too (--arch names runs/<arch>)
    result = runner.invoke(app, ["fit", str(data), "--arch", "frac-dnn", "--resume",
                                 "--epochs", "5", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["epochs_run"] == 5
    result = runner.invoke(app, ["fit", str(data), "--arch", "resnet", "--resume", "-o",
                                 str(Path("runs") / "frac-dnn")])
    assert result.exit_code == 2
    assert "runs/frac-dnn holds a frac-dnn run, not resnet" in result.stderr
