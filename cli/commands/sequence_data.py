"""``surrogate gen-data fitzhugh-nagumo`` and ``gen-data adding``: the LEM paper's sequence
benchmarks (datasets/sequence/lem_benchmarks.py) as HDF5 datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import user_errors
from surrogate.cli.dataset_options import (
    JsonOption,
    QuietOption,
    RecipeOption,
    generate,
    report,
    resolve_recipe,
)
from surrogate.cli.generated_command import GivenOptions


def _generate_and_report(recipe_type: type, recipe: Path | None, options: GivenOptions,
                         out: Path, as_json: bool, quiet: bool) -> None:
    """Resolve, generate and print one line naming the file, splits, steps and hash."""
    with user_errors():
        summary: dict[str, Any] = generate(resolve_recipe(recipe_type, recipe, options), out,
                                           quiet)
    splits = ", ".join(f"{k} {v}" for k, v in summary["splits"].items())
    report(summary, as_json, quiet, lambda: f"wrote {out} ({summary['problem']}: {splits}; "
           f"{summary['inputs_shape'][1]} steps; {summary['content_hash'][:19]}...)")


def gen_fitzhugh_nagumo(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/fitzhugh-nagumo.h5"),
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    *,
    options: GivenOptions,
) -> None:
    """FitzHugh-Nagumo sequences (LEM paper, equation 5.117) into an HDF5 dataset (+ <out>.json).

    v' = v - v³/3 - w + I_ext, w' = τ (v + a - b w) (I_ext = 0.5, τ = 0.02, a = 0.7,
    b = 0.8), v(0) ~ U(-1, 1), w(0) = 0, RK45 on [0, t_end] sampled at t_n = t_end n/N.
    Input v(t_n), target v(t_n+1), n = 0..N-1.

    Example: surrogate gen-data fitzhugh-nagumo -o data/fhn.h5 --seed 0
    """
    from surrogate.datasets.sequence.lem_benchmark_recipes import FitzHughNagumoRecipe

    _generate_and_report(FitzHughNagumoRecipe, recipe, options, out, as_json, quiet)


def gen_adding(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/adding.h5"),
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    *,
    options: GivenOptions,
) -> None:
    """The adding problem (LEM paper, §5.3) into an HDF5 dataset (+ <out>.json).

    Input (T, 2): values ~ U[0, 1) and markers, one 1 in each half.
    Target (1, 1): the sum of the two marked values, after the last step.

    Example: surrogate gen-data adding --length 5000 -o data/adding.h5 --seed 0
    """
    from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe

    _generate_and_report(AddingRecipe, recipe, options, out, as_json, quiet)


__all__ = ["gen_fitzhugh_nagumo", "gen_adding"]
