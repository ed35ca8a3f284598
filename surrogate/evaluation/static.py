"""Surrogates against Nédélec (N0) baselines on test domains (τ-learning paper §7, Figs. 3–5).

For every test domain Ω̃ and mesh level, errors are integrated by quadrature on Ω̃'s mesh
(``quadrature_rule``; not by point sampling):

    ‖u − u_NN‖_{L²(Ω̃)}  and  ‖u − u_h‖_{L²(Ω̃)},  u_h ∈ N0(Ω̃) (best approximation or solve),

each also split into the part of Ω̃ inside the run's training domain Ω (in-distribution) and
the part outside (extrapolation) by masking the quadrature weights with ``Ω.contains``.
The FEM baseline does not depend on the run: it is computed once per domain and level.

Where the problem has no exact solution the reference u is the N0 solve on the finest
requested level of each domain (``reference = "fem-solve level L"`` in the records); u_ref is
evaluated at the coarser levels' quadrature points by point location, points outside the
finest mesh are left out (``reference_coverage`` says which volume fraction was compared),
and the FEM error at the finest level itself is not reported (it would be 0 by definition).

This is the one module of ``surrogate`` that imports ``surrogate.fem``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

ProgressCallback = Callable[[int, int, str], None]

FEM_CHOICES = ("best", "solve", "none")
SOLVER_CHOICES = ("auto", "direct", "iterative")
DEVICE_CHOICES = ("cpu", "cuda", "auto")
_AXES = {"x": 0, "y": 1, "z": 2, "x1": 0, "x2": 1, "x3": 2}
_AXIS_NAMES = ("x1", "x2", "x3")


@dataclass(frozen=True)
class EvaluationOptions:
    """Resolved options of one evaluation (written into ``evaluation.json``)."""

    domains: tuple[str, ...] = ("cube",)
    levels: tuple[int, ...] = (1, 2, 3, 4)
    fem: str = "best"
    solver: str = "auto"
    intorder: int = 4
    slice_axis: int = 2
    slice_value: float = 0.5
    slice_resolution: int = 201
    batch_size: int | None = None
    device: str = "cpu"

    def __post_init__(self) -> None:
        if not self.domains:
            raise InputError("at least one --domain is needed")
        if not self.levels or min(self.levels) < 1:
            raise InputError(f"levels must be >= 1, got {list(self.levels)}")
        if self.fem not in FEM_CHOICES:
            raise InputError(f"unknown FEM baseline {self.fem!r}; choose one of: "
                             f"{', '.join(FEM_CHOICES)}")
        if self.solver not in SOLVER_CHOICES:
            raise InputError(f"unknown solver {self.solver!r}; choose one of: "
                             f"{', '.join(SOLVER_CHOICES)}")
        if self.device not in DEVICE_CHOICES:
            raise InputError(f"unknown device {self.device!r}; choose one of: "
                             f"{', '.join(DEVICE_CHOICES)}")
        if self.intorder < 1:
            raise InputError(f"quadrature order must be >= 1, got {self.intorder}")
        if self.slice_axis not in (0, 1, 2):
            raise InputError(f"slice axis must be 0, 1 or 2, got {self.slice_axis}")
        if self.slice_resolution < 2:
            raise InputError(f"slice resolution must be >= 2, got {self.slice_resolution}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (the slice as ``"x3=0.5"``)."""
        out = asdict(self)
        out["domains"], out["levels"] = list(self.domains), list(self.levels)
        out["slice"] = f"{_AXIS_NAMES[self.slice_axis]}={self.slice_value:g}"
        return out


def parse_slice(text: str) -> tuple[int, float]:
    """Parse ``"z=0.5"`` (also ``x``, ``y``, ``x1``, ``x2``, ``x3``) into (axis index, value)."""
    name, sep, value = text.partition("=")
    axis = _AXES.get(name.strip().lower())
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not sep or axis is None or not np.isfinite(number):
        raise InputError(f"--slice {text!r}: expected AXIS=VALUE with AXIS one of x, y, z "
                         "(e.g. 'z=0.5')")
    return axis, number


@dataclass
class Evaluation:
    """What :func:`evaluate_runs` measured.

    ``records``: one JSON-safe dict per (domain, level); ``runs``: per run label its path,
    architecture and learned τ; ``slices``: arrays for the slice figures (see
    :func:`slice_fields`); ``histories``: per run label the training history rows.
    """

    problem: str
    reference: str
    options: EvaluationOptions
    records: list[dict[str, Any]]
    runs: dict[str, dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    vtk: dict[str, Any] | None = None
    inference_device: str = "cpu"
    slices: dict[str, Any] | None = None
    histories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    reference_solutions: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (``evaluation.json``): options, runs, records, notes."""
        return {
            "problem": self.problem,
            "reference": self.reference,
            "options": self.options.to_dict(),
            "runs": self.runs,
            "records": self.records,
            "notes": list(self.notes),
            "inference_device": self.inference_device,
            "vtk": self.vtk,
        }


# --------------------------------------------------------------------------------- validation


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


def resolve_inference_device(name: str) -> str:
    """"cpu" | "cuda" from "cpu" | "cuda" | "auto"; InputError when CUDA is asked for but absent."""
    if name not in DEVICE_CHOICES:
        raise InputError(f"unknown device {name!r}; choose one of: {', '.join(DEVICE_CHOICES)}")
    if name == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if name == "cuda":
        raise InputError("--device cuda: no CUDA device is available here; use cpu or auto")
    return "cpu"


def _device_description(device: str) -> str:
    """E.g. "cpu (2 threads)" or "cuda (NVIDIA H100 80GB HBM3)"."""
    import torch

    if device == "cuda":
        return f"cuda ({torch.cuda.get_device_name()})"
    return f"cpu ({torch.get_num_threads()} threads)"


# ---------------------------------------------------------------------------------- numerics


def fem_baseline(mesh, problem, method: str, solver: str):
    """The N0 baseline on ``mesh``: H(curl) best approximation or mixed solve (NedelecSolution)."""
    from surrogate.fem import nedelec

    methods = {"best": nedelec.best_approximation, "solve": nedelec.solve_maxwell}
    return methods[method](mesh, problem, solver=solver)


def split_errors(diff: np.ndarray, weights: np.ndarray, reference: np.ndarray,
                 mask: np.ndarray | None = None) -> dict[str, float | None]:
    """{"l2_error": ‖diff‖, "relative_error": ‖diff‖/‖reference‖} over the masked points."""
    from surrogate.fem.quadrature import l2_norm

    if mask is not None and not mask.any():
        return {"l2_error": None, "relative_error": None}
    err = l2_norm(diff, weights, mask)
    norm = l2_norm(reference, weights, mask)
    return {"l2_error": err, "relative_error": err / norm if norm > 0 else None}


def _timed_predict(run: Any, inputs: np.ndarray, batch_size: int) -> tuple[np.ndarray, float]:
    """u_NN at ``inputs`` (N, d_in) -> ((N, d_out), seconds of inference)."""
    start = time.perf_counter()
    values = np.asarray(run.predict(inputs, batch_size=batch_size), dtype=float)
    return values, time.perf_counter() - start


def field_on_mesh_seconds(run: Any, problem: Any, nodes: np.ndarray,
                          batch_size: int | None, repeats: int = 3) -> float:
    """Median wall time of producing u_NN on a mesh: inputs [x, f, φ] at its nodes + inference.

    This is the surrogate's counterpart of an N0 solve (which produces u_h on the mesh); both
    exclude the error evaluation at quadrature points.
    """
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run.predict(problem.inputs(nodes), batch_size=batch_size)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _run_info(run: Any) -> dict[str, Any]:
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


def _reference_on(points: np.ndarray, reference_solution) -> np.ndarray:
    """u_ref at points from the finest N0 solve, NaN rows where a point is outside its mesh."""
    return reference_solution.values_at(points, outside="nan")


def evaluate_runs(
    runs: Sequence[Any],
    problem: Any,
    options: EvaluationOptions,
    *,
    vtk_dir: str | Path | None = None,
    on_progress: ProgressCallback | None = None,
) -> Evaluation:
    """Errors and timings of every run on every test domain and level (Figs. 3–5).

    ``runs`` are loaded runs (``.predict``, ``.dataset``, ``.model_config``), already checked
    with :func:`check_runs_match_problem`. With ``vtk_dir`` one ``.vtu`` per domain and level
    and one ``.pvd`` per domain are written there (see :func:`write_level_vtu`).
    """
    from surrogate.fem.domains import get_domain
    from surrogate.fem.quadrature import quadrature_rule

    progress = on_progress or (lambda done, total, description: None)
    notes: list[str] = []
    method = resolve_fem_method(problem, options.fem, notes)
    has_exact = bool(getattr(problem, "has_exact", False))
    labels = run_labels(runs)
    domains = [get_domain(name) for name in options.domains]
    training = {name: get_domain(name) for name in
                dict.fromkeys(str(run.dataset.get("domain")) for run in runs)}
    levels = sorted(set(options.levels))
    finest = levels[-1]
    device = resolve_inference_device(options.device)
    for run in runs:
        if hasattr(getattr(run, "model", None), "to"):
            run.model.to(device)
    for run in runs:  # first call pays torch's lazy initialisation; keep it out of timings
        run.predict(problem.inputs(np.full((4, 3), 0.5)), batch_size=options.batch_size)

    records: list[dict[str, Any]] = []
    reference_solutions: dict[str, Any] = {}
    vtk_entries: dict[str, list[tuple[int, str]]] = {}
    total_steps = len(domains) * len(levels)
    step = 0
    for domain in domains:
        reference_solution = None
        if not has_exact:  # the finest solve first: it is the reference of every level
            progress(step, total_steps, f"{domain.name}: reference solve, level {finest}")
            reference_solution = fem_baseline(domain.mesh(finest), problem, method,
                                              options.solver)
            reference_solutions[domain.name] = reference_solution
        for level in levels:
            progress(step, total_steps, f"{domain.name} level {level}")
            mesh = domain.mesh(level)
            points, weights = quadrature_rule(mesh, options.intorder)
            if has_exact:
                u_ref = problem.u(points)
                keep = None
            else:
                u_ref = _reference_on(points, reference_solution)
                keep = ~np.isnan(u_ref).any(axis=1)
                u_ref = np.where(keep[:, None], u_ref, 0.0)
            volume = float(weights.sum())
            record: dict[str, Any] = {
                "domain": domain.name, "level": level, "h": float(domain.mesh_size(level)),
                "n_cells": int(mesh.t.shape[1]), "n_nodes": int(mesh.p.shape[1]),
                "n_quadrature": int(len(weights)), "volume": volume,
                "reference": "exact" if has_exact else f"fem-solve level {finest}",
            }
            if keep is not None:
                record["reference_coverage"] = float(weights[keep].sum() / volume)
            masks = {name: dom.contains(points) for name, dom in training.items()}
            record["inside_fraction"] = {name: float(weights[m].sum() / volume)
                                         for name, m in masks.items()}

            def _masked(mask: np.ndarray | None, keep=keep) -> np.ndarray | None:
                if keep is None:
                    return mask
                return keep if mask is None else (mask & keep)

            def _errors(values: np.ndarray, u_ref=u_ref, weights=weights, masks=masks,
                        training_names=None) -> dict[str, Any]:
                diff = values - u_ref
                out = split_errors(diff, weights, u_ref, _masked(None))
                names = training_names or list(masks)
                out["split"] = {name: {"inside": split_errors(diff, weights, u_ref,
                                                              _masked(masks[name])),
                                       "outside": split_errors(diff, weights, u_ref,
                                                               _masked(~masks[name]))}
                                for name in names}
                return out

            solution = None
            if method != "none":
                is_reference = reference_solution is not None and level == finest
                solution = reference_solution if is_reference else fem_baseline(
                    mesh, problem, method, options.solver)
                u_h = solution.values_at_quadrature(options.intorder)
                fem_record = {"method": method, "ndofs": int(solution.ndofs)}
                if is_reference:
                    fem_record.update({"l2_error": None, "relative_error": None,
                                       "is_reference": True})
                else:
                    fem_record.update(_errors(u_h))
                seconds = {k: float(v) for k, v in solution.timings.items()}
                seconds["total"] = float(sum(solution.timings.values()))
                fem_record["seconds"] = seconds
                info = solution.solve_info
                fem_record["solver"] = info.to_dict() if hasattr(info, "to_dict") else None
                record["fem"] = fem_record
            else:
                record["fem"] = None

            inputs_start = time.perf_counter()
            inputs = problem.inputs(points)
            inputs_seconds = time.perf_counter() - inputs_start
            record["runs"] = {}
            u_nn_by_label: dict[str, np.ndarray] = {}
            for label, run in zip(labels, runs, strict=True):
                u_nn, seconds = _timed_predict(run, inputs, options.batch_size)
                u_nn_by_label[label] = u_nn
                run_record = _errors(u_nn, training_names=[str(run.dataset.get("domain"))])
                run_record["training_domain"] = str(run.dataset.get("domain"))
                split = run_record.pop("split")[run_record["training_domain"]]
                run_record["inside"], run_record["outside"] = split["inside"], split["outside"]
                field_seconds = field_on_mesh_seconds(run, problem, mesh.p.T, options.batch_size)
                run_record["seconds"] = {"inputs": inputs_seconds, "inference": seconds,
                                         "field_on_mesh": field_seconds}
                fem_seconds = record["fem"]["seconds"]["total"] if record["fem"] else None
                run_record["speedup_vs_fem"] = (fem_seconds / field_seconds
                                                if fem_seconds and field_seconds > 0 else None)
                run_record["speedup_vs_fem_quadrature"] = (
                    fem_seconds / seconds if fem_seconds and seconds > 0 else None)
                record["runs"][label] = run_record
            records.append(record)

            if vtk_dir is not None:
                name = write_level_vtu(Path(vtk_dir), domain.name, level, mesh, problem,
                                       runs, labels, solution, reference_solution,
                                       batch_size=options.batch_size)
                vtk_entries.setdefault(domain.name, []).append((level, name))
            step += 1
            progress(step, total_steps, f"{domain.name} level {level}")

    vtk_summary = None
    if vtk_dir is not None:
        vtk_summary = write_collections(Path(vtk_dir), vtk_entries, labels,
                                        has_exact=has_exact, fem=method != "none")
    histories = {label: list(getattr(run, "history", []) or [])
                 for label, run in zip(labels, runs, strict=True)}
    return Evaluation(
        problem=problem.name,
        reference="exact" if has_exact else f"fem-solve on the finest level ({finest})",
        options=options, records=records,
        runs={label: _run_info(run) for label, run in zip(labels, runs, strict=True)},
        notes=notes, vtk=vtk_summary, histories=histories,
        inference_device=_device_description(device),
        reference_solutions=reference_solutions,
    )


# --------------------------------------------------------------------------------------- VTK

VTK_POINT_FIELDS = {
    "u_exact": "exact solution at the nodes (problems with an exact solution)",
    "u_reference": "finest N0 solve at the nodes, NaN outside its mesh (no exact solution)",
    "u_nn": "surrogate of the first run at the nodes",
    "u_nn_<label>": "surrogate of every further run at the nodes",
    "u_fem": "N0 field projected to the nodes: volume-weighted average of the cell values",
    "error_nn": "|u - u_nn| at the nodes (Euclidean norm; error_nn_<label> for further runs)",
    "error_fem": "|u - u_fem| at the nodes (includes the nodal averaging)",
}
VTK_CELL_FIELDS = {
    "u_fem": "N0 field at the cell centres (exact evaluation, no averaging)",
    "u_nn": "surrogate at the cell centres (u_nn_<label> for further runs)",
    "error_nn": "|u - u_nn| at the cell centres (error_nn_<label> for further runs)",
    "error_fem": "|u - u_h| at the cell centres",
}


def _run_field_name(base: str, index: int, label: str) -> str:
    """``u_nn`` for the first run, ``u_nn_<label>`` (label with / -> _) for the others."""
    return base if index == 0 else f"{base}_{label.replace('/', '_')}"


def write_level_vtu(
    vtk_dir: Path, domain_name: str, level: int, mesh, problem: Any, runs: Sequence[Any],
    labels: Sequence[str], solution=None, reference_solution=None, *,
    batch_size: int | None = None,
) -> str:
    """Write ``<domain>_level<L>.vtu`` with the fields of :data:`VTK_POINT_FIELDS` and
    :data:`VTK_CELL_FIELDS`; returns the file name (relative to ``vtk_dir``)."""
    from surrogate.fem.vtk import n0_at_cell_centres, n0_at_nodes, write_vtu

    nodes = np.ascontiguousarray(mesh.p.T, dtype=float)
    centres = mesh.p[:, mesh.t].mean(axis=1).T
    if getattr(problem, "has_exact", False):
        ref_name = "u_exact"
        u_nodes, u_cells = problem.u(nodes), problem.u(centres)
    else:
        ref_name = "u_reference"
        u_nodes = reference_solution.values_at(nodes, outside="nan")
        u_cells = reference_solution.values_at(centres, outside="nan")
    point_data = {ref_name: u_nodes}
    cell_data = {ref_name: u_cells}
    for index, (label, run) in enumerate(zip(labels, runs, strict=True)):
        nn_nodes = np.asarray(run.predict(problem.inputs(nodes), batch_size=batch_size), float)
        nn_cells = np.asarray(run.predict(problem.inputs(centres), batch_size=batch_size), float)
        point_data[_run_field_name("u_nn", index, label)] = nn_nodes
        point_data[_run_field_name("error_nn", index, label)] = np.linalg.norm(
            nn_nodes - u_nodes, axis=1)
        cell_data[_run_field_name("u_nn", index, label)] = nn_cells
        cell_data[_run_field_name("error_nn", index, label)] = np.linalg.norm(
            nn_cells - u_cells, axis=1)
    if solution is not None:
        fem_nodes = n0_at_nodes(solution.basis, solution.dofs)
        fem_cells = n0_at_cell_centres(solution.basis, solution.dofs)
        point_data["u_fem"], cell_data["u_fem"] = fem_nodes, fem_cells
        point_data["error_fem"] = np.linalg.norm(fem_nodes - u_nodes, axis=1)
        cell_data["error_fem"] = np.linalg.norm(fem_cells - u_cells, axis=1)
    name = f"{domain_name}_level{level}.vtu"
    write_vtu(Path(vtk_dir) / name, mesh, point_data, cell_data)
    return name


def write_collections(vtk_dir: Path, entries: dict[str, list[tuple[int, str]]],
                      labels: Sequence[str], *, has_exact: bool, fem: bool) -> dict[str, Any]:
    """One ``<domain>.pvd`` per domain (timestep = level); returns the JSON summary of fields."""
    from surrogate.fem.vtk import write_pvd

    collections = {}
    for domain_name, files in entries.items():
        pvd = write_pvd(Path(vtk_dir) / f"{domain_name}.pvd", sorted(files))
        collections[domain_name] = {"pvd": pvd.name, "files": {str(lv): f for lv, f in files}}
    runs = {_run_field_name("u_nn", i, label): label for i, label in enumerate(labels)}
    point = {k: v for k, v in VTK_POINT_FIELDS.items()
             if (k != "u_exact" or has_exact) and (k != "u_reference" or not has_exact)
             and (fem or "fem" not in k)}
    return {"collections": collections, "runs_by_field": runs, "point_data": point,
            "cell_data": {k: v for k, v in VTK_CELL_FIELDS.items() if fem or "fem" not in k},
            "timestep": "mesh level"}


def slice_fields(
    runs: Sequence[Any],
    problem: Any,
    options: EvaluationOptions,
    reference_solution=None,
) -> dict[str, Any]:
    """u, u_NN and |u − u_NN| on a grid in the plane x_axis = value (Figs. 4 and 5).

    The grid spans the union of the training and test domains' bounding boxes in the two
    in-plane axes (for the cylinder and the unit cube at z = 0.5: (−1, 1)²), with
    ``options.slice_resolution`` points per side. Returns arrays of shape (n, n[, 3]):
    ``u`` (NaN without an exact solution and outside ``reference_solution``'s mesh),
    ``u_nn[label]``, ``error[label]``, and boolean ``inside_training[label]``,
    ``inside_test[domain]``.
    """
    from surrogate.fem.domains import get_domain

    axis, value = options.slice_axis, options.slice_value
    plane = [a for a in range(3) if a != axis]
    labels = run_labels(runs)
    boxes = [get_domain(name).bounds for name in options.domains]
    boxes += [get_domain(str(run.dataset.get("domain"))).bounds for run in runs]
    lo = np.min([np.asarray(b, dtype=float)[:, 0] for b in boxes], axis=0)
    hi = np.max([np.asarray(b, dtype=float)[:, 1] for b in boxes], axis=0)
    n = options.slice_resolution
    s = np.linspace(lo[plane[0]], hi[plane[0]], n)
    t = np.linspace(lo[plane[1]], hi[plane[1]], n)
    grid_s, grid_t = np.meshgrid(s, t, indexing="xy")  # (n, n): rows follow t
    points = np.empty((n * n, 3))
    points[:, axis] = value
    points[:, plane[0]], points[:, plane[1]] = grid_s.ravel(), grid_t.ravel()
    if getattr(problem, "has_exact", False):
        u = problem.u(points)
    elif reference_solution is not None:
        u = reference_solution.values_at(points, outside="nan")
    else:
        u = np.full((len(points), 3), np.nan)
    inputs = problem.inputs(points)
    out: dict[str, Any] = {
        "axis": axis, "value": value, "plane_axes": plane,
        "axis_names": [_AXIS_NAMES[a] for a in plane],
        "s": s, "t": t, "u": u.reshape(n, n, 3),
        "u_nn": {}, "error": {}, "inside_training": {}, "training_domain": {},
        "inside_test": {name: get_domain(name).contains(points).reshape(n, n)
                        for name in options.domains},
    }
    for label, run in zip(labels, runs, strict=True):
        u_nn = np.asarray(run.predict(inputs, batch_size=options.batch_size), dtype=float)
        training = str(run.dataset.get("domain"))
        out["u_nn"][label] = u_nn.reshape(n, n, 3)
        out["error"][label] = np.linalg.norm(u_nn - u, axis=1).reshape(n, n)
        out["inside_training"][label] = get_domain(training).contains(points).reshape(n, n)
        out["training_domain"][label] = training
    return out


__all__ = [
    "EvaluationOptions", "Evaluation", "evaluate_runs", "slice_fields", "parse_slice",
    "run_labels", "resolve_problem_name", "check_runs_match_problem", "resolve_fem_method",
    "fem_baseline", "split_errors", "resolve_inference_device", "FEM_CHOICES",
    "SOLVER_CHOICES", "DEVICE_CHOICES",
]
