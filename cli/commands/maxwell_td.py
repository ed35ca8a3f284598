"""``surrogate gen-data maxwell-td``: time-domain Maxwell sequences (source signal -> probe E)."""

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


def gen_maxwell_td(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/maxwell-td.h5"),
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
    """Simulate time-domain Maxwell in a PEC cavity into a sequence dataset (+ <out>.json).

    ε E'' + σ E' + curl(μ⁻¹ curl E) = −∂J/∂t with J = s(t) J₀(x), J₀ a Gaussian z-dipole.
    Nédélec H(curl) elements in space, average-acceleration Newmark in time with step
    Δt / --substeps (--richardson: a second run at twice the substeps, extrapolated in Δt),
    from rest. The defaults (ngsolve, order 5, level 2, 2 substeps, Richardson; the [ngsolve]
    extra) give probe sequences within 0.13–0.41 % median of a finer reference
    (benchmarks/td_truth.py), about a minute per material on one core; --fem-backend skfem
    --fem-order 0 --substeps 1 --no-richardson is the fast N0 path (not converged: ~26 % off
    at level 3).

    Inputs (N, T, 4): s, eps, mu, sigma. Targets (N, T, 3·probes): E at the probes.

    Scale-out: the FEM runs (one per material) go to --workers N local processes or to a Dask
    cluster (--scheduler, --dask-cluster); this process writes the file, in sample order, and
    it is byte-for-byte the same for any number or kind of workers. An interrupted run keeps
    its samples in .<out>.partial; --resume continues it.

    Example: surrogate gen-data maxwell-td -n 512 --steps 200 --seed 0 -o data/mtd.h5

    Example: surrogate gen-data maxwell-td -n 4096 --n-materials 32 --workers 2 -o data/mtd.h5

    Example: surrogate gen-data maxwell-td --fem-backend skfem --fem-order 0 --level 3
    --substeps 1 --no-richardson -o data/mtd-n0.h5

    Example: surrogate gen-data maxwell-td -n 4096 --scheduler tcp://head:8786 --resume
    """
    from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe
    from surrogate.fem.domains import get_domain

    with user_errors():
        resolved = resolve_recipe(MaxwellTDRecipe, recipe, options)
        get_domain(resolved.domain)  # unknown names fail before any work
        summary = generate(resolved, out, quiet,
                           ScaleOut(workers, scheduler, dask_cluster, resume))
    shape = summary["inputs_shape"]
    report(summary, as_json, quiet, lambda: f"wrote {out} ({shape[0]} sequences × {shape[1]} "
           f"steps, {len(summary['target_names']) // 3} probes; "
           f"{summary['content_hash'][:19]}...)")
