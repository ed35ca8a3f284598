"""The ``sequence`` run kind: one sequence run on sequences it never saw.

Loading reads the run's training dataset (the ``data`` input if it moved) and plans the
sets (:func:`~surrogate.evaluation.sequence.measure.prepare`); measuring builds and predicts
them (and writes the ParaView series), then draws the figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surrogate.evaluation.run_kind import (
    Measured,
    OutputFolders,
    ProgressCallback,
    RunInputs,
    RunKind,
    config_data_kind,
)
from surrogate.evaluation.sequence.options import SequenceEvaluationOptions
from surrogate.evaluation.sequence.report import sequence_section, sequence_title
from surrogate.evaluation.sequence.tables import sequence_tables


@dataclass(frozen=True)
class LoadedRun:
    """A sequence run with its planned evaluation sets."""

    run: Any
    plan: Any
    options: SequenceEvaluationOptions


def recognises(dataset: Mapping[str, Any]) -> bool:
    """Sequence data (``(N, T, d)`` inputs)."""
    return config_data_kind(dataset) == "sequence"


def load(run_dirs: Sequence[Path], options: SequenceEvaluationOptions, inputs: RunInputs
         ) -> LoadedRun:
    """The run and its plan, with every user error raised before any work or output."""
    from surrogate.evaluation.devices import resolve_inference_device
    from surrogate.evaluation.sequence.measure import prepare
    from surrogate.runs.load import load_run

    resolve_inference_device(options.device)
    run = load_run(run_dirs[0])
    return LoadedRun(run, prepare(run, options, data_path=inputs.data, vtk=inputs.vtk), options)


def measure(loaded: LoadedRun, folders: OutputFolders, progress: ProgressCallback
            ) -> Measured:
    """Errors on the planned sets (and the VTK series), then the figures."""
    from surrogate.evaluation.sequence.measure import evaluate_sequence_run

    evaluation = evaluate_sequence_run(loaded.run, loaded.options, plan=loaded.plan,
                                       on_progress=progress, vtk_dir=folders.vtk)
    summary = evaluation.to_dict()
    figures = None
    if folders.plots is not None:
        from surrogate.evaluation.sequence.plots import make_sequence_figures

        progress(0, 1, "figures")
        figures = make_sequence_figures(evaluation, folders.plots)
        summary["figures"] = figures
    return evaluation, summary, figures


SEQUENCE = RunKind(
    name="sequence",
    description="a sequence model (lem, cornn, lstm), on signals, materials and a horizon it "
                "never saw",
    trained_on="sequence data",
    options=SequenceEvaluationOptions,
    recognises=recognises,
    load=load,
    measure=measure,
    report_title=sequence_title,
    report_section=sequence_section,
    tables=sequence_tables,
    inputs=frozenset({"data", "vtk"}),
    vtk_files=("probes.pvd", "field.pvd"),
    max_runs=1,
)

__all__ = ["LoadedRun", "SEQUENCE", "load", "measure", "recognises"]
