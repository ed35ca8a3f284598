"""The static Maxwell generator (``recipe.kind = "maxwell"``): points, inputs (x, f, φ), u(x)."""

from __future__ import annotations

import numpy as np

from surrogate.core.errors import InputError
from surrogate.datasets.generator_output import GeneratedData, ProgressCallback
from surrogate.datasets.recipes import MaxwellRecipe
from surrogate.datasets.splits import make_splits


def _streams(seed: int) -> tuple[np.random.Generator, ...]:
    """Independent generators for points, noise and splits from ``SeedSequence(seed)``."""
    return tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))


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
        from surrogate.fem.hcurl.skfem.n0 import solve_maxwell
        from surrogate.fem.point_evaluation import evaluate_n0, sample_in_mesh

        mesh = domain.mesh(recipe.level)
        progress(1, steps, f"solving FEM at level {recipe.level}")
        solution = solve_maxwell(mesh, problem)
        progress(2, steps, "sampling points")
        points = sample_in_mesh(domain, mesh, recipe.n, rng_points)
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


__all__ = ["generate_maxwell", "add_relative_noise"]
