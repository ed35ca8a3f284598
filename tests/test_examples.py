"""The examples run end to end at reduced size (few epochs, little data) through their knobs.

Each script is run as a user runs it (bash / python) into a temporary folder; the test checks
its exit code, the files it promises and its JSON summary. The scripts' ``$SURROGATE`` is the
installed command's entry point served warm (tests/warm_cli.py: each command a fork of one
interpreter that has imported torch once), which saves ≈ 3 s of CPU start-up per command;
the Python example runs in such a fork too (the warm ``python``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent
SURROGATE = shutil.which("surrogate", path=str(BIN)) or shutil.which("surrogate")



def _gmsh_missing() -> str | None:
    """Why Gmsh's Python API cannot be used here (None when it can)."""
    try:
        import gmsh  # noqa: F401  (the [meshing] extra; `make install` brings it via [dev])
    except (ImportError, OSError) as exc:
        return f"own_geometry.sh meshes with gmsh: pip install 'surrogate[meshing]' ({exc})"
    return None


GMSH_MISSING = _gmsh_missing()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SURROGATE is None, reason="the surrogate command is not installed"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
]


ENV = {**os.environ, "PYTHON": sys.executable, "OMP_NUM_THREADS": "1",
       "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_example(command: list[str], out: Path, surrogate: Path | str | None = None,
                **knobs: object) -> str:
    """Run an example with environment ``knobs`` and ``surrogate`` as its command (default:
    the installed one); return its stdout (exit code 0 required)."""
    env = {**ENV, "SURROGATE": str(surrogate or SURROGATE),
           **{key: str(value) for key, value in knobs.items()}}
    proc = subprocess.run(command, cwd=out.parent, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, f"{command[-2:]} exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout


def _bash(name: str) -> list[str]:
    return ["bash", str(EXAMPLES / name)]


# name (= the test's name without "test_") -> (command without the output folder, knobs)
RUNS: dict[str, tuple[list[str], dict[str, object]]] = {
    "ode_net_circles": (_bash("ode_net_circles.sh"), {"EPOCHS": 5}),
    "ck_net_bands": (_bash("ck_net_bands.sh"), {"EPOCHS": 5, "DEPTH": 3}),
    "implicit_resnet_sine": (_bash("implicit_resnet_sine.sh"), {"EPOCHS": 3}),
    "implicit_resnet_spirals": (_bash("implicit_resnet_spirals.sh"), {"EPOCHS": 3}),
    "fitzhugh_nagumo": (_bash("fitzhugh_nagumo.sh"), {
        "LEM_EPOCHS": 2, "CORNN_EPOCHS": 2, "N_TRAIN": 8, "N_VAL": 4, "N_TEST": 8, "STEPS": 40}),
    "adding": (_bash("adding.sh"), {
        "T": 40, "HIDDEN": 8, "N_TRAIN": 64, "N_VAL": 16, "N_TEST": 16, "BATCH": 16,
        "LEM_EPOCHS": 2, "CORNN_EPOCHS": 2}),
    "maxwell_td_sequence": (_bash("maxwell_td_sequence.sh"), {
        "SAMPLES": 20, "STEPS": 16, "LEVEL": 1, "MATERIALS": 2, "HIDDEN": 4, "EPOCHS": 2,
        "BATCH": 8, "FEM_BACKEND": "skfem", "FEM_ORDER": 0, "SUBSTEPS": 1, "RICHARDSON": "no",
        "FEM_CANDIDATES": "skfem:0:2:1"}),
    "nonlinear_cavity_sequence": (_bash("nonlinear_cavity_sequence.sh"), {
        "SAMPLES": 8, "HIDDEN": 4, "EPOCHS": 2, "BATCH": 4, "GRID": 2,
        "RECIPE": "--level 1 --fem-order 1 --steps 10 --dt 0.2 --probes 2 --substeps 1 "
                  "--no-richardson --varistor-low 0.5,0.5,0.5 --varistor-high 1,1,1 "
                  "--split 0.5,0.25,0.25",
        "FEM_CANDIDATES": "ngsolve:1:1:1"}),
    "paper_maxwell": (_bash("paper_maxwell.sh"), {
        "EPOCHS": 2, "LEVELS": "1-1", "POINTS": 400, "JOBS": 2}),
    "family_maxwell": (_bash("family_maxwell.sh"), {
        "FAMILIES": "radial", "INPUTS": "params fields", "PROBLEMS": 10, "POINTS": 30,
        "EPOCHS_PARAMS": 1, "EPOCHS_FIELDS": 1, "WIDTH": 8, "DEPTH": 2, "BATCH": 64,
        "BATCH_PARAMS": 32, "EVAL_PROBLEMS": 2, "LEVELS": "1-1"}),
    "pruning_demo": ([sys.executable, str(EXAMPLES / "pruning_demo.py"), "--out"], {}),
}
if GMSH_MISSING is None:
    RUNS["own_geometry"] = (_bash("own_geometry.sh"), {  # the asserted FEM is skfem's N0
        "EPOCHS": 3, "POINTS": 300, "LEVELS": "1-1", "H": 0.3, "FEM_BACKENDS": "skfem"})
SHAPES = ("waveguide_bend", "torus_section", "cube_void")
PRUNING_ARGS = ["--epochs", "30", "--points", "400", "--prune-every", "0"]


@pytest.fixture(scope="module")
def warm(warm_commands):
    """The installed command, served warm (tests/warm_cli.py)."""
    return warm_commands.surrogate


@pytest.fixture(scope="module")
def example_runs(request, tmp_path_factory, warm_commands):
    """Start every selected example at once, two at a time, so the suite waits for the
    slowest pair rather than for each in turn."""
    selected = {item.name for item in request.session.items if item.module is request.module}
    root = tmp_path_factory.mktemp("examples")
    pool = ThreadPoolExecutor(max_workers=2)

    def run(name: str) -> tuple[Path, str]:
        command, knobs = RUNS[name]
        out = root / name
        extra = PRUNING_ARGS if name == "pruning_demo" else []
        if command[0] == sys.executable:  # a Python example: the warm interpreter runs it
            command = [str(warm_commands.python), *command[1:]]
        return out, run_example([*command, str(out), *extra], out,
                                warm_commands.surrogate, **knobs)

    futures = {name: pool.submit(run, name) for name in RUNS if f"test_{name}" in selected}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("args", [["fit", "missing.h5", "-o", "run"], ["fitt"], ["info"]])
def test_the_warm_command_answers_as_the_installed_one(warm, tmp_path, args):
    """Same exit code, output and files as the installed command (a failure must fail)."""
    done = [subprocess.run([command, *args], cwd=tmp_path, env=ENV, capture_output=True,
                           text=True, timeout=120) for command in (SURROGATE, warm)]
    assert done[0].returncode == done[1].returncode == 2  # usage and input errors: exit 2
    assert (done[0].stdout, done[0].stderr) == (done[1].stdout, done[1].stderr)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("program", [
    ["-c", "import sys; print(sys.argv, sys.path[0] == ''); sys.exit(3)", "x"],
    ["script.py", "--flag"], ["-c", "raise ValueError('no')"], ["-m", "json.tool"]])
def test_the_warm_python_answers_as_the_interpreter(warm_commands, tmp_path, program):
    """``python -c`` and ``python SCRIPT``: same exit code, output and argv; other options
    (not served) fail."""
    (tmp_path / "script.py").write_text(
        "import os, sys\nprint(__name__, sys.argv, sys.path[0] == os.getcwd())\n",
        encoding="utf-8")
    done = [subprocess.run([command, *program], cwd=tmp_path, env=ENV, capture_output=True,
                           text=True, timeout=120, stdin=subprocess.DEVNULL)
            for command in (sys.executable, warm_commands.python)]
    if program[0] == "-m":
        assert done[1].returncode != 0 and "not ['-m']" in done[1].stderr
        return
    assert done[0].returncode == done[1].returncode
    assert done[0].stdout == done[1].stdout
    assert done[0].stderr.splitlines()[-1:] == done[1].stderr.splitlines()[-1:]


def finished(example_runs: dict, name: str) -> tuple[Path, dict | str]:
    """(output folder, JSON of the whole stdout or of its last line — else the raw stdout)."""
    out, stdout = example_runs[name].result()
    for text in (stdout, (stdout.strip().splitlines() or [""])[-1]):
        try:
            return out, json.loads(text)
        except json.JSONDecodeError:
            continue
    return out, stdout


def metrics(run: Path) -> dict:
    assert (run / "model.pt").is_file() and (run / "config.json").is_file()
    return json.loads((run / "metrics.json").read_text(encoding="utf-8"))


def is_fraction(value: float) -> bool:
    return 0.0 <= value <= 1.0


def test_ode_net_circles(example_runs):
    out, summary = finished(example_runs, "ode_net_circles")
    assert is_fraction(summary["train_accuracy"]) and is_fraction(summary["test_accuracy"])
    assert metrics(out / "run")["accuracy"]["test"] == summary["test_accuracy"]


def test_ck_net_bands(example_runs):
    out, summary = finished(example_runs, "ck_net_bands")
    for order in (1, 2):
        assert summary[f"c{order}_test_accuracy"] == metrics(out / f"c{order}")["accuracy"]["test"]
        assert is_fraction(summary[f"c{order}_train_accuracy"])


def _check_implicit_runs(summary: dict, out: Path, names: set[str], trained, implicit: str,
                         explicit: tuple[str, ...]) -> None:
    """Every run's status follows from its metrics.json (``trained(metrics)``), and the claim
    is the statuses at the large rate: ``implicit`` trained, every ``explicit`` net not."""
    assert set(summary["runs"]) == names
    for name, run in summary["runs"].items():  # a crashed fit would be "failed"
        assert run["status"] in ("trained", "stalled", "diverged"), (name, run)
        if run["status"] != "diverged":
            expected = "trained" if trained(metrics(out / "runs" / name)) else "stalled"
            assert run["status"] == expected, (name, run)
    claim = summary["claim"]
    large = f"{claim['lr']:g}"
    for net in (implicit, *explicit):
        assert claim[net] == summary["runs"].get(f"{net}-lr{large}", {}).get("status"), net
    assert claim["holds"] is (claim[implicit] == "trained" and all(
        claim[net] in ("diverged", "stalled") for net in explicit))


def test_implicit_resnet_sine(example_runs):
    out, summary = finished(example_runs, "implicit_resnet_sine")
    names = {f"{net}-lr{lr}" for net in ("resnet-100", "trap-10", "resnet-10")
             for lr in ("0.3", "0.05")}
    _check_implicit_runs(summary, out, names, lambda m: m["final_train_loss"] <= 0.2,
                         "trap-10", ("resnet-10", "resnet-100"))


def test_implicit_resnet_spirals(example_runs):
    out, summary = finished(example_runs, "implicit_resnet_spirals")
    _check_implicit_runs(summary, out, {"trap-25-lr0.05", "resnet-25-lr0.05",
                                        "resnet-25-lr0.005"},
                         lambda m: round(m["accuracy"]["train"], 4) >= 0.9, "trap-25",
                         ("resnet-25",))


def test_fitzhugh_nagumo(example_runs):
    out, summary = finished(example_runs, "fitzhugh_nagumo")
    assert set(summary["models"]) == {"lem", "cornn"}
    for name, model in summary["models"].items():
        assert model["epochs"] == 2
        assert math.isfinite(model["test_rmse"]) and model["test_rmse"] > 0
        assert metrics(out / "runs" / name)["parameter_count"] == model["parameters"]
    assert (out / "data" / "fhn.h5").is_file()


def test_adding(example_runs):
    out, summary = finished(example_runs, "adding")
    assert set(summary["models"]) == {"lem", "cornn"}
    for name, model in summary["models"].items():
        assert model["steps"] == 8 and model["epochs"] == 2
        assert math.isfinite(model["test_mse"]) and model["test_mse"] > 0
        test_mse = metrics(out / "runs" / name)["rmse"]["test"] ** 2
        assert test_mse == pytest.approx(model["test_mse"], rel=1e-3)
        assert model["meets_desired"] is (test_mse <= summary["desired_mse"])
    assert summary["desired_mse"] == 0.01
    assert summary["holds"] is all(m["meets_desired"] for m in summary["models"].values())
    assert summary["figure"] is None or (out / "adding_mse.png").is_file()


def test_maxwell_td_sequence(example_runs):
    out, summary = finished(example_runs, "maxwell_td_sequence")
    assert set(summary["models"]) == {"lem", "cornn", "lstm"}
    for arch, model in summary["models"].items():
        assert model["hidden"] == 4 and model["epochs"] == 2
        assert math.isfinite(model["test_rel_l2"]["mean"])
        assert (out / "eval" / arch / "evaluation.json").is_file()
        for query in ("one", "batch"):  # a known material: one convolution, FEM at any error
            fem = model["unseen_signals_fem"][query]
            assert fem["fem"] is not None and fem["fem_ms"] > 0 and fem["surrogate_ms"] > 0
            assert fem["n_star"] is None or fem["fem_ms"] > fem["surrogate_ms"]
    assert not (out / "eval" / ".fill-materials").exists()
    lstm = summary["models"]["lstm"]["test_rel_l2"]
    claim = summary["claim"]
    for arch in ("lem", "cornn"):
        errors = summary["models"][arch]["test_rel_l2"]
        assert claim[f"{arch}_below_lstm"] is all(errors[k] < lstm[k] for k in ("mean", "median"))
    assert claim["holds"] is (claim["lem_below_lstm"] and claim["cornn_below_lstm"])


def test_nonlinear_cavity_sequence(example_runs):
    out, summary = finished(example_runs, "nonlinear_cavity_sequence")
    assert set(summary["models"]) == {"lem", "cornn", "lstm"} and summary["linear_response"]
    for arch, model in summary["models"].items():
        assert model["hidden"] == 4 and model["epochs"] == 2
        assert math.isfinite(model["test_rel_l2"]["median"])
        assert metrics(out / "runs" / arch)["train_seconds"] == pytest.approx(
            model["train_seconds"], abs=0.06)
        assert model["verdict"]["surrogate_ms"] > 0
    lem, lstm = summary["models"]["lem"]["test_rel_l2"], summary["models"]["lstm"]["test_rel_l2"]
    assert summary["claim"]["lem_below_lstm"] is all(lem[k] < lstm[k] for k in ("mean", "median"))


def test_paper_maxwell(example_runs):
    out, _ = finished(example_runs, "paper_maxwell")
    names = {f"{arch}-{tau}{bo}" for arch in ("resnet", "frac-dnn")
             for tau in ("fixed", "learned") for bo in ("", "-bo")}
    assert {p.name for p in (out / "runs").iterdir()} == names
    for name in names:
        assert metrics(out / "runs" / name)["epochs_run"] == 2
    report = out / "report"
    assert (report / "index.html").is_file() and (report / "vtk" / "cube.pvd").is_file()
    evaluation = json.loads((report / "evaluation.json").read_text(encoding="utf-8"))
    assert len(evaluation["runs"]) == 8


def test_family_maxwell(example_runs):
    out, _ = finished(example_runs, "family_maxwell")
    assert {p.name for p in (out / "runs").iterdir()} == {"radial-params", "radial-fields"}
    for inputs in ("params", "fields"):
        config = json.loads((out / "runs" / f"radial-{inputs}" / "config.json").read_text())
        assert config["model"]["inputs"] == inputs and config["dataset"]["family"] == "radial"
        assert config["train"]["batch_size"] == {"params": 32, "fields": 64}[inputs]
        assert config["model"]["quadratic_output"] is True
    report = out / "report" / "radial"
    assert (report / "index.html").is_file() and (report / "evaluation.json").is_file()


@pytest.mark.skipif(GMSH_MISSING is not None, reason=str(GMSH_MISSING))
def test_own_geometry(example_runs):
    out, _ = finished(example_runs, "own_geometry")
    assert metrics(out / "runs" / "resnet")["epochs_run"] == 3
    report = out / "report"
    evaluation = json.loads((report / "evaluation.json").read_text(encoding="utf-8"))
    assert [Path(r["domain"]).name for r in evaluation["records"]] == [
        f"{shape}.msh" for shape in SHAPES]
    for record in evaluation["records"]:
        assert record["level"] == 1 and record["n_cells"] > 0 and record["volume"] > 0
        fem, surrogate = record["fem"], record["runs"]["resnet"]
        assert (fem["backend"], fem["order"]) == ("skfem", 0) and fem["ndofs"] > 0
        assert 0 < fem["relative_error"] < 0.05  # N0's best approximation on Gmsh's mesh
        assert math.isfinite(surrogate["relative_error"]) and surrogate["relative_error"] > 0
        assert 0.0 <= record["inside_fraction"]["cylinder"] <= 1.0
        verdict = evaluation["fastest_fem_at_equal_error"][record["domain"]]["resnet"]
        assert verdict["fem"]["error"] <= verdict["surrogate"]["error"] or verdict["lower_bound"]
    for shape in SHAPES:
        assert (out / "meshes" / f"{shape}.msh").is_file()
        assert (report / "vtk" / f"{shape}.pvd").is_file()
        assert (report / "vtk" / f"{shape}_level1.vtu").is_file()
    assert (report / "index.html").is_file()


def test_pruning_demo(example_runs):
    out, summary = finished(example_runs, "pruning_demo")
    depth_before, depth_after = summary["depth"]
    assert depth_before == 5 and depth_after == 5 - len(summary["removed_hidden_layers"])
    assert len(summary["taus"]) == 5 and all(t > 0 for t in summary["taus"])
    assert math.isfinite(summary["test_error_after"])
    assert metrics(out / "resnet-pruned")["depth"] == depth_after
