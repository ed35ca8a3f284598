"""The registry of run kinds: one entry per kind, and ``evaluate`` and the report go through it.

Runs here are bare ``config.json`` files: the kind is read from their dataset section, and
every refusal below happens before any run is loaded or any output exists.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest

from surrogate.core.errors import InputError
from surrogate.evaluation import api, run_kinds
from surrogate.evaluation.report import render_report
from surrogate.evaluation.run_kind import RUN_INPUTS, RunKind
from surrogate.evaluation.run_kinds import RUN_KINDS, kind_of_dataset, kind_of_runs
from surrogate.evaluation.terminal_tables import Table
from surrogate.runs.layout import RUN_FORMAT, RUN_VERSION

DATASETS = {  # a dataset section of each kind -> the kind that must claim it
    "pointwise": {"kind": "pointwise", "problem": "bessel", "domain": "cylinder"},
    "unrecorded": {"problem": "bessel"},
    "sequence": {"kind": "sequence", "problem": "maxwell-td"},
    "family": {"kind": "pointwise", "family": "radial"},
}
EXPECTED = {"pointwise": "pointwise", "unrecorded": "pointwise", "sequence": "sequence",
            "family": "family"}


def _run(path: Path, **dataset) -> Path:
    """A run directory holding only a config.json with this dataset section."""
    path.mkdir(parents=True)
    config = {"format": RUN_FORMAT, "version": RUN_VERSION, "model": {}, "train": {},
              "normalisation": {}, "dataset": dataset}
    (path / "config.json").write_text(json.dumps(config))
    return path


def test_every_kind_is_registered_once_under_its_name():
    assert list(RUN_KINDS) == ["pointwise", "sequence", "family"]
    entries = list(RUN_KINDS.values())
    assert all(isinstance(k, RunKind) and RUN_KINDS[k.name] is k for k in entries)
    assert len({id(k) for k in entries}) == len({k.options for k in entries}) == 3
    for kind in entries:
        assert kind.inputs <= set(RUN_INPUTS)
        assert kind.options() == kind.options()  # defaults build and compare
        assert kind.description and kind.trained_on


@pytest.mark.parametrize("case", sorted(DATASETS))
def test_each_dataset_section_is_claimed_by_exactly_one_kind(case):
    claims = [name for name, kind in RUN_KINDS.items() if kind.recognises(DATASETS[case])]
    assert claims == [EXPECTED[case]]
    assert kind_of_dataset(DATASETS[case]).name == EXPECTED[case]


@pytest.mark.parametrize("pair, message", [
    (("pointwise", "sequence"), "runs trained on a single problem (pointwise data) and on "
                                "sequence data cannot be evaluated together"),
    (("family", "pointwise"), "runs trained on a problem family and on a single problem"),
    (("sequence", "sequence"), "evaluate one sequence run at a time"),
])
def test_mixed_kinds_and_too_many_runs_are_one_line_errors(tmp_path, pair, message):
    dirs = [_run(tmp_path / f"r{i}", **DATASETS[name]) for i, name in enumerate(pair)]
    with pytest.raises(InputError, match=re.escape(message)) as error:
        api.evaluate(dirs, out=tmp_path / "out")
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists()


def test_an_unknown_kind_is_a_one_line_error(tmp_path):
    run = _run(tmp_path / "graph", kind="graph")
    with pytest.raises(InputError) as error:
        kind_of_runs([run])
    assert str(error.value) == (f"run {str(run)!r} was trained on 'graph' data, which evaluate "
                                "does not know (kinds: pointwise, sequence, family)")
    with pytest.raises(InputError, match="unknown run kind 'graph'; known: pointwise, sequence"):
        render_report({"kind": "graph"})


def test_an_unknown_kind_exits_2_with_one_line_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from surrogate.cli.app import app

    run = _run(tmp_path / "graph", kind="graph")
    result = CliRunner().invoke(app, ["evaluate", str(run), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "'graph' data" in lines[0], lines
    assert not (tmp_path / "out").exists()


def test_no_runs_and_unreadable_runs(tmp_path):
    with pytest.raises(InputError, match="give at least one run directory"):
        kind_of_runs([])
    assert kind_of_runs([tmp_path / "missing"]).name == run_kinds.DEFAULT_KIND


@pytest.mark.parametrize("kind, given, message", [
    ("pointwise", {"data": "d.h5"}, "data applies to sequence runs only; these runs were "
                                    "trained on a single problem"),
    ("sequence", {"problem": "bessel"}, "problem applies to pointwise runs only"),
    ("family", {"vtk": "v"}, "vtk applies to pointwise and sequence runs only; these runs "
                             "were trained on a problem family"),
])
def test_inputs_of_other_kinds_are_refused_before_any_output(tmp_path, kind, given, message):
    run = _run(tmp_path / "run", **DATASETS[kind])
    given = {k: tmp_path / v if k != "problem" else v for k, v in given.items()}
    with pytest.raises(InputError, match=message):
        api.evaluate([run], out=tmp_path / "out", **given)
    other = next(k for k in RUN_KINDS.values() if k.name != kind)
    with pytest.raises(InputError, match=f"give {RUN_KINDS[kind].options.__name__}, not "
                                         f"{other.options.__name__}"):
        api.evaluate([run], other.options(), out=tmp_path / "out")
    assert not any(p.name.startswith(("out", ".")) for p in tmp_path.iterdir())


@pytest.fixture
def toy_kind(monkeypatch):
    """A fourth kind, registered for one test: its load and measure record their calls."""
    calls = []

    @dataclasses.dataclass(frozen=True)
    class ToyOptions:
        scale: float = 2.0

    def load(run_dirs, options, inputs):
        calls.append(("load", [p.name for p in run_dirs], options.scale, inputs.vtk))
        return {"runs": len(run_dirs), "scale": options.scale}

    def measure(loaded, folders, progress):
        calls.append(("measure", folders.vtk is not None, folders.plots is not None))
        progress(1, 1, "toy")
        (folders.vtk / "toy.pvd").write_text("<VTKFile/>")
        summary = {"kind": "toy", "error": 0.125 * loaded["scale"]}
        return "measured", summary, {"figures": {}, "skipped": []}

    toy = RunKind(
        name="toy", description="a toy", trained_on="toy data", options=ToyOptions,
        recognises=lambda dataset: dataset.get("kind") == "toy", load=load, measure=measure,
        report_title=lambda summary: "Toy report",
        report_section=lambda summary, figures, figure_prefix="": [
            f"<p>error {summary['error']}</p>"],
        tables=lambda summary: [Table("toy", (), ()), f"error {summary['error']}"],
        inputs=frozenset({"vtk"}), vtk_files=("toy.pvd",))
    monkeypatch.setitem(RUN_KINDS, "toy", toy)
    return toy, calls


def test_evaluate_and_the_report_dispatch_through_the_registry(tmp_path, toy_kind):
    toy, calls = toy_kind
    runs = [_run(tmp_path / name, kind="toy") for name in ("a", "b")]
    assert run_kinds.kind_of_runs(runs) is toy
    progress = []
    result = api.evaluate(runs, toy.options(scale=4.0), out=tmp_path / "out",
                          vtk=tmp_path / "vtk", report=True,
                          on_progress=lambda *args: progress.append(args))
    assert calls == [("load", ["a", "b"], 4.0, True), ("measure", True, True)]
    assert progress == [(1, 1, "toy")]
    assert result.kind == "toy" and result.evaluation == "measured"
    written = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert written["error"] == 0.5 and written["outputs"]["vtk"] == str(tmp_path / "vtk")
    page = (tmp_path / "out" / "index.html").read_text()
    assert "<title>Toy report</title>" in page and "<p>error 0.5</p>" in page
    assert (tmp_path / "vtk" / "toy.pvd").is_file()
    assert toy.tables(written)[1] == "error 0.5"


def _code_words(path: Path) -> tuple[set[str], set[str], set[str]]:
    """(string constants other than docstrings, identifiers, imported modules) of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    strings, names, modules = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            strings.add(node.value)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(node.name)
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module or "")
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return strings, names, modules


@pytest.mark.parametrize("module", ["api.py", "report.py"])
def test_api_and_report_name_no_kind(module):
    """They call the registry's entries only: no kind's name, options class or modules."""
    strings, names, modules = _code_words(Path(api.__file__).parent / module)
    assert not set(RUN_KINDS) & strings
    assert not {k.options.__name__ for k in RUN_KINDS.values()} & names
    assert not [m for m in modules if m.startswith(tuple(
        f"surrogate.evaluation.{folder}" for folder in ("static", "sequence", "family")))]
