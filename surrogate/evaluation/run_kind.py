"""What a run kind provides to ``evaluate``: one :class:`RunKind` per kind of run.

:func:`surrogate.evaluation.api.evaluate` and the report only call these fields; the
registry (:mod:`surrogate.evaluation.run_kinds`) maps names to entries. An entry's
``recognises`` reads the ``dataset`` section of a run's ``config.json``; ``load`` raises
every user error before any output exists and returns what ``measure`` needs; ``measure``
writes into the staged output folders; ``report_section`` and ``tables`` read only the
``evaluation.json`` dict that ``measure`` returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surrogate.evaluation.terminal_tables import Block

ProgressCallback = Callable[[int, int, str], None]
"""``on_progress(done, total, description)``."""

Measured = tuple[Any, dict[str, Any], dict[str, Any] | None]
"""(the kind's measurement object, the ``evaluation.json`` dict, the figures dict or None)."""

RUN_INPUTS = ("problem", "data", "vtk")
"""What :func:`~surrogate.evaluation.api.evaluate` takes beside the runs and the options;
each kind names those that apply to it (:attr:`RunKind.inputs`)."""


@dataclass(frozen=True)
class RunInputs:
    """The inputs of ``evaluate`` besides run directories and options.

    ``problem``: the PDE problem to check pointwise runs against (None: the runs' own);
    ``data``: a sequence run's training dataset if it moved; ``vtk``: ParaView files wanted.
    """

    problem: str | None = None
    data: Path | None = None
    vtk: bool = False

    def given(self) -> list[str]:
        """The names of the inputs that were given (not left at their default)."""
        return [name for name in RUN_INPUTS if getattr(self, name) not in (None, False)]


@dataclass(frozen=True)
class OutputFolders:
    """Where ``measure`` writes: the staged VTK and plots folders (None: not asked for) and a
    scratch folder removed afterwards."""

    vtk: Path | None
    plots: Path | None
    scratch: Path


@dataclass(frozen=True)
class RunKind:
    """One kind of run ``evaluate`` knows.

    name: ``evaluation.json``'s ``kind`` (``pointwise``, ``sequence``, ``family``).
    description: one line for help texts.
    trained_on: what such runs were trained on, for messages ("a problem family").
    options: the typed options class; ``options()`` are the defaults.
    recognises: ``recognises(dataset)`` for the ``dataset`` section of a run's config.json.
    load: ``load(run_dirs, options, inputs)`` -> what ``measure`` needs; raises every user
        error (InputError, DataFormatError) and writes nothing.
    measure: ``measure(loaded, folders, on_progress)`` -> :data:`Measured`.
    report_title: ``report_title(summary)``, ``index.html``'s title.
    report_section: ``report_section(summary, figures, figure_prefix=...)`` -> the page body
        (HTML parts); image paths are ``figure_prefix + file``.
    tables: ``tables(summary)`` -> the terminal blocks (:mod:`~.terminal_tables`).
    inputs: which of :data:`RUN_INPUTS` apply to this kind.
    vtk_files: the files ``--vtk`` writes, relative to its folder (globs allowed).
    max_runs: how many runs one evaluation takes (None: any number).
    """

    name: str
    description: str
    trained_on: str
    options: type
    recognises: Callable[[Mapping[str, Any]], bool]
    load: Callable[[Sequence[Path], Any, RunInputs], Any]
    measure: Callable[[Any, OutputFolders, ProgressCallback], Measured]
    report_title: Callable[[Mapping[str, Any]], str]
    report_section: Callable[..., list[str]]
    tables: Callable[[Mapping[str, Any]], list[Block]]
    inputs: frozenset[str] = frozenset()
    vtk_files: tuple[str, ...] = ()
    max_runs: int | None = None


def config_data_kind(dataset: Mapping[str, Any]) -> str:
    """The data kind a run's ``dataset`` section records (``pointwise`` when unrecorded)."""
    return str(dataset.get("kind", "pointwise"))


__all__ = ["Measured", "OutputFolders", "ProgressCallback", "RUN_INPUTS", "RunInputs",
           "RunKind", "config_data_kind"]
