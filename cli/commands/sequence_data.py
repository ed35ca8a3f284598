"""``surrogate gen-data fitzhugh-nagumo`` and ``gen-data adding``: the LEM paper's sequence
benchmarks (datasets/sequence/lem_benchmarks.py) as HDF5 datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, progress_display, user_errors
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


def _generate(recipe_type: type, recipe: Path | None, flags: dict[str, Any], out: Path,
              quiet: bool) -> dict[str, Any]:
    """Resolve the recipe (TOML file, then flags), generate, write ``out`` and its summary."""
    from surrogate.datasets.generators import generate_dataset

    resolved = resolve_recipe(recipe_type, recipe, flags)
    with progress_display(quiet) as on_progress:
        return generate_dataset(resolved, out, on_progress=on_progress,
                                summary_path=summary_path(out))


def _report(summary: dict[str, Any], out: Path, as_json: bool, quiet: bool) -> None:
    """Print the JSON summary (``--json``) or one line naming the file, splits and hash."""
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        splits = ", ".join(f"{k} {v}" for k, v in summary["splits"].items())
        steps = summary["inputs_shape"][1]
        console.print(f"wrote {out} ({summary['problem']}: {splits}; {steps} steps; "
                      f"{summary['content_hash'][:19]}...)", highlight=False, soft_wrap=True)


def gen_fitzhugh_nagumo(
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Output HDF5 file. \\[default: data/fitzhugh-nagumo.h5]")] = None,
    n_train: Annotated[int | None, typer.Option(
        help="Training sequences. \\[default: 128]")] = None,
    n_val: Annotated[int | None, typer.Option(
        help="Validation sequences. \\[default: 128]")] = None,
    n_test: Annotated[int | None, typer.Option(help="Test sequences. \\[default: 1024]")] = None,
    steps: Annotated[int | None, typer.Option(
        help="Steps N per sequence: t_n = 400 n/N. \\[default: 1000]")] = None,
    seed: SeedOption = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """FitzHugh-Nagumo sequences (LEM paper, eq. 5.117) into an HDF5 dataset (+ <out>.json).

    v' = v - v³/3 - w + 0.5, w' = 0.02 (v + 0.7 - 0.8 w),
    v(0) ~ U(-1, 1), w(0) = 0, RK45 on [0, 400] sampled at t_n = 400 n/N.
    Input v(t_n), target v(t_n+1), n = 0..N-1.
    tau, i_ext, a, b, t_end, rtol and atol can be set in a --recipe file.

    Example: surrogate gen-data fitzhugh-nagumo -o data/fhn.h5 --seed 0
    """
    from surrogate.datasets.sequence.lem_benchmark_recipes import FitzHughNagumoRecipe

    out = out if out is not None else Path("data/fitzhugh-nagumo.h5")
    flags = {"n_train": n_train, "n_val": n_val, "n_test": n_test, "steps": steps,
             "seed": seed, "dtype": dtype.value if dtype else None}
    with user_errors():
        summary = _generate(FitzHughNagumoRecipe, recipe, flags, out, quiet)
    _report(summary, out, as_json, quiet)


def gen_adding(
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Output HDF5 file. \\[default: data/adding.h5]")] = None,
    length: Annotated[int | None, typer.Option(
        "--length", "-T", help="Sequence length T (the paper: 2000, 5000, 10000). "
        "\\[default: 2000]")] = None,
    n_train: Annotated[int | None, typer.Option(
        help="Training sequences. \\[default: 8000]")] = None,
    n_val: Annotated[int | None, typer.Option(
        help="Validation sequences. \\[default: 1000]")] = None,
    n_test: Annotated[int | None, typer.Option(help="Test sequences. \\[default: 1000]")] = None,
    seed: SeedOption = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """The adding problem (LEM paper, §5.3) into an HDF5 dataset (+ <out>.json).

    Input (T, 2): values ~ U[0, 1) and markers, one 1 in each half.
    Target (1, 1): the sum of the two marked values, after the last step.

    Example: surrogate gen-data adding --length 5000 -o data/adding.h5 --seed 0
    """
    from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe

    out = out if out is not None else Path("data/adding.h5")
    flags = {"length": length, "n_train": n_train, "n_val": n_val, "n_test": n_test,
             "seed": seed, "dtype": dtype.value if dtype else None}
    with user_errors():
        summary = _generate(AddingRecipe, recipe, flags, out, quiet)
    _report(summary, out, as_json, quiet)


__all__ = ["gen_fitzhugh_nagumo", "gen_adding"]
