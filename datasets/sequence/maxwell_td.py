"""Time-domain Maxwell sequences (``recipe.kind = "maxwell-td"``): source signal in, probe E out.

Each sample is a cavity ``domain`` with perfectly conducting walls, constant material (ε, μ, σ)
and source J(x, t) = s(t) J₀(x), J₀ a z-directed Gaussian dipole (``source_width``, centred at
``source_centre``, default the centre of the domain's bounding box), solved by
the FEM registry's time-domain system of ``fem_order`` by ``fem_backend`` on
``domain.mesh(level)`` (default ngsolve's order 5 at level 2; skfem's N0 the fast path) and
Newmark with step ``dt / substeps`` (``richardson``: a second run at 2·substeps, extrapolated
in Δt; :mod:`.td_responses`) for ``steps`` output steps from rest. A sequence has T = steps + 1
entries at t_n = n·dt, n = 0..steps:

- inputs (N, T, 4): ``s`` = s(t_n), then the constant channels ``eps``, ``mu``, ``sigma``;
- targets (N, T, 3·P): E at the P probes, columns ``E1_p0, E2_p0, E3_p0, E1_p1, ...``
  (E(t_0) = 0); probes are ``probe_points`` or ``probes`` deterministic Halton points
  (:func:`surrogate.fem.probes.probe_points`), stored in the root attribute ``probe_points``.

Materials: a pool of ``n_materials`` triples drawn uniformly from the ``eps``/``mu``/``sigma``
ranges (a range low = high fixes the value); sample i uses triple i mod ``n_materials``.
Cost trade-off: each triple costs one factorisation and one impulse-response run (``steps``
back-substitutions); every sample of a triple then costs one small convolution. A small pool
is cheap; ``n_materials = n`` gives every sample its own material at one factorisation and run
per sample.

Seeds: ``SeedSequence(seed).spawn(3)`` → (signals, materials, splits); the signals stream
spawns one child per sample, so sample i depends only on (recipe, i): the rows are identical
however samples are grouped, computed or counted (:func:`simulate_samples` on any subset).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.datasets.format import DTYPES
from surrogate.datasets.generator_output import GeneratedData, ProgressCallback
from surrogate.datasets.sequence.source_signals import SIGNAL_FAMILIES, check_range, draw_signal
from surrogate.datasets.sequence.td_responses import (
    ResponseStore,
    fem_steps,
    material_response,
    response_targets,
)
from surrogate.datasets.splits import make_splits, parse_split
from surrogate.fem.hcurl.registry import BACKENDS, backend_names, check_backend

MATERIAL_NAMES = ("eps", "mu", "sigma")
PROGRESS_EVERY = 20  # steps between progress reports of an impulse-response run


def _integer(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"recipe {name}={value!r}: expected int >= {minimum}")
    return int(value)


def _positive(name: str, value: Any) -> float:
    try:
        number = float(value)
        ok = not isinstance(value, (bool, str)) and np.isfinite(number) and number > 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"recipe {name}={value!r}: expected a finite number > 0")
    return number


def parse_range(name: str, value: Any, minimum: float = 0.0, strict: bool = False
                ) -> tuple[float, float]:
    """``"1,2"``, ``"1.5"`` (fixed), a number or a pair -> (low, high), checked."""
    pair = value
    if isinstance(value, str):
        try:
            pair = [float(p) for p in value.split(",") if p.strip()]
        except ValueError:
            raise InputError(f"recipe {name}={value!r}: expected 'low,high' or one number") \
                from None
    if isinstance(pair, (int, float)) and not isinstance(pair, bool):
        pair = (pair, pair)
    if isinstance(pair, list) and len(pair) == 1:
        pair = (pair[0], pair[0])
    try:
        return check_range(name, pair, minimum, strict)
    except InputError:
        raise InputError(f"recipe {name}={value!r}: expected 'low,high' with finite "
                         f"{minimum:g} {'<' if strict else '<='} low <= high") from None


def parse_points(name: str, value: Any) -> tuple[tuple[float, float, float], ...]:
    """``"x,y,z;x,y,z"`` or a list of triples -> a tuple of finite (x, y, z)."""
    rows = [p.split(",") for p in value.split(";") if p.strip()] if isinstance(value, str) \
        else value
    try:
        points = np.array(rows, dtype=np.float64)
    except (TypeError, ValueError):
        points = np.zeros((0, 0))
    if points.ndim == 1 and points.size == 3:
        points = points[None]
    if points.ndim != 2 or points.shape[1] != 3 or len(points) == 0 \
            or not np.all(np.isfinite(points)):
        raise InputError(f"recipe {name}={value!r}: expected points 'x,y,z;x,y,z' "
                         "(finite, at least one)")
    return tuple(tuple(p) for p in points.tolist())


def check_time_stepping(recipe: Any, backend: str) -> None:
    """A sequence recipe's ``richardson`` a bool (set as one) and its ``fem_order`` one of
    ``backend``'s time-domain orders; InputError otherwise."""
    if not isinstance(recipe.richardson, (bool, np.bool_)):
        raise InputError(f"recipe richardson={recipe.richardson!r}: expected true or false")
    object.__setattr__(recipe, "richardson", bool(recipe.richardson))
    offered = BACKENDS[backend].time_domain
    if recipe.fem_order not in offered:
        raise InputError(f"recipe fem_order={recipe.fem_order}: the {backend} "
                         f"time-domain backend offers orders {tuple(sorted(offered))}")


def recipe_dict(recipe: Any, kind: str) -> dict[str, Any]:
    """A sequence recipe as a JSON-safe dict: tuples (and tuples of pairs) as lists, ``kind``
    first."""
    values = dataclasses.asdict(recipe)
    for key, value in values.items():
        if isinstance(value, tuple):
            values[key] = [list(v) if isinstance(v, tuple) else v for v in value]
    return {"kind": kind, **values}


@dataclass(frozen=True)
class MaxwellTDRecipe:
    """Sequences of the time-domain Maxwell cavity problem (see the module docstring).

    Migration: files from before ``fem_backend``, ``fem_order``, ``substeps``, ``richardson``
    read as skfem / 0 / 1 / False, how they were made (:mod:`surrogate.datasets.recipe_migration`).
    """

    domain: str = setting("cube", doc="Cavity (cube, cylinder, ...), perfectly conducting "
                          "walls.")
    level: int = setting(2, doc="Mesh level (cube level 2: 384 tets; order 5: 31,848 DOFs).")
    fem_backend: str = setting("ngsolve", doc="FEM backend of the time-domain operators (the "
                               "registry's; skfem offers order 0 only, the fast N0 path).",
                               listed=backend_names)
    fem_order: int = setting(5, doc="H(curl) order (docs/cli.md's naming: 0 = N0, 1 = complete "
                             "linear, ...), one the backend's time domain offers. Defaults "
                             "(order 5, level 2, 2 substeps, Richardson): converged to "
                             "0.13–0.41 % median of a finer reference, benchmarks/td_truth.py.")
    substeps: int = setting(2, doc="Newmark steps per output step: the FEM step is Δt / this.")
    richardson: bool = setting(True, doc="Also run at 2·substeps and extrapolate the two "
                               "in Δt (fourth order; three times the Newmark steps).")
    n: int = setting(512, doc="Number of sequences.", flag="n-samples", short="-n")
    steps: int = setting(200, doc="Output steps (Newmark steps: this × substeps); sequences "
                         "have steps + 1 entries (t = 0 included).")
    dt: float = setting(0.05, doc="Output time step Δt.")
    probes: int = setting(8, doc="Number of probe points (deterministic Halton points inside "
                          "the cavity).")
    probe_points: tuple[tuple[float, float, float], ...] | None = setting(
        None, doc="Explicit probes 'x,y,z;x,y,z;...' (overrides --probes).")
    eps: tuple[float, float] = setting((1.0, 2.0), doc="Permittivity range 'low,high' (one "
                                       "number: fixed).")
    mu: tuple[float, float] = setting((1.0, 2.0), doc="Permeability range 'low,high'.")
    sigma: tuple[float, float] = setting((0.0, 0.3), doc="Conductivity range 'low,high'.")
    n_materials: int = setting(8, doc="Distinct (ε, μ, σ) drawn; sample i uses material i mod "
                               "this. Each costs one factorisation and one FEM run; = n gives "
                               "every sample its own.")
    signal: str = setting("pulse", doc="Source signal family s(t).", choices=SIGNAL_FAMILIES)
    frequency: tuple[float, float] = setting((0.25, 1.0), doc="Frequency range 'low,high' "
                                             "(pulse centre / band).")
    width: tuple[float, float] = setting((0.3, 0.8), doc="Pulse width range (Gaussian std in "
                                         "time).")
    delay: tuple[float, float] = setting((1.5, 4.0), doc="Pulse centre-time range.")
    source_centre: tuple[float, float, float] | None = setting(
        None, doc="Dipole centre 'x,y,z'.", shown="centre of the domain's box")
    source_width: float = setting(0.1, doc="Dipole width (std of the Gaussian J₀).")
    split: tuple[float, float, float] = setting((0.8, 0.1, 0.1),
                                                doc="train,val,test fractions.")
    seed: int = setting(0, doc="Random seed.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name, minimum in (("level", 1), ("n", 1), ("steps", 1), ("probes", 1),
                              ("n_materials", 1), ("seed", 0), ("fem_order", 0),
                              ("substeps", 1)):
            set_(self, name, _integer(name, getattr(self, name), minimum))
        set_(self, "dt", _positive("dt", self.dt))
        set_(self, "source_width", _positive("source_width", self.source_width))
        for name, strict in (("eps", True), ("mu", True), ("sigma", False),
                             ("frequency", True), ("width", True), ("delay", False)):
            set_(self, name, parse_range(name, getattr(self, name), 0.0, strict))
        if self.probe_points is not None:
            set_(self, "probe_points", parse_points("probe_points", self.probe_points))
            set_(self, "probes", len(self.probe_points))
        if self.source_centre is not None:
            centre = parse_points("source_centre", self.source_centre)
            if len(centre) != 1:
                raise InputError(f"recipe source_centre={self.source_centre!r}: expected one "
                                 "point x,y,z")
            set_(self, "source_centre", centre[0])
        set_(self, "split", parse_split(self.split))
        if self.signal not in SIGNAL_FAMILIES:
            raise InputError(f"unknown signal family {self.signal!r}; choose one of: "
                             f"{', '.join(SIGNAL_FAMILIES)}")
        if self.dtype not in DTYPES:
            raise InputError(f"unknown dtype {self.dtype!r}; choose one of: {', '.join(DTYPES)}")
        check_time_stepping(self, check_backend(self.fem_backend))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return recipe_dict(self, "maxwell-td")

    def estimated_bytes(self) -> int:
        """Rough dataset file size: inputs, targets, time, splits, mesh."""
        itemsize = 4 if self.dtype == "float32" else 8
        rows = self.n * (self.steps + 1) * (1 + len(MATERIAL_NAMES) + 3 * self.probes)
        return rows * itemsize + 8 * self.n + 6 * 8**self.level * 40 + 64 * 1024

    @property
    def time(self) -> np.ndarray:
        """t_n = n·dt, n = 0..steps, shape (steps + 1,)."""
        return self.dt * np.arange(self.steps + 1)


@dataclass(frozen=True)
class MaxwellTDSetup:
    """What every sample of a recipe shares: mesh, operators, load b₀, probe matrix."""

    recipe: MaxwellTDRecipe
    domain: Any
    ops: Any
    load: np.ndarray
    probe_points: np.ndarray
    observe: Any  # (3·P, n_free) CSR: E at the probes from the interior DOFs
    materials: np.ndarray  # (n_materials, 3): ε, μ, σ

    @property
    def target_names(self) -> tuple[str, ...]:
        """``E1_p0, E2_p0, E3_p0, E1_p1, ...``."""
        return tuple(f"E{c + 1}_p{i}" for i in range(len(self.probe_points)) for c in range(3))


def _streams(seed: int) -> tuple[np.random.SeedSequence, ...]:
    """Independent seed sequences (signals, materials, splits) from ``SeedSequence(seed)``."""
    return tuple(np.random.SeedSequence(seed).spawn(3))


def material_pool(recipe: MaxwellTDRecipe) -> np.ndarray:
    """(n_materials, 3) triples (ε, μ, σ), each uniform in its recipe range."""
    rng = np.random.default_rng(_streams(recipe.seed)[1])
    low, high = np.array([recipe.eps, recipe.mu, recipe.sigma]).T
    return low + (high - low) * rng.random((recipe.n_materials, 3))


def sample_signals(recipe: MaxwellTDRecipe, indices: Sequence[int]) -> list:
    """The source signals of samples ``indices`` (each from its own spawned seed)."""
    indices = np.asarray(indices, dtype=np.int64)
    if indices.size == 0:
        return []
    if indices.min() < 0 or indices.max() >= recipe.n:
        raise InputError(f"sample indices must lie in [0, {recipe.n})")
    parent = _streams(recipe.seed)[0]
    return [draw_signal(np.random.default_rng(spawned_child(parent, i)), recipe.signal,
                        recipe.frequency, recipe.width, recipe.delay) for i in indices]


def spawned_child(parent: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """``parent.spawn(n)[index]`` of a fresh ``parent`` without spawning the others (O(1))."""
    return np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, int(index)),
                                  pool_size=parent.pool_size)


def build_setup(recipe: MaxwellTDRecipe) -> MaxwellTDSetup:
    """Mesh, operators, dipole load and probe matrix of ``recipe`` (shared by all samples)."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.probes import probe_points
    from surrogate.fem.time_domain_operators import cavity_system

    domain = get_domain(recipe.domain)
    mesh = domain.mesh(recipe.level)
    centre = (np.asarray(recipe.source_centre) if recipe.source_centre is not None
              else domain.bounds.mean(axis=1))
    if not domain.contains(centre[None])[0]:
        raise InputError(f"source centre {centre.tolist()} lies outside the {domain.name} "
                         "domain; set source_centre")
    if recipe.probe_points is not None:
        points = np.asarray(recipe.probe_points, dtype=np.float64)
    else:
        points = probe_points(domain, mesh, recipe.probes)
    system = cavity_system(mesh, recipe.fem_order, recipe.fem_backend, centre,
                           recipe.source_width, points)
    return MaxwellTDSetup(recipe, domain, system.ops, system.load, points, system.observe,
                          material_pool(recipe))


def simulate_samples(setup: MaxwellTDSetup, indices: Sequence[int],
                     on_progress: ProgressCallback | None = None, *,
                     store: ResponseStore | None = None) -> tuple[np.ndarray, np.ndarray]:
    """inputs (n, T, 4), targets (n, T, 3·P) of ``indices`` by material (responses: store)."""
    recipe, progress = setup.recipe, on_progress or (lambda done, total, description: None)
    indices = np.asarray(indices, dtype=np.int64)
    time, steps = recipe.time, fem_steps(recipe)
    signals = sample_signals(recipe, indices)
    group_of = indices % recipe.n_materials
    groups = np.unique(group_of)
    inputs = np.empty((len(indices), recipe.steps + 1, 1 + len(MATERIAL_NAMES)))
    targets = np.empty((len(indices), recipe.steps + 1, setup.observe.shape[0]))
    total, done = len(groups) * steps + len(indices), 0
    for g_count, g in enumerate(groups):
        label = f"material {g_count + 1}/{len(groups)}: stepping"

        def report(n: int, base: int = done, label: str = label) -> None:
            if n % PROGRESS_EVERY == 0 or n == steps:
                progress(base + n, total, label)

        h = material_response(setup, setup.materials[g], on_step=report, store=store).response
        done += steps
        for row in np.flatnonzero(group_of == g):
            inputs[row, :, 0] = signals[row](time)[0]
            inputs[row, :, 1:] = setup.materials[g]
            targets[row] = response_targets(recipe, h, signals[row])
            done += 1
        progress(done, total, f"material {g_count + 1}/{len(groups)}: convolving")
    return inputs, targets


def generate_maxwell_td(recipe: MaxwellTDRecipe, on_progress: ProgressCallback | None = None
                        ) -> GeneratedData:
    """The ``sequence`` dataset of ``recipe`` (inputs s, ε, μ, σ; targets E at the probes)."""

    progress = on_progress or (lambda done, total, description: None)
    progress(0, 1, f"assembling {operators_label(recipe)}")
    setup = build_setup(recipe)
    inputs, targets = simulate_samples(setup, np.arange(recipe.n), on_progress)
    splits = make_splits(recipe.n, recipe.split, np.random.default_rng(_streams(recipe.seed)[2]))
    mesh = setup.ops.mesh
    progress(1, 1, "writing")
    return GeneratedData(
        inputs=inputs, targets=targets, input_names=("s", *MATERIAL_NAMES),
        target_names=setup.target_names, splits=splits, problem="maxwell-td",
        domain=recipe.domain, recipe=recipe.to_dict(), seed=recipe.seed, dtype=recipe.dtype,
        kind="sequence", time=recipe.time,
        mesh={"points": np.ascontiguousarray(mesh.p.T),
              "cells": np.ascontiguousarray(mesh.t.T.astype(np.int64))},
        attrs={"probe_points": np.asarray(setup.probe_points, dtype=np.float64)},
    )


def operators_label(recipe: MaxwellTDRecipe) -> str:
    """``"skfem order-0 operators at level 3"`` (progress text)."""
    return f"{recipe.fem_backend} order-{recipe.fem_order} operators at level {recipe.level}"


__all__ = ["MaxwellTDRecipe", "MaxwellTDSetup", "build_setup",
           "simulate_samples", "generate_maxwell_td", "operators_label",
           "material_pool", "sample_signals", "MATERIAL_NAMES", "parse_range", "parse_points"]
