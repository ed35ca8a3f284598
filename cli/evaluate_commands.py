"""``surrogate evaluate`` and ``surrogate report``: surrogates against FEM on unseen domains.

Everything the user asked for is validated before any output exists (run directories, the
problem the runs were trained on, their input names, domains, levels, the slice). Outputs are
then written into temporary sibling folders and moved into place only when complete: on an
error or an interrupt (SIGINT, SIGTERM) nothing is left behind; an existing output folder keeps
files it had that this command does not write. The move holds interrupt signals back until it
is done, so an output folder is never half updated.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import (
    console,
    err_console,
    parse_levels,
    progress_display,
    user_errors,
    write_json_atomic,
)
from surrogate.cli.sequence_evaluate_commands import (
    DataOpt,
    FreshOpt,
    HorizonOpt,
    MaterialRangeOpt,
    MaterialSeedOpt,
    MaxSeqOpt,
    SampleOpt,
    SetOpt,
    VtkEveryOpt,
    dispatch_kind,
    evaluate_sequence,
)


class FemBaseline(str, Enum):
    best = "best"
    solve = "solve"
    none = "none"


class DeviceChoice(str, Enum):
    cpu = "cpu"
    cuda = "cuda"
    auto = "auto"


class SolverChoice(str, Enum):
    auto = "auto"
    direct = "direct"
    iterative = "iterative"


RunDirs = Annotated[list[Path], typer.Argument(help="Run directories written by `surrogate fit`.")]
DomainOpt = Annotated[
    list[str] | None,
    typer.Option("--domain", "-d", help="Test domain (repeatable): cylinder, cube, ball, "
                 "l-prism, shell. \\[default: cube]"),
]
LevelsOpt = Annotated[str, typer.Option(help="Mesh levels of the test domains: '1-5', '3', "
                                             "'1,2,4'.")]
FemOpt = Annotated[FemBaseline, typer.Option(help="N0 baseline: H(curl) best approximation, "
                                                  "the mixed solve, or none.")]
SolverOpt = Annotated[SolverChoice, typer.Option(help="Linear solver of the FEM baseline.")]
SliceOpt = Annotated[str, typer.Option("--slice", help="Plane of the slice figures, AXIS=VALUE.")]
ProblemOpt = Annotated[
    str | None, typer.Option(help="Problem to evaluate on; every run must have been trained "
                                  "on it. \\[default: the runs' problem]")]
DeviceOpt = Annotated[DeviceChoice, typer.Option(help="Where the surrogates run (the FEM "
                                                    "always runs on the CPU).")]
IntorderOpt = Annotated[int, typer.Option(help="Quadrature order of the L² errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no tables.")]


# ---------------------------------------------------------------------------------- staging


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _merge_into(src: Path, dest: Path) -> None:
    """Move the tree ``src`` into ``dest``: files replace same-named files, others stay."""
    if not dest.exists():
        os.replace(src, dest)
        return
    if not dest.is_dir() or not src.is_dir():
        if dest.is_dir():
            shutil.rmtree(dest)
        os.replace(src, dest)
        return
    for child in src.iterdir():
        _merge_into(child, dest / child.name)
    src.rmdir()


@contextlib.contextmanager
def staged_outputs(targets: list[Path]) -> Iterator[dict[Path, Path]]:
    """Yield {final folder: temporary folder}; move them into place only on success.

    Folders nested in another target are staged inside that target's temporary folder.
    Temporary folders are siblings of the final ones (same file system, so moves are renames).
    """
    from surrogate.core.interrupts import held_signals

    finals = [t.resolve() for t in targets]
    roots = [t for t in dict.fromkeys(finals)
             if not any(o != t and _is_within(t, o) for o in finals)]
    created_parents: list[Path] = []
    temps: dict[Path, Path] = {}
    try:
        with held_signals():  # every folder created here is recorded for the clean-up
            for root in roots:
                missing = [p for p in [root.parent, *root.parent.parents] if not p.exists()]
                for parent in reversed(missing):
                    parent.mkdir()
                    created_parents.append(parent)
                temps[root] = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-",
                                                    dir=root.parent))
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temps[root], 0o777 & ~umask)  # mkdtemp creates 0700
        staged = {}
        for final in finals:
            root = next(r for r in roots if _is_within(final, r))
            staged[final] = temps[root] / final.relative_to(root)
            staged[final].mkdir(parents=True, exist_ok=True)
        yield staged
    except BaseException:
        for tmp in temps.values():
            shutil.rmtree(tmp, ignore_errors=True)
        for parent in reversed(created_parents):
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise
    with held_signals():  # an interrupt cannot leave a half-merged output folder
        for root, tmp in temps.items():
            _merge_into(tmp, root)


# ------------------------------------------------------------------------------- validation


def _validated_inputs(run_dirs: list[Path], domains: list[str] | None, levels: str,
                      fem: FemBaseline, solver: SolverChoice, slice_: str, problem: str | None,
                      intorder: int, device: DeviceChoice, outputs: list[Path | None]
                      ) -> tuple[Any, Any, Any]:
    """Load and check everything; returns (runs, problem, options). Writes nothing."""
    from surrogate.core.errors import DataFormatError, InputError
    from surrogate.evaluation.static import (
        EvaluationOptions,
        check_runs_match_problem,
        parse_slice,
        resolve_fem_method,
        resolve_inference_device,
        resolve_problem_name,
    )
    from surrogate.fem.domains import get_domain
    from surrogate.fem.problems import get_problem

    if not run_dirs:
        raise InputError("give at least one run directory")
    for path in run_dirs:
        if not path.is_dir():
            raise DataFormatError(f"run directory {str(path)!r} does not exist"
                                  if not path.exists() else
                                  f"{str(path)!r} is not a run directory")
    from surrogate.core.output_paths import check_output_folder

    for out in outputs:
        if out is not None and out.exists() and not out.is_dir():
            raise InputError(f"output {str(out)!r} exists and is not a folder")
        if out is not None:
            check_output_folder(out)
    axis, value = parse_slice(slice_)
    options = EvaluationOptions(domains=tuple(dict.fromkeys(domains or ["cube"])),
                                levels=tuple(parse_levels(levels)), fem=fem.value,
                                solver=solver.value, intorder=intorder, slice_axis=axis,
                                slice_value=value, device=device.value)
    resolve_inference_device(options.device)
    for name in options.domains:
        get_domain(name)
    from surrogate.runs.store import load_run

    runs = [load_run(path) for path in run_dirs]
    problem_name = resolve_problem_name(runs, problem)
    from surrogate.fem.problems import problem_names

    if problem_name not in problem_names():
        raise InputError(f"the runs were trained on {problem_name!r} data, which has no FEM "
                         f"baseline; evaluate compares surrogates of the PDE problems "
                         f"({', '.join(problem_names())}) with finite elements")
    for name in {str(run.dataset.get("domain")) for run in runs}:
        get_domain(name)
    problem_obj = get_problem(problem_name)
    check_runs_match_problem(runs, problem_obj)
    resolve_fem_method(problem_obj, options.fem, [])
    return runs, problem_obj, options


# ---------------------------------------------------------------------------------- output


def _sci(value: float | None, spec: str = ".2e") -> str:
    return "–" if value is None else format(value, spec)


def _print_tables(result: dict[str, Any]) -> None:
    """Errors, in/out split and timings as rich tables: one row per source (N0, each run),
    one column per test domain and level, so that many runs stay readable."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    records, labels = result["records"], list(result["runs"])

    def table(title: str, headers: list[str]) -> Table:
        t = Table(title=escape(title), title_justify="left", box=box.SIMPLE_HEAD)
        t.add_column("")
        for header in headers:
            t.add_column(escape(header), justify="right")
        return t

    fem_name = "N0 " + (next((r["fem"]["method"] for r in records if r.get("fem")), "none"))
    errors = table("absolute L² error ‖u − ·‖ on the test domains (green: below N0)",
                   [f"{r['domain']} L{r['level']}\nh={r['h']:.3g}" for r in records])
    fem_errors = [(r.get("fem") or {}).get("l2_error") for r in records]
    if any(r.get("fem") for r in records):
        errors.add_row(fem_name, *["reference" if (r.get("fem") or {}).get("is_reference")
                                   else _sci(e) for r, e in zip(records, fem_errors,
                                                                strict=True)])
    for label in labels:
        cells = []
        for r, fem_err in zip(records, fem_errors, strict=True):
            err = r["runs"][label]["l2_error"]
            text = _sci(err)
            cells.append(f"[green]{text}[/]" if fem_err is not None and err is not None
                         and err < fem_err else text)
        errors.add_row(escape(label), *cells)
    console.print(errors)

    split = table("relative L² error inside / outside the training domain",
                  [f"{r['domain']} L{r['level']}" for r in records])
    for label in labels:
        split.add_row(escape(label), *[
            f"{_sci(r['runs'][label]['inside']['relative_error'], '.1e')} / "
            f"{_sci(r['runs'][label]['outside']['relative_error'], '.1e')}" for r in records])
    console.print(split)
    fractions = {f"{r['domain']} L{r['level']}": r["inside_fraction"] for r in records}
    inside = "; ".join(f"{k}: " + ", ".join(f"{v:.0%} in {d}" for d, v in f.items())
                       for k, f in list(fractions.items())[-len(set(r['domain']
                                                                    for r in records)):])
    console.print(f"volume inside the training domain (finest levels): {inside}",
                  highlight=False)

    timing = table(f"wall time [s]: N0 basis+assembly+solve vs the NN field at the mesh nodes "
                   f"and the NN at every quadrature point "
                   f"({result.get('inference_device', 'cpu')}); speed-up over N0 in brackets",
                   [f"{r['domain']} L{r['level']}\n{r['n_nodes']} nodes\n"
                    f"{r['n_quadrature']} pts" for r in records])
    if any(r.get("fem") for r in records):
        timing.add_row(fem_name, *[_sci(((r.get("fem") or {}).get("seconds") or {}).get("total"),
                                        ".3g") for r in records])
    for label in labels:
        for key, speed, what in (("field_on_mesh", "speedup_vs_fem", "nodes"),
                                 ("inference", "speedup_vs_fem_quadrature", "quad. pts")):
            cells = []
            for r in records:
                rec = r["runs"][label]
                cells.append(_sci(rec["seconds"][key], ".2g")
                             + (f" ({rec[speed]:.3g}×)" if rec.get(speed) is not None else ""))
            timing.add_row(f"{escape(label)} ({what})", *cells)
    console.print(timing)
    if result["reference"] != "exact":
        console.print(f"reference: {result['reference']} (no exact solution)", highlight=False)
    for note in result.get("notes", []):
        console.print(f"note: {note}", highlight=False)


def _evaluate_and_write(run_dirs: list[Path], *, domains: list[str] | None, levels: str,
                        fem: FemBaseline, solver: SolverChoice, slice_: str,
                        problem: str | None, intorder: int, device: DeviceChoice, out: Path,
                        vtk: Path | None,
                        plots: Path | None, report: bool, as_json: bool, quiet: bool) -> None:
    """Shared body of ``evaluate`` and ``report``."""
    with user_errors():
        if report and plots is None:
            plots = out / "plots"
        runs, problem_obj, options = _validated_inputs(
            run_dirs, domains, levels, fem, solver, slice_, problem, intorder, device,
            [out, vtk, plots])
        from surrogate.evaluation.static import evaluate_runs, slice_fields

        finals = [p.resolve() for p in (out, vtk, plots) if p is not None]
        with staged_outputs(finals) as staged, progress_display(quiet) as on_progress, \
                tempfile.TemporaryDirectory() as scratch:
            vtk_dir = staged[vtk.resolve()] if vtk is not None else (
                Path(scratch) if plots is not None else None)
            evaluation = evaluate_runs(runs, problem_obj, options, vtk_dir=vtk_dir,
                                       on_progress=on_progress)
            result = evaluation.to_dict()
            if vtk is None:
                result["vtk"] = None
            figures = None
            if plots is not None:
                from surrogate.evaluation.plots import make_figures

                on_progress(0, 1, "figures")
                first = next(iter(evaluation.reference_solutions.values()), None)
                slices = slice_fields(runs, problem_obj, options, first)
                finest = max(options.levels)
                vtu_3d = {d: vtk_dir / f"{d}_level{finest}.vtu" for d in options.domains}
                figures = make_figures(result, staged[plots.resolve()],
                                       histories=evaluation.histories, slices=slices,
                                       vtu_for_3d=vtu_3d)
                result["figures"] = figures
            result["outputs"] = {"out": str(out), "vtk": str(vtk) if vtk else None,
                                 "plots": str(plots) if plots else None,
                                 "report": str(out / "index.html") if report else None}
            if report:
                from surrogate.evaluation.report import write_report

                prefix = os.path.relpath(plots.resolve(), out.resolve()) + "/"
                write_report(staged[out.resolve()] / "index.html", result, figures,
                             figure_prefix=prefix)
            write_json_atomic(staged[out.resolve()] / "evaluation.json", result)
    if as_json:
        typer.echo(json.dumps(result, indent=2, default=str))
        return
    if quiet:
        return
    _print_tables(result)
    for line in (figures or {}).get("skipped", []):
        err_console.print(line, style="yellow", highlight=False)
    written = [f"{out / 'evaluation.json'}"]
    if vtk is not None:
        written.append(f"{vtk}/*.pvd")
    if plots is not None:
        written.append(f"{plots}/*.png")
    if report:
        written.append(f"{out / 'index.html'}")
    console.print("wrote " + ", ".join(written), highlight=False)


def evaluate(
    ctx: typer.Context,
    run_dirs: RunDirs,
    domain: DomainOpt = None,
    levels: LevelsOpt = "1-4",
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of evaluation.json.")]
    = Path("evaluation"),
    vtk: Annotated[Path | None, typer.Option(help="Folder for .vtu/.pvd files (ParaView).")]
    = None,
    plots: Annotated[Path | None, typer.Option(help="Folder for PNG figures.")] = None,
    report: Annotated[bool, typer.Option("--report", help="Also write OUT/index.html "
                                                          "(figures default to OUT/plots).")]
    = False,
    fem: FemOpt = FemBaseline.best,
    solver: SolverOpt = SolverChoice.auto,
    slice_: SliceOpt = "z=0.5",
    problem: ProblemOpt = None,
    intorder: IntorderOpt = 4,
    device: DeviceOpt = DeviceChoice.cpu,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    data: DataOpt = None,
    set_: SetOpt = None,
    horizon_factor: HorizonOpt = None,
    fresh: FreshOpt = None,
    max_sequences: MaxSeqOpt = None,
    material_seed: MaterialSeedOpt = None,
    material_range: MaterialRangeOpt = None,
    sample: SampleOpt = None,
    vtk_every: VtkEveryOpt = None,
) -> None:
    """L² errors and timings of surrogates vs the lowest-order Nédélec FEM on test domains.

    Runs trained on sequence data (lem, cornn, lstm) are evaluated instead on sequences they
    never saw, rebuilt from their dataset's recipe: unseen signals (the test split), unseen
    materials (maxwell-td) and a longer horizon; per-sequence relative L² errors, traces and
    error over time (--plots), probe and FEM field time series (--vtk, maxwell-td).

    Example: surrogate evaluate runs/fdnn runs/resnet --domain cube --levels 1-5 --out out/
    --vtk out/vtk --plots out/plots

    Sequence example: surrogate evaluate runs/lem --horizon-factor 2 --out out/ --plots
    out/plots --vtk out/vtk
    """
    if dispatch_kind(ctx, run_dirs) == "sequence":
        settings = {"set_": set_, "horizon_factor": horizon_factor, "fresh": fresh,
                    "max_sequences": max_sequences, "material_seed": material_seed,
                    "material_range": material_range, "sample": sample,
                    "vtk_every": vtk_every, "device": device.value}
        evaluate_sequence(run_dirs[0], settings, data=data, out=out, vtk=vtk, plots=plots,
                          report=report, as_json=as_json, quiet=quiet)
        return
    _evaluate_and_write(run_dirs, domains=domain, levels=levels, fem=fem, solver=solver,
                        slice_=slice_, problem=problem, intorder=intorder, device=device,
                        out=out, vtk=vtk,
                        plots=plots, report=report, as_json=as_json, quiet=quiet)


def report(
    ctx: typer.Context,
    run_dirs: RunDirs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of index.html.")]
    = Path("report"),
    domain: DomainOpt = None,
    levels: LevelsOpt = "1-4",
    vtk: Annotated[Path | None, typer.Option(help="Folder for .vtu/.pvd files (ParaView).")]
    = None,
    fem: FemOpt = FemBaseline.best,
    solver: SolverOpt = SolverChoice.auto,
    slice_: SliceOpt = "z=0.5",
    problem: ProblemOpt = None,
    intorder: IntorderOpt = 4,
    device: DeviceOpt = DeviceChoice.cpu,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Evaluate runs and write OUT/index.html with the tables and figures (OUT/plots).

    Example: surrogate report runs/* --domain cube --levels 1-4 --out report/
    """
    if dispatch_kind(ctx, run_dirs) == "sequence":
        evaluate_sequence(run_dirs[0], {"device": device.value}, data=None, out=out, vtk=vtk,
                          plots=out / "plots", report=True, as_json=as_json, quiet=quiet)
        return
    _evaluate_and_write(run_dirs, domains=domain, levels=levels, fem=fem, solver=solver,
                        slice_=slice_, problem=problem, intorder=intorder, device=device,
                        out=out, vtk=vtk,
                        plots=out / "plots", report=True, as_json=as_json, quiet=quiet)


def register(app: typer.Typer) -> None:
    """Attach ``evaluate`` and ``report`` to ``app``."""
    app.command("evaluate")(evaluate)
    app.command("report")(report)
