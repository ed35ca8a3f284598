"""The defaults ``fit`` gives a problem-family dataset: the recipe of the README's results table.

A family dataset (hundreds of problems × thousands of points) trains in mini-batches for tens
of epochs; the single-problem defaults (4,000 full-batch epochs of a 2 × 50 network) would
take hours. The family recipe is the one ``examples/family_maxwell.sh`` ran for the results
table: a ResNet of depth 6 and width 128 with SiLU σ, learned τ starting at 1 and the
quadratic output layer, Adam with a cosine schedule from lr 3·10⁻³ to 10⁻⁵, and per inputs
kind

    params     40 epochs of mini-batches of 1,024 rows
    fields     80 epochs of 2,048
    pointwise  10 epochs of 2,048

The separable model (``--arch deeponet``) has its own recipe, tuned on the training split of
a ``radial`` file of 320 problems × 2,000 points (issue 29, docs/results/break-even.md): ``params``
inputs, a trunk of depth 3 and width 64 with p = 32 basis functions, SiLU σ, τ from 1 and the
quadratic output, ``SEPARABLE_EPOCHS`` epochs of mini-batches of 256 rows from lr 5·10⁻³,
then the branch's read-out and β solved by least squares on 131,072 training rows
(``head_solve_epochs`` 1: hybrid least squares, :mod:`surrogate.training.head_solve`; the
12 epochs of Adam alone before 2026-11-28); ``--arch deeponet`` alone selects ``params``
inputs.

Every option the user gave (a flag, a ``--config`` key, a key of the ``model`` / ``train``
mapping of :func:`surrogate.training.loop.fit`) wins; a typed ``ModelConfig`` or
``TrainConfig`` counts as every field given. The model part applies only to the recipe's
architecture (``resnet``, also the default arch). The run's ``config.json`` records what
applied under ``extra.defaults_applied``. Torch-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from surrogate.training.family_inputs import is_family

RECIPE_SOURCE = "examples/family_maxwell.sh (the README's family results)"


@dataclass(frozen=True)
class Recipe:
    """Defaults of one kind of run: model options (for ``arch``) and training options."""

    name: str
    arch: str
    model: Mapping[str, Any] = field(default_factory=dict)
    train: Mapping[str, Any] = field(default_factory=dict)
    source: str = RECIPE_SOURCE


FAMILY_MODEL = {"depth": 6, "width": 128, "activation": "silu", "tau_init": 1.0,
                "quadratic_output": True}
FAMILY_TRAIN = {"optimizer": "adam", "lr": 3e-3, "lr_min": 1e-5, "schedule": "cosine"}
FAMILY_EPOCHS_AND_BATCH = {"params": (40, 1024), "fields": (80, 2048), "pointwise": (10, 2048),
                           "params-geometry": (150, 1024)}

FAMILY_RECIPES: dict[str, Recipe] = {
    inputs: Recipe(f"family-{inputs}", "resnet", FAMILY_MODEL,
                   {**FAMILY_TRAIN, "epochs": epochs, "batch_size": batch_size})
    for inputs, (epochs, batch_size) in FAMILY_EPOCHS_AND_BATCH.items()
}
"""The family recipe per ``inputs`` kind."""

SEPARABLE_EPOCHS = 8
ARCH_RECIPES: dict[tuple[str, str], Recipe] = {
    ("deeponet", "params"): Recipe(
        "family-deeponet-params", "deeponet",
        {"inputs": "params", "width": 64, "depth": 3, "basis": 32, "activation": "silu",
         "tau_init": 1.0, "quadratic_output": True},
        {**FAMILY_TRAIN, "lr": 5e-3, "epochs": SEPARABLE_EPOCHS, "batch_size": 256,
         "head_solve_epochs": 1},
        "issue 29: the separable model tuned on a radial training split "
        "(docs/results/break-even.md)"),
}
"""Recipes of one architecture and inputs kind; they take precedence over FAMILY_RECIPES."""
ARCH_INPUTS = {"deeponet": "params"}
"""The inputs kind an architecture's recipe assumes when none is given."""


def _given(options: Any) -> dict[str, Any] | None:
    """The options as a dict of what was given; None for a typed config (all given)."""
    if options is None:
        return {}
    if hasattr(options, "to_dict"):
        return None
    return dict(options)


def family_recipe(dataset: Any, model: Any) -> Recipe | None:
    """The recipe of ``dataset`` for the model options ``model`` (None: single problem)."""
    if not is_family(dataset):
        return None
    options = model.to_dict() if hasattr(model, "to_dict") else dict(model or {})
    arch = options.get("arch") or "resnet"
    inputs = options.get("inputs") or ARCH_INPUTS.get(arch, "pointwise")
    return ARCH_RECIPES.get((arch, inputs)) or FAMILY_RECIPES.get(inputs)


def with_recipe_defaults(dataset: Any, model: Any, train: Any
                         ) -> tuple[Any, Any, dict[str, Any] | None]:
    """(model, train, record): the options with the recipe's values for those not given.

    ``record`` (None for single-problem data) names the recipe and the fields it set:
    ``{"recipe": "family-params", "source": ..., "model": {...}, "train": {...}}``.
    """
    recipe = family_recipe(dataset, model)
    if recipe is None:
        return model, train, None
    record: dict[str, Any] = {"recipe": recipe.name, "source": recipe.source,
                              "model": {}, "train": {}}
    model_given = _given(model)
    if model_given is not None and model_given.get("arch", recipe.arch) == recipe.arch:
        record["model"] = {k: v for k, v in recipe.model.items() if k not in model_given}
        model = {**model_given, **record["model"]}
    train_given = _given(train)
    if train_given is not None:
        record["train"] = {k: v for k, v in recipe.train.items() if k not in train_given}
        train = {**train_given, **record["train"]}
    return model, train, record


__all__ = ["Recipe", "FAMILY_RECIPES", "ARCH_RECIPES", "ARCH_INPUTS", "SEPARABLE_EPOCHS",
           "FAMILY_MODEL", "FAMILY_TRAIN", "FAMILY_EPOCHS_AND_BATCH", "family_recipe",
           "with_recipe_defaults"]
