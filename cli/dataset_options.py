"""What the ``gen-data`` commands share: option types, recipe resolution, the summary path."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer


class DType(str, Enum):
    float64 = "float64"
    float32 = "float32"


SeedOption = Annotated[int | None, typer.Option(help="Random seed. \\[default: 0]")]
DTypeOption = Annotated[DType | None, typer.Option(help="Stored float type. \\[default: float64]")]
RecipeOption = Annotated[
    Path | None, typer.Option(help="TOML recipe file; flags given here override it.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]


def summary_path(out: Path) -> Path:
    """The JSON summary next to a dataset (``surrogate.datasets.format.summary_path``)."""
    from surrogate.datasets.format import summary_path as next_to

    return next_to(out)


def resolve_recipe(recipe_type: type, recipe: Path | None, flags: dict[str, Any]) -> Any:
    """The recipe of ``recipe_type`` from the TOML file ``recipe`` overridden by the given flags."""
    from surrogate.datasets.recipes import load_recipe_toml, recipe_from_dict

    values: dict[str, Any] = load_recipe_toml(recipe) if recipe is not None else {}
    values.update({k: v for k, v in flags.items() if v is not None})
    return recipe_from_dict(recipe_type, values)


__all__ = ["DType", "SeedOption", "DTypeOption", "RecipeOption", "JsonOption", "QuietOption",
           "summary_path", "resolve_recipe"]
