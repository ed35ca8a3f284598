"""Dataset generators and the registry of recipe kinds -> (recipe type, generator)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.datasets.maxwell_td import MaxwellTDRecipe, generate_maxwell_td
from surrogate.datasets.recipes import MaxwellRecipe, ToyRecipe
from surrogate.datasets.sequence_benchmarks import generate_adding, generate_fitzhugh_nagumo
from surrogate.datasets.sequence_recipes import AddingRecipe, FitzHughNagumoRecipe
from surrogate.datasets.splits import make_splits
from surrogate.datasets.toy import generate_toy
from surrogate.datasets.writer import write_dataset

ProgressCallback = Callable[[int, int, str], None]


@dataclass(frozen=True)
class GeneratedData:
    """Arrays and metadata produced by a generator, ready for :func:`write_dataset`."""

    inputs: np.ndarray
    targets: np.ndarray
    input_names: tuple[str, ...]
    target_names: tuple[str, ...]
    splits: dict[str, np.ndarray]
    problem: str
    domain: str
    recipe: dict[str, Any]
    seed: int
    dtype: str = "float64"
    kind: str = "pointwise"
    time: np.ndarray | None = None
    mesh: dict[str, np.ndarray] | None = None
    fem: dict[str, Any] | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


def _streams(seed: int) -> tuple[np.random.Generator, ...]:
    """Independent generators for points, noise and splits from ``SeedSequence(seed)``."""
    return tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))


def _sample_in_mesh(domain: Any, mesh: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform points in ``domain`` that also lie in ``mesh`` (rejection, vectorised rounds)."""
    from surrogate.fem.point_evaluation import locate_points

    points = domain.sample(n, rng)
    for _ in range(100):
        outside = np.flatnonzero(locate_points(mesh, points) < 0)
        if outside.size == 0:
            return points
        points[outside] = domain.sample(outside.size, rng)
    raise InputError(f"could not sample {n} points inside the {domain.name} mesh")


def add_relative_noise(u: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """u_noisy[:, k] = u[:, k] + σ · rms_k(u) · ξ, ξ ~ N(0, 1) i.i.d., rms_k over samples."""
    if sigma == 0:
        return u
    rms = np.sqrt(np.mean(u**2, axis=0, keepdims=True))
    return u + sigma * rms * rng.standard_normal(u.shape)


def generate_maxwell(
    recipe: MaxwellRecipe, on_progress: ProgressCallback | None = None
) -> GeneratedData:
    """Sample inputs (x, f(x), φ(x)) and targets u(x) of the Maxwell problem (eq. 7.2).

    ``source="exact"`` evaluates the exact solution; ``source="fem"`` solves the mixed
    Nédélec problem on ``domain.mesh(level)`` and evaluates u_h at the points (which are
    then drawn uniformly from the part of the domain covered by the mesh).
    """
    from surrogate.fem.domains import get_domain
    from surrogate.fem.problems import get_problem

    progress = on_progress or (lambda done, total, description: None)
    domain = get_domain(recipe.domain)
    problem = get_problem(recipe.problem)
    rng_points, rng_noise, rng_split = _streams(recipe.seed)
    steps = 4 if recipe.source == "exact" else 6
    mesh_group = fem_group = None
    progress(0, steps, "sampling points")
    if recipe.source == "fem":
        from surrogate.fem.nedelec import solve_maxwell
        from surrogate.fem.point_evaluation import evaluate_n0

        mesh = domain.mesh(recipe.level)
        progress(1, steps, f"solving FEM at level {recipe.level}")
        solution = solve_maxwell(mesh, problem)
        progress(2, steps, "sampling points")
        points = _sample_in_mesh(domain, mesh, recipe.n, rng_points)
        progress(3, steps, "evaluating FEM field")
        u = evaluate_n0(solution.basis, solution.dofs, points, outside="error")
        mesh_group = {"points": np.ascontiguousarray(mesh.p.T),
                      "cells": np.ascontiguousarray(mesh.t.T.astype(np.int64))}
        fem_group = {"dofs": np.asarray(solution.dofs, dtype=np.float64),
                     "element": "ElementTetN0", "level": int(recipe.level),
                     "method": "mixed"}
    else:
        if not getattr(problem, "has_exact", True):
            raise InputError(f"problem {recipe.problem!r} has no exact solution; "
                             "use --source fem")
        points = domain.sample(recipe.n, rng_points)
        progress(1, steps, "evaluating exact solution")
        u = problem.u(points)
    progress(steps - 2, steps, "evaluating inputs")
    if hasattr(problem, "inputs"):
        inputs = np.asarray(problem.inputs(points), dtype=np.float64)
    else:
        inputs = np.column_stack([points, problem.f(points), problem.phi(points)])
    targets = add_relative_noise(np.asarray(u, dtype=np.float64), recipe.noise, rng_noise)
    splits = make_splits(recipe.n, recipe.split, rng_split)
    progress(steps - 1, steps, "writing")
    return GeneratedData(
        inputs=inputs, targets=targets, input_names=tuple(problem.in_names),
        target_names=tuple(problem.out_names), splits=splits, problem=recipe.problem,
        domain=recipe.domain, recipe=recipe.to_dict(), seed=recipe.seed, dtype=recipe.dtype,
        mesh=mesh_group, fem=fem_group,
    )


RECIPE_KINDS: dict[str, tuple[type, Callable[..., GeneratedData]]] = {
    "maxwell": (MaxwellRecipe, generate_maxwell),
    "toy": (ToyRecipe, generate_toy),
    "fitzhugh-nagumo": (FitzHughNagumoRecipe, generate_fitzhugh_nagumo),
    "adding": (AddingRecipe, generate_adding),
    "maxwell-td": (MaxwellTDRecipe, generate_maxwell_td),
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


def _streamed_generator(kind: str) -> Callable[..., Any] | None:
    """The streamed generator of recipe ``kind`` (executor, resume), or None."""
    if kind == "maxwell-td":
        from surrogate.datasets.maxwell_td_stream import stream_maxwell_td

        return stream_maxwell_td
    return None


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
    (see :func:`dataset_summary`).

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

    kind = next((k for k, (cls, _) in RECIPE_KINDS.items() if isinstance(recipe, cls)), None)
    if kind is None:
        raise InputError(f"no generator registered for {type(recipe).__name__}")
    streamed = _streamed_generator(kind)
    if streamed is None and (executor is not None or resume):
        raise InputError(f"{kind} datasets are generated in one process; workers, Dask and "
                         "--resume apply to maxwell-td")
    path = Path(path)
    needed = estimated_file_bytes(recipe) * (2 if streamed else 1)  # + the partial file
    check_output_file(path, needed_bytes=needed, what="dataset file")
    if summary_path is not None:
        check_output_file(summary_path, what="summary file")
    summary: dict[str, Any] = {}

    def commit(tmp: Path, final: Path) -> None:
        summary.update(dataset_summary(tmp, verify_hash=False), path=str(final))
        with held_signals():  # file and summary land together
            if summary_path is None:
                os.replace(tmp, final)
                return
            with atomic_path(summary_path) as summary_tmp:
                summary_tmp.write_text(json.dumps(summary, indent=2) + "\n")
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


__all__ = ["GeneratedData", "generate_maxwell", "generate_dataset", "add_relative_noise",
           "estimated_file_bytes", "RECIPE_KINDS"]
