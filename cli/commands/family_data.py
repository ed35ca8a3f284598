"""``surrogate gen-data maxwell-family``: many problems of a family, split by problem."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import user_errors
from surrogate.cli.dataset_options import (
    DaskClusterOption,
    JsonOption,
    QuietOption,
    RecipeOption,
    ResumeOption,
    ScaleOut,
    SchedulerOption,
    WorkersOption,
    generate,
    report,
    resolve_recipe,
)
from surrogate.cli.generated_command import GivenOptions


def gen_maxwell_family(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/family.h5"),
    recipe: RecipeOption = None,
    workers: WorkersOption = 1,
    scheduler: SchedulerOption = None,
    dask_cluster: DaskClusterOption = None,
    resume: ResumeOption = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    *,
    options: GivenOptions,
) -> None:
    """Sample a family of static Maxwell problems into a pointwise dataset (+ <out>.json).

    Problem i: parameters μ_i in the family's box; rows (x, f(x), φ(x)) -> u(x) at --points
    points of the training domain (the cylinder); u exact (radial) or the FEM truth
    (inclusion): by default the order-3 mixed solve on the member's mesh fitted to its ball
    (--truth-maxh 0.25, curved, NGSolve), with --truth-mesh level the one of order
    --truth-fem-order on --truth-level. Per problem the file stores μ and the
    sensor values (f, φ at fixed points inside, u × n on the wall); splits are by problem
    (datasets/FORMAT.md v2).
    A box other than the family's is set in a --recipe TOML file: box = [[lo, hi], ...].

    Example: surrogate gen-data maxwell-family --family radial --problems 320 -o data/radial.h5

    Example: surrogate gen-data maxwell-family --family inclusion --workers 2 -o data/incl.h5
    """
    from surrogate.datasets.recipes import MaxwellFamilyRecipe

    with user_errors():
        resolved = resolve_recipe(MaxwellFamilyRecipe, recipe, options)
        summary = generate(resolved, out, quiet,
                           ScaleOut(workers, scheduler, dask_cluster, resume))
    report(summary, as_json, quiet, lambda: f"wrote {out} ({resolved.family}: "
           f"{resolved.problems} problems × {resolved.points} points; "
           f"{summary['content_hash'][:19]}...)")
