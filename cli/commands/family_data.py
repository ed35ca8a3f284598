"""``surrogate gen-data maxwell-family``: many problems of a family, split by problem."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surrogate.cli.common import console, interrupt_exit, progress_display, user_errors
from surrogate.cli.dataset_options import (
    DTypeOption,
    JsonOption,
    QuietOption,
    RecipeOption,
    SeedOption,
    resolve_recipe,
    summary_path,
)
from surrogate.core.json_files import json_text


def gen_maxwell_family(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/family.h5"),
    family: Annotated[str | None, typer.Option(
        help="Problem family: radial (closed form) or inclusion (FEM truth). "
        "\\[default: radial]")] = None,
    problems: Annotated[int | None, typer.Option(
        help="Number of problems (parameter draws), at least 3. \\[default: 320]")] = None,
    points: Annotated[int | None, typer.Option(
        help="Points per problem, uniform in the training domain. \\[default: 2000]")] = None,
    sampler: Annotated[str | None, typer.Option(
        help="Parameter sampler: sobol or lhs (scipy.stats.qmc). \\[default: sobol]")] = None,
    split: Annotated[str | None, typer.Option(
        help="train,val,test fractions of the problems (a problem's rows stay in one split). "
        "\\[default: 0.8,0.1,0.1]")] = None,
    truth_level: Annotated[int | None, typer.Option(
        help="Mesh level of the FEM truth (families without a closed form). "
        "\\[default: 3]")] = None,
    truth_fem_order: Annotated[int | None, typer.Option(
        help="Order of the FEM truth's mixed solve (docs/cli.md's naming): 1 (complete linear; "
        "on level 3 more accurate and cheaper than N0 on level 4) or 0 (N0, the truth of files "
        "without a recorded order). \\[default: 1]")] = None,
    n_volume: Annotated[int | None, typer.Option(
        help="Sensor points inside the training domain (f and φ). \\[default: 48]")] = None,
    n_boundary: Annotated[int | None, typer.Option(
        help="Sensor points on its boundary (u × n). \\[default: 16]")] = None,
    seed: SeedOption = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    workers: Annotated[int, typer.Option(
        help="Local worker processes, one task per problem; the file is the same for any "
        "number.", min=1)] = 1,
    scheduler: Annotated[str | None, typer.Option(
        help="Run the problem tasks on the Dask cluster of this scheduler, e.g. "
        "tcp://host:8786 (needs pip install surrogate\\[distributed]).")] = None,
    dask_cluster: Annotated[str | None, typer.Option(
        help="Start a local Dask cluster 'local:N' (N single-threaded workers).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue an interrupted generation of the same recipe from the "
        "rows its partial file .<out>.partial holds (checked first).")] = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Sample a family of static Maxwell problems into a pointwise dataset (+ <out>.json).

    Problem i: parameters μ_i in the family's box; rows (x, f(x), φ(x)) -> u(x) at --points
    points of the training domain (the cylinder); u exact (radial) or the mixed solve of
    order --truth-fem-order at --truth-level (inclusion). Per problem the file stores μ and the
    sensor values (f, φ at fixed points inside, u × n on the wall); splits are by problem
    (datasets/FORMAT.md v2).
    A box other than the family's is set in a --recipe TOML file: box = [[lo, hi], ...].

    Example: surrogate gen-data maxwell-family --family radial --problems 320 -o data/radial.h5

    Example: surrogate gen-data maxwell-family --family inclusion --workers 2 -o data/incl.h5
    """
    from surrogate.datasets.executors import open_executor
    from surrogate.datasets.generators import generate_dataset
    from surrogate.datasets.recipes import MaxwellFamilyRecipe
    from surrogate.datasets.streaming import GenerationInterrupted

    with user_errors():
        flags = {"family": family, "problems": problems, "points": points, "sampler": sampler,
                 "split": split, "truth_level": truth_level, "truth_fem_order": truth_fem_order,
                 "n_volume": n_volume, "n_boundary": n_boundary, "seed": seed,
                 "dtype": dtype.value if dtype else None}
        resolved = resolve_recipe(MaxwellFamilyRecipe, recipe, flags)
        try:
            with open_executor(workers, scheduler, dask_cluster) as executor, \
                    progress_display(quiet) as on_progress:
                summary = generate_dataset(resolved, out, on_progress=on_progress,
                                           summary_path=summary_path(out),
                                           executor=executor, resume=resume)
        except GenerationInterrupted as stop:
            detail = (f"kept {stop.rows}/{stop.n} samples in {stop.partial}; continue with "
                      "--resume" if stop.partial is not None else "no sample written yet")
            raise interrupt_exit(detail) from None
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        console.print(f"wrote {out} ({resolved.family}: {resolved.problems} problems × "
                      f"{resolved.points} points; {summary['content_hash'][:19]}...)",
                      highlight=False)
