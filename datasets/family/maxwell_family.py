"""``maxwell-family`` datasets: many problems of a family, points per problem, split by problem.

Problem i has parameters μ_i (a Sobol or Latin-hypercube draw in the family's box) and
``points`` rows: x uniform in the training domain (inside the truth mesh for the level
truth), the pointwise inputs (x, f(x), φ(x)) and the target u(x), exact or the FEM truth
(the recipe's :class:`~surrogate.fem.families.truth.TruthSpec`: the mixed solve of order
``truth_fem_order`` on level ``truth_level``, :func:`surrogate.fem.families.fem_truth`, or
on the member's fitted mesh of ``truth_maxh``, :func:`surrogate.fem.fitted.fitted_truth`)
evaluated at x. For the fitted truth x is uniform in the exact cylinder and u_h is read with
``values_at(x, outside="extrapolate")``: the curved wall's polynomials may miss points next
to it, which are moved inwards until found (counted on 4 members × 20,000 points: none at
the default maxh 0.25 with cubic maps; 16, 0.02 %, at maxh 0.6 with quadratic maps, each
found within 1e-3 of its distance to the cylinder's centre). One executor task per problem
(:func:`problem_rows`); this process writes the rows in problem order through the streamed
writer, so the file is the same bytes for any executor and an interrupted generation
resumes (the measured generation time goes to the JSON summary, not the file). Per problem
the file also holds μ and the sensor values (datasets/FORMAT.md, ``family/``).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor
from typing import Any

import numpy as np

from surrogate.datasets.generator_output import ProgressCallback
from surrogate.datasets.parallel import ordered_map
from surrogate.datasets.recipes import MaxwellFamilyRecipe
from surrogate.datasets.splits import make_splits
from surrogate.datasets.streaming import ResultCache, StreamedDataset


def parameter_draws(recipe: MaxwellFamilyRecipe) -> tuple[np.ndarray, np.ndarray]:
    """(params (P, p), box (p, 2)) of ``recipe``: ``problems`` draws of its sampler."""
    from surrogate.fem.families.registry import get_family

    family = get_family(recipe.family)
    box = family.box if recipe.box is None else np.asarray(recipe.box, dtype=np.float64)
    seed = int(np.random.SeedSequence([recipe.seed, 0]).generate_state(1)[0])
    return family.sample(recipe.problems, seed, method=recipe.sampler, box=box), box


def problem_rows(recipe: MaxwellFamilyRecipe, index: int, mu: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """inputs (M, 7) = (x, f, φ) and targets (M, 3) = u of problem ``index`` (one task)."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.families.registry import get_family

    family = get_family(recipe.family)
    problem = family.problem(mu)
    domain = get_domain(family.training_domain)
    rng = np.random.default_rng([recipe.seed, 1, int(index)])
    if family.has_exact:
        points = domain.sample(recipe.points, rng)
        u = problem.u(points)
    elif recipe.truth.fitted:
        solution = recipe.truth.solve(problem, family.training_domain)
        points = domain.sample(recipe.points, rng)
        u = solution.values_at(points, outside="extrapolate")
    else:
        from surrogate.fem.families.truth import truth_mesh
        from surrogate.fem.point_evaluation import sample_in_mesh

        solution = recipe.truth.solve(problem, family.training_domain)
        points = sample_in_mesh(domain, truth_mesh(family.training_domain,
                                                     recipe.truth_level), recipe.points, rng)
        u = solution.values_at(points)
    return np.asarray(problem.inputs(points), np.float64), np.asarray(u, np.float64)


def family_group(recipe: MaxwellFamilyRecipe, params: np.ndarray, box: np.ndarray,
                 problem_splits: dict[str, np.ndarray]) -> dict[str, Any]:
    """The ``family/`` group: μ, problem of each row, sensors and their values, box, splits."""
    from surrogate.fem.families.registry import get_family
    from surrogate.fem.families.sensors import sensor_layout, sensor_names, sensor_values

    family = get_family(recipe.family)
    sensors = sensor_layout(family, recipe.n_volume, recipe.n_boundary)
    values = np.stack([sensor_values(family.problem(mu), sensors) for mu in params])
    problem_id = np.repeat(np.arange(recipe.problems, dtype=np.int64), recipe.points)
    return {
        "params": (np.asarray(params, np.float64), {"names": tuple(family.param_names)}),
        "problem_id": problem_id,
        "sensor_values": (values, {"names": sensor_names(sensors)}),
        "sensors": {"volume_points": sensors.volume_points,
                    "boundary_points": sensors.boundary_points,
                    "boundary_normals": sensors.boundary_normals},
        "box": np.asarray(box, np.float64),
        "splits": {k: np.asarray(v, np.int64) for k, v in problem_splits.items()},
    }


def row_splits(problem_splits: dict[str, np.ndarray], points: int) -> dict[str, np.ndarray]:
    """Row indices of each split: all ``points`` rows of each of its problems, sorted."""
    offsets = np.arange(points, dtype=np.int64)
    return {k: (np.asarray(v, np.int64)[:, None] * points + offsets).ravel()
            for k, v in problem_splits.items()}


def stream_family(recipe: MaxwellFamilyRecipe, executor: Executor | None = None,
                  max_in_flight: int | None = None,
                  on_progress: ProgressCallback | None = None) -> StreamedDataset:
    """The streamed dataset of ``recipe``; problem tasks go to ``executor`` (None: here)."""
    from surrogate.fem.families.registry import get_family

    progress = on_progress or (lambda done, total, description: None)
    family = get_family(recipe.family)
    params, box = parameter_draws(recipe)
    split_rng = np.random.default_rng([recipe.seed, 2])
    problem_splits = make_splits(recipe.problems, recipe.split, split_rng)
    progress(0, recipe.problems, "sensor values")
    group = family_group(recipe, params, box, problem_splits)
    attrs: dict[str, Any] = {"family": family.name,
                             "truth": "exact" if family.has_exact else "fem"}
    if not family.has_exact:
        attrs.update(recipe.truth.require().attrs(family.training_domain))
    m, n_problems = recipe.points, recipe.problems

    def produce(start: int, block_rows: int, cache: ResultCache) -> Iterator[tuple]:
        first = start // m
        results = ordered_map(problem_rows, ((recipe, i, params[i])
                                             for i in range(first, n_problems)),
                              executor, max_in_flight)
        held_in: list[np.ndarray] = []
        held_out: list[np.ndarray] = []
        held = 0
        try:
            for i, (inputs, targets) in zip(range(first, n_problems), results, strict=True):
                skip = start - first * m if i == first else 0
                held_in.append(inputs[skip:])
                held_out.append(targets[skip:])
                held += m - skip
                progress(i + 1, n_problems, f"problem {i + 1}/{n_problems}")
                while held >= block_rows or (i == n_problems - 1 and held > 0):
                    a, b = np.concatenate(held_in), np.concatenate(held_out)
                    take = min(block_rows, held)
                    held_in, held_out, held = [a[take:]], [b[take:]], held - take
                    yield a[:take], b[:take]
        finally:
            results.close()

    return StreamedDataset(
        n=n_problems * m, input_shape=(7,), target_shape=(3,),
        input_names=("x1", "x2", "x3", "f1", "f2", "f3", "phi"),
        target_names=("u1", "u2", "u3"), splits=row_splits(problem_splits, m),
        problem="maxwell-family", domain=family.training_domain, recipe=recipe.to_dict(),
        seed=recipe.seed, produce=produce, dtype=recipe.dtype, kind="pointwise",
        attrs=attrs, family=group,
    )


__all__ = ["stream_family", "problem_rows", "parameter_draws", "family_group", "row_splits"]
