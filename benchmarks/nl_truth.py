"""Benchmark: how fine must the nonlinear FEM be for converged ``maxwell-nl`` sequences, and what
does one sequence cost?

The default ``maxwell-nl`` recipe (varistor block in the cube cavity; ``--set key=value``
changes a field) and ``--signals`` K unseen samples (the recipe's own sampler at seed
``recipe.seed + 1``: signal, amplitude, σ₀, E₀). Each case ``level:order:substeps[r][:qD]``
(``--cases``) builds the recipe's setup at that level and NGSolve order (``r``: Richardson of
the runs at substeps / 2 and substeps, as the recipe's ``richardson``; ``qD``: quadrature
degree D of the varistor terms, default the recipe's 2·order + 2; 4·order is exact) and runs
every sample by Newton–Newmark through the Schur complement of the varistor's DOFs.
Reported per case: free DOFs, varistor DOFs m, seconds to build the setup (system,
tabulation, factorisation, Schur complement: once per worker), seconds per sequence (median
over the K samples, wall and this process's CPU time — on a shared machine the CPU time is
the better guide to a quiet one — with the Newton iterations), and the median / max over
the samples of the relative L² difference ‖y − y_ref‖ / ‖y_ref‖ (whole sequence; probe E and
the Joule power apart) to

- ``next``: the case one level finer AND one order higher AND with Δt/2 (when in the grid),
- ``one_finer``: the cases finer in one direction only (Δt/2, level + 1, order + 1), and
- ``reference``: one common fine case (``--reference``, default the last case).

``--cache DIR`` keeps each case's sequences and timings and reuses them, so a grid can be run
in pieces. JSON on stdout. The machine's load average is reported with the timings.

Run: OMP_NUM_THREADS=1 python benchmarks/nl_truth.py --signals 3 --cache /tmp/nlt \\
         --cases 2:2:4r 2:3:4r 2:3:8r 2:4:4r 3:2:4r
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from surrogate.core.thread_settings import thread_settings

DEFAULT_CASES = ("2:2:4r", "2:3:4r", "2:3:8r", "2:4:4r")

Case = tuple[int, int, int, bool, int]  # level, order, substeps, Richardson, intorder


def parse_case(text: str) -> Case:
    """``"level:order:substeps[r][:qD]"`` -> a :data:`Case`."""
    level, order, substeps, *rest = text.split(":")
    richardson = substeps.endswith("r")
    intorder = int(rest[0].lstrip("q")) if rest else 2 * max(int(order), 1) + 2
    case = (int(level), int(order), int(substeps.rstrip("r")), richardson, intorder)
    if richardson and case[2] % 2:
        raise SystemExit(f"nl_truth: {text}: Richardson needs an even number of substeps")
    return case


def case_name(case: Case) -> str:
    level, order, substeps, richardson, intorder = case
    return f"{level}:{order}:{substeps}{'r' if richardson else ''}:q{intorder}"


def case_recipe(recipe, case: Case):
    """``recipe`` with the case's level, order, substeps, Richardson and quadrature."""
    level, order, substeps, richardson, intorder = case
    return dataclasses.replace(recipe, level=level, fem_order=order, richardson=richardson,
                               substeps=substeps // 2 if richardson else substeps,
                               intorder=intorder)


def run_case(recipe, case: Case, draws) -> tuple[dict, np.ndarray]:
    """Timings and sequences (K, steps + 1, 3·P + 1) of one case."""
    from surrogate.datasets.sequence.nonlinear_cavity import build_setup, simulate_sample

    start = time.perf_counter()
    setup = build_setup(case_recipe(recipe, case))
    setup_s = time.perf_counter() - start
    sequences, seconds, cpu, iterations = [], [], [], []
    for draw in draws:
        start, start_cpu = time.perf_counter(), time.process_time()
        _, targets, count = simulate_sample(setup, draw)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        sequences.append(targets)
        iterations.append(count)
    row = {"case": case_name(case), "free_dofs": setup.system.n_free,
           "varistor_dofs": setup.region.m, "intorder": setup.region.intorder,
           "setup_s": setup_s, "per_sequence_s": statistics.median(seconds),
           "per_sequence_max_s": max(seconds),
           "per_sequence_cpu_s": statistics.median(cpu),
           "newton_iterations": statistics.median(iterations),
           "newmark_steps": recipe.steps * sum(case_recipe(recipe, case).run_substeps),
           "load_average": list(os.getloadavg())}
    return row, np.stack(sequences)


def cached_case(recipe, case: Case, draws, cache: Path | None) -> tuple[dict, np.ndarray]:
    """:func:`run_case`, or its stored result in ``cache``."""
    name = case_name(case).replace(":", "_") + f"_k{len(draws)}_{recipe_tag(recipe)}"
    if cache is not None and (cache / f"{name}.json").exists():
        return (json.loads((cache / f"{name}.json").read_text()),
                np.load(cache / f"{name}.npz")["sequences"])
    row, sequences = run_case(recipe, case, draws)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(cache / f"{name}.npz", sequences=sequences)
        (cache / f"{name}.json").write_text(json.dumps(row))
    return row, sequences


def departures(recipe, case: Case, draws, sequences: np.ndarray) -> list[float]:
    """Per sample ‖y(a) − 10³ y(a / 10³)‖ / ‖y(a)‖ of the probe E: how far the response is from
    the amplitude scaling of the small-amplitude (linear) run of the same case."""
    from surrogate.datasets.sequence.nonlinear_cavity import build_setup, simulate_sample

    setup = build_setup(case_recipe(recipe, case))
    out = []
    for (signal, amplitude, sigma0, e0), y in zip(draws, sequences, strict=True):
        small = simulate_sample(setup, (signal, amplitude * 1e-3, sigma0, e0))[1]
        linear = 1e3 * small[:, :-1]
        out.append(float(np.linalg.norm(y[:, :-1] - linear) / np.linalg.norm(y[:, :-1])))
    return out


def one_step_finer(case: Case) -> dict[str, Case]:
    """The cases one step finer in a single direction: Δt/2, level + 1, order + 1."""
    level, order, substeps, richardson, intorder = case
    return {"dt/2": (level, order, 2 * substeps, richardson, intorder),
            "level+1": (level + 1, order, substeps, richardson, intorder),
            "order+1": (level, order + 1, substeps, richardson, intorder)}


def relative_differences(y: np.ndarray, reference: np.ndarray) -> dict:
    """Median and max over samples of ‖y − y_ref‖ / ‖y_ref‖, probe E and Joule power apart."""
    out = {}
    for name, part in (("E", np.s_[..., :-1]), ("joule", np.s_[..., -1:])):
        a, b = y[part], reference[part]
        rel = np.sqrt(np.sum((a - b) ** 2, axis=(1, 2)) / np.sum(b**2, axis=(1, 2)))
        out[name] = {"median": float(np.median(rel)), "max": float(np.max(rel))}
    return out


def _value(text: str):
    """A ``--set`` value: a JSON number / boolean, else the text (ranges: 'low,high')."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def recipe_tag(recipe) -> str:
    """Cache-name suffix: the fields a case does not set, hashed (another ``--set``, another
    name)."""
    fields = {k: v for k, v in recipe.to_dict().items()
              if k not in ("level", "fem_order", "substeps", "richardson", "intorder")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:8]


def main() -> None:
    from surrogate.datasets.sequence.nonlinear_cavity import MaxwellNLRecipe, sample_draws

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES))
    parser.add_argument("--reference", default=None, help="case (default: the last case)")
    parser.add_argument("--signals", type=int, default=3)
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="recipe fields (e.g. steps=50 frequency=0.2,0.4)")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--nonlinearity", default=None, metavar="CASE",
                        help="also report each sample's departure from amplitude scaling "
                        "on this case (one small-amplitude run per sample)")
    parser.add_argument("--target-median", type=float, default=0.01)
    parser.add_argument("--target-max", type=float, default=0.03)
    args = parser.parse_args()

    recipe = MaxwellNLRecipe(**{key: _value(text) for key, text in
                                (item.split("=", 1) for item in args.set)})
    unseen = dataclasses.replace(recipe, seed=recipe.seed + 1, n=args.signals)
    draws = sample_draws(unseen, range(args.signals))
    cases = [parse_case(c) for c in args.cases]
    reference = parse_case(args.reference) if args.reference else cases[-1]
    probe = parse_case(args.nonlinearity) if args.nonlinearity else None
    for extra in (reference, probe):
        if extra is not None and extra not in cases:
            cases.append(extra)
    results = {c: cached_case(recipe, c, draws, args.cache) for c in cases}
    rows = []
    for case, (row, y) in results.items():
        level, order, substeps, richardson, intorder = case
        finer = (level + 1, order + 1, 2 * substeps, richardson, intorder)
        row = dict(row)
        row["to_next"] = (relative_differences(y, results[finer][1]) if finer in results
                          else None)
        row["to_reference"] = (relative_differences(y, results[reference][1])
                               if case != reference else None)
        row["to_one_finer"] = {label: relative_differences(y, results[other][1])
                               for label, other in one_step_finer(case).items()
                               if other in results}
        judged = row["to_next"] or row["to_reference"]
        row["within_target"] = bool(judged and judged["E"]["median"] <= args.target_median
                                    and judged["E"]["max"] <= args.target_max)
        rows.append(row)
    passing = [r for r in rows if r["within_target"]]
    nonlinearity = (None if probe is None else
                    {"case": case_name(probe),
                     "departure": departures(recipe, probe, draws, results[probe][1])})
    print(json.dumps({
        "nonlinearity": nonlinearity,
        "recipe": {k: v for k, v in recipe.to_dict().items() if k not in ("split",)},
        "signals": args.signals,
        "draws": [{"amplitude": a, "sigma0": s, "e0": e, "signal": type(sig).__name__}
                  for sig, a, s, e in draws],
        "reference": case_name(reference),
        "target": {"median": args.target_median, "max": args.target_max},
        "cases": rows,
        "cheapest_within_target": (min(passing, key=lambda r: r["per_sequence_s"])["case"]
                                   if passing else None),
        "threads": thread_settings(), "load_average": list(os.getloadavg()),
    }, indent=1))


if __name__ == "__main__":
    main()
