"""Surrogates of a problem family on K unseen members, next to Nédélec FEM (issue 17, item 4).

K parameter draws μ from the run's parameter box (``--extrapolate``: the box widened by 25 %
of its width per side) with a seed the training data did not use. Each member is evaluated on
the test domains (a family with a closed-form u: the cube by default, any built-in domain;
a FEM-truth family: its training domain, u_ref = the data's FEM truth, level or fitted,
:func:`truth_choice`) at every level: the relative L² error ‖u_ref − v‖/‖u_ref‖ by
quadrature of each surrogate and of the Nédélec baselines (every (backend, order) of the
FEM-method registry within ``--fem-max-dofs``: best approximation where offered, mixed
solve), over the whole domain, inside / outside the training domain and, with an
interface, near / away from it (:mod:`surrogate.evaluation.family.fem`). The surrogate's
time per query is measured for the whole field (network rows at the finest mesh's nodes
+ inference) and for u at the probe points; the distributions and the break-even counts
are built by :mod:`surrogate.evaluation.family.summary`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.devices import device_description, resolve_inference_device
from surrogate.evaluation.family.fem import LevelRules, level_fem, relative_errors
from surrogate.evaluation.family.fitted import fitted_fem
from surrogate.evaluation.family.options import FamilyEvaluationOptions
from surrogate.evaluation.family.query_timing import QueryTimer, batch_params
from surrogate.fem.families.family import Family, FamilyProblem
from surrogate.fem.families.truth import TruthSpec

ProgressCallback = Callable[[int, int, str], None]
SEED_OFFSET = 1
"""Default seed of the unseen draw: the training data's seed + this (a fresh Sobol scramble)."""


def family_of_runs(configs: Sequence[dict[str, Any]]) -> str | None:
    """The family name shared by runs' dataset sections; None when no run is a family run.

    InputError for runs of different families or a family run beside a single-problem run.
    """
    names = [c.get("family") for c in configs]
    if all(n is None for n in names):
        return None
    if any(n is None for n in names):
        raise InputError("a run of a problem family cannot be evaluated beside a run of a "
                         "single problem; evaluate them separately")
    if len(set(names)) > 1:
        raise InputError(f"runs of different families ({', '.join(sorted(set(names)))}) cannot "
                         "be evaluated together")
    return str(names[0])


@dataclass
class FamilyPredictor:
    """One run as a function of (points, problem): its network rows and inference."""

    label: str
    run: Any = field(repr=False)
    kind: str
    sensors: Any = field(repr=False)
    batch_size: int | None = None

    @classmethod
    def from_run(cls, label: str, run: Any, batch_size: int | None) -> FamilyPredictor:
        """The predictor of a loaded run (its inputs kind and sensor layout from config.json)."""
        from surrogate.fem.families import recorded_sensors

        kind = str(getattr(run.model_config, "inputs", "pointwise"))
        sensors = recorded_sensors(run) if kind == "fields" else None
        return cls(label, run, kind, sensors, batch_size)

    def __call__(self, points: np.ndarray, problem: FamilyProblem) -> np.ndarray:
        """u_NN (n, 3) at ``points`` (n, 3) for ``problem``: rows (incl. sensor values) + net."""
        from surrogate.fem.families import sensor_values
        from surrogate.training.family_inputs import network_inputs

        values = sensor_values(problem, self.sensors) if self.kind == "fields" else None
        rows = network_inputs(self.kind, points, problem, sensor_values=values)
        return np.asarray(self.run.predict(rows, batch_size=self.batch_size), dtype=float)


@dataclass
class FamilyEvaluation:
    """What :func:`evaluate_family_runs` measured: the raw per-problem records.

    ``problems[k]``: ``{"index", "params", "domains": {name: {"levels": [...],
    "surrogate_seconds": {label: {"field", "probes"}}}}}``; each level record has the mesh
    facts, ``"fem": {method: {"backend:order": errors + seconds + ndofs}}`` (registry
    :func:`~surrogate.fem.hcurl.registry.fem_key`) and ``"runs": {label:
    errors}``; a domain with fitted candidates also ``"fitted": {"ngsolve:k@maxh": errors +
    seconds (meshing included) + mesh_seconds + ndofs}`` (:mod:`.fitted`). ``runs``: per
    label path, arch, inputs and the one-off seconds. ``batch``:
    ``{"problems": B, "seconds": {domain: {label: per problem}}, "setup_seconds": {domain:
    {label: predictor set-up}}}`` (:mod:`surrogate.evaluation.family.query_timing`).
    """

    family: str
    truth: str
    options: FamilyEvaluationOptions
    params: np.ndarray
    draw: dict[str, Any]
    runs: dict[str, dict[str, Any]]
    problems: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    inference_device: str = "cpu"
    batch: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``evaluation.json``: the records plus distributions and ``break_even_queries``."""
        from surrogate.evaluation.family.summary import summarise

        return summarise(self)


def run_facts(run: Any) -> dict[str, Any]:
    """Path, architecture, inputs kind and one-off seconds (generation, training) of a run."""
    metrics = getattr(run, "metrics", {}) or {}
    train = metrics.get("train_seconds", metrics.get("fit_seconds"))
    return {"path": str(run.path), "arch": str(getattr(run.model_config, "arch", "?")),
            "inputs": str(getattr(run.model_config, "inputs", "pointwise")),
            "generation_seconds": run.dataset.get("generation_seconds"),
            "train_seconds": None if train is None else float(train),
            "problems": run.dataset.get("problems"),
            "training_problems": _training_problems(run.dataset)}


def _training_problems(dataset: dict[str, Any]) -> int | None:
    """Problems of the training split: the file's problems × its training share of the
    samples (every problem has the same number of points); None when unrecorded."""
    problems, samples = dataset.get("problems"), dataset.get("n_samples")
    train = (dataset.get("splits") or {}).get("train")
    if not (problems and samples and train is not None):
        return None
    return int(round(int(problems) * int(train) / int(samples)))


def _recorded(run: Any, key: str) -> Any:
    """A value of the run's dataset section, or of the dataset's recipe recorded there."""
    value = run.dataset.get(key)
    recipe = run.dataset.get("recipe")
    return value if value is not None or not isinstance(recipe, dict) else recipe.get(key)


def draw_problems(family: Any, runs: Sequence[Any], options: FamilyEvaluationOptions
                  ) -> tuple[np.ndarray, dict[str, Any]]:
    """(K, p) unseen parameters from the runs' box (widened with ``--extrapolate``)."""
    box = runs[0].dataset.get("param_box")
    box = np.asarray(family.box if box is None else box, dtype=float)
    seed = options.seed
    if seed is None:
        seed = int(_recorded(runs[0], "seed") or 0) + SEED_OFFSET
    params = family.sample(options.problems, seed, widen=options.widen, box=box)
    return params, {"box": box.tolist(), "widen": options.widen, "seed": seed,
                    "method": "sobol", "problems": int(len(params))}


def truth_choice(run: Any, levels: Sequence[int], requested: int | None = None
                 ) -> TruthSpec:
    """The FEM truth that judges the unseen problems (a :class:`TruthSpec`; the toolkit's
    order naming).

    A run whose data used the fitted truth (``truth_mesh`` "fitted") is judged by the same
    fitted truth (its order and maxh); ``requested`` (``--truth-level``) is then an
    InputError: a level truth would be less accurate than the data. A level truth: the
    run's recorded order and level (:func:`recorded_truth_order`; ``requested`` replaces
    the recorded level), the level raised so that the truth is a better space than every
    evaluated level of the same order and N0 ones. Complete linear on level L is more
    accurate than N0 on level L + 1 (inclusion, cylinder: 0.034 against 0.088,
    fem/families/truth.py), so level = max(recorded, max N0 level − 1); an N0 truth takes
    max(recorded, max level + 1). Complete-linear baselines run below a complete-linear
    truth's level only (:func:`higher_order_levels`)."""
    from surrogate.fem.families import TRUTH_LEVEL

    order = recorded_truth_order(run)
    if _recorded(run, "truth_mesh") == "fitted":
        if requested is not None:
            raise InputError("--truth-level applies to a level truth; this run's data used "
                             "the fitted truth, which also judges its evaluation")
        return TruthSpec(order, None, "fitted", float(_recorded(run, "truth_maxh")))
    recorded = int(requested or _recorded(run, "truth_level") or TRUTH_LEVEL)
    return TruthSpec(order, max(recorded, max(levels) - 1 if order >= 1
                                else max(levels) + 1))


def recorded_truth_order(run: Any) -> int:
    """The order of the run's data truth in the toolkit's naming: ``truth_fem_order``, else
    a legacy ``truth_order`` (1 = N0, 2 = complete linear), else 0 (older data: N0)."""
    from surrogate.fem.hcurl.registry import order_from_legacy

    order = _recorded(run, "truth_fem_order")
    if order is not None:
        return int(order)
    legacy = _recorded(run, "truth_order")
    return 0 if legacy is None else order_from_legacy(int(legacy))


def fem_candidates(options: FamilyEvaluationOptions) -> list[Any]:
    """The (backend, order) FEM candidates of the registry for these options."""
    from surrogate.fem.hcurl.registry import evaluation_methods

    return evaluation_methods(options.fem_backends, options.fem_orders)


def higher_order_levels(levels: Sequence[int], options: FamilyEvaluationOptions,
                        truth: TruthSpec | None) -> list[int]:
    """Levels of the baselines of order ≥ 1: ≤ ``higher_order_max_level``; with a level FEM
    truth only below a complete-linear truth's level (none against an N0 truth: it is less
    accurate than them); a fitted truth (≈ 0.2 %, order 3) judges them on every level."""
    if max(m.order for m in fem_candidates(options)) < 1:
        return []
    top = options.higher_order_max_level
    if truth is not None and not truth.fitted:
        top = min(top, truth.level - 1) if truth.order >= 1 else 0
    return [level for level in levels if level <= top]


def evaluate_family_runs(runs: Sequence[Any], family: Any, options: FamilyEvaluationOptions,
                         *, labels: Sequence[str] | None = None,
                         on_progress: ProgressCallback | None = None) -> FamilyEvaluation:
    """Errors of every run and FEM baseline on K unseen problems, and the query timings."""
    from surrogate.evaluation.static.runs import run_labels
    from surrogate.fem.domains import get_domain

    progress = on_progress or (lambda done, total, description: None)
    options = options.resolved(family)
    labels = list(labels or run_labels(runs))
    device = resolve_inference_device(options.device)
    for run in runs:
        run.model.to(device)
    predictors = [FamilyPredictor.from_run(label, run, options.batch_size)
                  for label, run in zip(labels, runs, strict=True)]
    params, draw = draw_problems(family, runs, options)
    training = get_domain(family.training_domain)
    domains = [get_domain(name) for name in options.domains]
    levels = list(options.levels)
    geometries: dict[tuple[str, int, int], Any] = {}
    rng = np.random.default_rng(draw["seed"])
    probes = {d.name: d.sample(options.probes, rng) for d in domains}
    truth = None if family.has_exact else truth_choice(runs[0], levels, options.truth_level)
    notes = _notes(family, options, levels, truth)
    skipped: set[str] = set()
    first = family.problem(params[0])
    for p in predictors:  # pay torch's lazy start outside the timings
        p(np.full((4, 3), 0.5), first)
    timers = {d.name: [QueryTimer.build(label, run, d.mesh(levels[-1]).p.T, probes[d.name],
                                        device, params[0])
                       for label, run in zip(labels, runs, strict=True)] for d in domains}

    problems, total = [], len(params) * len(domains)
    for k, mu in enumerate(params):
        problem = family.problem(mu)
        record: dict[str, Any] = {"index": k, "params": [float(v) for v in mu], "domains": {}}
        for j, domain in enumerate(domains):
            progress(k * len(domains) + j, total, f"problem {k + 1}/{len(params)} on "
                                                  f"{domain.name}")
            record["domains"][domain.name] = _problem_on_domain(
                problem, family, domain, training, levels, geometries, probes[domain.name],
                predictors, options, truth, skipped)
            record["domains"][domain.name]["surrogate_seconds"] = {
                t.label: t.one_problem(mu, options.repeats) for t in timers[domain.name]}
        problems.append(record)
    progress(total, total, "batched queries")
    many = batch_params(params, options.query_batch)
    batch = {"problems": len(many),
             "seconds": {d: {t.label: t.batch(many, options.repeats) for t in ts}
                         for d, ts in timers.items()},
             "setup_seconds": {d: {t.label: t.setup_seconds for t in ts}
                               for d, ts in timers.items()}}
    progress(total, total, "done")
    if skipped:
        notes.append(f"FEM candidates left out: {'; '.join(sorted(skipped))}")
    return FamilyEvaluation(
        family=family.name,
        truth="exact" if truth is None else truth.description(family.training_domain),
        options=options, params=params, draw=draw,
        runs={label: run_facts(run) for label, run in zip(labels, runs, strict=True)},
        problems=problems, notes=notes, inference_device=device_description(device),
        batch=batch)


def _notes(family: Any, options: FamilyEvaluationOptions, levels: Sequence[int],
           truth: TruthSpec | None) -> list[str]:
    from surrogate.fem.hcurl.registry import backends_note

    notes = ["FEM time per query = mesh → u_h (the backend's stages, mesh generation "
             "excluded); the probe query pays the same FEM time (the FEM solves the whole "
             "problem)"]
    if options.fem_fitted_maxh:
        notes.append("fitted candidates (ngsolve on each member's own mesh fitted to its "
                     f"interface, maxh {', '.join(f'{h:g}' for h in options.fem_fitted_maxh)})"
                     ": their time mesh → u_h includes the meshing and curving")
    if (note := backends_note(options.fem_backends)) is not None:
        notes.append(note)
    higher = higher_order_levels(levels, options, truth)
    top = max(m.order for m in fem_candidates(options))
    if top >= 1 and (truth is None or truth.fitted):
        notes.append(f"Nédélec of order ≥ 1 runs on levels ≤ {options.higher_order_max_level}")
    elif top >= 1 and higher:
        notes.append(f"Nédélec of order ≥ 1 runs on levels ≤ {max(higher)} (below the "
                     "truth's level; u × n = 0 is exact boundary data for it)")
    elif top >= 1:
        why = "an N0 truth cannot judge" if truth.order == 0 else "no level below the truth for"
        notes.append(f"family {family.name!r}: {why} the spaces of order ≥ 1: only N0 is "
                     "compared")
    if truth is not None:
        notes.append(f"u_ref = the {truth.description(family.training_domain)}")
    return notes


def _problem_on_domain(problem: FamilyProblem, family: Family, domain: Any, training: Any,
                       levels: Sequence[int], geometries: dict[tuple[str, int, int], Any],
                       probe_points: np.ndarray, predictors: Sequence[FamilyPredictor],
                       options: FamilyEvaluationOptions, truth: TruthSpec | None,
                       skipped: set[str]) -> dict[str, Any]:
    """Level records of one problem on one domain, and the surrogates' query times."""
    truth_solution = None if truth is None else truth.solve(problem, domain.name)
    higher = higher_order_levels(levels, options, truth)
    candidates = fem_candidates(options)
    out_levels, geometry = [], None
    for level in levels:
        rules = LevelRules(domain, level, training, problem, truth_solution, geometries)
        geometry, ref = rules.at(options.intorder)
        record: dict[str, Any] = {**geometry.facts(), "runs": {},
                                  "fem": level_fem(rules, candidates, family, options, higher,
                                                   skipped)}
        for predictor in predictors:
            record["runs"][predictor.label] = relative_errors(
                predictor(geometry.points, problem), ref, geometry.weights)
        out_levels.append(record)
    out = {"levels": out_levels, "field_nodes": int(geometry.nodes.shape[0]),
           "n_probes": int(len(probe_points))}
    if options.fem_fitted_maxh and domain.name == str(family.training_domain):
        out["fitted"] = fitted_fem(rules, options, skipped)  # judged on the finest level
    return out


def load_family_runs(run_dirs: Sequence[Any], options: FamilyEvaluationOptions
                     ) -> tuple[list[Any], Any, FamilyEvaluationOptions]:
    """(runs, family, resolved options) of family run directories; every user error first."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.families import get_family
    from surrogate.runs.load import load_run

    resolve_inference_device(options.device)
    runs = [load_run(path) for path in run_dirs]
    name = family_of_runs([run.dataset for run in runs])
    if name is None:
        raise InputError("these runs were not trained on a problem family")
    family = get_family(name)
    options = options.resolved(family)
    for domain in options.domains:
        get_domain(domain)
    for run in runs:
        FamilyPredictor.from_run(str(run.path), run, None)
    if not family.has_exact:  # e.g. --truth-level with a fitted-truth run, no NGSolve
        truth_choice(runs[0], options.levels, options.truth_level).require()
    return runs, family, options


def measure_family(runs: Sequence[Any], family: Any, options: FamilyEvaluationOptions,
                   plots_dir: Any, on_progress: ProgressCallback | None = None
                   ) -> tuple[FamilyEvaluation, dict[str, Any], dict[str, Any] | None]:
    """(evaluation, ``evaluation.json`` dict, figures or None): the measurement, then the
    Pareto figure in ``plots_dir`` when given."""
    evaluation = evaluate_family_runs(runs, family, options, on_progress=on_progress)
    summary = evaluation.to_dict()
    figures = None
    if plots_dir is not None:
        from surrogate.evaluation.family.plots import make_family_figures

        figures = make_family_figures(summary, plots_dir)
        summary["figures"] = figures
    return evaluation, summary, figures


__all__ = ["FamilyEvaluation", "FamilyPredictor", "SEED_OFFSET", "draw_problems",
           "evaluate_family_runs", "family_of_runs", "fem_candidates", "load_family_runs",
           "measure_family",
           "higher_order_levels", "recorded_truth_order", "run_facts", "truth_choice"]
