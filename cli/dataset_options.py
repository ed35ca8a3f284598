"""What the ``gen-data`` commands share: the run-control options (the recipe's own options are
generated from its fields), the recipe group, and :func:`generate`: recipe file + options ->
one generation with progress, scale-out and the one-line interrupt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, interrupt_exit, progress_display
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions
from surrogate.core.json_files import json_text

RecipeOption = Annotated[
    Path | None, typer.Option(help="TOML recipe file; flags given here override it.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]
WorkersOption = Annotated[int, typer.Option(
    help="Local worker processes, one task per problem or material; the file is the same for "
    "any number.", min=1)]
SchedulerOption = Annotated[str | None, typer.Option(
    help="Run the tasks on the Dask cluster of this scheduler, e.g. tcp://host:8786 (needs pip "
    "install surrogate\\[distributed]).")]
DaskClusterOption = Annotated[str | None, typer.Option(
    help="Start a local Dask cluster 'local:N' (N single-threaded workers) for the tasks.")]
ResumeOption = Annotated[bool, typer.Option(
    "--resume", help="Continue an interrupted generation of the same recipe from the samples "
    "its partial file .<out>.partial holds (checked first).")]


def recipe_group(recipe_type: type, arguments: tuple[str, ...] = ()) -> OptionGroup:
    """The options of one recipe: one per field (``arguments`` positional)."""
    return OptionGroup("recipe", {recipe_type.__name__: recipe_type}, arguments=arguments)


@dataclass(frozen=True)
class ScaleOut:
    """Where the tasks of a streamed generation run, and whether it resumes."""

    workers: int = 1
    scheduler: str | None = None
    dask_cluster: str | None = None
    resume: bool = False


def resolve_recipe(recipe_type: type, recipe: Path | None, options: GivenOptions) -> Any:
    """The recipe of ``recipe_type`` from the TOML file ``recipe`` overridden by the options
    given."""
    from surrogate.datasets.recipes import load_recipe_toml, recipe_from_dict

    values: dict[str, Any] = load_recipe_toml(recipe) if recipe is not None else {}
    values.update(options.fields(recipe_group(recipe_type)))
    return recipe_from_dict(recipe_type, values)


def generate(resolved: Any, out: Path, quiet: bool, scale_out: ScaleOut | None = None
             ) -> dict[str, Any]:
    """Generate ``resolved`` into ``out`` (+ its JSON summary) with a progress bar; an interrupt
    is one line saying what was kept (exit 130/143)."""
    from surrogate.datasets.executors import open_executor
    from surrogate.datasets.format import summary_path
    from surrogate.datasets.generators import generate_dataset
    from surrogate.datasets.streaming import GenerationInterrupted

    scale_out = scale_out or ScaleOut()
    try:
        with open_executor(scale_out.workers, scale_out.scheduler, scale_out.dask_cluster) \
                as executor, progress_display(quiet) as on_progress:
            return generate_dataset(resolved, out, on_progress=on_progress,
                                    summary_path=summary_path(out), executor=executor,
                                    resume=scale_out.resume)
    except GenerationInterrupted as stop:
        detail = (f"kept {stop.rows}/{stop.n} samples in {stop.partial}; continue with "
                  "--resume" if stop.partial is not None else "no sample written yet")
        raise interrupt_exit(detail) from None


def report(summary: dict[str, Any], as_json: bool, quiet: bool, line: Callable[[], str]
           ) -> None:
    """Print the JSON summary (``--json``) or the command's one line (unless ``--quiet``)."""
    if as_json:
        typer.echo(json_text(summary), nl=False)
    elif not quiet:
        console.print(line(), highlight=False, soft_wrap=True)


__all__ = ["DaskClusterOption", "JsonOption", "QuietOption", "RecipeOption", "ResumeOption",
           "ScaleOut", "SchedulerOption", "WorkersOption", "generate", "recipe_group", "report",
           "resolve_recipe"]
