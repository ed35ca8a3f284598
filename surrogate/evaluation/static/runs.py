"""The runs of a static evaluation: labels, the problem they share, checks, a summary."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError


def run_labels(runs: Sequence[Any]) -> list[str]:
    """Unique short labels of runs: the directory name, prefixed by parents where they clash."""
    paths = [Path(getattr(run, "path", f"run{i}")) for i, run in enumerate(runs)]
    depth = 1
    while True:
        labels = ["/".join(p.parts[-depth:]) or str(p) for p in paths]
        if len(set(labels)) == len(labels) or depth > max(len(p.parts) for p in paths):
            break
        depth += 1
    if len(set(labels)) != len(labels):
        labels = [f"{label}#{i}" for i, label in enumerate(labels)]
    return labels


def resolve_problem_name(runs: Sequence[Any], requested: str | None = None) -> str:
    """The problem every run was trained on; InputError when they differ or differ from
    ``requested``."""
    names = [str(run.dataset.get("problem")) for run in runs]
    labels = run_labels(runs)
    target = requested if requested is not None else names[0]
    for label, name in zip(labels, names, strict=True):
        if name == target:
            continue
        if requested is not None:
            raise InputError(f"run {label!r} was trained on problem {name!r}, not the "
                             f"requested {target!r}")
        raise InputError(f"run {label!r} was trained on problem {name!r}, run {labels[0]!r} "
                         f"on {target!r}; evaluate runs of one problem at a time")
    return target


def check_runs_match_problem(runs: Sequence[Any], problem: Any) -> None:
    """InputError unless every run's input/output names equal the problem's."""
    for label, run in zip(run_labels(runs), runs, strict=True):
        inputs = tuple(run.dataset.get("input_names") or ())
        targets = tuple(run.dataset.get("target_names") or ())
        if inputs != tuple(problem.in_names):
            raise InputError(f"run {label!r} takes inputs {list(inputs)}, but problem "
                             f"{problem.name!r} provides {list(problem.in_names)}")
        if targets and targets != tuple(problem.out_names):
            raise InputError(f"run {label!r} predicts {list(targets)}, but problem "
                             f"{problem.name!r} has outputs {list(problem.out_names)}")
        config = getattr(run, "model_config", None)
        n_in = getattr(config, "in_features", len(inputs))
        n_out = getattr(config, "out_features", len(problem.out_names))
        if n_in != len(problem.in_names) or n_out != len(problem.out_names):
            raise InputError(f"run {label!r}: model maps {n_in} -> {n_out} features, problem "
                             f"{problem.name!r} needs {len(problem.in_names)} -> "
                             f"{len(problem.out_names)}")


def resolve_fem_method(problem: Any, fem: str, notes: list[str]) -> str:
    """The FEM baseline actually used; best approximation needs an exact solution."""
    if getattr(problem, "has_exact", False):
        return fem
    if fem == "none":
        raise InputError(f"problem {problem.name!r} has no exact solution, so a FEM reference "
                         "is needed: use --fem solve (or best) instead of --fem none")
    if fem == "best":
        notes.append(f"problem {problem.name!r} has no exact solution: the best approximation "
                     "needs one, so the N0 solve is used as baseline and its finest level as "
                     "reference")
    return "solve"


def resolve_fem_candidates(problem: Any, options: Any, method: str, notes: list[str]
                           ) -> list[Any]:
    """The FEM methods (backend, order) actually evaluated (registry's
    :func:`~surrogate.fem.hcurl.registry.evaluation_methods`): none without a baseline; a
    problem without an exact solution keeps those whose mixed solve needs none for its
    boundary data (skfem's N0, with a note). A note says when the default left out a backend
    that is not installed."""
    from surrogate.fem.hcurl.registry import backends_note, evaluation_methods

    if method == "none":
        return []
    methods = evaluation_methods(options.fem_backends, options.fem_orders)
    if (note := backends_note(options.fem_backends)) is not None:
        notes.append(note)
    if getattr(problem, "has_exact", False):
        return methods
    kept = [m for m in methods if not m.needs_exact]
    if not kept:
        raise InputError(f"problem {problem.name!r} has no exact solution, and every chosen "
                         "FEM needs one for its boundary data; include the own backend's N0 "
                         "(--fem-backend skfem --fem-order 0), which also gives the reference")
    if len(kept) < len(methods):
        notes.append(f"problem {problem.name!r} has no exact solution: the FEM of higher "
                     "orders and other backends need one for their boundary data, so only "
                     f"{', '.join(m.label for m in kept)} is evaluated")
    return kept


def run_info(run: Any) -> dict[str, Any]:
    """Path, architecture, sizes and learned τ of one run (JSON-safe)."""
    config = getattr(run, "model_config", None)
    info: dict[str, Any] = {"path": str(getattr(run, "path", "")),
                            "training_domain": run.dataset.get("domain"),
                            "problem": run.dataset.get("problem"),
                            "dataset_hash": run.dataset.get("content_hash")}
    if config is not None:
        for key in ("arch", "width", "depth", "tau", "gamma", "activation"):
            info[key] = getattr(config, key, None)
        info["tau_mode"] = "fixed" if getattr(config, "tau", None) is not None else "learned"
    try:
        taus = run.model.taus()
        info["taus"] = [float(t) for t in taus.detach().cpu().numpy().ravel()]
    except (AttributeError, TypeError):
        info["taus"] = None
    train = getattr(run, "train_config", None) or {}
    for key in ("beta", "epochs", "lr", "optimizer", "dtype"):
        if key in train:
            info[key] = train[key]
    if "beta" in train:  # bias ordering (eq. 2.5) is on when its Moreau–Yosida β > 0
        info["bias_ordering"] = bool(float(train["beta"] or 0.0) > 0.0)
    metrics = getattr(run, "metrics", None) or {}
    info["metrics"] = {k: v for k, v in metrics.items() if isinstance(v, int | float | str)}
    return info


__all__ = ["check_runs_match_problem", "resolve_fem_candidates", "resolve_fem_method",
           "resolve_problem_name",
           "run_info", "run_labels"]
