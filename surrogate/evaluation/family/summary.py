"""``evaluation.json`` of a family evaluation: distributions, the Pareto points, N*.

From the raw per-problem records of :class:`~surrogate.evaluation.family.measure.FamilyEvaluation`:

- ``error_table[domain]``: one row per source (each FEM method/backend/order/level, each
  fitted candidate per order and maxh, each surrogate on each level's mesh) with the median /
  p90 over problems of the relative L² error in every region and the median seconds (FEM:
  mesh → u_h);
- ``pareto[domain]``: median error against median time per query (FEM mixed solve per
  backend, order and level or fitted maxh; each surrogate for the whole field and at the
  probes);
- ``break_even_queries[label][domain]``: :func:`~surrogate.evaluation.family.economics.
  break_even_table` with the mixed solves of every backend, order and level (and the fitted
  ones) as candidates and the surrogate's error on the finest level's mesh. Torch-free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from surrogate.core.equal_error import FemCandidate
from surrogate.evaluation.family.economics import break_even_table, distribution
from surrogate.evaluation.family.fitted import fitted_mesh_name
from surrogate.fem.hcurl.registry import OWN_BACKEND, parse_fem_key

REGIONS = ("relative_error", "inside", "outside", "near_interface", "away_from_interface")
METHOD_NAMES = {"best": "best approx.", "solve": "mixed solve"}


def fem_source(method: str, order: int, level: int | None, backend: str | None = None,
               mesh: str | None = None) -> str:
    """Row name of a FEM baseline, e.g. ``"N0 mixed solve L3"`` (the own backend),
    ``"ngsolve: complete quadratic mixed solve L1"``, ``"ngsolve: complete cubic mixed
    solve, fitted maxh 0.35"`` (a ``mesh`` fitted to the member instead of a level)."""
    from surrogate.fem.hcurl.registry import OWN_BACKEND, fem_name

    space = fem_name(backend or OWN_BACKEND, order)
    where = f", {mesh}" if mesh else f" L{level}"
    return f"{space} {METHOD_NAMES.get(method, method)}{where}"


def _domain_levels(problems: list[dict[str, Any]], domain: str) -> list[list[dict[str, Any]]]:
    """Per problem its level records on ``domain``."""
    return [p["domains"][domain]["levels"] for p in problems]


def _regions(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Distribution over problems of every region's relative error present in ``entries``."""
    keys = [k for k in REGIONS if any(k in e for e in entries)]
    return {k: distribution([e.get(k) for e in entries]) for k in keys}


def error_table(problems: list[dict[str, Any]], domain: str, labels: list[str]
                ) -> list[dict[str, Any]]:
    """Rows (FEM per method, order, level; surrogates per level) of median/p90 errors."""
    per_problem = _domain_levels(problems, domain)
    rows = []
    first = per_problem[0]
    for i, level_record in enumerate(first):
        level = level_record["level"]
        for method in level_record["fem"]:
            keys = dict.fromkeys(key for levels in per_problem
                                 for key in levels[i]["fem"].get(method, {}))
            for key in keys:  # a candidate whose solve failed on a problem is absent there
                backend, order = parse_fem_key(key)
                entries = [levels[i]["fem"][method][key] for levels in per_problem
                           if key in levels[i]["fem"].get(method, {})]
                rows.append({"source": fem_source(method, order, level, backend),
                             "kind": "fem", "method": method, "backend": backend,
                             "order": order, "level": level,
                             "h": level_record["h"], "ndofs": entries[0]["ndofs"],
                             "seconds": distribution([e["seconds"] for e in entries]),
                             "errors": _regions(entries)})
    rows += fitted_rows(problems, domain)
    for label in labels:
        for i, level_record in enumerate(first):
            entries = [levels[i]["runs"][label] for levels in per_problem]
            rows.append({"source": label, "kind": "surrogate", "level": level_record["level"],
                         "h": level_record["h"], "errors": _regions(entries)})
    return rows


def fitted_rows(problems: list[dict[str, Any]], domain: str) -> list[dict[str, Any]]:
    """Rows of the fitted candidates (mixed solve on each member's own mesh of maxh h, timed
    with its meshing): like a level row, with ``"level": None``, ``"mesh"`` ("fitted maxh
    0.35"), ``"maxh"``, the median DOFs over problems (the mesh varies with the member) and
    the meshing's share of the seconds; absent where the domain has none."""
    records = [p["domains"][domain].get("fitted") or {} for p in problems]
    rows = []
    for key in dict.fromkeys(k for record in records for k in record):
        entries = [record[key] for record in records if key in record]
        backend, order, maxh = entries[0]["backend"], entries[0]["order"], entries[0]["maxh"]
        mesh = fitted_mesh_name(maxh)
        rows.append({"source": fem_source("solve", order, None, backend, mesh),
                     "kind": "fem", "method": "solve", "backend": backend, "order": order,
                     "level": None, "mesh": mesh, "maxh": maxh, "h": maxh,
                     "ndofs": int(np.median([e["ndofs"] for e in entries])),
                     "seconds": distribution([e["seconds"] for e in entries]),
                     "mesh_seconds": distribution([e["mesh_seconds"] for e in entries]),
                     "errors": _regions(entries)})
    return rows


def pareto_points(problems: list[dict[str, Any]], domain: str, table: list[dict[str, Any]],
                  labels: list[str], batch: dict[str, Any] | None = None) -> dict[str, Any]:
    """Median error vs median seconds per query: FEM mixed solves, surrogates (whole field
    and probes one problem at a time; per problem of a batch when ``batch`` has it)."""
    fem = [{"backend": r.get("backend", OWN_BACKEND), "order": r["order"],
            "level": r["level"], "method": r["method"],
            "error": r["errors"]["relative_error"]["median"],
            "p90_error": r["errors"]["relative_error"]["p90"],
            "seconds": r["seconds"]["median"], **({"mesh": r["mesh"], "maxh": r["maxh"]}
                                                    if r.get("mesh") else {})}
           for r in table if r["kind"] == "fem"]
    finest = max((r["level"] for r in table if r["level"] is not None), default=None)
    runs = []
    for label in labels:
        row = next(r for r in table if r["source"] == label and r["level"] == finest)
        seconds = [p["domains"][domain]["surrogate_seconds"][label] for p in problems]
        runs.append({"label": label, "error": row["errors"]["relative_error"]["median"],
                     "p90_error": row["errors"]["relative_error"]["p90"],
                     "field_seconds": distribution([s["field"] for s in seconds])["median"],
                     "probes_seconds": distribution([s["probes"] for s in seconds])["median"],
                     "batch_seconds": batch_seconds(batch, domain, label)})
    return {"fem": fem, "surrogates": runs}


def batch_seconds(batch: dict[str, Any] | None, domain: str, label: str) -> float | None:
    """Seconds per problem of the batched query of ``label`` on ``domain`` (None: not
    measured, an ``evaluation.json`` from before the batch pattern)."""
    return ((batch or {}).get("seconds") or {}).get(domain, {}).get(label)


def candidates(levels: list[dict[str, Any]], fitted: dict[str, Any] | None = None
               ) -> list[FemCandidate]:
    """The mixed solves of one problem (every backend, order and level, and the ``fitted``
    ones on meshes fitted to the member) as equal-error candidates (a record key without a
    backend, older ``evaluation.json``: the own one's)."""
    out = [FemCandidate(int(e["order"]), int(e["error_level"]),
                        float("nan") if e.get("relative_error") is None
                        else float(e["relative_error"]), float(e["seconds"]), int(e["ndofs"]),
                        str(e["backend"]), mesh=fitted_mesh_name(e["maxh"]))
           for e in (fitted or {}).values()]
    for record in levels:
        for key, entry in record["fem"].get("solve", {}).items():
            backend, order = parse_fem_key(key)
            error = entry.get("relative_error")
            out.append(FemCandidate(order, int(record["level"]),
                                    float("nan") if error is None else float(error),
                                    float(entry["seconds"]), int(entry["ndofs"]), backend))
    return out


def break_even_queries(problems: list[dict[str, Any]], domains: list[str],
                       runs: dict[str, dict[str, Any]], batch: dict[str, Any] | None = None
                       ) -> dict[str, Any]:
    """Per run label and domain the break-even table (every term, per problem, median) of
    the query patterns: whole field and probes one problem at a time, and a batch."""
    out: dict[str, Any] = {}
    for label, facts in runs.items():
        out[label] = {}
        for domain in domains:
            per_problem = _domain_levels(problems, domain)
            errors = [levels[-1]["runs"][label]["relative_error"] for levels in per_problem]
            errors = [float("inf") if e is None else e for e in errors]
            seconds = [p["domains"][domain]["surrogate_seconds"][label] for p in problems]
            queries = {"field": [s["field"] for s in seconds],
                       "probes": [s["probes"] for s in seconds]}
            if (per_batch := batch_seconds(batch, domain, label)) is not None:
                queries["batch"] = [per_batch] * len(problems)
            out[label][domain] = break_even_table(
                [candidates(p["domains"][domain]["levels"], p["domains"][domain].get("fitted"))
                 for p in problems], errors, queries,
                facts.get("generation_seconds"), facts.get("train_seconds"))
    return out


def summarise(evaluation: Any) -> dict[str, Any]:
    """The JSON-safe ``evaluation.json`` dict of a family evaluation."""
    labels = list(evaluation.runs)
    domains = list(evaluation.options.domains)
    tables = {d: error_table(evaluation.problems, d, labels) for d in domains}
    batch = getattr(evaluation, "batch", None) or {}
    return {
        "kind": "family",
        "family": evaluation.family,
        "truth": evaluation.truth,
        "options": evaluation.options.to_dict(),
        "draw": evaluation.draw,
        "runs": evaluation.runs,
        "inference_device": evaluation.inference_device,
        "notes": list(evaluation.notes),
        "error_table": tables,
        "batch": batch,
        "pareto": {d: pareto_points(evaluation.problems, d, tables[d], labels, batch)
                   for d in domains},
        "break_even_queries": break_even_queries(evaluation.problems, domains, evaluation.runs,
                                                 batch),
        "problems": evaluation.problems,
    }


__all__ = ["REGIONS", "batch_seconds", "break_even_queries", "candidates", "error_table",
           "fem_source", "fitted_rows", "pareto_points", "summarise"]
