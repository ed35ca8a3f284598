"""Evaluation sets of a sequence run, rebuilt in memory from its dataset's recipe (issue 6).

Every set is a batch of whole sequences the run never trained on:

- ``unseen-signals``: the file's test split, plus ``fresh = m`` sequences regenerated beyond
  the file (maxwell-td: samples n … n + m − 1 of the recipe, each with its own spawned signal
  seed and a material of the training pool; fitzhugh-nagumo, adding: rows n_test …
  n_test + m − 1 of the test split's seed stream). ``source`` says which.
- ``unseen-materials`` (maxwell-td, maxwell-nl): the same samples (the same signals) with a
  new material pool: maxwell-td ``n_materials`` triples drawn by the materials stream of
  ``material_seed`` (default seed + 1), in the recipe's ranges or in ``material_ranges``
  (extrapolation), sample i using triple i mod n_materials, as in the file; maxwell-nl each
  sample's (amplitude, σ₀, E₀) redrawn the same way (``amplitude=2,3``: amplitudes beyond
  the training range, the waveform shapes unchanged).
- ``longer-horizon``: the same samples over ``horizon_factor`` × the trained length, no
  recipe change needed: maxwell-td and maxwell-nl ``steps`` × f with the same seed (the same
  sequences extended: the first T_train entries are the file's rows); fitzhugh-nagumo the
  same initial states over f × ``t_end`` with the same Δt = t_end/steps; adding sequences of
  length f × T from the same seeds (the values extend, the markers are redrawn in the new
  halves, so these are new, longer problems read at their last step).

A dataset whose recipe kind has no generator here gives ``unseen-signals`` from its test
split only. Nothing is written to disk. This module plans the sets; they are built by
:mod:`surrogate.evaluation.sequence.builders` (maxwell-td ones by
:mod:`surrogate.evaluation.sequence.maxwell_td`, maxwell-nl ones by
:mod:`surrogate.evaluation.sequence.maxwell_nl`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

ProgressCallback = Callable[[int, int, str], None]

SET_NAMES = ("unseen-signals", "unseen-materials", "longer-horizon")
SETS_BY_RECIPE = {
    "maxwell-td": SET_NAMES,
    "maxwell-nl": SET_NAMES,
    "fitzhugh-nagumo": ("unseen-signals", "longer-horizon"),
    "adding": ("unseen-signals", "longer-horizon"),
}
MATERIAL_NAMES_BY_RECIPE = {"maxwell-td": ("eps", "mu", "sigma"),
                           "maxwell-nl": ("amplitude", "sigma0", "e0")}
"""What ``unseen-materials`` redraws, per recipe kind (the names ``--material-range`` takes)."""
MATERIAL_NAMES = MATERIAL_NAMES_BY_RECIPE["maxwell-td"]
ALL_MATERIAL_NAMES = tuple(dict.fromkeys(n for names in MATERIAL_NAMES_BY_RECIPE.values()
                                         for n in names))


@dataclass(frozen=True)
class SequenceSet:
    """One evaluation set: inputs (n, T, d), targets (n, T, k) or (n, 1, k), time (T,).

    ``samples`` are the sequences' ids (maxwell-td: sample index of the recipe; fitzhugh-
    nagumo, adding: row in the test split's seed stream; other recipes: file row).
    """

    name: str
    inputs: np.ndarray
    targets: np.ndarray
    time: np.ndarray
    samples: np.ndarray
    source: str
    recipe: dict[str, Any] | None = None
    trained_steps: int | None = None
    materials: np.ndarray | None = None
    seconds: float = 0.0


@dataclass
class SetPlan:
    """What will be built: the recipe, the sample ids shared by every set, the set names."""

    dataset: Any
    recipe: Any
    kind: str
    samples: np.ndarray
    in_file: int
    sets: tuple[str, ...]
    horizon_factor: float = 2.0
    material_seed: int | None = None
    material_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def fresh(self) -> np.ndarray:
        """Sample ids regenerated beyond the file."""
        return self.samples[self.in_file:]


# ------------------------------------------------------------------------------- the plan


def recipe_of(dataset: Any) -> tuple[str, Any]:
    """(recipe kind, typed recipe or None when no generator is registered for the kind)."""
    from surrogate.datasets.generators import RECIPE_KINDS
    from surrogate.datasets.recipes import recipe_from_dict

    kind = str((dataset.recipe or {}).get("kind", ""))
    if kind not in SETS_BY_RECIPE:
        return kind, None
    return kind, recipe_from_dict(RECIPE_KINDS[kind][0], dataset.recipe)


def file_test_samples(dataset: Any, kind: str) -> np.ndarray:
    """Sample ids of the file's test split (see :class:`SequenceSet`)."""
    rows = np.asarray(dataset.splits.get("test", np.zeros(0, np.int64)), dtype=np.int64)
    if kind in ("fitzhugh-nagumo", "adding"):
        return rows - (len(dataset) - int(dataset.recipe["n_test"]))
    return rows


def fresh_samples(dataset: Any, kind: str, fresh: int) -> np.ndarray:
    """Sample ids of ``fresh`` sequences not in the file (see the module docstring)."""
    start = int(dataset.recipe["n_test"]) if kind in ("fitzhugh-nagumo", "adding") \
        else len(dataset)
    return np.arange(start, start + fresh, dtype=np.int64)


def choose_sets(kind: str, requested: Sequence[str] | None) -> tuple[str, ...]:
    """The sets to build: ``requested`` (checked against the recipe kind) or all it allows."""
    allowed = SETS_BY_RECIPE.get(kind, ("unseen-signals",))
    if not requested:
        return allowed
    for name in requested:
        if name not in SET_NAMES:
            raise InputError(f"unknown evaluation set {name!r}; choose from: "
                             f"{', '.join(SET_NAMES)}")
        if name not in allowed:
            raise InputError(f"set {name!r} is not available for {kind or 'unknown'!r} data "
                             f"(available: {', '.join(allowed)})")
    return tuple(dict.fromkeys(requested))


def plan_sets(dataset: Any, *, sets: Sequence[str] | None = None, fresh: int = 0,
              max_sequences: int | None = None, horizon_factor: float = 2.0,
              material_seed: int | None = None,
              material_ranges: dict[str, tuple[float, float]] | None = None) -> SetPlan:
    """Check the options against the dataset and fix the samples; no simulation yet."""
    kind, recipe = recipe_of(dataset)
    notes: list[str] = []
    if recipe is None:
        notes.append(f"recipe kind {kind or 'unknown'!r} cannot be regenerated: only the file's "
                     "test split is evaluated (unseen-signals)")
        if fresh:
            raise InputError(f"--fresh needs a recipe that can be regenerated; {dataset.path} "
                             f"has recipe kind {kind or 'unknown'!r}")
    names = choose_sets(kind if recipe is not None else "", sets)
    in_file = file_test_samples(dataset, kind)
    samples = np.concatenate([in_file, fresh_samples(dataset, kind, fresh)]) \
        if recipe is not None else in_file
    if max_sequences is not None:
        samples = samples[:max_sequences]
    if samples.size == 0:
        hint = "; give --fresh N to regenerate N new sequences" if recipe is not None else ""
        raise InputError(f"{dataset.path} has an empty test split: nothing unseen to evaluate "
                         f"on{hint}")
    check_memory(dataset, samples.size, horizon_factor if "longer-horizon" in names else 1.0)
    if material_ranges and "unseen-materials" not in names:
        raise InputError("--material-range applies to the unseen-materials set (maxwell-td, "
                         "maxwell-nl data) only")
    varied = MATERIAL_NAMES_BY_RECIPE.get(kind, ())
    for name in material_ranges or {}:
        if name not in varied:
            raise InputError(f"--material-range {name}: {kind!r} data vary "
                             f"{', '.join(varied)}")
    if "unseen-materials" in names and not material_ranges \
            and all(low == high for low, high in (getattr(recipe, n) for n in varied)):
        notes.append(f"the recipe fixes {', '.join(varied)}: unseen-materials repeats the "
                     "training material (give --material-range NAME=LOW,HIGH for new ones)")
    return SetPlan(dataset=dataset, recipe=recipe, kind=kind, samples=samples,
                   in_file=int(min(len(in_file), len(samples))), sets=names,
                   horizon_factor=float(horizon_factor), material_seed=material_seed,
                   material_ranges=dict(material_ranges or {}), notes=notes)


def parse_material_ranges(texts: Sequence[str]) -> dict[str, tuple[float, float]]:
    """``["eps=2,3", "sigma=0.5"]`` -> {"eps": (2.0, 3.0), "sigma": (0.5, 0.5)}, checked (the
    names of any recipe kind; :func:`plan_sets` checks them against the data's)."""
    from surrogate.datasets.sequence.maxwell_td import parse_range

    ranges: dict[str, tuple[float, float]] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip()
        if not sep or name not in ALL_MATERIAL_NAMES:
            raise InputError(f"--material-range {text!r}: expected NAME=LOW,HIGH with NAME one "
                             f"of {', '.join(ALL_MATERIAL_NAMES)} (e.g. 'eps=2,3')")
        ranges[name] = parse_range(name, value, 0.0,
                                   strict=name not in ("sigma", "sigma0", "amplitude"))
    return ranges


def check_memory(dataset: Any, sequences: int, factor: float) -> None:
    """InputError when a set (inputs, targets, prediction in float64) would not fit in memory."""
    from surrogate.core.limits import memory_budget, size_text

    steps = longer_steps(int(dataset.inputs.shape[1]), factor) if factor > 1 \
        else int(dataset.inputs.shape[1])
    needed = 8 * sequences * steps * (dataset.inputs.shape[2] + 2 * dataset.targets.shape[2])
    if needed > memory_budget():
        raise InputError(f"{sequences} sequences of {steps} steps need about "
                         f"{size_text(needed)}, more than the {size_text(memory_budget())} "
                         f"this evaluation may use; lower --max-sequences or --horizon-factor")


def longer_steps(steps: int, factor: float) -> int:
    """⌈steps · factor⌉ rounded to an integer, at least steps + 1."""
    return max(steps + 1, int(round(steps * factor)))


def as_stored(array: np.ndarray, dtype: str) -> np.ndarray:
    """``array`` as the file would store it (the recipe's dtype)."""
    return np.ascontiguousarray(array, dtype=dtype)


def regenerated_recipe(plan: SetPlan, **changes: Any) -> Any:
    """The training recipe with room for the fresh samples (n) and ``changes`` applied
    (maxwell-td, maxwell-nl: recipes whose sample i depends on (recipe, i) only)."""
    n = max(plan.recipe.n, int(plan.samples.max()) + 1)
    return dataclasses.replace(plan.recipe, n=n, **changes)


def new_material_seed(plan: SetPlan) -> int:
    """The seed of the unseen-materials draws: ``material_seed``, else the recipe's + 1."""
    return plan.recipe.seed + 1 if plan.material_seed is None else plan.material_seed


def file_rows(plan: SetPlan) -> np.ndarray:
    """File rows of the in-file samples."""
    rows = np.asarray(plan.dataset.splits["test"], dtype=np.int64)
    return rows[:plan.in_file]


def ids_text(values: np.ndarray, limit: int = 6) -> str:
    """``0, 3, 7`` or ``0, 3, 7, … (40 in all)``."""
    shown = ", ".join(str(int(v)) for v in values[:limit])
    return shown if len(values) <= limit else f"{shown}, … ({len(values)} in all)"


def signals_source(plan: SetPlan, what: str) -> str:
    """Where the unseen-signals sequences come from (file test split and/or regenerated)."""
    parts = []
    if plan.in_file:
        parts.append(f"test split of {plan.dataset.path} ({plan.in_file} sequences)")
    if plan.fresh.size:
        parts.append(f"{plan.fresh.size} regenerated {what} {ids_text(plan.fresh)} beyond the file")
    return "; ".join(parts)


__all__ = ["ALL_MATERIAL_NAMES", "MATERIAL_NAMES", "MATERIAL_NAMES_BY_RECIPE", "SET_NAMES",
           "SETS_BY_RECIPE", "ProgressCallback", "SequenceSet", "SetPlan", "as_stored",
           "check_memory", "choose_sets", "file_rows", "file_test_samples", "fresh_samples",
           "ids_text", "longer_steps", "new_material_seed", "parse_material_ranges", "plan_sets",
           "recipe_of", "regenerated_recipe", "signals_source"]
