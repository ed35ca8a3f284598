"""``surrogate gen-data ...`` and ``surrogate info``: dataset generation and inspection."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.commands.family_data import gen_maxwell_family
from surrogate.cli.commands.maxwell_td import gen_maxwell_td
from surrogate.cli.commands.sequence_data import gen_adding, gen_fitzhugh_nagumo
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


class Source(str, Enum):
    exact = "exact"
    fem = "fem"


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
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)


def gen_maxwell(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HDF5 file.")] = Path(
        "data/maxwell.h5"
    ),
    domain: Annotated[
        str | None, typer.Option(help="Domain name (cylinder, cube, ...) or a tet mesh file "
                                      "(.msh, .vtu, .xdmf, .mesh). \\[default: cylinder]")
    ] = None,
    n: Annotated[
        int | None, typer.Option("-n", "--n-samples", help="Number of samples. \\[default: 12000]")
    ] = None,
    seed: SeedOption = None,
    source: Annotated[
        Source | None, typer.Option(help="Targets from the exact solution or the FEM solve.")
    ] = None,
    level: Annotated[
        int | None, typer.Option(help="Mesh level for --source fem. \\[default: 3]")
    ] = None,
    noise: Annotated[
        float | None,
        typer.Option(help="Relative Gaussian noise σ: u + σ·rms(u_k)·ξ per column. \\[default: 0]"),
    ] = None,
    split: Annotated[
        str | None, typer.Option(help="train,val,test fractions. \\[default: 0.8,0.1,0.1]")
    ] = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Sample the static Maxwell problem into an HDF5 dataset (+ <out>.json summary).

    Example: surrogate gen-data maxwell --domain cylinder -n 12000 --seed 0 -o data/maxwell.h5
    """
    from surrogate.datasets.generators import generate_dataset
    from surrogate.datasets.recipes import MaxwellRecipe
    from surrogate.fem.domains import get_domain

    with user_errors():
        flags = {"domain": domain, "n": n, "seed": seed, "level": level, "noise": noise,
                 "split": split, "source": source.value if source else None,
                 "dtype": dtype.value if dtype else None}
        resolved = resolve_recipe(MaxwellRecipe, recipe, flags)
        get_domain(resolved.domain)  # unknown names fail before any work
        with progress_display(quiet) as on_progress:
            summary = generate_dataset(resolved, out, on_progress=on_progress,
                                       summary_path=summary_path(out))
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        console.print(f"wrote {out} ({summary['inputs_shape'][0]} samples, "
                      f"{summary['content_hash'][:19]}...)", highlight=False)


def gen_toy(
    name: Annotated[str, typer.Argument(
        help="Toy dataset: sine, spirals, bands or circles.", metavar="NAME",
        show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Output HDF5 file. \\[default: data/<NAME>.h5]")] = None,
    n_train: Annotated[int | None, typer.Option(
        help="Training points (spirals: also the points per arm, every other one is "
        "validation). \\[default: sine 100, spirals 513, bands 200, circles 400]")] = None,
    n_val: Annotated[int | None, typer.Option(
        help="Validation points (spirals: 0 or --n-train). \\[default: sine 200, spirals "
        "--n-train, else 0]")] = None,
    n_test: Annotated[int | None, typer.Option(
        help="Test points. \\[default: sine 200 (grid), spirals 512, bands 200, "
        "circles 400]")] = None,
    noise: Annotated[float | None, typer.Option(
        help="Gaussian noise σ: on the targets (sine) or on the input coordinates (others). "
        "\\[default: circles 0.2, else 0]")] = None,
    seed: SeedOption = None,
    dtype: DTypeOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Sample a toy dataset of the paper experiments into an HDF5 dataset (+ <out>.json).

    sine: f(x) = sin(2πx) e^(-x²/2) on [-1, 1] (regression).
    spirals, bands (1-D blue | red | blue), circles: classification, one-hot targets.

    Example: surrogate gen-data toy circles -o data/circles.h5 --seed 0
    """
    from surrogate.datasets.generators import generate_dataset
    from surrogate.datasets.recipes import ToyRecipe

    with user_errors():
        flags = {"name": name, "n_train": n_train, "n_val": n_val, "n_test": n_test,
                 "noise": noise, "seed": seed, "dtype": dtype.value if dtype else None}
        resolved = resolve_recipe(ToyRecipe, recipe, flags)
        out = out if out is not None else Path("data") / f"{resolved.name}.h5"
        with progress_display(quiet) as on_progress:
            summary = generate_dataset(resolved, out, on_progress=on_progress,
                                       summary_path=summary_path(out))
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        splits = ", ".join(f"{k} {v}" for k, v in summary["splits"].items())
        console.print(f"wrote {out} ({resolved.name}: {splits}; "
                      f"{summary['content_hash'][:19]}...)", highlight=False)


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
    """Attach ``gen-data`` (group: ``maxwell``, ``toy``) and ``info`` to ``app``."""
    gen_app = typer.Typer(no_args_is_help=True, help="Generate HDF5 datasets from recipes.")
    gen_app.command("maxwell")(gen_maxwell)
    gen_app.command("toy")(gen_toy)
    gen_app.command("maxwell-td")(gen_maxwell_td)
    gen_app.command("fitzhugh-nagumo")(gen_fitzhugh_nagumo)
    gen_app.command("adding")(gen_adding)
    gen_app.command("maxwell-family")(gen_maxwell_family)
    app.add_typer(gen_app, name="gen-data")
    app.command("info")(info)
