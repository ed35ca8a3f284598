"""``surrogate fem ...``: finite-element studies (convergence of Nédélec approximations)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import console, progress_display, user_errors
from surrogate.core.json_files import json_text, write_json_file
from surrogate.core.level_ranges import parse_levels


# --backend/--order/--method/--solver are plain strings with the choices as metavar (listed
# by --help) and are checked by fem.convergence.check_study_options: a bad value then gives
# one line on stderr and exit 2 like every other bad input, not click's multi-line usage panel.
def convergence(
    domain: Annotated[
        str, typer.Option(help="Domain name (cube, cylinder, ball, l-prism, shell) or a tet "
                               "mesh file (.msh, .vtu, .xdmf, .mesh).")
    ] = "cube",
    levels: Annotated[
        str, typer.Option(help="Mesh levels: a range '1-5', one level '3' or a list '1,2,4'.")
    ] = "1-4",
    method: Annotated[
        str,
        typer.Option(metavar="[best|solve]",
                     help="best: H(curl) best approximation; solve: mixed Maxwell solve."),
    ] = "best",
    solver: Annotated[
        str,
        typer.Option(metavar="[auto|direct|iterative]",
                     help="Linear solver: direct, iterative (CG-HX / MINRES), auto by size."),
    ] = "auto",
    backend: Annotated[
        str,
        typer.Option(metavar="[skfem|ngsolve]",
                     help="FEM backend: skfem (ours, orders 0-1) or ngsolve (the optional "
                          "extra [ngsolve], orders 0-4, mixed solve only)."),
    ] = "skfem",
    order: Annotated[
        str,
        typer.Option(metavar="[0|1|2|3|4]",
                     help="FEM order, NGSolve's numbering: 0 = lowest-order Nédélec (N0), "
                          "1 = complete linear (L² error O(h²)), 2 = complete quadratic, ... "
                          "(the table in docs/cli.md)."),
    ] = "0",
    threads: Annotated[
        int, typer.Option(help="Threads of the ngsolve backend (recorded in the JSON).")
    ] = 1,
    problem: Annotated[str, typer.Option(help="Problem with an exact solution.")] = "maxwell",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Also write the results as JSON here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no table.")] = False,
) -> None:
    """Errors and observed rates of Nédélec approximations of the exact solution, by level.

    Example: surrogate fem convergence --domain cube --levels 1-3 --backend ngsolve --order 2
    --method solve --out conv.json
    """

    from surrogate import __version__
    from surrogate.fem.convergence import check_study_options, convergence_study
    from surrogate.fem.domains import get_domain
    from surrogate.fem.hcurl.registry import check_backend, check_order
    from surrogate.fem.problems import get_problem

    with user_errors():
        fem_order = check_order(order, check_backend(backend))
        level_list = check_study_options(parse_levels(levels), method, solver, fem_order,
                                         backend)
        get_domain(domain)  # unknown names fail before any work
        get_problem(problem)
        options = {"domain": domain, "levels": level_list, "backend": backend,
                   "order": fem_order, "method": method, "solver": solver, "problem": problem,
                   "threads": threads}
        with progress_display(quiet) as on_progress:
            rows = convergence_study(domain, level_list, method=method, order=fem_order,
                                     backend=backend, solver=solver, problem=problem,
                                     threads=threads, on_progress=on_progress)
        payload = {"study": "fem-convergence", "version": __version__, "options": options,
                   "rows": rows}
        if out is not None:
            write_json_file(out, payload)
    if as_json:
        typer.echo(json_text(payload), nl=False)
    elif not quiet:
        _print_table(options, rows)
        if out is not None:
            console.print(f"wrote {out}", highlight=False, soft_wrap=True)


def _fmt_rate(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.2f}"


def _print_table(options: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Rich table: one line per level (the residuals and stage timings are in the JSON)."""
    from rich import box
    from rich.table import Table

    from surrogate.fem.hcurl.registry import FemMethod

    space = FemMethod(options["backend"], options["order"]).label
    table = Table(title=f"{space} {options['method']} on {options['domain']} "
                        f"({options['problem']})",
                  box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    for name in ("lvl", "h", "DOFs", "L² err", "rate", "curl err", "rate", "s", "solver", "its"):
        table.add_column(name, justify="right", no_wrap=True)
    for r in rows:
        s = r["solver"]
        table.add_row(str(r["level"]), f"{r['h']:.3g}", str(r["ndofs"]), f"{r['l2_error']:.2e}",
                      _fmt_rate(r["l2_rate"]), f"{r['curl_l2_error']:.2e}",
                      _fmt_rate(r["curl_l2_rate"]), f"{r['seconds']:.1f}", s["method"],
                      str(s["iterations"]))
    console.print(table)


def register(app: typer.Typer) -> None:
    """Attach the ``fem`` command group (``convergence``) to ``app``."""
    fem_app = typer.Typer(no_args_is_help=True, help="Finite-element studies.")
    fem_app.command("convergence")(convergence)
    app.add_typer(fem_app, name="fem")
