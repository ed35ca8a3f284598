"""Nonlinear time-domain Maxwell sequences (``recipe.kind = "maxwell-nl"``): a varistor block
in the PEC cavity; source waveform of any shape and amplitude in, probe E and Joule power out.

The cavity of ``maxwell-td`` (``domain``, ε, μ constant, z-directed Gaussian dipole J = a s(t)
J₀(x) of width ``source_width``) holds a varistor block, the cells whose barycentre lies in
the box [``varistor_low``, ``varistor_high``], with the field-dependent conductivity
σ(|E|) = σ₀ (1 + (|E|/E₀)²) there and σ = 0 elsewhere (eqs. 1–4 of
:mod:`surrogate.fem.time_domain_operators.nonlinear_conduction`; the block:
:mod:`~surrogate.fem.time_domain_operators.region_conduction`). Every sample draws its own
signal s (the ``signal`` family of :mod:`.source_signals`), amplitude a, σ₀ and E₀ (uniform in
their ranges), and is solved by Newton–Newmark (:mod:`surrogate.fem.nonlinear_schur_newmark`:
the Newmark matrix depends on ε, μ, Δt only, so its factorisation and the block's Schur
complement are made once per worker and Δt, and a sample costs its Newton steps) with step
``dt / substeps`` (``richardson``: also at 2·substeps, extrapolated in Δt) on NGSolve's
H(curl) of ``fem_order`` on ``domain.mesh(level)``. A sequence has T = steps + 1 entries at
t_n = n·dt:

- inputs (N, T, 3): ``s`` = a s(t_n) (the source's shape and amplitude), ``sigma0``, ``e0``;
- targets (N, T, 3·P + 1): E at the P probes (``E1_p0, E2_p0, E3_p0, E1_p1, ...``), then
  ``joule`` = ∫ σ(|E_h|) |E_h|² dx (the power dissipated in the block, N(e_n)·e_n; ≥ 0 in
  every run, the Richardson combination may dip below 0 by its Δt error where it is ~0).

Seeds: ``SeedSequence(seed).spawn(3)`` → (signals, varistor draws, splits), one spawned child
per sample in the first two, so sample i depends only on (recipe, i).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.datasets.format import DTYPES
from surrogate.datasets.sequence.maxwell_td import (
    _integer,
    _positive,
    check_time_stepping,
    parse_points,
    parse_range,
    recipe_dict,
    spawned_child,
)
from surrogate.datasets.sequence.source_signals import SIGNAL_FAMILIES, draw_signal
from surrogate.datasets.splits import parse_split

INPUT_NAMES = ("s", "sigma0", "e0")
FEM_BACKEND = "ngsolve"  # H(curl) of any order; the region tabulation uses its evaluation


@dataclass(frozen=True)
class MaxwellNLRecipe:
    """Sequences of the nonlinear (varistor) cavity (see the module docstring)."""

    domain: str = setting("cube", doc="Cavity (cube, ...), perfectly conducting walls.")
    level: int = setting(2, doc="Mesh level (cube level 2: 384 tets).")
    fem_order: int = setting(3, doc="NGSolve H(curl) order (the registry's time-domain "
                             "orders). Defaults (order 3, level 2, 2 substeps, Richardson): "
                             "0.52 % (0.79 %) from order 4 at Δt/2, ~15 s CPU per sequence, "
                             "benchmarks/nl_truth.py.")
    substeps: int = setting(2, doc="Newmark steps per output step: the FEM step is Δt / this.")
    richardson: bool = setting(True, doc="Also run at 2·substeps and extrapolate the two in "
                               "Δt (three times the Newmark steps).")
    n: int = setting(128, doc="Number of sequences.", flag="n-samples", short="-n")
    steps: int = setting(100, doc="Output steps; sequences have steps + 1 entries.")
    dt: float = setting(0.1, doc="Output time step Δt.")
    probes: int = setting(8, doc="Number of probe points (deterministic Halton points).")
    probe_points: tuple[tuple[float, float, float], ...] | None = setting(
        None, doc="Explicit probes 'x,y,z;x,y,z;...' (overrides --probes).")
    eps: float = setting(1.0, doc="Permittivity (everywhere).")
    mu: float = setting(1.0, doc="Permeability (everywhere).")
    varistor_low: tuple[float, float, float] = setting(
        (0.5, 0.5, 0.25), doc="Lower corner 'x,y,z' of the varistor box (cells whose "
        "barycentre lies in the box).")
    varistor_high: tuple[float, float, float] = setting(
        (0.75, 0.75, 0.75), doc="Upper corner 'x,y,z' of the varistor box.")
    sigma0: tuple[float, float] = setting((0.5, 2.0), doc="Varistor σ₀ range 'low,high'.")
    e0: tuple[float, float] = setting((0.15, 0.4), doc="Varistor field scale E₀ range "
                                      "'low,high' (σ doubles at |E| = E₀).")
    amplitude: tuple[float, float] = setting((0.5, 2.0), doc="Source amplitude range "
                                             "'low,high' (multiplies the signal).")
    signal: str = setting("mixed", doc="Source signal family s(t).", choices=SIGNAL_FAMILIES)
    frequency: tuple[float, float] = setting((0.2, 0.6), doc="Frequency range 'low,high'.")
    width: tuple[float, float] = setting((0.3, 0.8), doc="Pulse width range.")
    delay: tuple[float, float] = setting((1.5, 3.0), doc="Pulse centre-time range.")
    source_centre: tuple[float, float, float] | None = setting(
        None, doc="Dipole centre 'x,y,z'.", shown="centre of the domain's box")
    source_width: float = setting(0.3, doc="Dipole width (std of the Gaussian J₀; 0.3: "
                                  "resolved by order 3 on level 2, 0.2 is ~1 % off there).")
    intorder: int | None = setting(None, doc="Quadrature degree of the varistor terms "
                                   "(4·order is exact; the default moves the sequences by "
                                   "~1e-5 relative at order 3, 4x cheaper).",
                                   shown="2·order + 2")
    newton_rtol: float = setting(1e-10, doc="Newton tolerance (relative residual).")
    split: tuple[float, float, float] = setting((0.8, 0.1, 0.1), doc="train,val,test fractions.")
    seed: int = setting(0, doc="Random seed.")
    dtype: str = setting("float64", doc="Stored float type.", choices=DTYPES)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name, minimum in (("level", 1), ("n", 1), ("steps", 1), ("probes", 1), ("seed", 0),
                              ("fem_order", 0), ("substeps", 1)):
            set_(self, name, _integer(name, getattr(self, name), minimum))
        if self.intorder is not None:
            set_(self, "intorder", _integer("intorder", self.intorder, 1))
        for name in ("dt", "eps", "mu", "source_width", "newton_rtol"):
            set_(self, name, _positive(name, getattr(self, name)))
        for name, strict in (("sigma0", False), ("e0", True), ("amplitude", False),
                             ("frequency", True), ("width", True), ("delay", False)):
            set_(self, name, parse_range(name, getattr(self, name), 0.0, strict))
        for name in ("varistor_low", "varistor_high", "source_centre"):
            value = getattr(self, name)
            if value is not None:
                points = parse_points(name, value)
                if len(points) != 1:
                    raise InputError(f"recipe {name}={value!r}: expected one point x,y,z")
                set_(self, name, points[0])
        if not np.all(np.less(self.varistor_low, self.varistor_high)):
            raise InputError(f"recipe varistor box {self.varistor_low} .. {self.varistor_high}:"
                             " expected low < high in every coordinate")
        if self.probe_points is not None:
            set_(self, "probe_points", parse_points("probe_points", self.probe_points))
            set_(self, "probes", len(self.probe_points))
        set_(self, "split", parse_split(self.split))
        for name, choices in (("signal", SIGNAL_FAMILIES), ("dtype", DTYPES)):
            if getattr(self, name) not in choices:
                raise InputError(f"unknown {name} {getattr(self, name)!r}; choose one of: "
                                 f"{', '.join(choices)}")
        check_time_stepping(self, FEM_BACKEND)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (``kind`` names the recipe type)."""
        return recipe_dict(self, "maxwell-nl")

    def estimated_bytes(self) -> int:
        """Rough dataset file size: inputs, targets, time, splits, mesh."""
        itemsize = 4 if self.dtype == "float32" else 8
        rows = self.n * (self.steps + 1) * (len(INPUT_NAMES) + 3 * self.probes + 1)
        return rows * itemsize + 8 * self.n + 6 * 8**self.level * 40 + 64 * 1024

    @property
    def time(self) -> np.ndarray:
        """t_n = n·dt, n = 0..steps, shape (steps + 1,)."""
        return self.dt * np.arange(self.steps + 1)

    @property
    def run_substeps(self) -> tuple[int, ...]:
        """Substeps of each FEM run: (substeps,), or (substeps, 2·substeps) with Richardson."""
        return (self.substeps, 2 * self.substeps) if self.richardson else (self.substeps,)


@dataclass(frozen=True)
class MaxwellNLSetup:
    """What every sample shares: the cavity system, the varistor region (tabulated) and one
    Schur stepper per run's Δt (factorisation, W = A⁻¹P and Σ made once)."""

    recipe: MaxwellNLRecipe
    system: Any
    region: Any
    steppers: tuple[Any, ...]
    probe_points: np.ndarray

    @property
    def target_names(self) -> tuple[str, ...]:
        """``E1_p0, E2_p0, E3_p0, E1_p1, ..., joule``."""
        return (*(f"E{c + 1}_p{i}" for i in range(len(self.probe_points)) for c in range(3)),
                "joule")


def _streams(seed: int) -> tuple[np.random.SeedSequence, ...]:
    """Independent seed sequences (signals, varistor draws, splits) from ``SeedSequence(seed)``."""
    return tuple(np.random.SeedSequence(seed).spawn(3))


def sample_draws(recipe: MaxwellNLRecipe, indices: Sequence[int]) -> list[tuple[Any, float,
                                                                                float, float]]:
    """(signal, amplitude, σ₀, E₀) of samples ``indices``, each from its own spawned seeds."""
    indices = np.asarray(indices, dtype=np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= recipe.n):
        raise InputError(f"sample indices must lie in [0, {recipe.n})")
    signals, varistors = _streams(recipe.seed)[:2]
    out = []
    for i in indices:
        signal = draw_signal(np.random.default_rng(spawned_child(signals, i)), recipe.signal,
                             recipe.frequency, recipe.width, recipe.delay)
        rng = np.random.default_rng(spawned_child(varistors, i))
        amplitude, sigma0, e0 = (rng.uniform(*r) for r in (recipe.amplitude, recipe.sigma0,
                                                            recipe.e0))
        out.append((signal, float(amplitude), float(sigma0), float(e0)))
    return out


def build_setup(recipe: MaxwellNLRecipe) -> MaxwellNLSetup:
    """Mesh, operators, load, probes, the tabulated varistor and the steppers of ``recipe``."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.nonlinear_schur_newmark import SchurNewmarkStepper
    from surrogate.fem.probes import probe_points
    from surrogate.fem.time_domain import Material
    from surrogate.fem.time_domain_operators import cavity_system
    from surrogate.fem.time_domain_operators.nonlinear_conduction import VaristorConductivity
    from surrogate.fem.time_domain_operators.region_conduction import (
        RegionConduction,
        box_cells,
    )

    domain = get_domain(recipe.domain)
    mesh = domain.mesh(recipe.level)
    centre = (np.asarray(recipe.source_centre) if recipe.source_centre is not None
              else domain.bounds.mean(axis=1))
    if not domain.contains(centre[None])[0]:
        raise InputError(f"source centre {centre.tolist()} lies outside the {domain.name} "
                         "domain; set source_centre")
    points = (np.asarray(recipe.probe_points, dtype=np.float64)
              if recipe.probe_points is not None else probe_points(domain, mesh, recipe.probes))
    system = cavity_system(mesh, recipe.fem_order, FEM_BACKEND, centre, recipe.source_width,
                           points)
    cells = box_cells(mesh, recipe.varistor_low, recipe.varistor_high)
    if cells.size == 0:
        raise InputError(f"no cell of the level-{recipe.level} mesh has its barycentre in the "
                         f"varistor box {recipe.varistor_low} .. {recipe.varistor_high}")
    intorder = (2 * max(recipe.fem_order, 1) + 2 if recipe.intorder is None
                else recipe.intorder)
    region = RegionConduction(system.ops, VaristorConductivity(1.0, 1.0), cells, intorder)
    material = Material(recipe.eps, recipe.mu)
    steppers = tuple(SchurNewmarkStepper(system.ops, region, material, recipe.dt / r,
                                         rtol=recipe.newton_rtol)
                     for r in recipe.run_substeps)
    return MaxwellNLSetup(recipe, system, region, steppers, points)


@functools.lru_cache(maxsize=2)
def cached_setup(recipe: MaxwellNLRecipe) -> MaxwellNLSetup:
    """:func:`build_setup` once per process and recipe (workers reuse it for every task)."""
    return build_setup(recipe)


def simulate_sample(setup: MaxwellNLSetup, draw: tuple[Any, float, float, float]
                    ) -> tuple[np.ndarray, np.ndarray, int]:
    """inputs (T, 3), targets (T, 3·P + 1) and the Newton iterations of one sample's draw
    (signal, amplitude, σ₀, E₀): its runs observed on the output grid, Richardson-combined."""
    from threadpoolctl import threadpool_limits

    from surrogate.fem.nonlinear_newmark import nonlinear_run
    from surrogate.fem.time_domain_operators.cavity import fine_step_loads, richardson_in_time
    from surrogate.fem.time_domain_operators.nonlinear_conduction import VaristorConductivity

    recipe, system = setup.recipe, setup.system
    signal, amplitude, sigma0, e0 = draw
    region = setup.region.with_law(VaristorConductivity(sigma0, e0))
    histories, iterations = [], 0
    # one BLAS thread: the block's m × m Cholesky per Newton iteration is too small to share,
    # and the idle threads of numpy's and scipy's OpenBLAS spinning beside it made a sequence
    # 2x slower (32.2 s instead of 15.8 s, 2 cores)
    with threadpool_limits(limits=1, user_api="blas"):
        for r, stepper in zip(recipe.run_substeps, setup.steppers, strict=True):
            loads = amplitude * fine_step_loads(signal, recipe.dt, recipe.steps, r)
            run = nonlinear_run(stepper.with_conduction(region), system.load, loads,
                                system.observe)
            histories.append(np.column_stack([run.fields[::r], run.joule[::r]]))
            iterations += int(run.iterations.sum())
    targets = histories[0] if len(histories) == 1 else richardson_in_time(*histories)
    inputs = np.empty((recipe.steps + 1, len(INPUT_NAMES)))
    inputs[:, 0] = amplitude * signal(recipe.time)[0]
    inputs[:, 1:] = (sigma0, e0)
    return inputs, targets, iterations


def simulate_samples(setup: MaxwellNLSetup, indices: Sequence[int]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """inputs (n, T, 3), targets (n, T, 3·P + 1) of samples ``indices``."""
    rows = [simulate_sample(setup, draw)[:2] for draw in sample_draws(setup.recipe, indices)]
    shape = (0, setup.recipe.steps + 1)
    if not rows:
        return np.empty((*shape, len(INPUT_NAMES))), np.empty((*shape, len(setup.target_names)))
    return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])


__all__ = ["MaxwellNLRecipe", "MaxwellNLSetup", "INPUT_NAMES", "build_setup", "cached_setup",
           "sample_draws", "simulate_sample", "simulate_samples"]
