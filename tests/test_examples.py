"""The examples run end to end at reduced size (few epochs, little data) through their knobs.

Each script is run as a user runs it (bash / python, the installed ``surrogate`` command) into
a temporary folder; the test checks its exit code, the files it promises and its JSON summary.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent
SURROGATE = shutil.which("surrogate", path=str(BIN)) or shutil.which("surrogate")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SURROGATE is None, reason="the surrogate command is not installed"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
]


def run_example(command: list[str], out: Path, **knobs: object) -> str:
    """Run an example with environment ``knobs``; return its stdout (exit code 0 required)."""
    env = {**os.environ, "SURROGATE": str(SURROGATE), "PYTHON": sys.executable,
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "OMP_NUM_THREADS": "1",
           **{key: str(value) for key, value in knobs.items()}}
    proc = subprocess.run(command, cwd=out.parent, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, f"{command[-2:]} exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout


def script(name: str, out: Path, **knobs: object) -> dict:
    """Run ``examples/<name>`` into ``out``; its last stdout line is a JSON summary."""
    stdout = run_example(["bash", str(EXAMPLES / name), str(out)], out, **knobs)
    return json.loads(stdout.strip().splitlines()[-1])


def metrics(run: Path) -> dict:
    assert (run / "model.pt").is_file() and (run / "config.json").is_file()
    return json.loads((run / "metrics.json").read_text(encoding="utf-8"))


def is_fraction(value: float) -> bool:
    return 0.0 <= value <= 1.0


def test_ode_net_circles(tmp_path):
    out = tmp_path / "circles"
    summary = script("ode_net_circles.sh", out, EPOCHS=5)
    assert is_fraction(summary["train_accuracy"]) and is_fraction(summary["test_accuracy"])
    assert metrics(out / "run")["accuracy"]["test"] == summary["test_accuracy"]


def test_ck_net_bands(tmp_path):
    out = tmp_path / "bands"
    summary = script("ck_net_bands.sh", out, EPOCHS=5, DEPTH=3)
    for order in (1, 2):
        assert summary[f"c{order}_test_accuracy"] == metrics(out / f"c{order}")["accuracy"]["test"]
        assert is_fraction(summary[f"c{order}_train_accuracy"])


def _check_implicit_runs(summary: dict, out: Path, names: set[str]) -> None:
    assert set(summary["runs"]) == names
    for name, run in summary["runs"].items():  # a crashed fit would be "failed"
        assert run["status"] in ("trained", "stalled", "diverged"), (name, run)
        if run["status"] != "diverged":
            assert (out / "runs" / name / "metrics.json").is_file()
    assert isinstance(summary["claim"]["holds"], bool)


def test_implicit_resnet_sine(tmp_path):
    out = tmp_path / "sine"
    summary = script("implicit_resnet_sine.sh", out, EPOCHS=3)
    names = {f"{net}-lr{lr}" for net in ("resnet-100", "trap-10", "resnet-10")
             for lr in ("0.3", "0.05")}
    _check_implicit_runs(summary, out, names)


def test_implicit_resnet_spirals(tmp_path):
    out = tmp_path / "spirals"
    summary = script("implicit_resnet_spirals.sh", out, EPOCHS=3)
    _check_implicit_runs(summary, out, {"trap-25-lr0.05", "resnet-25-lr0.05",
                                        "resnet-25-lr0.005"})


def test_fitzhugh_nagumo(tmp_path):
    out = tmp_path / "fhn"
    summary = script("fitzhugh_nagumo.sh", out, LEM_EPOCHS=2, CORNN_EPOCHS=2, N_TRAIN=8,
                     N_VAL=4, N_TEST=8, STEPS=40)
    assert set(summary["models"]) == {"lem", "cornn"}
    for name, model in summary["models"].items():
        assert model["epochs"] == 2
        assert math.isfinite(model["test_rmse"]) and model["test_rmse"] > 0
        assert metrics(out / "runs" / name)["parameter_count"] == model["parameters"]
    assert (out / "data" / "fhn.h5").is_file()


def test_adding(tmp_path):
    out = tmp_path / "adding"
    summary = script("adding.sh", out, T=40, HIDDEN=8, N_TRAIN=64, N_VAL=16, N_TEST=16,
                     BATCH=16, LEM_EPOCHS=2, CORNN_EPOCHS=2)
    assert set(summary["models"]) == {"lem", "cornn"}
    for name, model in summary["models"].items():
        assert model["steps"] == 8 and model["epochs"] == 2
        assert math.isfinite(model["test_mse"]) and model["test_mse"] > 0
        assert metrics(out / "runs" / name)["rmse"]["test"] ** 2 == pytest.approx(
            model["test_mse"], rel=1e-3)
    assert isinstance(summary["holds"], bool)
    assert summary["figure"] is None or (out / "adding_mse.png").is_file()


def test_maxwell_td_sequence(tmp_path):
    out = tmp_path / "mtd"
    summary = script("maxwell_td_sequence.sh", out, SAMPLES=20, STEPS=16, LEVEL=1,
                     MATERIALS=2, HIDDEN=4, EPOCHS=2, BATCH=8)
    assert set(summary["models"]) == {"lem", "cornn", "lstm"}
    for arch, model in summary["models"].items():
        assert model["hidden"] == 4 and model["epochs"] == 2
        assert math.isfinite(model["test_rel_l2"]["mean"])
        assert (out / "eval" / arch / "evaluation.json").is_file()
    assert isinstance(summary["claim"]["holds"], bool)


def test_paper_maxwell(tmp_path):
    out = tmp_path / "paper"
    run_example(["bash", str(EXAMPLES / "paper_maxwell.sh"), str(out)], out, EPOCHS=2,
                LEVELS="1-1", POINTS=400, JOBS=2)
    names = {f"{arch}-{tau}{bo}" for arch in ("resnet", "frac-dnn")
             for tau in ("fixed", "learned") for bo in ("", "-bo")}
    assert {p.name for p in (out / "runs").iterdir()} == names
    for name in names:
        assert metrics(out / "runs" / name)["epochs_run"] == 2
    report = out / "report"
    assert (report / "index.html").is_file() and (report / "vtk" / "cube.pvd").is_file()
    evaluation = json.loads((report / "evaluation.json").read_text(encoding="utf-8"))
    assert len(evaluation["runs"]) == 8


def test_family_maxwell(tmp_path):
    out = tmp_path / "family"
    run_example(["bash", str(EXAMPLES / "family_maxwell.sh"), str(out)], out, FAMILIES="radial",
                INPUTS="params fields", PROBLEMS=10, POINTS=30, EPOCHS_PARAMS=1,
                EPOCHS_FIELDS=1, WIDTH=8, DEPTH=2, BATCH=64, EVAL_PROBLEMS=2, LEVELS="1-1")
    assert {p.name for p in (out / "runs").iterdir()} == {"radial-params", "radial-fields"}
    for inputs in ("params", "fields"):
        config = json.loads((out / "runs" / f"radial-{inputs}" / "config.json").read_text())
        assert config["model"]["inputs"] == inputs and config["dataset"]["family"] == "radial"
    report = out / "report" / "radial"
    assert (report / "index.html").is_file() and (report / "evaluation.json").is_file()


def test_pruning_demo(tmp_path):
    out = tmp_path / "pruning"
    stdout = run_example([sys.executable, str(EXAMPLES / "pruning_demo.py"), "--out", str(out),
                          "--epochs", "30", "--points", "400", "--prune-every", "0"], out)
    summary = json.loads(stdout)
    depth_before, depth_after = summary["depth"]
    assert depth_before == 5 and depth_after == 5 - len(summary["removed_hidden_layers"])
    assert len(summary["taus"]) == 5 and all(t > 0 for t in summary["taus"])
    assert math.isfinite(summary["test_error_after"])
    assert metrics(out / "resnet-pruned")["depth"] == depth_after
