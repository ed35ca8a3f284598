"""A ``maxwell-td`` recipe's FEM runs: impulse responses on the Newmark step, targets from them.

The Newmark step is the output Δt / ``substeps``; with ``richardson`` a second run at
2·``substeps`` follows and the two observed histories combine to fourth order in Δt
(:func:`~surrogate.fem.time_domain_operators.richardson_in_time`). A material's response is
its runs' impulse responses stacked, (Σ_r r·steps, 3·P) rows, r over :func:`run_substeps`;
a signal's targets on the output grid t_n = n·dt come from it by
:func:`~surrogate.fem.time_domain_operators.convolve_subsampled` (one run at r = 1: the
plain Toeplitz product :func:`~surrogate.fem.time_domain.convolve_response`, so the default
recipe's rows are bitwise those of before substeps existed).

A material's response costs one factorisation and one impulse run per Δt;
:func:`material_response` times both (:class:`MaterialResponse`) and keeps them in a
:class:`ResponseStore` (in memory, optionally in a directory), keyed by the FEM-relevant
recipe fields and the material, so that a later need of the same response (another evaluation
set, the FEM verdict, another ``evaluate``) reuses it and still reports what it cost.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.atomic_files import write_atomic


def run_substeps(recipe: Any) -> tuple[int, ...]:
    """Substeps r of each FEM run: (substeps,), or (substeps, 2·substeps) with Richardson."""
    return (recipe.substeps, 2 * recipe.substeps) if recipe.richardson else (recipe.substeps,)


def fem_steps(recipe: Any) -> int:
    """Newmark steps of one material's runs together: Σ_r r·steps."""
    return sum(run_substeps(recipe)) * recipe.steps


@dataclass(frozen=True)
class MaterialResponse:
    """A material's stacked impulse responses (:func:`fem_steps`, 3·P) and what they cost:
    ``factorise_s`` (the Newmark matrices of every run) and ``impulse_s`` (the steps)."""

    response: np.ndarray = field(repr=False)
    factorise_s: float
    impulse_s: float

    @property
    def seconds(self) -> float:
        """Factorisation plus impulse run: a new material's cost before any signal."""
        return self.factorise_s + self.impulse_s


def impulse_responses(setup: Any, material: np.ndarray,
                      on_step: Callable[[int], None] | None = None) -> np.ndarray:
    """Impulse responses of every run of ``setup.recipe`` for ``material`` (ε, μ, σ) at the
    probes, stacked: (:func:`fem_steps`, 3·P); ``on_step(n)`` counts steps over all runs."""
    return timed_responses(setup, material, on_step).response


def timed_responses(setup: Any, material: np.ndarray,
                    on_step: Callable[[int], None] | None = None) -> MaterialResponse:
    """:func:`impulse_responses` with the factorisations and the steps timed apart."""
    from surrogate.fem.time_domain import Material, NewmarkStepper, impulse_response

    recipe, parts, offset, factorise, steps = setup.recipe, [], 0, 0.0, 0.0
    for r in run_substeps(recipe):
        start = time.perf_counter()
        stepper = NewmarkStepper(setup.ops, Material(*material), recipe.dt / r)
        factorise += time.perf_counter() - start
        report = None if on_step is None else (lambda n, base=offset: on_step(base + n))
        start = time.perf_counter()
        parts.append(impulse_response(stepper, setup.load, r * recipe.steps, setup.observe,
                                      on_step=report))
        steps += time.perf_counter() - start
        offset += r * recipe.steps
    response = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return MaterialResponse(response, factorise, steps)


def response_key(setup: Any, material: np.ndarray) -> str:
    """sha256 of the FEM-relevant fields of ``setup`` (domain, level, backend, order, dt,
    steps, substeps, Richardson, the dipole's centre, width and direction, the probe points)
    and the material (ε, μ, σ, exactly)."""
    recipe = setup.recipe
    centre = (recipe.source_centre if recipe.source_centre is not None
              else setup.domain.bounds.mean(axis=1))
    fields = {"domain": recipe.domain, "level": recipe.level,
              "fem_backend": recipe.fem_backend, "fem_order": recipe.fem_order,
              "dt": float(recipe.dt).hex(), "steps": recipe.steps, "substeps": recipe.substeps,
              "richardson": recipe.richardson,
              "source_centre": [float(x).hex() for x in centre],
              "source_width": float(recipe.source_width).hex(), "source_direction": "z",
              "probe_points": [float(x).hex() for x in np.ravel(setup.probe_points)],
              "material": [float(x).hex() for x in np.ravel(material)]}
    text = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseStore:
    """Material responses by :func:`response_key`: in memory, and in ``directory`` when
    given (one ``<key>.npz`` each, written atomically by
    :func:`~surrogate.core.atomic_files.write_atomic`;
    a file that cannot be read is recomputed with a warning and rewritten)."""

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = None if directory is None else Path(directory)
        self.memory: dict[str, MaterialResponse] = {}

    def path(self, key: str) -> Path | None:
        """The file of ``key`` (None: in memory only)."""
        return None if self.directory is None else self.directory / f"{key}.npz"

    def get(self, key: str) -> MaterialResponse | None:
        """The stored response of ``key``, or None."""
        if key in self.memory:
            return self.memory[key]
        path = self.path(key)
        if path is None or not path.is_file():
            return None
        try:
            with np.load(path) as stored:
                found = MaterialResponse(np.array(stored["response"], dtype=np.float64),
                                         float(stored["factorise_s"]),
                                         float(stored["impulse_s"]))
        except Exception as exc:  # noqa: BLE001 - any unreadable file is recomputed
            warnings.warn(f"FEM response cache file {path} is unreadable ({exc}); "
                          "recomputing it", stacklevel=2)
            return None
        self.memory[key] = found
        return found

    def put(self, key: str, value: MaterialResponse) -> None:
        """Keep ``value`` (and write its file when the store has a directory)."""
        self.memory[key] = value
        path = self.path(key)
        if path is None:
            return
        write_atomic(path, lambda out: np.savez(out, response=value.response,
                                                factorise_s=value.factorise_s,
                                                impulse_s=value.impulse_s))


def material_response(setup: Any, material: np.ndarray,
                      on_step: Callable[[int], None] | None = None,
                      store: ResponseStore | None = None) -> MaterialResponse:
    """``material``'s :class:`MaterialResponse` under ``setup``: from ``store`` when it holds
    it (its recorded timings kept), else computed (:func:`timed_responses`) and stored."""
    key = None if store is None else response_key(setup, material)
    found = None if store is None else store.get(key)
    if found is not None:
        return found
    computed = timed_responses(setup, material, on_step)
    if store is not None:
        store.put(key, computed)
    return computed


def response_targets(recipe: Any, response: np.ndarray, signal: Any) -> np.ndarray:
    """E at the probes (steps + 1, 3·P) on the output grid for ``signal`` (t -> (s, s'))
    from a material's stacked ``response`` (:func:`impulse_responses`)."""
    from surrogate.fem.time_domain import convolve_response, step_loads
    from surrogate.fem.time_domain_operators import (
        convolve_subsampled,
        fine_step_loads,
        richardson_in_time,
    )

    runs = run_substeps(recipe)
    if runs == (1,):
        _, ds = signal(recipe.time)
        return convolve_response(response, step_loads(ds, recipe.dt))
    histories, offset = [], 0
    for r in runs:
        rows = r * recipe.steps
        loads = fine_step_loads(signal, recipe.dt, recipe.steps, r)
        histories.append(convolve_subsampled(response[offset:offset + rows], loads, r))
        offset += rows
    return histories[0] if len(histories) == 1 else richardson_in_time(*histories)


def batch_response_targets(recipe: Any, response: np.ndarray, signals: Sequence[Any]
                           ) -> np.ndarray:
    """:func:`response_targets` of many ``signals`` at once, (n, steps + 1, 3·P): every run's
    step loads (n, r·steps) against its response in one product
    (:func:`~surrogate.fem.time_domain_operators.convolve_subsampled_batch`); equal to the
    per-signal rows to round-off."""
    from surrogate.fem.time_domain_operators import (
        convolve_subsampled_batch,
        fine_step_loads,
        richardson_in_time,
    )

    histories, offset = [], 0
    for r in run_substeps(recipe):
        rows = r * recipe.steps
        loads = np.stack([fine_step_loads(s, recipe.dt, recipe.steps, r) for s in signals])
        histories.append(convolve_subsampled_batch(response[offset:offset + rows], loads, r))
        offset += rows
    return histories[0] if len(histories) == 1 else richardson_in_time(*histories)


def field_history(setup: Any, material: np.ndarray, signal: Any) -> np.ndarray:
    """Free DOFs (steps + 1, n_free) of E_h on the output grid by direct Newmark stepping of
    every run (every r-th fine step kept; Richardson-combined when the recipe asks)."""
    from surrogate.fem.time_domain import Material, NewmarkStepper, newmark_run
    from surrogate.fem.time_domain_operators import fine_step_loads, richardson_in_time

    recipe, histories = setup.recipe, []
    for r in run_substeps(recipe):
        stepper = NewmarkStepper(setup.ops, Material(*material), recipe.dt / r)
        e, _ = newmark_run(stepper, r * recipe.steps, load_vector=setup.load,
                           coefficients=fine_step_loads(signal, recipe.dt, recipe.steps, r))
        histories.append(e[::r])
    return histories[0] if len(histories) == 1 else richardson_in_time(*histories)


__all__ = ["MaterialResponse", "ResponseStore", "run_substeps", "fem_steps",
           "impulse_responses", "timed_responses", "material_response", "response_key",
           "response_targets", "batch_response_targets", "field_history"]
