"""``surrogate gen-data ...`` and ``surrogate info``: dataset generation and inspection.

Every ``gen-data`` command takes one option per field of its recipe (generated from the recipe
dataclass, :mod:`surrogate.cli.config_options`) plus the run-control options of
:mod:`surrogate.cli.dataset_options`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, user_errors
from surrogate.cli.dataset_options import (
    JsonOption,
    QuietOption,
    RecipeOption,
    generate,
    recipe_group,
    report,
    resolve_recipe,
)
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text


def _print_run_summary(summary: dict[str, Any]) -> None:
    """Human-readable run summary: architecture, τ, training data, errors."""
    metrics = summary.get("metrics") or {}
    dataset = summary.get("dataset") or {}
    errors = ", ".join(f"{split} {metrics[key]:.3e}" for split, key in
                       ((s, f"{s}_relative_l2_error") for s in ("train", "val", "test"))
                       if isinstance(metrics.get(key), int | float))
    accuracy = ", ".join(f"{split} {value:.2%}" for split, value in
                         (metrics.get("accuracy") or {}).items() if isinstance(value, int | float))
    lines = [
        f"[bold]{summary['path']}[/]  (run of {summary['arch']}, {_model_size_text(summary)})",
        f"data    {dataset.get('path')} ({dataset.get('problem')} on {dataset.get('domain')}, "
        f"{dataset.get('n_samples')} samples, {summary.get('dataset_hash')})",
        f"trained {summary.get('epochs')} epochs, stopped: {summary.get('stop_reason')}",
        f"rel. L² {errors or '–'}",
        *_per_sequence_lines(metrics),
        *([f"accuracy {accuracy}"] if accuracy else []),
        f"created {summary.get('created')} (surrogate {summary.get('package_version')}, "
        f"torch {summary.get('torch_version')})",
    ]
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def _model_size_text(summary: dict[str, Any]) -> str:
    """'depth × width, τ …' of a pointwise run; 'hidden m, Δt …, read-out …' of a sequence run."""
    if summary.get("data_kind") != "sequence":
        return f"{summary['depth']} × {summary['width']}, τ {summary['tau']}"
    model = summary.get("model") or {}
    dt = "learned" if model.get("learn_dt") else model.get("dt")
    return f"hidden {summary.get('hidden')}, Δt {dt}, read-out {model.get('readout')}"


def _per_sequence_lines(metrics: dict[str, Any]) -> list[str]:
    """'per seq. mean / median  train a / b, ...' of a sequence run (none for pointwise)."""
    summaries = metrics.get("sequence_relative_l2_error")
    if not isinstance(summaries, dict):
        return []
    parts = [f"{split} {value['mean']:.3e} / {value['median']:.3e}"
             for split, value in summaries.items()
             if isinstance(value, dict) and all(isinstance(value.get(k), int | float)
                                                for k in ("mean", "median"))]
    return [f"per seq. mean / median {', '.join(parts) or '–'}"]


def _print_dataset_summary(summary: dict[str, Any]) -> None:
    """Human-readable dataset summary."""
    lines = [
        f"[bold]{summary['path']}[/]  ({summary['kind']} dataset, format v{summary['version']})",
        f"problem {summary['problem']}, domain {summary['domain']}, seed {summary['seed']}, "
        f"dtype {summary['dtype']}",
        f"inputs  {tuple(summary['inputs_shape'])}: {', '.join(summary['input_names'])}",
        f"targets {tuple(summary['targets_shape'])}: {', '.join(summary['target_names'])}",
        "splits  " + ", ".join(f"{k} {v}" for k, v in summary["splits"].items()),
        "ranges (min / mean / max):",
    ]
    for group in ("input_ranges", "target_ranges"):
        for name, r in summary[group].items():
            low, mean, high = (r[key] + 0.0 for key in ("min", "mean", "max"))  # no "-0"
            lines.append(f"  {name:>6}  {low: .6g} / {mean: .6g} / {high: .6g}")
    lines.append(f"hash    {summary['content_hash']}")
    lines.append(f"recipe  {json.dumps(summary['recipe'], sort_keys=True)}")
    if (truth := summary.get("truth")) is not None:
        text, backend = str(truth.get("description")), truth.get("backend")
        lines.append(f"truth   {text}" + (f" ({backend})" if backend and backend not in text
                                           else ""))
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def gen_maxwell(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/maxwell.h5"),
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    *,
    options: GivenOptions,
) -> None:
    """Sample the static Maxwell problem into an HDF5 dataset (+ <out>.json summary).

    Example: surrogate gen-data maxwell --domain cylinder -n 12000 --seed 0 -o data/maxwell.h5
    """
    from surrogate.datasets.recipes import MaxwellRecipe
    from surrogate.fem.domains import get_domain

    with user_errors():
        resolved = resolve_recipe(MaxwellRecipe, recipe, options)
        get_domain(resolved.domain)  # unknown names fail before any work
        summary = generate(resolved, out, quiet)
    report(summary, as_json, quiet, lambda: f"wrote {out} ({summary['inputs_shape'][0]} "
           f"samples, {summary['content_hash'][:19]}...)")


def gen_toy(
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Output HDF5 file. \\[default: data/<NAME>.h5]")] = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    *,
    options: GivenOptions,
) -> None:
    """Sample a toy dataset of the paper experiments into an HDF5 dataset (+ <out>.json).

    sine: f(x) = sin(2πx) e^(-x²/2) on [-1, 1] (regression).
    spirals, bands (1-D blue | red | blue), circles: classification, one-hot targets.

    Example: surrogate gen-data toy circles -o data/circles.h5 --seed 0
    """
    from surrogate.datasets.recipes import ToyRecipe

    with user_errors():
        resolved = resolve_recipe(ToyRecipe, recipe, options)
        out = out if out is not None else Path("data") / f"{resolved.name}.h5"
        summary = generate(resolved, out, quiet)
    splits = ", ".join(f"{k} {v}" for k, v in summary["splits"].items())
    report(summary, as_json, quiet, lambda: f"wrote {out} ({resolved.name}: {splits}; "
           f"{summary['content_hash'][:19]}...)")


def info(
    path: Annotated[Path, typer.Argument(help="A dataset file (.h5) or a run directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Validate only; print nothing.")]
    = False,
) -> None:
    """Validate and summarise a dataset file or a run directory.

    A dataset: kind, shapes, names, splits, ranges, content hash. A run: architecture, τ,
    training data, errors.

    Example: surrogate info data/maxwell.h5 --json   (or: surrogate info runs/frac-dnn)
    """
    with user_errors():
        summary = describe(path)
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        (_print_run_summary if summary.get("kind") == "run" else _print_dataset_summary)(summary)


def describe(path: Path) -> dict[str, Any]:
    """The summary dict of ``path``: a run directory (``kind`` "run") or a dataset file."""
    if Path(path).is_dir():
        from surrogate.runs.load import run_summary

        return run_summary(path)
    from surrogate.datasets.summary import dataset_summary

    return dataset_summary(path)


def register(app: typer.Typer) -> None:
    """Attach ``gen-data`` (one command per recipe) and ``info`` to ``app``."""
    from surrogate.cli.commands.family_data import gen_maxwell_family
    from surrogate.cli.commands.maxwell_nl import gen_maxwell_nl
    from surrogate.cli.commands.maxwell_td import gen_maxwell_td
    from surrogate.cli.commands.sequence_data import gen_adding, gen_fitzhugh_nagumo
    from surrogate.datasets.recipes import MaxwellFamilyRecipe, MaxwellRecipe, ToyRecipe
    from surrogate.datasets.sequence.lem_benchmark_recipes import (
        AddingRecipe,
        FitzHughNagumoRecipe,
    )
    from surrogate.datasets.sequence.maxwell_td import MaxwellTDRecipe
    from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe

    gen_app = typer.Typer(no_args_is_help=True, help="Generate HDF5 datasets from recipes.")
    for name, command, recipe_type, arguments in (
            ("maxwell", gen_maxwell, MaxwellRecipe, ()),
            ("toy", gen_toy, ToyRecipe, ("name",)),
            ("maxwell-td", gen_maxwell_td, MaxwellTDRecipe, ()),
            ("maxwell-nl", gen_maxwell_nl, MaxwellNLRecipe, ()),
            ("fitzhugh-nagumo", gen_fitzhugh_nagumo, FitzHughNagumoRecipe, ()),
            ("adding", gen_adding, AddingRecipe, ()),
            ("maxwell-family", gen_maxwell_family, MaxwellFamilyRecipe, ())):
        gen_app.command(name)(command_with_options(command, [recipe_group(recipe_type,
                                                                          arguments)]))
    app.add_typer(gen_app, name="gen-data")
    app.command("info")(info)
