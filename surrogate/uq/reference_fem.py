"""Which FEM is a study's high-fidelity model: the user's words, an evaluation's, or the default.

In order, per part (backend, order, level, domain): what the user named; with
``--evaluation evaluation.json`` (a family ``surrogate evaluate`` result of this run) the FEM
that evaluation found fastest at the run's error on its median problem
(``break_even_queries[run][domain].queries.field.median_problem.fem``: any backend, order and
level whose error reaches the surrogate's there, the fastest recorded), on that evaluation's
test domain; else :data:`DEFAULT_FEM`, the documented choice for every family. When no
evaluated FEM reaches the surrogate's error, the evaluation's most accurate one is taken and
the record says so. A fitted candidate (``inclusion``: each member meshed to fit its ball,
``"mesh": "fitted maxh 0.5"``) is taken as such: ``maxh`` set, and ``level`` the one of
:data:`DEFAULT_FEM`, where the quantities' points lie (the evaluation's level was where it
measured errors, not the FEM's mesh). Torch-free.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError
from surrogate.evaluation.family.fitted import fitted_maxh_of

DEFAULT_FEM = ("skfem", 1, 2)
"""The FEM of reference when neither the user nor an evaluation names one, for every family:
the toolkit's complete-linear mixed solve on level 2 of the test domain (on ``radial``'s cube:
relative L² error 1.4 % median, 4.3 % max over 8 draws, 18 ms a solve on one thread)."""


def _run_label(runs: dict[str, Any], run_path: Path) -> str | None:
    """The evaluation's label of the run at ``run_path``: its recorded path resolves to it,
    else (a path recorded relative to where evaluate ran) the one run of the same folder
    name; None when neither."""
    paths = {name: Path(facts["path"]) for name, facts in runs.items()
             if isinstance(facts, dict) and facts.get("path")}
    wanted = run_path.resolve()
    same = [name for name, path in paths.items() if path.resolve() == wanted]
    if not same:
        same = [name for name, path in paths.items() if path.name == wanted.name]
    return same[0] if len(same) == 1 else None


def _evaluated_fem(path: str | Path, run_path: str | Path, domain: str | None,
                   preferred: str) -> dict[str, Any]:
    """The median problem's fastest FEM at the run's error in the evaluation at ``path``."""
    try:
        evaluation = json.loads(Path(path).read_text())
        tables = evaluation["break_even_queries"]
        runs = evaluation.get("runs", {})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a family evaluation.json ({exc})") from None
    label = _run_label(runs, Path(run_path))
    if label is None and len(tables) == 1:
        label = next(iter(tables))  # one run evaluated: that one
    if label not in tables:
        raise InputError(f"{path}: no break-even table of the run {run_path} (runs: "
                         f"{', '.join(tables) or 'none'})")
    domains = tables[label]
    chosen = domain or (preferred if preferred in domains else next(iter(domains), None))
    if chosen not in domains:
        raise InputError(f"{path}: run {label!r} was not evaluated on {chosen!r} (domains: "
                         f"{', '.join(domains)})")
    queries = domains[chosen].get("queries", {})
    entry = (queries.get("field") or next(iter(queries.values()), {})).get("median_problem", {})
    fem = entry.get("fem")
    if not fem:
        raise InputError(f"{path}: the evaluation of {label!r} on {chosen!r} has no FEM "
                         "result on its median problem")
    maxh = fitted_maxh_of(fem.get("mesh"))
    level = {"level": int(fem["level"])} if maxh is None else {
        "level": DEFAULT_FEM[2], "maxh": maxh, "error_level": int(fem["level"])}
    return {"backend": str(fem["backend"]), "order": int(fem["order"]), **level,
            "domain": chosen, "evaluation": str(path),
            "run_label": label, "surrogate_error": entry.get("surrogate_error"),
            "fem_error": fem.get("error"), "fem_seconds": fem.get("seconds"),
            "lower_bound": bool(entry.get("fem_lower_bound"))}


def reference_fem(options: Any, run_path: str | Path, preferred: str) -> dict[str, Any]:
    """``{"backend", "order", "level", "domain", "source", ...}`` (and ``"maxh"`` for a
    fitted mesh) of the study's FEM from ``options`` (a ModelOptions: its ``fem_*``,
    ``domain`` and ``evaluation``); the evaluation's test domain is ``preferred`` when it has
    it, else its first."""
    named = {"backend": options.fem_backend, "order": options.fem_order,
             "level": options.fem_level, "maxh": options.fem_maxh}
    base: dict[str, Any] = dict(zip(("backend", "order", "level"), DEFAULT_FEM, strict=True))
    base.update(domain=options.domain, source="default")
    if options.evaluation is not None:
        base = {**_evaluated_fem(options.evaluation, run_path, options.domain, preferred),
                "source": "evaluation"}
    given = {k: v for k, v in named.items() if v is not None}
    if given:
        whole = all(named[k] is not None for k in ("backend", "order", "level")) and (
            options.fem_maxh is not None or "maxh" not in base)
        base.update(given, source="options" if whole else base["source"] + " and options")
    if not base.get("maxh"):
        base.pop("maxh", None)  # 0: the level's mesh
    return base


__all__ = ["DEFAULT_FEM", "reference_fem"]
