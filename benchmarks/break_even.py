"""Benchmark: the break-even N* of a family surrogate, both sides timed in one run; prints JSON.

``surrogate evaluate`` divides the run's recorded one-off (data generation + training, timed
when the run was made) by FEM and query times it measures itself, minutes or days later. On a
shared machine whose speed drifts (the same fit took 61 s and 98 s an hour apart here) that
ratio moves with the drift. This benchmark times everything again, interleaved, ``--rounds``
times:

1. the FEM contenders of the evaluation's median problem (the ``--contenders`` fastest mixed
   solves, any backend, order and level, whose error reaches the surrogate's there: errors are
   deterministic and read from ``evaluation.json``, times are not), ``--repeats`` solves each,
   mesh → u_h as ``evaluate`` times them;
2. ``surrogate gen-data`` and ``surrogate fit`` in subprocesses (``--gen-args``,
   ``--fit-args``: the recipe of docs/results/break-even.md by default), their own recorded seconds;
3. the FEM contenders again, then the new run's whole-field query (the predictor on the
   domain's finest evaluated level's nodes, points cached, one problem), ``--repeats`` times.

Per round N* = (generation + training) / (FEM − query), with the FEM the contender of the
lowest median over both timing blocks (``n_star``) and with its fastest single solve
(``n_star_fastest_fem``; ``evaluate`` keeps the fastest of its ``--repeats``). Each round
says whether the new run has the evaluated run's weights bit for bit (then the evaluation's
errors are its errors).

The FEM and the query run on ``--threads`` (default 1; the fit picks its own threads, as
``fit`` does). The 244-DOF NGSolve solve of the radial median problem took the same on one
or two threads here (medians of 41 solves in alternating processes: 6.3–7.1 ms and
6.3–8.7 ms).

Run: python benchmarks/break_even.py out/sep/evaluation.json [--rounds 3] [--repeats 21]
Smoke: python benchmarks/break_even.py EVAL.json --rounds 1 --repeats 3
       --gen-args "--family radial --problems 20 --points 200" --fit-args "--arch deeponet
       --epochs 1"
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

GEN_ARGS = "--family radial --problems 320 --points 2000"
FIT_ARGS = "--arch deeponet"
USER_ENVIRONMENT = dict(os.environ)
"""The environment as given: ``gen-data`` and ``fit`` run in it, not under ``--threads``."""


def fail(message: str) -> None:
    """One line on stderr, exit 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def read_evaluation(path: Path, run: str | None, domain: str) -> dict[str, Any]:
    """The median problem of ``run`` on ``domain``: index, μ, surrogate error, candidates."""
    from surrogate.evaluation.family.summary import candidates

    try:
        evaluation = json.loads(path.read_text())
        runs = evaluation["break_even_queries"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        fail(f"{path}: not a family evaluation.json ({exc})")
    label = run or next(iter(runs), None)
    if label not in runs or domain not in runs[label]:
        fail(f"{path}: no break-even table for run {label!r} on {domain!r}; "
             f"runs: {', '.join(runs)}")
    middle = runs[label][domain]["median_problem"]
    problem = evaluation["problems"][middle]
    levels = problem["domains"][domain]["levels"]
    error = levels[-1]["runs"][label]["relative_error"]
    if error is None:
        fail(f"{path}: run {label!r} has no error on its median problem")
    return {"family": evaluation["family"], "label": label, "index": middle,
            "params": problem["params"], "top_level": int(levels[-1]["level"]),
            "error": float(error),
            "candidates": candidates(levels), "options": evaluation["options"],
            "run_path": evaluation["runs"][label].get("path")}


def contenders(cands: list[Any], error: float, count: int) -> list[Any]:
    """The ``count`` candidates reaching ``error`` with the lowest recorded times."""
    reaching = sorted((c for c in cands if c.error <= error), key=lambda c: c.seconds)
    if not reaching:
        fail(f"no FEM of the evaluation reaches the surrogate's error {error:.3g}")
    return reaching[:count]


def time_fem(cands: list[Any], problem: Any, family: Any, domain: Any, options: dict,
             repeats: int) -> dict[str, list[float]]:
    """Seconds (mesh → u_h) of ``repeats`` mixed solves per candidate, as ``evaluate``."""
    from surrogate.evaluation.family.fem import fem_solution

    out = {}
    for c in cands:
        mesh = domain.mesh(c.level)
        out[c.label] = [fem_solution(mesh, problem, "solve", c.order, options["solver"],
                                     family, domain.name, c.level, backend=c.backend,
                                     rtol=options["rtol"])[1] for _ in range(repeats)]
    return out


def time_query(run_dir: Path, points: Any, params: Any, repeats: int) -> float:
    """Median seconds of a whole-field query of one problem, points cached (as ``evaluate``:
    :func:`surrogate.evaluation.family.query_timing.median_seconds` after one warm-up)."""
    from surrogate.evaluation.family.query_timing import median_seconds
    from surrogate.predict.predictor import Predictor

    predictor = Predictor(run_dir, points)
    predictor.predict(params)
    return median_seconds(lambda: predictor.predict(params), repeats)


def same_weights(a: Path, b: Path | None) -> bool | None:
    """Whether two runs' ``model.pt`` hold equal tensors (None: no evaluated run here)."""
    import torch

    from surrogate.runs.safe_load import load_state_dict_file

    if b is None or not (Path(b) / "model.pt").is_file():
        return None
    left, right = load_state_dict_file(a / "model.pt"), load_state_dict_file(Path(b) / "model.pt")
    return left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left)


def surrogate(*args: str) -> None:
    """``python -m surrogate ARGS`` (its own process and the user's environment: its own
    thread choice, as a user's ``surrogate fit``), checked."""
    done = subprocess.run([sys.executable, "-m", "surrogate", *args], env=USER_ENVIRONMENT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"surrogate {' '.join(args[:2])} failed: {done.stderr.strip()[-300:]}")


def one_round(k: int, facts: dict[str, Any], cands: list[Any], problem: Any, family: Any,
              domain: Any, points: Any, args: argparse.Namespace, root: Path) -> dict:
    """FEM, gen-data, fit, FEM, query; the round's N*."""
    import numpy as np

    before = time_fem(cands, problem, family, domain, facts["options"], args.repeats)
    data, run = root / f"data-{k}.h5", root / f"run-{k}"
    surrogate("gen-data", "maxwell-family", *shlex.split(args.gen_args), "-o", str(data),
              "--quiet")
    surrogate("fit", str(data), *shlex.split(args.fit_args), "-o", str(run), "--quiet",
              "--overwrite")
    after = time_fem(cands, problem, family, domain, facts["options"], args.repeats)
    q = time_query(run, points, np.asarray(facts["params"])[None], args.repeats)
    generation = json.loads(Path(f"{data}.json").read_text())["generation_seconds"]
    training = json.loads((run / "metrics.json").read_text())["train_seconds"]
    fem = {label: before[label] + after[label] for label in before}
    median_fem = {label: statistics.median(t) for label, t in fem.items()}
    fastest = min(median_fem, key=median_fem.get)
    one_off = generation + training

    def n_star(fem_seconds: float) -> float | None:
        return one_off / (fem_seconds - q) if fem_seconds > q else None

    return {"fem_median_s": {label: {"before": statistics.median(before[label]),
                                     "after": statistics.median(after[label])}
                             for label in before},
            "fem": fastest, "fem_s": median_fem[fastest], "fem_fastest_s": min(fem[fastest]),
            "query_s": q, "generation_s": generation, "training_s": training,
            "one_off_s": one_off, "n_star": n_star(median_fem[fastest]),
            "n_star_fastest_fem": n_star(min(fem[fastest])),
            "same_weights_as_evaluated_run": same_weights(run, facts["run_path"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="e.g. python benchmarks/break_even.py "
                                            "out/sep/evaluation.json --rounds 3")
    parser.add_argument("evaluation", type=Path, help="evaluation.json of `surrogate evaluate`")
    parser.add_argument("--run", help="run label in it (default: the first)")
    parser.add_argument("--domain", default="cube")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--contenders", type=int, default=3)
    parser.add_argument("--gen-args", default=GEN_ARGS)
    parser.add_argument("--fit-args", default=FIT_ARGS)
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenMP/MKL threads of the FEM and the query")
    args = parser.parse_args()
    if min(args.rounds, args.repeats, args.contenders, args.threads) < 1:
        fail("--rounds, --repeats, --contenders and --threads must be >= 1")
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(args.threads)  # before torch and NGSolve load

    import torch

    torch.set_num_threads(args.threads)

    from surrogate.fem.domains import get_domain
    from surrogate.fem.families.registry import get_family

    facts = read_evaluation(args.evaluation, args.run, args.domain)
    family, domain = get_family(facts["family"]), get_domain(args.domain)
    problem = family.problem(facts["params"])
    cands = contenders(facts["candidates"], facts["error"], args.contenders)
    points = domain.mesh(facts["top_level"]).p.T
    rounds = []
    with tempfile.TemporaryDirectory(prefix="break-even-") as tmp:
        for k in range(args.rounds):
            rounds.append(one_round(k, facts, cands, problem, family, domain, points, args,
                                    Path(tmp)))
            print(f"round {k + 1}/{args.rounds}: N* = {rounds[-1]['n_star']}", file=sys.stderr)
    stars = [r["n_star"] for r in rounds if r["n_star"] is not None]
    print(json.dumps({
        "evaluation": str(args.evaluation), "run": facts["label"], "domain": args.domain,
        "median_problem": facts["index"], "surrogate_error": facts["error"],
        "contenders": [c.label for c in cands], "gen_args": args.gen_args,
        "fit_args": args.fit_args, "repeats": args.repeats, "rounds": rounds,
        "n_star_median": statistics.median(stars) if stars else None,
        "n_star_range": [min(stars), max(stars)] if stars else None,
        "never": len(rounds) - len(stars),
        "threads": args.threads,
        "load_average": os.getloadavg(),
    }, indent=1))


if __name__ == "__main__":
    main()
