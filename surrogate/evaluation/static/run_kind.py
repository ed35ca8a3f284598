"""The ``pointwise`` run kind: single-problem runs against Nédélec FEM on test domains.

Loading checks the runs, their problem (``problem`` input: the PDE problem to hold them
against) and the test domains; measuring integrates the errors on every domain and level
(:func:`~surrogate.evaluation.static.measure.evaluate_runs`), then draws the figures (the 3D
view reads a level's VTK file, written to scratch when ``--vtk`` was not asked for).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError, InputError
from surrogate.evaluation.run_kind import (
    Measured,
    OutputFolders,
    ProgressCallback,
    RunInputs,
    RunKind,
    config_data_kind,
)
from surrogate.evaluation.static.options import EvaluationOptions
from surrogate.evaluation.static.report import static_section, static_title
from surrogate.evaluation.static.tables import static_tables


@dataclass(frozen=True)
class LoadedRuns:
    """Checked runs of one problem, ready to measure."""

    runs: list[Any]
    problem: Any
    options: EvaluationOptions


def recognises(dataset: Mapping[str, Any]) -> bool:
    """Pointwise data of a single problem (no ``family``)."""
    return config_data_kind(dataset) == "pointwise" and dataset.get("family") is None


def load(run_dirs: Sequence[Path], options: EvaluationOptions, inputs: RunInputs
         ) -> LoadedRuns:
    """Load and check the runs, their problem and the test domains. Writes nothing."""
    from surrogate.evaluation.devices import resolve_inference_device
    from surrogate.evaluation.static.runs import (
        check_runs_match_problem,
        resolve_fem_candidates,
        resolve_fem_method,
        resolve_problem_name,
    )
    from surrogate.fem.domains import get_domain
    from surrogate.fem.problems import get_problem, problem_names
    from surrogate.runs.load import load_run

    for path in run_dirs:
        if not path.is_dir():
            raise DataFormatError(f"run directory {str(path)!r} does not exist"
                                  if not path.exists() else
                                  f"{str(path)!r} is not a run directory")
    resolve_inference_device(options.device)
    for name in options.domains:
        get_domain(name)
    runs = [load_run(path) for path in run_dirs]
    problem_name = resolve_problem_name(runs, inputs.problem)
    if problem_name not in problem_names():
        raise InputError(f"the runs were trained on {problem_name!r} data, which has no FEM "
                         f"baseline; evaluate compares surrogates of the PDE problems "
                         f"({', '.join(problem_names())}) with finite elements")
    for name in {str(run.dataset.get("domain")) for run in runs}:
        get_domain(name)
    problem = get_problem(problem_name)
    check_runs_match_problem(runs, problem)
    resolve_fem_candidates(problem, options, resolve_fem_method(problem, options.fem, []), [])
    return LoadedRuns(runs, problem, options)


def measure(loaded: LoadedRuns, folders: OutputFolders, progress: ProgressCallback
            ) -> Measured:
    """Errors and timings on the test domains, then the figures (the 3D view needs VTK)."""
    from surrogate.evaluation.static.measure import evaluate_runs

    runs, problem, options = loaded.runs, loaded.problem, loaded.options
    vtk_dir = folders.vtk or (folders.scratch if folders.plots is not None else None)
    evaluation = evaluate_runs(runs, problem, options, vtk_dir=vtk_dir, on_progress=progress)
    summary = evaluation.to_dict()
    if folders.vtk is None:
        summary["vtk"] = None
    figures = None
    if folders.plots is not None:
        from surrogate.evaluation.static.plots import make_figures
        from surrogate.evaluation.static.slices import slice_fields
        from surrogate.fem.domains import get_domain

        progress(0, 1, "figures")
        first = next(iter(evaluation.reference_solutions.values()), None)
        slices = slice_fields(runs, problem, options, first)
        finest = max(options.levels)
        stems = [get_domain(d).stem for d in options.domains]  # file domains: the file's stem
        vtu_3d = {s: vtk_dir / f"{s}_level{finest}.vtu" for s in stems}
        figures = make_figures(summary, folders.plots, histories=evaluation.histories,
                               slices=slices, vtu_for_3d=vtu_3d)
        summary["figures"] = figures
    return evaluation, summary, figures


POINTWISE = RunKind(
    name="pointwise",
    description="a surrogate of one PDE problem, against Nédélec FEM on test domains",
    trained_on="a single problem (pointwise data)",
    options=EvaluationOptions,
    recognises=recognises,
    load=load,
    measure=measure,
    report_title=static_title,
    report_section=static_section,
    tables=static_tables,
    inputs=frozenset({"problem", "vtk"}),
    vtk_files=("*.pvd",),
)

__all__ = ["LoadedRuns", "POINTWISE", "load", "measure", "recognises"]
