"""The LEM paper's sequence benchmarks as datasets (Rusch's thesis, ch. 5, §5.3).

FitzHugh–Nagumo (eq. 5.117, ``recipe.kind = "fitzhugh-nagumo"``). The paper: "With τ = 0.02,
I_ext = 0.5, a = 0.7, b = 0.8 and initial data (v₀, w₀) = (c, 0), with c randomly drawn from
U([−1, 1]), we numerically approximate with the explicit Runge–Kutta method of order 5(4) in
the interval [0, 400] and generate 128 training and validation and 1024 test sequences, each
of length N = 1000". It does not say which signal is the input and which the target, nor how
the N steps sit in [0, 400]; we follow the authors' code (github.com/tk-rusch/LEM,
``src/FitzHughNagumo/data.py``: one input and one output channel):

- the solution is sampled at t_n = n·400/N, n = 0, …, N (N + 1 points, Δt = 0.4);
- input u_n = v(t_n), target y_n = v(t_{n+1}), n = 0, …, N − 1: one-step-ahead prediction
  of the fast variable v (w is never observed); ``time`` holds t_0, …, t_{N−1};
- unlike the authors' code (solve_ivp's default rtol 1e-3, atol 1e-6) the tolerances are
  tight (recipe ``rtol`` = ``atol`` = 1e-10), so the data are the ODE's solution to ~1e-9.

Each split is integrated at once with ``solve_ivp(method="RK45")`` on the stacked system of
2n ODEs, y = (v_1, …, v_n, w_1, …, w_n): steps are shared and the error estimate is the RMS
over the stack. The grouping is fixed (one system per split), so a split's rows depend only
on the seed, its size and the recipe's constants, never on the other splits' sizes.

Adding problem (``recipe.kind = "adding"``). The paper: "The input is a two-dimensional
sequence of length N, with the first dimension consisting of random numbers drawn from
U([0,1]) and with two non-zero entries (both set to 1) in the second dimension, chosen at
random locations, but one each in both halves of the sequence. The output is the sum of two
numbers of the first dimension at positions, corresponding to the two 1 entries in the second
dimension." Our choices where it is not explicit (following the authors' ``adding_task.py``):
the halves are [0, ⌊T/2⌋) and [⌊T/2⌋, T), each marker uniform in its half; the values are
``Generator.random`` (U[0, 1)); the one target per sequence is stored as ``(N, 1, 1)`` with
the root attribute ``readout = "last"`` (it is read after the last step); ``time`` is the step
index 0, …, T − 1. The authors draw fresh batches at every training step; a file holds fixed
splits (defaults 8000 / 1000 / 1000, the test size of the authors' test batch). With
``dtype = float32`` the values are rounded first and the target is the sum of the stored
values.

Randomness (both): ``SeedSequence(seed).spawn(3)`` gives one SeedSequence per split (train,
val, test), each ``.spawn(n_split)`` one Generator per sequence (FitzHugh–Nagumo: c; adding:
the T values, then the first and the second marker position). Rows are train, then val,
then test (contiguous splits). A sequence's data depend only on (seed, split, row in split),
so the file is identical whatever the chunking of the work.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from surrogate.core.errors import InputError
from surrogate.datasets.format import SPLIT_NAMES
from surrogate.datasets.generator_output import GeneratedData, ProgressCallback
from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe, FitzHughNagumoRecipe

V0_RANGE = (-1.0, 1.0)
"""v₀ = c ~ U([−1, 1]), w₀ = 0 (§5.3)."""
ADDING_CHUNK = 1024
"""Sequences of the adding problem generated between two progress reports."""


def _silent(done: int, total: int, description: str) -> None:
    """A progress callback that reports nothing."""


def _count(n: int) -> str:
    """``"1 sequence"``, ``"5 sequences"``."""
    return f"{n} sequence{'' if n == 1 else 's'}"


def check_memory(recipe: FitzHughNagumoRecipe | AddingRecipe) -> None:
    """InputError when the arrays would not fit the memory a reader may use (half of RAM)."""
    from surrogate.core.limits import memory_budget, size_text

    needed, budget = recipe.estimated_bytes(), memory_budget()
    if needed > budget:
        raise InputError(f"{recipe.to_dict()['kind']}: {recipe.n} sequences need about "
                         f"{size_text(needed)}, more than the {size_text(budget)} a reader "
                         f"may use (half the available memory); lower the sizes")


def split_sizes(recipe: FitzHughNagumoRecipe | AddingRecipe) -> dict[str, int]:
    """Sequences per split: ``{"train": n_train, "val": n_val, "test": n_test}``."""
    return {"train": recipe.n_train, "val": recipe.n_val, "test": recipe.n_test}


def sequence_seeds(seed: int, sizes: dict[str, int]) -> dict[str, list[np.random.SeedSequence]]:
    """One SeedSequence per sequence: ``SeedSequence(seed).spawn(3)``, then per split
    ``.spawn(n_split)`` (see the module docstring)."""
    roots = np.random.SeedSequence(seed).spawn(len(SPLIT_NAMES))
    return {name: root.spawn(sizes[name]) for name, root in zip(SPLIT_NAMES, roots, strict=True)}


def contiguous_splits(sizes: dict[str, int]) -> dict[str, np.ndarray]:
    """Row indices of each split when rows are train, then val, then test."""
    bounds = np.cumsum([0, *(sizes[name] for name in SPLIT_NAMES)])
    return {name: np.arange(bounds[i], bounds[i + 1], dtype=np.int64)
            for i, name in enumerate(SPLIT_NAMES)}


def initial_v(seeds: list[np.random.SeedSequence]) -> np.ndarray:
    """v₀ (n,) of each sequence: c ~ U([−1, 1]) from its own Generator (§5.3)."""
    return np.array([np.random.default_rng(s).uniform(*V0_RANGE) for s in seeds],
                    dtype=np.float64)


def fitzhugh_nagumo_rhs(y: np.ndarray, recipe: FitzHughNagumoRecipe) -> np.ndarray:
    """Eq. 5.117 on the stack y = (v, w) (2n,): (v − v³/3 − w + I_ext, τ(v + a − b w))."""
    v, w = np.split(y, 2)
    return np.concatenate([v - v**3 / 3.0 - w + recipe.i_ext,
                           recipe.tau * (v + recipe.a - recipe.b * w)])


def integrate_fitzhugh_nagumo(
    v0: np.ndarray, times: np.ndarray, recipe: FitzHughNagumoRecipe,
    on_time: Callable[[float], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """v, w (n, len(times)) of eq. 5.117 from (v₀, 0): RK45 on the stacked 2n system.

    ``on_time(t)`` is called with the time of every right-hand-side evaluation (progress).
    """
    from scipy.integrate import solve_ivp

    n = v0.size
    report = on_time or (lambda t: None)

    def fun(t: float, y: np.ndarray) -> np.ndarray:
        report(t)
        return fitzhugh_nagumo_rhs(y, recipe)

    y0 = np.concatenate([np.asarray(v0, dtype=np.float64), np.zeros(n)])
    sol = solve_ivp(fun, (float(times[0]), float(times[-1])), y0, method="RK45", t_eval=times,
                    rtol=recipe.rtol, atol=recipe.atol)
    if not sol.success:
        raise InputError(f"FitzHugh-Nagumo: RK45 failed: {sol.message}")
    return sol.y[:n], sol.y[n:]


def fitzhugh_nagumo_times(recipe: FitzHughNagumoRecipe) -> np.ndarray:
    """Sample times t_n = n·t_end/N, n = 0, …, N (N + 1 points)."""
    return np.linspace(0.0, recipe.t_end, recipe.steps + 1)


def _percent_reporter(progress: ProgressCallback, offset: int, total: int, t_end: float,
                      description: str) -> Callable[[float], None]:
    """``on_time`` callback: progress ``offset + ⌊100 t / t_end⌋`` of ``total``, on change."""
    last = -1

    def on_time(t: float) -> None:
        nonlocal last
        percent = min(100, int(100.0 * t / t_end))
        if percent > last:
            last = percent
            progress(offset + percent, total, description)

    return on_time


def generate_fitzhugh_nagumo(recipe: FitzHughNagumoRecipe,
                             on_progress: ProgressCallback | None = None) -> GeneratedData:
    """Sequences of eq. 5.117: inputs v(t_n) (N, T, 1), targets v(t_{n+1}) (N, T, 1)."""

    check_memory(recipe)
    progress = on_progress or _silent
    sizes = split_sizes(recipe)
    seeds = sequence_seeds(recipe.seed, sizes)
    times = fitzhugh_nagumo_times(recipe)
    active = [name for name in SPLIT_NAMES if sizes[name] > 0]
    total = 100 * len(active) + 1
    v = []
    for k, name in enumerate(active):
        reporter = _percent_reporter(progress, 100 * k, total, recipe.t_end,
                                     f"integrating {name} ({_count(sizes[name])})")
        v.append(integrate_fitzhugh_nagumo(initial_v(seeds[name]), times, recipe, reporter)[0])
    v_all = np.concatenate(v)[:, :, None]  # (N, steps + 1, 1)
    progress(total - 1, total, "writing")
    return GeneratedData(
        inputs=v_all[:, :-1], targets=v_all[:, 1:], input_names=("v",),
        target_names=("v_next",), splits=contiguous_splits(sizes), problem="fitzhugh-nagumo",
        domain="time", recipe=recipe.to_dict(), seed=recipe.seed, dtype=recipe.dtype,
        kind="sequence", time=times[:-1],
    )


def adding_sequence(rng: np.random.Generator, length: int) -> tuple[np.ndarray, int, int]:
    """One adding-problem draw: values (T,) ~ U[0, 1), a marker in each half of [0, T)."""
    values = rng.random(length)
    half = length // 2
    return values, int(rng.integers(half)), int(rng.integers(half, length))


def fill_adding(inputs: np.ndarray, seeds: list[np.random.SeedSequence]) -> np.ndarray:
    """Fill rows of ``inputs`` (n, T, 2) (values, markers); return the targets (n,) (§5.3)."""
    n, length, _ = inputs.shape
    marks = np.empty((n, 2), dtype=np.int64)
    for row, seed in enumerate(seeds):
        inputs[row, :, 0], marks[row, 0], marks[row, 1] = adding_sequence(
            np.random.default_rng(seed), length)
    rows = np.arange(n)[:, None]
    inputs[rows, marks, 1] = 1.0
    return inputs[rows, marks, 0].astype(np.float64).sum(axis=1)


def generate_adding(recipe: AddingRecipe, on_progress: ProgressCallback | None = None,
                    chunk: int = ADDING_CHUNK) -> GeneratedData:
    """Adding problem: inputs (N, T, 2) = (value, marker), targets (N, 1, 1) = marked sum."""

    if chunk < 1:
        raise InputError(f"chunk={chunk}: expected an integer >= 1")
    check_memory(recipe)
    progress = on_progress or _silent
    sizes = split_sizes(recipe)
    seeds = [s for group in sequence_seeds(recipe.seed, sizes).values() for s in group]
    inputs = np.zeros((recipe.n, recipe.length, 2), dtype=recipe.dtype)
    targets = np.empty((recipe.n, 1, 1), dtype=np.float64)
    for start in range(0, recipe.n, chunk):
        progress(start, recipe.n + 1, f"drawing {recipe.n} sequences of length {recipe.length}")
        stop = min(start + chunk, recipe.n)
        targets[start:stop, 0, 0] = fill_adding(inputs[start:stop], seeds[start:stop])
    progress(recipe.n, recipe.n + 1, "writing")
    return GeneratedData(
        inputs=inputs, targets=targets, input_names=("value", "marker"),
        target_names=("sum",), splits=contiguous_splits(sizes), problem="adding",
        domain="steps", recipe=recipe.to_dict(), seed=recipe.seed, dtype=recipe.dtype,
        kind="sequence", time=np.arange(recipe.length, dtype=np.float64),
        attrs={"readout": "last"},
    )


__all__ = ["generate_fitzhugh_nagumo", "generate_adding", "integrate_fitzhugh_nagumo",
           "fitzhugh_nagumo_rhs", "fitzhugh_nagumo_times", "initial_v", "sequence_seeds",
           "contiguous_splits", "adding_sequence", "fill_adding", "check_memory", "V0_RANGE",
           "ADDING_CHUNK"]
