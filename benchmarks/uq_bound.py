"""Benchmark: what bounds MFMC's saving on E[energy]: the FEM's own noise or the surrogate; JSON.

For a family run, ``--draws`` parameters from its training box (``--seed``): the energy by
the FEM of reference (the family's default of ``benchmarks/uq.py cost``, or ``--fem-*``), by
a finer FEM (``--fine-order``/``--fine-maxh``/``--fine-level``; for ``inclusion`` by default
the data's truth, NGSolve order 3 on each member's fitted mesh of maxh 0.25), both read at the
same points, and by the surrogate (its rule, ``--surrogate-level``/``--surrogate-intorder``).
Per pair: the correlation ρ, 1 − ρ², the mean and spread of the relative difference. A FEM
whose discretisation error scattered across the draws would cap ρ for any smooth surrogate;
the pair (FEM of reference, finer FEM) measures that cap.

Then, per ``--rse`` target ε, from the measured σ/|mean| and seconds (one thread; run alone):
FEM-only MC's cost (σ/(ε |mean|))² w_hf against MFMC's least cost with the optimal allocation
(PWG16 Theorem 3.4, :func:`~surrogate.uq.allocation.optimal_variance`):
σ²/ε² (√(w_hf (1 − ρ²)) + √(w_lf ρ²))² plus the pilot's ``--pilot`` solves and queries; the
ratio for a surrogate that cost nothing to make, and the largest one-off (data + training)
that still leaves ``--ratio`` (the issue's 100×), at the measured ρ and at ρ = 1.

Run: OMP_NUM_THREADS=1 python benchmarks/uq_bound.py --run RUN [--draws 40] [--rse 1e-3]
         [--surrogate-level 1 --surrogate-intorder 4]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Any

import numpy as np
from uq import COST_DEFAULTS, fail  # the sibling benchmark: its FEM of reference per family

from surrogate.core.thread_settings import THREAD_VARIABLES, thread_settings

FINE_DEFAULTS = {"radial": ("skfem", 1, 3, None), "inclusion": ("ngsolve", 3, 2, 0.25)}
"""Per family: (backend, order, level, fitted maxh) of the finer FEM (``inclusion``: its
data's truth); the FEM of reference is ``benchmarks/uq.py cost``'s (``COST_DEFAULTS``)."""


def timed_energy(model: Any, mu: np.ndarray) -> tuple[np.ndarray, float]:
    """The energy column of ``model`` at every row of ``mu`` and its seconds per row."""
    begin = time.perf_counter()
    values = model(mu)[:, 0]
    return np.asarray(values, dtype=float), (time.perf_counter() - begin) / len(mu)


def pair(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """ρ, 1 − ρ² and the relative difference a/b − 1 (mean, spread) of two energy samples."""
    rho = float(np.corrcoef(a, b)[0, 1])
    difference = a / b - 1.0
    return {"rho": rho, "one_minus_rho2": 1.0 - rho ** 2,
            "relative_difference_mean": float(difference.mean()),
            "relative_difference_std": float(difference.std(ddof=1))}


def bound(cv: float, rho: float, w_hf: float, w_lf: float, rse: float, pilot: int,
          ratio: float) -> dict[str, float]:
    """FEM-only MC's seconds to ``rse`` against MFMC's least (optimal allocation + pilot): the
    ratio with nothing spent on the surrogate, and the one-off that leaves ``ratio``."""
    from surrogate.uq.allocation import optimal_variance

    fem_only = (cv / rse) ** 2 * w_hf
    pilot_seconds = pilot * (w_hf + w_lf)

    def mfmc(r: float) -> float:
        # Var Ê ∝ 1/p: the budget p at which the optimal variance reaches (rse · mean)².
        return optimal_variance(cv, r, w_hf, w_lf, 1.0) / rse ** 2 + pilot_seconds

    least, perfect = mfmc(rho), mfmc(1.0)
    return {"fem_only_seconds": fem_only, "pilot_seconds": pilot_seconds,
            "mfmc_least_seconds": least, "ratio_free_one_off": fem_only / least,
            f"one_off_for_{ratio:g}x": fem_only / ratio - least,
            "mfmc_least_seconds_rho_1": perfect,
            f"one_off_for_{ratio:g}x_rho_1": fem_only / ratio - perfect}


def study(args: argparse.Namespace) -> dict[str, Any]:
    """The three energies on the same draws, their pairs and the bounds."""
    import torch

    from surrogate.fem.families import get_family
    from surrogate.runs.load import load_run
    from surrogate.uq.distributions import run_distribution
    from surrogate.uq.models import fem_quantities, one_off_seconds
    from surrogate.uq.options import ModelOptions
    from surrogate.uq.quantities import parse_quantities
    from surrogate.uq.study import study_models

    run = load_run(args.run)
    family = str(run.dataset.get("family"))
    if family not in FINE_DEFAULTS:
        fail(f"the run is of the {family} family; this benchmark knows "
             f"{', '.join(FINE_DEFAULTS)}")
    fem_spec = [given if given is not None else default for given, default in zip(
        (args.fem_backend, args.fem_order, args.fem_level, args.fem_maxh),
        COST_DEFAULTS[family]["fem"], strict=True)]
    fine_spec = [given if given is not None else default for given, default in zip(
        (fem_spec[0], args.fine_order, args.fine_level, args.fine_maxh),
        FINE_DEFAULTS[family], strict=True)]
    run, _, fem, surrogate = study_models(run, ModelOptions(
        qoi=("energy",), fem_backend=fem_spec[0], fem_order=fem_spec[1], fem_level=fem_spec[2],
        fem_maxh=fem_spec[3] or None, surrogate_level=args.surrogate_level,
        surrogate_intorder=args.surrogate_intorder))
    fine = fem_quantities(get_family(family), parse_quantities(("energy",)),
                          backend=fine_spec[0], order=fine_spec[1], level=fine_spec[2],
                          domain=fem.points.domain, maxh=fine_spec[3] or None)
    mu = run_distribution(run).sample(args.draws, np.random.default_rng(args.seed))
    surrogate(mu[:2])  # warm-up: first-call allocations are not a query's cost
    q_fem, w_hf = timed_energy(fem, mu)
    q_fine, w_fine = timed_energy(fine, mu)
    q_sur, w_lf = timed_energy(surrogate, mu)
    cv = float(q_fem.std(ddof=1) / abs(q_fem.mean()))
    rho = pair(q_sur, q_fem)["rho"]
    one_off = one_off_seconds(run)
    return {"run": str(args.run), "family": family, "draws": args.draws, "seed": args.seed,
            "fem": fem.label, "fine_fem": fine.label, "where": fem.where,
            "fine_where": fine.where,
            "surrogate_points": len(surrogate.points.weights),
            "threads": {"torch": torch.get_num_threads(), **thread_settings()},
            "seconds": {"fem": w_hf, "fine_fem": w_fine, "surrogate": w_lf},
            "energy_cv": cv, "one_off_seconds": one_off,
            "pairs": {"surrogate_vs_fem": pair(q_sur, q_fem),
                      "fem_vs_fine_fem": pair(q_fem, q_fine),
                      "surrogate_vs_fine_fem": pair(q_sur, q_fine)},
            "bounds": {f"{rse:g}": bound(cv, rho, w_hf, w_lf, rse, args.pilot, args.ratio)
                       for rse in sorted(args.rse or [1e-3], reverse=True)}}


def main(argv: list[str] | None = None) -> None:
    """Parse the options; print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="a radial or inclusion family run")
    parser.add_argument("--draws", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rse", type=float, action="append", help="default 1e-3")
    parser.add_argument("--pilot", type=int, default=50)
    parser.add_argument("--ratio", type=float, default=100.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--surrogate-level", type=int, default=None)
    parser.add_argument("--surrogate-intorder", type=int, default=None)
    parser.add_argument("--fem-backend", default=None, help="default: the family's")
    parser.add_argument("--fem-order", type=int, default=None)
    parser.add_argument("--fem-level", type=int, default=None)
    parser.add_argument("--fem-maxh", type=float, default=None, help="fitted mesh (0: none)")
    parser.add_argument("--fine-order", type=int, default=None)
    parser.add_argument("--fine-level", type=int, default=None)
    parser.add_argument("--fine-maxh", type=float, default=None, help="fitted mesh (0: none)")
    args = parser.parse_args(argv)
    if args.threads < 1 or args.draws < 3 or args.pilot < 0 or args.ratio <= 0:
        fail("need --threads >= 1, --draws >= 3, --pilot >= 0, --ratio > 0")
    if any(not 0 < rse < 1 or math.isnan(rse) for rse in args.rse or []):
        fail("--rse must lie in (0, 1)")
    for name in THREAD_VARIABLES:
        os.environ[name] = str(args.threads)  # before torch and NGSolve load
    import torch

    from surrogate.core.errors import InputError

    torch.set_num_threads(args.threads)
    try:
        record = study(args)
    except InputError as error:
        fail(str(error))
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
