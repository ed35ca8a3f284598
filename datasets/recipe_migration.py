"""Migration shim: a stored recipe reads as the computation that made it, not as today's defaults.

A recipe field added later has a default for new recipes; a file written before the field
existed stores none, and filling it with today's default would describe another computation
(and ``evaluate`` would rebuild its sets with it). :data:`LEGACY_FIELDS` names, per recipe
kind, each such field and the value files without it were made with; :func:`stored_recipe`
fills them in when a dataset file is read (:func:`surrogate.datasets.reader.read_dataset`).
A recipe given by a user (options, a TOML file) is not a stored one: its missing fields take
today's defaults (:func:`~surrogate.datasets.recipes.recipe_from_dict`).

``maxwell-td``: files before ``fem_backend``, ``fem_order``, ``substeps`` and ``richardson``
were made with skfem's N0, one Newmark step per output step, no Richardson extrapolation
(:data:`N0_TD_SETTINGS`); since 2026-11-28 the defaults are ngsolve order 5, 2 substeps and
Richardson (``level`` was always stored).

``maxwell-family``: files before ``truth_mesh`` and ``truth_maxh`` had the level truth (the
skfem solve of their stored ``truth_fem_order`` on their ``truth_level``,
:data:`LEVEL_TRUTH_SETTINGS`); since 2026-11-28 ``inclusion`` defaults to the fitted truth.
"""

from __future__ import annotations

from typing import Any

N0_TD_SETTINGS: dict[str, Any] = {"fem_backend": "skfem", "fem_order": 0, "substeps": 1,
                                  "richardson": False}
"""The ``maxwell-td`` recipe's N0 path: its defaults before 2026-11-28 (fast; not converged)."""

LEVEL_TRUTH_SETTINGS: dict[str, Any] = {"truth_mesh": "level", "truth_maxh": None}
"""The ``maxwell-family`` recipe's truth before 2026-11-28: the level truth (no fitted mesh)."""

LEGACY_FIELDS: dict[str, dict[str, Any]] = {"maxwell-td": N0_TD_SETTINGS,
                                            "maxwell-family": LEVEL_TRUTH_SETTINGS}
"""Recipe kind -> {field: the value files written before the field existed were made with}."""


def stored_recipe(recipe: Any) -> Any:
    """``recipe`` (a stored recipe dict with ``kind``) with the fields its kind added later
    filled in as :data:`LEGACY_FIELDS` says; anything else unchanged."""
    if not isinstance(recipe, dict):
        return recipe
    legacy = LEGACY_FIELDS.get(str(recipe.get("kind", "")), {})
    return {**recipe, **{k: v for k, v in legacy.items() if k not in recipe}}


__all__ = ["LEGACY_FIELDS", "LEVEL_TRUTH_SETTINGS", "N0_TD_SETTINGS", "stored_recipe"]
