"""Benchmark: ``surrogate uq``: Sobol indices against the closed form, MFMC's cost; prints JSON.

Two parts (issue 42), each on demand:

``sobol``: first-order and total Sobol indices of E[energy] and of a probe's components,
through a family run's surrogate (SALib, ``--surrogate-base`` N: N (p + 2) batched queries
on the points ``surrogate uq`` uses: the skfem order-1 rule on level 2 of the cube) against
the exact indices, computed from the closed form with ``--exact-base`` 2¹⁷ rows (1,048,576
evaluations). The closed form is vectorised over μ here: u = c(r; μ) (−x₂, x₁, 0) (see
``fem/families/radial.py``), so a probe is c(r₀) times a fixed vector and the energy over
[0, 1]³ is the radial integral ∫₀^√2 c(r)² r³ θ(r) dr with θ(r) = π/2 for r ≤ 1 and
π/2 − 2 arccos(1/r) beyond (the quarter circle's arc in the unit square), by Gauss–Legendre
on [0, 1] and, with r² = 1 + t², on t ∈ [0, 1] (smooth there): exact to rounding, where the
surrogate's energy is the rule's sum (a difference of ~10⁻⁴ relative, far below the 0.02
asked of the indices).

``cost``: the seconds to reach a relative standard error ``--rse`` (10⁻², 10⁻³) on
E[energy] and on E[u1 at the probe], FEM-only Monte Carlo against MFMC, both with the same
FEM of reference (``--fem-*``, or ``--evaluation``'s as ``surrogate uq``), on ``--threads``
(default 1), for a run of ``radial`` (the cube; skfem order 1 on level 2, probe (0.5, 0.5,
0.5)) or ``inclusion`` (the cylinder; NGSolve order 3 on each member's fitted mesh of maxh
0.5, points on level 2: the fastest FEM ``evaluate`` found at its best surrogate's 1.2 %;
probe (0, 0.8, 0.5), u1's coefficient of variation ≈ 0.5, the smallest of those tried):

- FEM-only MC: ``--mc-solves`` fresh solves of both quantities at once (default: enough for
  the largest target it is asked to measure, from a pilot's σ/|mean|, capped by
  ``--max-mc-seconds``); per quantity the measured cost is the first K at which the running
  standard error over |mean| reaches the target, times the measured seconds per solve. A
  target beyond the solves made is extrapolated: K = (σ / (rse |mean|))² solves at the
  measured seconds each (flagged ``extrapolated``);
- MFMC: ``surrogate uq``'s estimator (:func:`~surrogate.uq.mfmc.estimate_mean`) with the
  quantity alone as the driver of the allocation (so the surrogate answers only that
  quantity's points), measured: pilot + solves + queries, and the achieved relative standard
  error; with and without the run's one-off (data + training, recorded by the run). A
  target below ``--mfmc-down-to`` (``--probe-mfmc-down-to`` for the probe) is not run: its
  allocation and seconds are predicted from the pilot of the largest target measured
  (``"measured": false``). With ``--surrogate-level``/``--surrogate-intorder`` the
  surrogate integrates the energy by its own, cheaper rule (``surrogate uq``'s options).

``sobol``'s run is ``--run`` or one trained here (subprocesses, seconds reported) with the
separable recipe of docs/results/break-even.md (``--gen-args``, ``--fit-args``).

Run: python benchmarks/uq.py sobol [--run RUN] [--exact-base 131072]
     python benchmarks/uq.py cost --run RUN [--rse 1e-2 --rse 1e-3] [--measure-mc 1e-2]
         [--probe-mfmc-down-to 1e-2] [--surrogate-level 1 --surrogate-intorder 6]
Smoke: python benchmarks/uq.py sobol --exact-base 1024 --surrogate-base 256 --gen-args
       "--family radial --problems 20 --points 200" --fit-args "--arch deeponet --epochs 1"
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.thread_settings import THREAD_VARIABLES, thread_settings

GEN_ARGS = "--family radial --problems 320 --points 2000"
FIT_ARGS = "--arch deeponet"
PROBE = (0.5, 0.5, 0.5)
COST_DEFAULTS = {"radial": {"fem": ("skfem", 1, 2, None), "probe": PROBE},
                 "inclusion": {"fem": ("ngsolve", 3, 2, 0.5), "probe": (0.0, 0.8, 0.5)}}
"""Per family of ``cost``: the FEM of reference (backend, order, level, fitted maxh) and the
probe."""
GAUSS_NODES = 48
"""Gauss–Legendre nodes per piece of the radial integral of the energy."""
TOLERANCE = 0.02
"""The issue's bound on |S_surrogate − S_exact| per index."""


def fail(message: str) -> None:
    """One line on stderr, exit 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def surrogate(*args: str) -> None:
    """``python -m surrogate ARGS`` in its own process, checked."""
    done = subprocess.run([sys.executable, "-m", "surrogate", *args], capture_output=True,
                          text=True)
    if done.returncode != 0:
        fail(f"surrogate {' '.join(args[:2])} failed: {done.stderr.strip()[-300:]}")


def train(root: Path, gen_args: str, fit_args: str) -> tuple[Path, dict[str, float]]:
    """A family run of the recipe in ``root``, with its generation and training seconds."""
    data, run = root / "data.h5", root / "run"
    surrogate("gen-data", "maxwell-family", *shlex.split(gen_args), "-o", str(data), "--quiet")
    surrogate("fit", str(data), *shlex.split(fit_args), "-o", str(run), "--quiet")
    return run, {"generation": json.loads(Path(f"{data}.json").read_text())[
        "generation_seconds"], "training": json.loads((run / "metrics.json").read_text())[
        "train_seconds"]}


def radial_coefficient(mu: np.ndarray, r: np.ndarray) -> np.ndarray:
    """c(r; μ) (B, R) with u = c (−x₂, x₁, 0): α k I₁(kr)/(kr) + (w + p b/(2a)) L(a r²/b)/b
    − p/(2a), for μ (B, 6) and radii r (R,)."""
    from surrogate.fem.families.radial import log1p_over_t
    from surrogate.fem.problems import i1_over_r

    k, a, b, alpha, p, w = (np.asarray(mu, dtype=np.float64)[:, j, None] for j in range(6))
    r = np.asarray(r, dtype=np.float64)[None, :]
    return (alpha * k * i1_over_r(k * r) + (w + p * b / (2 * a)) * log1p_over_t(a * r * r / b)
            / b - p / (2 * a))


def radial_energy_rule() -> tuple[np.ndarray, np.ndarray]:
    """Radii r and weights v with ∫_[0,1]³ |u|² = Σ v c(r)²: Gauss–Legendre on [0, 1] with
    weight r³ π/2, and on r = √(1 + t²), t ∈ [0, 1], with weight r² t (π/2 − 2 arctan t)."""
    x, w = np.polynomial.legendre.leggauss(GAUSS_NODES)
    s, ws = 0.5 * (x + 1.0), 0.5 * w
    outer = np.sqrt(1.0 + s * s)
    radii = np.concatenate([s, outer])
    weights = np.concatenate([ws * s ** 3 * np.pi / 2,
                              ws * outer ** 2 * s * (np.pi / 2 - 2 * np.arctan(s))])
    return radii, weights


def radial_exact(mu: np.ndarray, probe: tuple[float, float, float] = PROBE,
                 block: int = 65536) -> np.ndarray:
    """(B, 4): the closed form's energy over the cube and u1, u2, u3 at ``probe``."""
    radii, weights = radial_energy_rule()
    r0 = float(np.hypot(probe[0], probe[1]))
    out = []
    for start in range(0, len(mu), block):
        part = np.asarray(mu[start:start + block], dtype=np.float64)
        c = radial_coefficient(part, np.append(radii, r0))
        energy = (c[:, :-1] ** 2) @ weights
        out.append(np.column_stack([energy, -probe[1] * c[:, -1], probe[0] * c[:, -1],
                                    np.zeros(len(part))]))
    return np.concatenate(out)


def compare(exact: dict[str, Any], approx: dict[str, Any]) -> dict[str, Any]:
    """Per quantity, the largest |approx − exact| of S1 and of ST, and whether both are
    within :data:`TOLERANCE`."""
    out = {}
    for name, entry in exact["quantities"].items():
        other = approx["quantities"].get(name)
        if entry is None or other is None:
            out[name] = None
            continue
        worst = {kind: max(abs(other[kind][p]["index"] - entry[kind][p]["index"])
                           for p in entry[kind]) for kind in ("S1", "ST")}
        out[name] = {**worst, "within": bool(max(worst.values()) <= TOLERANCE)}
    return out


def sobol_part(args: argparse.Namespace) -> dict[str, Any]:
    """The surrogate's and the exact indices and their largest differences."""
    from surrogate.uq.distributions import run_distribution
    from surrogate.uq.options import ModelOptions
    from surrogate.uq.sobol import sobol_indices
    from surrogate.uq.study import study_models

    with tempfile.TemporaryDirectory() as tmp:
        one_off = None
        run = args.run
        if run is None:
            run, one_off = train(Path(tmp), args.gen_args, args.fit_args)
        qoi = ("energy", "probe:" + ",".join(f"{v:g}" for v in PROBE))
        run, family, fem, model = study_models(run, ModelOptions(qoi=qoi))
        if family.name != "radial":
            fail(f"the run is of the {family.name} family; this benchmark needs radial")
        distribution = run_distribution(run)
        names = fem.points.names
        begin = time.perf_counter()
        exact = sobol_indices(lambda mu: radial_exact(mu), distribution, names,
                              base=args.exact_base, seed=args.seed)
        exact_seconds = time.perf_counter() - begin
        begin = time.perf_counter()
        through = sobol_indices(model, distribution, names, base=args.surrogate_base,
                                seed=args.seed + 1)
        surrogate_seconds = time.perf_counter() - begin
    return {"run": str(args.run or "trained here"), "recipe": None if args.run else {
        "gen_args": args.gen_args, "fit_args": args.fit_args}, "one_off_seconds": one_off,
        "exact": exact, "surrogate": through, "seconds": {"exact": exact_seconds,
                                                          "surrogate": surrogate_seconds},
        "tolerance": TOLERANCE, "largest_difference": compare(exact, through)}


def _running_rse(values: np.ndarray) -> np.ndarray:
    """se/|mean| of the first k values, k = 1..K (inf for k < 2)."""
    k = np.arange(1, len(values) + 1, dtype=float)
    mean = np.cumsum(values) / k
    var = (np.cumsum(values * values) - k * mean * mean) / np.maximum(k - 1, 1)
    out = np.sqrt(np.maximum(var, 0.0) / k) / np.abs(mean)
    out[:1] = np.inf
    return out


def fem_only(fem: Any, sample: Any, columns: dict[str, int], targets: list[float],
             measure: float, args: argparse.Namespace) -> dict[str, Any]:
    """FEM-only MC: a pilot, then solves until the ``measure`` target of every quantity (or
    the time cap); per quantity and target the K reached and its seconds."""
    rng = np.random.default_rng(args.seed + 100)
    begin = time.perf_counter()
    pilot = fem(sample(args.pilot, rng))
    pilot_seconds = time.perf_counter() - begin
    w = pilot_seconds / args.pilot
    cv = {name: float(pilot[:, j].std(ddof=1) / abs(pilot[:, j].mean()))
          for name, j in columns.items()}
    wanted = max(int(np.ceil((c / measure) ** 2 * 1.3)) for c in cv.values())
    solves = min(args.mc_solves or wanted, int(args.max_mc_seconds / w))
    values, seconds = [], 0.0
    for start in range(0, solves, 256):
        mu = sample(min(256, solves - start), rng)
        begin = time.perf_counter()
        values.append(fem(mu))
        seconds += time.perf_counter() - begin
    values = np.concatenate(values)
    w = seconds / len(values)
    out: dict[str, Any] = {"solves": len(values), "seconds": seconds, "seconds_per_solve": w,
                           "pilot_cv": cv, "quantities": {}}
    for name, j in columns.items():
        column = values[:, j]
        rse = _running_rse(column)
        sigma_over_mean = float(column.std(ddof=1) / abs(column.mean()))
        per_target = {}
        for target in targets:
            hit = np.flatnonzero(rse <= target)
            if target >= measure and len(hit):
                k = int(hit[0]) + 1
                per_target[f"{target:g}"] = {"solves": k, "seconds": k * w,
                                             "extrapolated": False}
            else:
                k = int(np.ceil((sigma_over_mean / target) ** 2))
                per_target[f"{target:g}"] = {"solves": k, "seconds": k * w,
                                             "extrapolated": True}
        out["quantities"][name] = {"mean": float(column.mean()), "cv": sigma_over_mean,
                                   "final_rse": float(rse[-1]), "targets": per_target}
    return out


def model_options(qoi: tuple[str, ...], args: argparse.Namespace) -> Any:
    """The study's ModelOptions: ``qoi``, the FEM of ``args`` and the surrogate's rule."""
    from surrogate.uq.options import ModelOptions

    return ModelOptions(qoi=qoi, fem_backend=args.fem_backend, fem_order=args.fem_order,
                        fem_level=args.fem_level, fem_maxh=args.fem_maxh,
                        evaluation=args.evaluation, surrogate_level=args.surrogate_level,
                        surrogate_intorder=args.surrogate_intorder)


def mfmc_cost(run: Any, qoi: str, column: int, target: float, one_off: float,
              args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """One measured MFMC study of ``qoi`` (its ``column``) to ``target``: its record and its
    pilot's statistics."""
    from surrogate.uq.distributions import run_distribution
    from surrogate.uq.mfmc import MfmcSettings, estimate_mean
    from surrogate.uq.study import study_models

    run, _, fem, model = study_models(run, model_options((qoi,), args))

    def pick(f: Any) -> Any:
        return lambda mu: f(mu)[:, [column]]

    begin = time.perf_counter()
    result = estimate_mean(pick(fem), pick(model), run_distribution(run).sample,
                           MfmcSettings(rse=target, pilot=args.pilot, seed=args.seed),
                           (fem.points.names[column],))
    wall = time.perf_counter() - begin
    record = result.to_dict()
    entry = next(iter(record["quantities"].values()))
    spent = float(sum(v for k, v in result.seconds.items() if k != "one_off"))
    return {"measured": True, "seconds": spent, "seconds_with_one_off": spent + one_off,
            "wall": wall,
            "high_samples": record["allocation"]["high_samples"],
            "surrogate_samples": record["allocation"]["surrogate_samples"],
            "rho": entry["pilot"]["rho"], "mean": entry["mfmc"]["mean"],
            "achieved_rse": entry["mfmc"]["standard_error"] / abs(entry["mfmc"]["mean"]),
            "seconds_split": dict(result.seconds)}, result.pilot


def predicted_mfmc(measured: dict[str, Any], pilot: Any, target: float,
                   one_off: float) -> dict[str, Any]:
    """The allocation that the ``pilot`` of the ``measured`` study gives for ``target`` and its
    seconds (that pilot's + K w_hf + N w_lf): the prediction ``surrogate uq`` acts on, not run."""
    from surrogate.uq.allocation import allocate_for_rse

    allocation = allocate_for_rse(pilot, target)
    split = measured["seconds_split"]
    spent = (split["pilot_high"] + split["pilot_surrogate"]
             + allocation.cost(pilot.w_hf, pilot.w_lf))
    return {"measured": False, "seconds": spent, "seconds_with_one_off": spent + one_off,
            "high_samples": allocation.k, "surrogate_samples": allocation.n,
            "rho": float(pilot.rho[0]), "from_pilot_of": "the largest target measured"}


def cost_part(args: argparse.Namespace) -> dict[str, Any]:
    """FEM-only MC against MFMC to each target, per quantity."""
    import torch

    from surrogate.runs.load import load_run
    from surrogate.uq.distributions import run_distribution
    from surrogate.uq.models import one_off_seconds
    from surrogate.uq.study import study_models

    run = load_run(args.run)
    family = str(run.dataset.get("family"))
    if family not in COST_DEFAULTS:
        fail(f"the run is of the {family} family; this benchmark knows "
             f"{', '.join(COST_DEFAULTS)}")
    defaults = COST_DEFAULTS[family]
    for name, value in zip(("fem_backend", "fem_order", "fem_level", "fem_maxh"),
                           defaults["fem"], strict=True):
        if getattr(args, name) is None and args.evaluation is None:
            setattr(args, name, value)
    probe = "probe:" + ",".join(f"{v:g}" for v in (args.probe or defaults["probe"]))
    one_off = one_off_seconds(run)
    run, _, fem, model = study_models(run, model_options(("energy", probe), args))
    targets = sorted(args.rse or [1e-2, 1e-3], reverse=True)
    columns = {"energy": 0, f"{probe}:u1": 1}
    mc = fem_only(fem, run_distribution(run).sample, columns, targets, args.measure_mc, args)
    out: dict[str, Any] = {"run": str(args.run), "family": family, "fem": fem.label,
                           "where": fem.where, "chosen_by": fem.choice,
                           "surrogate_energy_rule": {
                               "level": model.points.level, "intorder": model.points.intorder,
                               "points": len(model.points.weights),
                               "fem_points": len(fem.points.weights)},
                           "threads": {"torch": torch.get_num_threads(), **thread_settings()},
                           "one_off_seconds": one_off, "fem_only_mc": mc, "mfmc": {},
                           "speedup": {}}
    down_to = {"energy": args.mfmc_down_to,
               f"{probe}:u1": args.probe_mfmc_down_to or args.mfmc_down_to}
    for name, (qoi, column) in {"energy": ("energy", 0),
                                f"{probe}:u1": (probe, 0)}.items():
        out["mfmc"][name], out["speedup"][name] = {}, {}
        measured = pilot = None
        for target in targets:
            if target >= down_to[name]:
                measured, pilot = mfmc_cost(run, qoi, column, target, one_off["total"], args)
                entry = measured
            elif measured is not None:
                entry = predicted_mfmc(measured, pilot, target, one_off["total"])
            else:
                continue
            fem_seconds = mc["quantities"][name]["targets"][f"{target:g}"]["seconds"]
            out["mfmc"][name][f"{target:g}"] = entry
            out["speedup"][name][f"{target:g}"] = {
                "without_one_off": fem_seconds / entry["seconds"],
                "with_one_off": fem_seconds / entry["seconds_with_one_off"]}
    return out


def main(argv: list[str] | None = None) -> None:
    """Parse the part and its options; print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="before the part")
    parser.add_argument("--seed", type=int, default=0, help="before the part")
    parts = parser.add_subparsers(dest="part", required=True)
    sobol = parts.add_parser("sobol", help="Sobol indices: surrogate against the closed form")
    sobol.add_argument("--run", default=None, help="a radial family run (default: train one)")
    sobol.add_argument("--gen-args", default=GEN_ARGS)
    sobol.add_argument("--fit-args", default=FIT_ARGS)
    sobol.add_argument("--exact-base", type=int, default=1 << 17)
    sobol.add_argument("--surrogate-base", type=int, default=1 << 14)
    cost = parts.add_parser("cost", help="FEM-only MC against MFMC to a standard error")
    cost.add_argument("--run", required=True, help="a radial or inclusion family run")
    cost.add_argument("--rse", type=float, action="append", help="default 1e-2, 1e-3")
    cost.add_argument("--measure-mc", type=float, default=1e-2, help="the smallest target "
                      "FEM-only MC is measured to (smaller ones are extrapolated)")
    cost.add_argument("--mfmc-down-to", type=float, default=1e-3, help="the smallest target "
                      "MFMC is run to")
    cost.add_argument("--probe-mfmc-down-to", type=float, default=None, help="the same for "
                      "the probe (default: --mfmc-down-to)")
    cost.add_argument("--probe", type=float, nargs=3, default=None,
                      help="x y z of the probe (default: the family's)")
    cost.add_argument("--surrogate-level", type=int, default=None)
    cost.add_argument("--surrogate-intorder", type=int, default=None)
    cost.add_argument("--mc-solves", type=int, default=None)
    cost.add_argument("--max-mc-seconds", type=float, default=600.0)
    cost.add_argument("--pilot", type=int, default=50)
    cost.add_argument("--fem-backend", default=None, help="default: the family's")
    cost.add_argument("--fem-order", type=int, default=None)
    cost.add_argument("--fem-level", type=int, default=None)
    cost.add_argument("--fem-maxh", type=float, default=None, help="fitted mesh (0: none)")
    cost.add_argument("--evaluation", default=None, help="the FEM an evaluation.json found")
    args = parser.parse_args(argv)
    if args.threads < 1:
        fail("--threads must be >= 1")
    for name in THREAD_VARIABLES:
        os.environ[name] = str(args.threads)  # before torch and NGSolve load
    import torch

    torch.set_num_threads(args.threads)
    print(json.dumps(sobol_part(args) if args.part == "sobol" else cost_part(args), indent=1))


if __name__ == "__main__":
    main()
