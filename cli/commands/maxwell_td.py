"""``surrogate gen-data maxwell-td``: time-domain Maxwell sequences (source signal -> probe E)."""

from __future__ import annotations

from enum import Enum
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


class Signal(str, Enum):
    pulse = "pulse"
    bandlimited = "bandlimited"
    mixed = "mixed"


def gen_maxwell_td(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/maxwell-td.h5"),
    domain: Annotated[str | None, typer.Option(
        help="Cavity (cube, cylinder, ...), perfectly conducting walls. \\[default: cube]")] = None,
    level: Annotated[int | None, typer.Option(
        help="Mesh level (N0 elements; cube level 3: 3072 tets). \\[default: 3]")] = None,
    n: Annotated[int | None, typer.Option(
        "-n", "--n-samples", help="Number of sequences. \\[default: 512]")] = None,
    steps: Annotated[int | None, typer.Option(
        help="Newmark steps; sequences have steps + 1 entries (t = 0 included). "
        "\\[default: 200]")] = None,
    dt: Annotated[float | None, typer.Option(help="Time step Δt. \\[default: 0.05]")] = None,
    probes: Annotated[int | None, typer.Option(
        help="Number of probe points (deterministic Halton points inside the cavity). "
        "\\[default: 8]")] = None,
    probe_points: Annotated[str | None, typer.Option(
        help="Explicit probes 'x,y,z;x,y,z;...' (overrides --probes).")] = None,
    eps: Annotated[str | None, typer.Option(
        help="Permittivity range 'low,high' (one number: fixed). \\[default: 1,2]")] = None,
    mu: Annotated[str | None, typer.Option(
        help="Permeability range 'low,high'. \\[default: 1,2]")] = None,
    sigma: Annotated[str | None, typer.Option(
        help="Conductivity range 'low,high'. \\[default: 0,0.3]")] = None,
    n_materials: Annotated[int | None, typer.Option(
        help="Distinct (ε, μ, σ) drawn; sample i uses material i mod this. Each costs one "
        "factorisation and one FEM run; = n gives every sample its own. \\[default: 8]")] = None,
    signal: Annotated[Signal | None, typer.Option(
        help="Source signal family s(t). \\[default: pulse]")] = None,
    frequency: Annotated[str | None, typer.Option(
        help="Frequency range 'low,high' (pulse centre / band). \\[default: 0.25,1]")] = None,
    width: Annotated[str | None, typer.Option(
        help="Pulse width range (Gaussian std in time). \\[default: 0.3,0.8]")] = None,
    delay: Annotated[str | None, typer.Option(
        help="Pulse centre-time range. \\[default: 1.5,4]")] = None,
    source_centre: Annotated[str | None, typer.Option(
        help="Dipole centre 'x,y,z'. \\[default: centre of the domain's box]")] = None,
    source_width: Annotated[float | None, typer.Option(
        help="Dipole width (std of the Gaussian J₀). \\[default: 0.1]")] = None,
    split: Annotated[str | None, typer.Option(
        help="train,val,test fractions. \\[default: 0.8,0.1,0.1]")] = None,
    seed: SeedOption = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    workers: Annotated[int, typer.Option(
        help="Local worker processes for the FEM runs (one per material); the file is the "
        "same for any number.", min=1)] = 1,
    scheduler: Annotated[str | None, typer.Option(
        help="Run the FEM tasks on the Dask cluster of this scheduler, e.g. tcp://host:8786 "
        "(needs pip install surrogate\\[distributed]).")] = None,
    dask_cluster: Annotated[str | None, typer.Option(
        help="Start a local Dask cluster 'local:N' (N single-threaded workers) for the "
        "FEM tasks.")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue an interrupted generation of the same recipe from the "
        "samples its partial file .<out>.partial holds (checked first).")] = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Simulate time-domain Maxwell in a PEC cavity into a sequence dataset (+ <out>.json).

    ε E'' + σ E' + curl(μ⁻¹ curl E) = −∂J/∂t with J = s(t) J₀(x), J₀ a Gaussian z-dipole.
    Nédélec N0 in space, average-acceleration Newmark in time, from rest.

    Inputs (N, T, 4): s, eps, mu, sigma. Targets (N, T, 3·probes): E at the probes.

    Scale-out: the FEM runs (one per material) go to --workers N local processes or to a Dask
    cluster (--scheduler, --dask-cluster); this process writes the file, in sample order, and
    it is byte-for-byte the same for any number or kind of workers. An interrupted run keeps
    its samples in .<out>.partial; --resume continues it.

    Example: surrogate gen-data maxwell-td -n 512 --steps 200 --seed 0 -o data/mtd.h5

    Example: surrogate gen-data maxwell-td -n 4096 --n-materials 4096 --workers 2 -o data/mtd.h5

    Example: surrogate gen-data maxwell-td -n 4096 --scheduler tcp://head:8786 --resume
    """
    from surrogate.datasets.executors import open_executor
    from surrogate.datasets.generators import generate_dataset
    from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe
    from surrogate.datasets.streaming import GenerationInterrupted
    from surrogate.fem.domains import get_domain

    with user_errors():
        flags = {"domain": domain, "level": level, "n": n, "steps": steps, "dt": dt,
                 "probes": probes, "probe_points": probe_points, "eps": eps, "mu": mu,
                 "sigma": sigma, "n_materials": n_materials,
                 "signal": signal.value if signal else None, "frequency": frequency,
                 "width": width, "delay": delay, "source_centre": source_centre,
                 "source_width": source_width, "split": split, "seed": seed,
                 "dtype": dtype.value if dtype else None}
        resolved = resolve_recipe(MaxwellTDRecipe, recipe, flags)
        get_domain(resolved.domain)  # unknown names fail before any work
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
        shape = summary["inputs_shape"]
        console.print(f"wrote {out} ({shape[0]} sequences × {shape[1]} steps, "
                      f"{len(summary['target_names']) // 3} probes; "
                      f"{summary['content_hash'][:19]}...)", highlight=False)

