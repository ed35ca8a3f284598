"""``evaluate``: one call from run directories to ``evaluation.json``, figures, VTK and a report.

The runs' kind (:func:`surrogate.evaluation.run_kinds.kind_of_runs`, from ``config.json``'s
dataset section) picks the registry entry that loads, measures and reports them: pointwise
runs against Nédélec FEM on test domains, runs of a problem family on unseen members, sequence
runs on sequences they never saw. This module does only what every kind shares: it checks
the options and inputs against the kind, raises every user error before any output exists,
then writes the outputs into temporary sibling folders and moves them into place only when
complete (:func:`surrogate.core.output_paths.staged_outputs`). Nothing is printed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.json_files import write_json_file
from surrogate.core.output_paths import check_output_folder, staged_outputs
from surrogate.evaluation.report import write_report
from surrogate.evaluation.run_kind import OutputFolders, ProgressCallback, RunInputs, RunKind
from surrogate.evaluation.run_kinds import RUN_KINDS, kind_of_runs


@dataclass
class EvaluationResult:
    """What :func:`evaluate` measured and wrote.

    ``kind``: the run kind's name (``"pointwise"``, ``"sequence"`` or ``"family"``);
    ``evaluation``: the kind's measurement
    (:class:`~surrogate.evaluation.static.measure.Evaluation`,
    :class:`~surrogate.evaluation.sequence.measure.SequenceEvaluation` or
    :class:`~surrogate.evaluation.family.measure.FamilyEvaluation`); ``summary``: the dict
    written as ``evaluation.json``; ``figures``: ``{"figures": {key: {"file", "caption"}},
    "skipped": [line, ...]}`` or None; ``files``: the paths written (as given).
    """

    kind: str
    evaluation: Any
    summary: dict[str, Any]
    figures: dict[str, Any] | None = None
    files: dict[str, Path | None] = field(default_factory=dict)


def _check_outputs(outputs: Sequence[Path | None]) -> None:
    """InputError unless every output folder can be created or written into."""
    for out in outputs:
        if out is not None and out.exists() and not out.is_dir():
            raise InputError(f"output {str(out)!r} exists and is not a folder")
        if out is not None:
            check_output_folder(out)


def checked_options(kind: RunKind, options: Any, inputs: RunInputs) -> Any:
    """``options`` (or the kind's defaults) after checking they and ``inputs`` fit ``kind``."""
    if options is None:
        options = kind.options()
    if not isinstance(options, kind.options):
        raise InputError(f"the runs were trained on {kind.trained_on}: give "
                         f"{kind.options.__name__}, not {type(options).__name__}")
    for name in inputs.given():
        if name not in kind.inputs:
            takers = [k.name for k in RUN_KINDS.values() if name in k.inputs]
            raise InputError(f"{name} applies to {' and '.join(takers)} runs only; these runs "
                             f"were trained on {kind.trained_on}")
    return options


def evaluate(
    run_dirs: Sequence[str | os.PathLike],
    options: Any = None,
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

    ``options`` are the typed options of the runs' kind (its ``RunKind.options``; None: its
    defaults). Pointwise runs (several of one problem): errors and timings against Nédélec FEM
    on test domains; ``problem`` names the problem to check them against. Family runs (of one
    family): errors on unseen members and the break-even count N*. Sequence runs (one at a
    time): errors on unseen signals, materials, a longer horizon; ``data`` is the training
    dataset if it moved. ``report`` writes ``out/index.html`` with the figures (``plots``
    defaults to ``out/plots``). ``on_progress(done, total, description)`` reports progress.
    """
    paths = [Path(p) for p in run_dirs]
    out = Path(out)
    vtk = Path(vtk) if vtk is not None else None
    plots = Path(plots) if plots is not None else (out / "plots" if report else None)
    progress = on_progress or (lambda done, total, description: None)
    inputs = RunInputs(problem=problem, data=Path(data) if data is not None else None,
                       vtk=vtk is not None)
    kind = kind_of_runs(paths)
    options = checked_options(kind, options, inputs)
    outputs = [out, vtk, plots]
    _check_outputs(outputs)
    loaded = kind.load(paths, options, inputs)
    finals = [p.resolve() for p in outputs if p is not None]
    with staged_outputs(finals) as staged, tempfile.TemporaryDirectory() as scratch:
        folders = OutputFolders(vtk=staged[vtk.resolve()] if vtk is not None else None,
                                plots=staged[plots.resolve()] if plots is not None else None,
                                scratch=Path(scratch))
        evaluation, summary, figures = kind.measure(loaded, folders, progress)
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
    return EvaluationResult(kind.name, evaluation, summary, figures, files)


__all__ = ["EvaluationResult", "checked_options", "evaluate"]
