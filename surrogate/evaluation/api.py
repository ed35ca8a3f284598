"""``evaluate``: one call from run directories to ``evaluation.json``, figures, VTK and a report.

The runs' data kind (``config.json``'s ``dataset.kind``) picks the evaluation, here and
nowhere else: ``pointwise`` runs are held against Nédélec FEM baselines on test domains
(:mod:`surrogate.evaluation.static.measure`) — or, trained on a problem family (a ``family`` in the
dataset section), on unseen members (:mod:`surrogate.evaluation.family.measure`) — and ``sequence``
runs against sequences they never saw (:mod:`surrogate.evaluation.sequence.measure`). Every user
error is raised before any output exists; outputs are then written into temporary sibling
folders and moved into place only when complete
(:func:`surrogate.core.output_paths.staged_outputs`). Nothing is printed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError, InputError, SurrogateError
from surrogate.core.json_files import write_json_file
from surrogate.core.output_paths import check_output_folder, staged_outputs
from surrogate.evaluation.devices import resolve_inference_device
from surrogate.evaluation.family.measure import (
    FamilyEvaluation,
    family_of_runs,
    load_family_runs,
    measure_family,
)
from surrogate.evaluation.family.options import FamilyEvaluationOptions
from surrogate.evaluation.report import write_report
from surrogate.evaluation.sequence.measure import (
    SequenceEvaluation,
    SequenceEvaluationOptions,
    evaluate_sequence_run,
    prepare,
)
from surrogate.evaluation.static.measure import Evaluation, evaluate_runs
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.evaluation.static.runs import (
    check_runs_match_problem,
    resolve_fem_method,
    resolve_problem_name,
)
from surrogate.evaluation.static.slices import slice_fields

ProgressCallback = Callable[[int, int, str], None]
KINDS = ("pointwise", "sequence", "family")


@dataclass
class EvaluationResult:
    """What :func:`evaluate` measured and wrote.

    ``kind``: ``"pointwise"``, ``"sequence"`` or ``"family"``; ``evaluation``: the kind's
    measurement (:class:`~surrogate.evaluation.static.measure.Evaluation`,
    :class:`~surrogate.evaluation.sequence.measure.SequenceEvaluation` or
    :class:`~surrogate.evaluation.family.measure.FamilyEvaluation`); ``summary``: the dict written
    as ``evaluation.json``; ``figures``: ``{"figures": {key: {"file", "caption"}},
    "skipped": [line, ...]}`` or None; ``files``: the paths written (as given).
    """

    kind: str
    evaluation: Evaluation | SequenceEvaluation | FamilyEvaluation
    summary: dict[str, Any]
    figures: dict[str, Any] | None = None
    files: dict[str, Path | None] = field(default_factory=dict)


def run_data_kind(run_dirs: Sequence[str | os.PathLike]) -> str:
    """``"sequence"``, ``"pointwise"`` or ``"family"`` (pointwise data of a problem family):
    what the runs were trained on (one kind only; one family).

    Unreadable run directories count as pointwise: that path reports them.
    """
    from surrogate.runs.load import read_config

    kinds, datasets = [], []
    for path in run_dirs:
        try:
            datasets.append(read_config(path)["dataset"])
            kinds.append(str(datasets[-1].get("kind", "pointwise")))
        except SurrogateError:
            kinds.append("pointwise")
    if "sequence" not in kinds:
        return "pointwise" if family_of_runs(datasets) is None else "family"
    if len(run_dirs) > 1:
        mixed = "pointwise" in kinds
        raise InputError("runs trained on sequence and on pointwise data cannot be evaluated "
                         "together" if mixed else "evaluate one sequence run at a time")
    return "sequence"


def _check_outputs(outputs: Sequence[Path | None]) -> None:
    """InputError unless every output folder can be created or written into."""
    for out in outputs:
        if out is not None and out.exists() and not out.is_dir():
            raise InputError(f"output {str(out)!r} exists and is not a folder")
        if out is not None:
            check_output_folder(out)


def _pointwise_inputs(run_dirs: Sequence[Path], options: EvaluationOptions,
                      problem: str | None, outputs: Sequence[Path | None]) -> tuple[Any, Any]:
    """Load and check the runs and the problem; returns (runs, problem). Writes nothing."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.problems import get_problem, problem_names
    from surrogate.runs.load import load_run

    if not run_dirs:
        raise InputError("give at least one run directory")
    for path in run_dirs:
        if not path.is_dir():
            raise DataFormatError(f"run directory {str(path)!r} does not exist"
                                  if not path.exists() else
                                  f"{str(path)!r} is not a run directory")
    _check_outputs(outputs)
    resolve_inference_device(options.device)
    for name in options.domains:
        get_domain(name)
    runs = [load_run(path) for path in run_dirs]
    problem_name = resolve_problem_name(runs, problem)
    if problem_name not in problem_names():
        raise InputError(f"the runs were trained on {problem_name!r} data, which has no FEM "
                         f"baseline; evaluate compares surrogates of the PDE problems "
                         f"({', '.join(problem_names())}) with finite elements")
    for name in {str(run.dataset.get("domain")) for run in runs}:
        get_domain(name)
    problem_obj = get_problem(problem_name)
    check_runs_match_problem(runs, problem_obj)
    resolve_fem_method(problem_obj, options.fem, [])
    return runs, problem_obj


def _sequence_inputs(run_dir: Path, options: SequenceEvaluationOptions, data: Path | None,
                     vtk: bool, outputs: Sequence[Path | None]) -> tuple[Any, Any]:
    """(run, plan) with every user error raised before any work or output."""
    from surrogate.runs.load import load_run

    _check_outputs(outputs)
    resolve_inference_device(options.device)
    run = load_run(run_dir)
    return run, prepare(run, options, data_path=data, vtk=vtk)


def _kind_options(kind: str, options: Any, problem: str | None, data: Path | None) -> Any:
    """``options`` (or the defaults) after checking they fit runs of ``kind``."""
    expected = {"pointwise": EvaluationOptions, "sequence": SequenceEvaluationOptions,
                "family": FamilyEvaluationOptions}[kind]
    if options is None:
        options = expected()
    if not isinstance(options, expected):
        raise InputError(f"the runs were trained on {kind} data: give {expected.__name__}, "
                         f"not {type(options).__name__}")
    if kind == "sequence" and problem is not None:
        raise InputError("problem applies to pointwise runs (FEM baselines), not to a "
                         "sequence run")
    if kind == "family" and problem is not None:
        raise InputError("problem applies to single-problem runs; family runs are evaluated "
                         "on unseen members of their family")
    if kind != "sequence" and data is not None:
        raise InputError("data applies to sequence runs only")
    return options


def evaluate(
    run_dirs: Sequence[str | os.PathLike],
    options: EvaluationOptions | SequenceEvaluationOptions | None = None,
    *,
    out: str | os.PathLike = "evaluation",
    vtk: str | os.PathLike | None = None,
    plots: str | os.PathLike | None = None,
    report: bool = False,
    problem: str | None = None,
    data: str | os.PathLike | None = None,
    on_progress: ProgressCallback | None = None,
) -> EvaluationResult:
    """Evaluate runs and write ``out/evaluation.json`` (+ VTK, PNG figures, ``index.html``).

    ``options`` are the kind's typed options (None: its defaults). Pointwise runs (several
    of one problem): errors and timings against the N0 baseline on test domains; ``problem``
    names the problem to check them against. Sequence runs (one at a time): errors on unseen
    signals, materials, a longer horizon; ``data`` is the training dataset if it moved.
    ``report`` writes ``out/index.html`` with the figures (``plots`` defaults to
    ``out/plots``). ``on_progress(done, total, description)`` reports progress.
    """
    paths = [Path(p) for p in run_dirs]
    out = Path(out)
    vtk = Path(vtk) if vtk is not None else None
    plots = Path(plots) if plots is not None else (out / "plots" if report else None)
    data = Path(data) if data is not None else None
    progress = on_progress or (lambda done, total, description: None)
    kind = run_data_kind(paths)
    options = _kind_options(kind, options, problem, data)
    outputs = [out, vtk, plots]
    if kind == "pointwise":
        runs, problem_obj = _pointwise_inputs(paths, options, problem, outputs)
    elif kind == "family":
        _check_outputs(outputs)
        runs, family, options = load_family_runs(paths, options, vtk=vtk is not None)
    else:
        run, plan = _sequence_inputs(paths[0], options, data, vtk is not None, outputs)
    finals = [p.resolve() for p in outputs if p is not None]
    with staged_outputs(finals) as staged, tempfile.TemporaryDirectory() as scratch:
        vtk_dir = staged[vtk.resolve()] if vtk is not None else None
        plots_dir = staged[plots.resolve()] if plots is not None else None
        if kind == "pointwise":
            evaluation, summary, figures = _measure_pointwise(
                runs, problem_obj, options, vtk_dir, plots_dir, Path(scratch), progress)
        elif kind == "family":
            evaluation, summary, figures = measure_family(runs, family, options, plots_dir,
                                                          progress)
        else:
            evaluation, summary, figures = _measure_sequence(run, plan, options, vtk_dir,
                                                             plots_dir, progress)
        summary["outputs"] = {"out": str(out), "vtk": str(vtk) if vtk else None,
                              "plots": str(plots) if plots else None,
                              "report": str(out / "index.html") if report else None}
        if report:
            prefix = os.path.relpath(plots.resolve(), out.resolve()) + "/"
            write_report(staged[out.resolve()] / "index.html", summary, figures,
                         figure_prefix=prefix)
        write_json_file(staged[out.resolve()] / "evaluation.json", summary)
    files = {"evaluation": out / "evaluation.json", "vtk": vtk, "plots": plots,
             "report": out / "index.html" if report else None}
    return EvaluationResult(kind, evaluation, summary, figures, files)


def _measure_pointwise(runs: Sequence[Any], problem: Any, options: EvaluationOptions,
                       vtk_dir: Path | None, plots_dir: Path | None, scratch: Path,
                       progress: ProgressCallback
                       ) -> tuple[Evaluation, dict[str, Any], dict[str, Any] | None]:
    """Errors and timings on the test domains, then the figures (the 3D view needs VTK)."""
    evaluation = evaluate_runs(runs, problem, options,
                               vtk_dir=vtk_dir or (scratch if plots_dir is not None else None),
                               on_progress=progress)
    summary = evaluation.to_dict()
    if vtk_dir is None:
        summary["vtk"] = None
    figures = None
    if plots_dir is not None:
        from surrogate.evaluation.static.plots import make_figures

        progress(0, 1, "figures")
        first = next(iter(evaluation.reference_solutions.values()), None)
        slices = slice_fields(runs, problem, options, first)
        finest = max(options.levels)
        from surrogate.fem.domains import get_domain

        stems = [get_domain(d).stem for d in options.domains]  # file domains: the file's stem
        vtu_3d = {s: (vtk_dir or scratch) / f"{s}_level{finest}.vtu" for s in stems}
        figures = make_figures(summary, plots_dir, histories=evaluation.histories,
                               slices=slices, vtu_for_3d=vtu_3d)
        summary["figures"] = figures
    return evaluation, summary, figures


def _measure_sequence(run: Any, plan: Any, options: SequenceEvaluationOptions,
                      vtk_dir: Path | None, plots_dir: Path | None, progress: ProgressCallback
                      ) -> tuple[SequenceEvaluation, dict[str, Any], dict[str, Any] | None]:
    """Errors on the planned sets (and the VTK series), then the figures."""
    evaluation = evaluate_sequence_run(run, options, plan=plan, on_progress=progress,
                                       vtk_dir=vtk_dir)
    summary = evaluation.to_dict()
    figures = None
    if plots_dir is not None:
        from surrogate.evaluation.sequence.plots import make_sequence_figures

        progress(0, 1, "figures")
        figures = make_sequence_figures(evaluation, plots_dir)
        summary["figures"] = figures
    return evaluation, summary, figures


__all__ = ["EvaluationResult", "KINDS", "evaluate", "run_data_kind"]
