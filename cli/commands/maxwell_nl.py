"""``surrogate gen-data maxwell-nl``: nonlinear (varistor) cavity sequences (waveform -> probe E,
Joule power)."""

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


def gen_maxwell_nl(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/maxwell-nl.h5"),
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
    """Simulate a PEC cavity with a varistor block into a sequence dataset (+ <out>.json).

    ε E'' + ∂ₜ(σ(|E|) E) + curl(μ⁻¹ curl E) = −∂J/∂t, σ(|E|) = σ₀ (1 + (|E|/E₀)²) inside the
    varistor box and 0 outside, J = a s(t) J₀(x) (a Gaussian z-dipole). NGSolve H(curl) of
    --fem-order, average-acceleration Newmark with Newton's method per step through the Schur
    complement of the varistor's DOFs (step Δt / --substeps; --richardson: a second run at
    twice the substeps, extrapolated in Δt), from rest. Every sample draws its waveform,
    amplitude, σ₀ and E₀ and is one nonlinear run (benchmarks/nl_truth.py: convergence and
    seconds per sequence).

    Inputs (N, T, 3): s (amplitude included), sigma0, e0. Targets (N, T, 3·probes + 1): E at
    the probes, then the Joule power in the varistor.

    Scale-out: the sample runs go to --workers N local processes or to a Dask cluster
    (--scheduler, --dask-cluster); the file is byte-for-byte the same for any number or kind
    of workers. An interrupted run keeps its finished samples in .<out>.partial; --resume
    continues it.

    Example: surrogate gen-data maxwell-nl -n 128 --workers 2 -o data/mnl.h5
    """
    from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe
    from surrogate.fem.domains import get_domain

    with user_errors():
        resolved = resolve_recipe(MaxwellNLRecipe, recipe, options)
        get_domain(resolved.domain)  # unknown names fail before any work
        summary = generate(resolved, out, quiet,
                           ScaleOut(workers, scheduler, dask_cluster, resume))
    shape = summary["inputs_shape"]
    report(summary, as_json, quiet, lambda: f"wrote {out} ({shape[0]} sequences × {shape[1]} "
           f"steps, {(len(summary['target_names']) - 1) // 3} probes + Joule power; "
           f"{summary['content_hash'][:19]}...)")
