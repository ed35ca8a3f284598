"""The registry of run kinds ``evaluate`` knows: ``pointwise``, ``sequence``, ``family``.

Each entry (:class:`~surrogate.evaluation.run_kind.RunKind`) carries its options class, how
it recognises and loads runs, its measurement, its report section and its terminal tables;
:func:`kind_of_runs` picks the entry from the runs' ``config.json``. Adding a kind is one
folder with a ``run_kind`` module and one line here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from surrogate.core.errors import InputError, SurrogateError
from surrogate.evaluation.family.run_kind import FAMILY
from surrogate.evaluation.run_kind import RunKind, config_data_kind
from surrogate.evaluation.sequence.run_kind import SEQUENCE
from surrogate.evaluation.static.run_kind import POINTWISE

RUN_KINDS: dict[str, RunKind] = {kind.name: kind for kind in (POINTWISE, SEQUENCE, FAMILY)}

DEFAULT_KIND = "pointwise"
"""The kind of a run whose ``config.json`` cannot be read (its loader reports the path) and of
an ``evaluation.json`` written before summaries recorded their kind."""


def get_run_kind(name: str) -> RunKind:
    """The entry called ``name``; InputError naming the known kinds otherwise."""
    if name not in RUN_KINDS:
        raise InputError(f"unknown run kind {name!r}; known: {', '.join(RUN_KINDS)}")
    return RUN_KINDS[name]


def kind_of_dataset(dataset: Mapping[str, Any], where: str = "a run") -> RunKind:
    """The one kind that recognises a run's ``dataset`` section; InputError if none does."""
    found = [kind for kind in RUN_KINDS.values() if kind.recognises(dataset)]
    if not found:
        raise InputError(f"{where} was trained on {config_data_kind(dataset)!r} data, which "
                         f"evaluate does not know (kinds: {', '.join(RUN_KINDS)})")
    return found[0]


def kind_of_runs(run_dirs: Sequence[str | os.PathLike]) -> RunKind:
    """The kind of the runs in ``run_dirs``: one kind, at most its ``max_runs`` runs.

    InputError (one line) for no runs, a kind no entry recognises, runs of different kinds
    or too many runs. A run whose ``config.json`` cannot be read counts as
    :data:`DEFAULT_KIND`, whose loader reports it.
    """
    from surrogate.runs.load import read_config

    if not run_dirs:
        raise InputError("give at least one run directory")
    kinds: dict[str, RunKind] = {}
    for path in run_dirs:
        try:
            dataset = read_config(path).get("dataset") or {}
        except SurrogateError:
            kind = RUN_KINDS[DEFAULT_KIND]
        else:
            kind = kind_of_dataset(dataset, f"run {str(path)!r}")
        kinds.setdefault(kind.name, kind)
    if len(kinds) > 1:
        first, second = list(kinds.values())[:2]
        raise InputError(f"runs trained on {first.trained_on} and on {second.trained_on} "
                         "cannot be evaluated together; evaluate them separately")
    (kind,) = kinds.values()
    if kind.max_runs is not None and len(run_dirs) > kind.max_runs:
        raise InputError(f"evaluate one {kind.name} run at a time" if kind.max_runs == 1 else
                         f"evaluate at most {kind.max_runs} {kind.name} runs at a time")
    return kind


def kind_of_summary(summary: Mapping[str, Any]) -> RunKind:
    """The kind that wrote an ``evaluation.json`` dict (its ``kind``; :data:`DEFAULT_KIND`
    when it records none)."""
    return get_run_kind(str(summary.get("kind", DEFAULT_KIND)))


__all__ = ["DEFAULT_KIND", "RUN_KINDS", "get_run_kind", "kind_of_dataset", "kind_of_runs",
           "kind_of_summary"]
