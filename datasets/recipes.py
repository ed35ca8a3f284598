"""Typed, frozen dataset recipes, loadable from TOML; CLI flags override file values."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.toml_files import read_toml
from surrogate.core.typed_config import setting
from surrogate.datasets.format import DTYPES
from surrogate.datasets.splits import parse_split
from surrogate.fem.families.registry import family_names

SOURCES = ("exact", "fem")


def _number(name: str, value: Any, kind: type, minimum: float) -> Any:
    """Coerce ``value`` to ``kind`` (int or float), finite and ``>= minimum``, or InputError."""
    try:
        number = kind(value)
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and number == value and number >= minimum and number < float("inf"))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"recipe {name}={value!r}: expected {kind.__name__} >= {minimum:g}")
    return number


@dataclass(frozen=True)
class MaxwellRecipe:
    """Pointwise samples of the static Maxwell problem (inputs x, f, φ; targets u)."""

    problem: str = setting("maxwell", doc="Static problem of surrogate.fem.problems (its "
                           "exact solution or FEM solve gives the targets).")
    domain: str = setting("cylinder", doc="Domain name (cylinder, cube, ...) or a tet mesh file "
                          "(.msh, .vtu, .xdmf, .mesh).")
    n: int = setting(12000, doc="Number of samples.", flag="n-samples", short="-n")
    seed: int = setting(0, doc="Random seed.")
    source: str = setting("exact", doc="Targets from the exact solution or the FEM solve.",
                          choices=SOURCES)
    level: int = setting(3, doc="Mesh level for --source fem.")
    noise: float = setting(0.0, doc="Relative Gaussian noise σ: u + σ·rms(u_k)·ξ per column.")
    split: tuple[float, float, float] = setting((0.8, 0.1, 0.1),
                                                doc="train,val,test fractions.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        object.__setattr__(self, "split", parse_split(self.split))
        object.__setattr__(self, "n", _number("n", self.n, int, 1))
        object.__setattr__(self, "seed", _number("seed", self.seed, int, 0))
        object.__setattr__(self, "level", _number("level", self.level, int, 1))
        object.__setattr__(self, "noise", _number("noise", self.noise, float, 0.0))
        if self.source not in SOURCES:
            raise InputError(f"unknown source {self.source!r}; choose one of: "
                             f"{', '.join(SOURCES)}")
        if self.dtype not in DTYPES:
            raise InputError(f"unknown dtype {self.dtype!r}; choose one of: {', '.join(DTYPES)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return {"kind": "maxwell", **dataclasses.asdict(self), "split": list(self.split)}


@dataclass(frozen=True)
class MaxwellFamilyRecipe:
    """Samples of a problem family: ``problems`` draws μ × ``points`` points each, split by problem.

    ``box`` (p pairs [low, high]; None: the family's box) is the parameter box sampled with
    ``sampler`` (sobol|lhs); ``truth_mesh`` says which FEM truth a family without a closed
    form uses (:class:`surrogate.fem.families.truth.TruthSpec`): "level", the skfem solve of
    ``truth_fem_order`` (0 = N0, 1 = complete linear) on ``truth_level``, or "fitted"
    (``inclusion`` only, its default), the NGSolve solve of ``truth_fem_order`` on the
    member's mesh fitted to its ball with tets ≤ ``truth_maxh``. None fields take the
    defaults of the resolved truth (stored resolved); ``n_volume``/``n_boundary`` the
    sensor counts (``n_volume`` None: the family's own, stored resolved).
    """

    family: str = setting("radial", doc="Problem family (surrogate.fem.families): with a "
                          "closed-form solution or a FEM truth.", choices=family_names())
    problems: int = setting(320, doc="Number of problems (parameter draws), at least 3.")
    points: int = setting(2000, doc="Points per problem, uniform in the training domain.")
    seed: int = setting(0, doc="Random seed.")
    sampler: str = setting("sobol", doc="Parameter sampler: sobol or lhs (scipy.stats.qmc).")
    split: tuple[float, float, float] = setting(
        (0.8, 0.1, 0.1), doc="train,val,test fractions of the problems (a problem's rows stay "
        "in one split).")
    truth_mesh: str | None = setting(
        None, doc="Mesh of the FEM truth (families without a closed form): 'level' (the "
        "training domain's level mesh, skfem) or 'fitted' (inclusion only: each member meshed "
        "to fit its ball and curved, NGSolve; order 3 on maxh 0.25 is within 0.11-0.16 % of "
        "order 4 on maxh 0.18, benchmarks/inclusion_fitted.py).",
        choices=("level", "fitted"), shown="fitted for inclusion, else level")
    truth_level: int | None = setting(None, doc="Mesh level of the level FEM truth.",
                                      shown="3 (level truth)")
    truth_fem_order: int | None = setting(
        None, doc="Order of the FEM truth's mixed solve (docs/cli.md's naming). Level truth: 1 "
        "(complete linear; on level 3 more accurate and cheaper than N0 on level 4) or 0 (N0, "
        "the truth of files without a recorded order); fitted truth: 0-4.",
        shown="3 (fitted), 1 (level)")
    truth_maxh: float | None = setting(
        None, doc="Largest tet size of the fitted FEM truth's mesh.", shown="0.25 (fitted)")
    n_volume: int | None = setting(None, doc="Sensor points inside the training domain (f "
                                   "and φ).", shown="the family's: 48 (radial), 1000 (inclusion)")
    n_boundary: int = setting(16, doc="Sensor points on its boundary (u × n).")
    box: tuple[tuple[float, float], ...] | None = setting(
        None, doc="Parameter box, pairs [low, high] (a --recipe TOML file: box = [[lo, hi], "
        "...]).", cli=False)
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        from surrogate.fem.families.family import SAMPLERS, check_box
        from surrogate.fem.families.registry import get_family

        family = get_family(self.family)
        object.__setattr__(self, "split", parse_split(self.split))
        if self.n_volume is None:
            object.__setattr__(self, "n_volume", family.volume_sensors)
        for key, minimum in (("problems", 1), ("points", 1), ("seed", 0), ("n_volume", 1),
                             ("n_boundary", 1)):
            object.__setattr__(self, key, _number(key, getattr(self, key), int, minimum))
        if self.problems < 3:
            raise InputError(f"need at least 3 problems (one per split), got {self.problems}")
        self._resolve_truth()
        if self.sampler not in SAMPLERS:
            raise InputError(f"unknown sampler {self.sampler!r}; choose one of: "
                             f"{', '.join(SAMPLERS)}")
        if self.box is not None:
            try:
                box = check_box(self.box, family.param_names)
            except InputError:
                raise
            except (TypeError, ValueError):
                raise InputError(f"box must be {len(family.param_names)} pairs [low, high] "
                                 f"({', '.join(family.param_names)})") from None
            object.__setattr__(self, "box", tuple((float(lo), float(hi)) for lo, hi in box))
        if self.dtype not in DTYPES:
            raise InputError(f"unknown dtype {self.dtype!r}; choose one of: {', '.join(DTYPES)}")

    def _resolve_truth(self) -> None:
        """Fill the truth fields (None: the defaults of the family's truth) and check them."""
        from surrogate.fem.families.truth import (
            FITTED_FAMILIES,
            FITTED_TRUTH_MAXH,
            FITTED_TRUTH_ORDER,
            TRUTH_LEVEL,
            TRUTH_ORDER,
            check_truth_order,
            check_truth_spec,
        )
        from surrogate.fem.hcurl.registry import check_order

        mesh = self.truth_mesh
        if mesh is None:
            mesh = "fitted" if self.family in FITTED_FAMILIES else "level"
        fitted = mesh == "fitted"
        order = self.truth_fem_order
        if order is None:
            order = FITTED_TRUTH_ORDER if fitted else TRUTH_ORDER
        try:
            check_order(order, "ngsolve") if fitted else check_truth_order(order)
        except InputError:
            expected = "an NGSolve order 0-4 (fitted truth)" if fitted else \
                "0 (N0) or 1 (complete linear)"
            raise InputError(f"recipe truth_fem_order={order!r}: expected {expected}") from None
        level = self.truth_level
        if level is None and not fitted:
            level = TRUTH_LEVEL
        if level is not None:
            level = _number("truth_level", level, int, 1)
        maxh = self.truth_maxh
        if maxh is None and fitted:
            maxh = FITTED_TRUTH_MAXH
        if maxh is not None:
            maxh = _number("truth_maxh", maxh, float, 0.0)
        spec = check_truth_spec(self.family, mesh, order, level, maxh)
        for key, value in (("truth_mesh", spec.mesh), ("truth_level", spec.level),
                           ("truth_fem_order", spec.order), ("truth_maxh", spec.maxh)):
            object.__setattr__(self, key, value)

    @property
    def truth(self):
        """The FEM truth of a family without a closed form
        (:class:`~surrogate.fem.families.truth.TruthSpec`)."""
        from surrogate.fem.families.truth import TruthSpec

        return TruthSpec(self.truth_fem_order, self.truth_level, self.truth_mesh,
                         self.truth_maxh)

    def estimated_bytes(self) -> int:
        """Rough file size: rows × (7 inputs + 3 targets + split + problem id), sensors, header."""
        rows = self.problems * self.points
        itemsize = 4 if self.dtype == "float32" else 8
        sensors = self.problems * 8 * (4 * self.n_volume + 3 * self.n_boundary + 16)
        return rows * (10 * itemsize + 16) + sensors + 64 * 1024

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        box = None if self.box is None else [list(pair) for pair in self.box]
        return {"kind": "maxwell-family", **dataclasses.asdict(self), "split": list(self.split),
                "box": box}


# name -> defaults (n_train, n_val, n_test, noise), following each paper's experiment
TOY_DEFAULTS: dict[str, tuple[int, int, int, float]] = {
    "sine": (100, 200, 200, 0.0),  # Reshniak & Webster Ex. 1: 100 train, 200 validation
    "spirals": (513, 513, 512, 0.0),  # Ex. 2: 513 points, every other one validation
    "bands": (200, 0, 200, 0.0),  # Hauser et al. §4.1
    "circles": (400, 0, 400, 0.2),  # Ruseckas: 400 samples, σ = 0.2
}


@dataclass(frozen=True)
class ToyRecipe:
    """A toy dataset of the paper experiments (datasets/toy.py); None takes the name's default."""

    name: str = setting("sine", doc="Toy dataset: sine, spirals, bands or circles.")
    n_train: int | None = setting(
        None, doc="Training points (spirals: also the points per arm, every other one is "
        "validation).", shown="sine 100, spirals 513, bands 200, circles 400")
    n_val: int | None = setting(None, doc="Validation points (spirals: 0 or --n-train).",
                                shown="sine 200, spirals --n-train, else 0")
    n_test: int | None = setting(None, doc="Test points.",
                                 shown="sine 200 (grid), spirals 512, bands 200, circles 400")
    noise: float | None = setting(None, doc="Gaussian noise σ: on the targets (sine) or on the "
                                  "input coordinates (others).", shown="circles 0.2, else 0")
    seed: int = setting(0, doc="Random seed.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        if self.name not in TOY_DEFAULTS:
            raise InputError(f"unknown toy dataset {self.name!r}; choose one of: "
                             f"{', '.join(TOY_DEFAULTS)}")
        defaults = dict(zip(("n_train", "n_val", "n_test", "noise"), TOY_DEFAULTS[self.name],
                            strict=True))
        if self.name == "spirals" and self.n_val is None and self.n_train is not None:
            defaults["n_val"] = self.n_train  # validation points lie between the training ones
        for key, default in defaults.items():
            value = default if getattr(self, key) is None else getattr(self, key)
            kind, minimum = (float, 0.0) if key == "noise" else (int, 1 if key == "n_train" else 0)
            object.__setattr__(self, key, _number(key, value, kind, minimum))
        object.__setattr__(self, "seed", _number("seed", self.seed, int, 0))
        if self.name == "spirals" and self.n_val not in (0, self.n_train):
            raise InputError(f"spirals: n_val={self.n_val} must be 0 or n_train={self.n_train} "
                             "(the validation points lie between the training points)")
        if self.dtype not in DTYPES:
            raise InputError(f"unknown dtype {self.dtype!r}; choose one of: {', '.join(DTYPES)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return {"kind": "toy", **dataclasses.asdict(self)}


def recipe_from_dict(cls: type, values: dict[str, Any]) -> Any:
    """Build recipe ``cls`` from a dict; unknown keys raise InputError."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - names - {"kind"})
    if unknown:
        raise InputError(f"unknown recipe keys: {', '.join(unknown)}; "
                         f"valid keys: {', '.join(sorted(names))}")
    clean = {k: v for k, v in values.items() if k != "kind"}
    if "split" in clean and not isinstance(clean["split"], str):
        clean["split"] = tuple(clean["split"])
    if isinstance(clean.get("box"), list):
        clean["box"] = tuple(tuple(pair) if isinstance(pair, list) else pair
                             for pair in clean["box"])
    try:
        return cls(**clean)
    except TypeError as exc:
        raise InputError(f"bad recipe: {exc}") from None


def load_recipe_toml(path: str | os.PathLike) -> dict[str, Any]:
    """Read a recipe TOML file (flat table, or a ``[recipe]`` table) into a dict."""
    data = read_toml(path, "recipe file")
    return dict(data.get("recipe", data))


__all__ = ["MaxwellRecipe", "MaxwellFamilyRecipe", "ToyRecipe", "TOY_DEFAULTS",
           "recipe_from_dict", "load_recipe_toml", "SOURCES"]
