"""The registry of recipe kinds -> (recipe type, generator), and :func:`generate_dataset`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.json_files import json_text
from surrogate.datasets.family.maxwell_family import stream_family
from surrogate.datasets.generator_output import GeneratedData, ProgressCallback
from surrogate.datasets.maxwell import generate_maxwell
from surrogate.datasets.recipes import MaxwellFamilyRecipe, MaxwellRecipe, ToyRecipe
from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe, FitzHughNagumoRecipe
from surrogate.datasets.sequence.lem_benchmarks import generate_adding, generate_fitzhugh_nagumo
from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe, generate_maxwell_td
from surrogate.datasets.sequence.maxwell_td_stream import stream_maxwell_td
from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe
from surrogate.datasets.sequence.nonlinear_cavity_stream import stream_maxwell_nl
from surrogate.datasets.toy import generate_toy
from surrogate.datasets.writer import write_dataset

RECIPE_KINDS: dict[str, tuple[type, Callable[..., GeneratedData] | None]] = {
    "maxwell": (MaxwellRecipe, generate_maxwell),
    "toy": (ToyRecipe, generate_toy),
    "fitzhugh-nagumo": (FitzHughNagumoRecipe, generate_fitzhugh_nagumo),
    "adding": (AddingRecipe, generate_adding),
    "maxwell-td": (MaxwellTDRecipe, generate_maxwell_td),
    "maxwell-family": (MaxwellFamilyRecipe, None),  # streamed only (STREAMED_KINDS)
    "maxwell-nl": (MaxwellNLRecipe, None),  # streamed only
}


def estimated_file_bytes(recipe: Any) -> int:
    """Rough size of the dataset file of ``recipe`` in bytes (samples, splits, FEM mesh)."""
    if hasattr(recipe, "estimated_bytes"):  # recipes that know their own size
        return int(recipe.estimated_bytes())
    n = int(getattr(recipe, "n", 0))
    itemsize = 4 if getattr(recipe, "dtype", "float64") == "float32" else 8
    size = n * (10 * itemsize + 8) + 64 * 1024  # 7 inputs + 3 targets, split index, header
    if getattr(recipe, "source", "exact") == "fem":
        cells = 6 * 8 ** int(getattr(recipe, "level", 1))  # about 6·(2^L)³ tets per unit volume
        size += cells * (4 * 8 + 8 + 3 * 8)  # cells, dofs (~edges), points
    return size


STREAMED_KINDS: dict[str, Callable[..., Any]] = {"maxwell-td": stream_maxwell_td,
                                                 "maxwell-family": stream_family,
                                                 "maxwell-nl": stream_maxwell_nl}


def generate_dataset(
    recipe: Any, path: str | os.PathLike, on_progress: ProgressCallback | None = None,
    summary_path: str | os.PathLike | None = None, *, executor: Executor | None = None,
    max_in_flight: int | None = None, resume: bool = False,
) -> dict[str, Any]:
    """Run the generator registered for ``recipe`` and write the file atomically.

    Before any work the output folder is probed (writable, room for about
    :func:`estimated_file_bytes`): InputError otherwise. With ``summary_path`` the JSON summary
    is written there, renamed into place together with the dataset (an interrupt never
    leaves a summary that belongs to another file). Returns the summary of the written file
    (see :func:`dataset_summary`) plus ``generation_seconds``, the wall time of this call (of
    this session only when resumed); the time is kept out of the HDF5 file so that the file's
    bytes depend on the recipe alone.

    Streamed kinds (``maxwell-td``, :mod:`surrogate.datasets.streaming`) run their FEM tasks on
    ``executor`` (any ``concurrent.futures.Executor``; None: this process), at most
    ``max_in_flight`` at a time, and write through a partial file that ``resume=True``
    continues after an interruption; the file is the same bytes either way. Other kinds
    refuse ``executor`` and ``resume``.
    """
    from surrogate.core.atomic_files import atomic_path
    from surrogate.core.interrupts import held_signals
    from surrogate.core.output_paths import check_output_file
    from surrogate.datasets.summary import dataset_summary

    started = time.perf_counter()
    kind = next((k for k, (cls, _) in RECIPE_KINDS.items() if isinstance(recipe, cls)), None)
    if kind is None:
        raise InputError(f"no generator registered for {type(recipe).__name__}")
    streamed = STREAMED_KINDS.get(kind)
    if streamed is None and (executor is not None or resume):
        raise InputError(f"{kind} datasets are generated in one process; workers, Dask and "
                         "--resume apply to maxwell-td, maxwell-nl and maxwell-family")
    path = Path(path)
    needed = estimated_file_bytes(recipe) * (2 if streamed else 1)  # + the partial file
    check_output_file(path, needed_bytes=needed, what="dataset file")
    if summary_path is not None:
        check_output_file(summary_path, what="summary file")
    summary: dict[str, Any] = {}

    def commit(tmp: Path, final: Path) -> None:
        summary.update(dataset_summary(tmp, verify_hash=False), path=str(final),
                       generation_seconds=float(time.perf_counter() - started))
        with held_signals():  # file and summary land together
            if summary_path is None:
                os.replace(tmp, final)
                return
            with atomic_path(summary_path) as summary_tmp:
                summary_tmp.write_text(json_text(summary))
                os.replace(tmp, final)

    if streamed is not None:
        from surrogate.datasets.streaming import write_streamed

        plan = streamed(recipe, executor, max_in_flight, on_progress)
        write_streamed(plan, path, resume=resume, commit=commit, on_progress=on_progress)
    else:
        data = RECIPE_KINDS[kind][1](recipe, on_progress)
        write_dataset(
            path, inputs=data.inputs, targets=data.targets, input_names=data.input_names,
            target_names=data.target_names, splits=data.splits, problem=data.problem,
            domain=data.domain, recipe=data.recipe, seed=data.seed, kind=data.kind,
            time=data.time, mesh=data.mesh, fem=data.fem, dtype=data.dtype, attrs=data.attrs,
            commit=commit,
        )
    if on_progress is not None:
        on_progress(1, 1, "done")
    return summary


__all__ = ["generate_dataset", "estimated_file_bytes", "RECIPE_KINDS", "STREAMED_KINDS"]
