"""The ``family`` run kind: runs of one problem family on K unseen members, next to FEM.

Loading resolves the family and the options against it
(:func:`~surrogate.evaluation.family.measure.load_family_runs`); measuring draws the unseen
problems, holds every run and FEM baseline against u_ref, and builds the break-even counts
and the Pareto figure (:func:`~surrogate.evaluation.family.measure.measure_family`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surrogate.evaluation.family.options import FamilyEvaluationOptions
from surrogate.evaluation.family.report import family_section, family_title
from surrogate.evaluation.family.tables import family_tables
from surrogate.evaluation.run_kind import (
    Measured,
    OutputFolders,
    ProgressCallback,
    RunInputs,
    RunKind,
    config_data_kind,
)


@dataclass(frozen=True)
class LoadedFamily:
    """Runs of one family, the family and the options resolved against it."""

    runs: list[Any]
    family: Any
    options: FamilyEvaluationOptions


def recognises(dataset: Mapping[str, Any]) -> bool:
    """Pointwise data of a problem family (a ``family`` in the dataset section)."""
    return config_data_kind(dataset) == "pointwise" and dataset.get("family") is not None


def load(run_dirs: Sequence[Path], options: FamilyEvaluationOptions, inputs: RunInputs
         ) -> LoadedFamily:
    """The runs, their family and the resolved options; every user error first."""
    from surrogate.evaluation.family.measure import load_family_runs

    return LoadedFamily(*load_family_runs(run_dirs, options))


def measure(loaded: LoadedFamily, folders: OutputFolders, progress: ProgressCallback
            ) -> Measured:
    """Errors on the unseen problems, N*, and the Pareto figure when plots are asked for."""
    from surrogate.evaluation.family.measure import measure_family

    return measure_family(loaded.runs, loaded.family, loaded.options, folders.plots, progress)


FAMILY = RunKind(
    name="family",
    description="a surrogate of a problem family, on unseen members against FEM, with the "
                "break-even count N*",
    trained_on="a problem family",
    options=FamilyEvaluationOptions,
    recognises=recognises,
    load=load,
    measure=measure,
    report_title=family_title,
    report_section=family_section,
    tables=family_tables,
)

__all__ = ["FAMILY", "LoadedFamily", "load", "measure", "recognises"]
