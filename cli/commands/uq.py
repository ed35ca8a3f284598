"""``surrogate uq RUN``: the mean of quantities of a family run's problems by multifidelity
Monte Carlo.

Its options are the fields of :class:`~surrogate.uq.options.UqOptions` (generated,
:mod:`surrogate.cli.config_options`); it calls :func:`~surrogate.uq.study.run_uq` and prints;
no numerics here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from surrogate.cli.common import err_console, progress_display, user_errors
from surrogate.cli.config_options import OptionGroup
from surrogate.cli.generated_command import GivenOptions, command_with_options
from surrogate.core.json_files import json_text


def uq_group() -> OptionGroup:
    """The study's options: the fields of UqOptions."""
    from surrogate.uq.options import UqOptions

    return OptionGroup("uq", {"uq": UqOptions})


def _lines(record: dict[str, Any]) -> list[str]:
    """The summary: per quantity the MFMC estimate, the surrogate alone and the gain."""
    alloc, seconds = record["allocation"], record["seconds"]
    lines = [f"{record['high_fidelity']['label']} on {record['high_fidelity']['where']}: "
             f"{alloc['high_samples']} solves, "
             f"{alloc['surrogate_samples']} surrogate queries (pilot "
             f"{record['pilot']['samples']}); seconds: pilot "
             f"{seconds['pilot_high'] + seconds['pilot_surrogate']:.3g}, FEM "
             f"{seconds['high']:.3g}, surrogate {seconds['surrogate']:.3g}, one-off "
             f"{record['one_off_seconds']['total']:.3g}"]
    for name, entry in record["quantities"].items():
        mfmc, alone = entry["mfmc"], entry["surrogate_mc"]
        gain = entry["variance_reduction"]
        lines.append(f"E[{name}] = {mfmc['mean']:.6g} ± {mfmc['standard_error']:.2g} "
                     f"(95 %: {mfmc['ci95'][0]:.6g} – {mfmc['ci95'][1]:.6g}); surrogate "
                     f"alone {alone['mean']:.6g}, bias on the pilot "
                     f"{alone['bias_on_pilot']['mean']:.2g} ± "
                     f"{alone['bias_on_pilot']['standard_error']:.2g}; ρ = "
                     f"{entry['pilot']['rho']:.5f}; variance ÷ {gain['without_one_off']:.3g} "
                     f"against FEM-only MC at equal cost (÷ {gain['with_one_off']:.3g} with "
                     "the one-off)")
    if "pvd" in (record.get("field") or {}):
        lines.append(f"field: mean and standard deviation of u at {record['field']['nodes']} "
                     f"nodes in {record['field']['pvd']} (ParaView)")
    sobol = record.get("sobol") or {}
    fem = sobol.get("high_fidelity") or {}
    for name, entry in sobol.get("quantities", {}).items():
        if entry is not None:
            lines.append(f"Sobol S1/ST of {name} (surrogate): {_indices(entry)}")
        if (fem.get("quantities") or {}).get(name) is not None:
            difference = (fem.get("largest_difference") or {}).get(name)  # None: the
            lines.append(f"  FEM on {fem['base_samples']} rows: {_indices(fem['quantities'][name])}"
                         + ("" if difference is None else  # surrogate's quantity is constant
                            f"; largest |surrogate − FEM| on those rows: S1 "
                            f"{difference['S1']:.2f}, ST {difference['ST']:.2f}"))
    return lines


def _indices(entry: dict[str, Any]) -> str:
    """``k 0.41/0.45, a ...``: S1/ST per parameter."""
    return ", ".join(f"{p} {entry['S1'][p]['index']:.2f}/{entry['ST'][p]['index']:.2f}"
                     for p in entry["S1"])


def uq(
    run: Annotated[Path, typer.Argument(help="A family run (what `surrogate fit` wrote).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write uq.json into this "
                                             "folder.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")]
    = False,
    *,
    options: GivenOptions,
) -> None:
    """Propagate parameter uncertainty: the mean of a quantity by multifidelity Monte Carlo.

    The surrogate is the cheap model, a FEM of the registry (--fem-backend, --fem-order,
    --fem-level) the reference: the estimate is unbiased for the FEM's expectation whatever
    the surrogate's error. A pilot measures costs and correlations; the allocation then
    reaches --rse or spends --budget seconds. The surrogate alone is reported with its bias
    on the pilot, never as the answer.

    Example: surrogate uq runs/family --qoi energy --qoi probe:0.5,0.5,0.5 --rse 1e-2 -o out/uq
    """
    with user_errors():
        from surrogate.uq.options import UqOptions
        from surrogate.uq.study import run_uq

        typed = UqOptions(**options.fields(uq_group()))

        def warn(line: str) -> None:
            from rich.markup import escape

            err_console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False,
                              soft_wrap=True)

        with progress_display(quiet) as on_progress:
            record = run_uq(run, typed, out, progress=on_progress, warn=warn)
    if as_json:
        typer.echo(json_text(record), nl=False)
    elif not quiet:
        for line in _lines(record):
            typer.echo(line)
        if out is not None:
            typer.echo(f"wrote {out / 'uq.json'}"
                       + (f" and {out / 'index.html'}" if typed.report else ""))


def register(app: typer.Typer) -> None:
    """Attach ``uq`` to ``app``."""
    app.command("uq")(command_with_options(uq, [uq_group()]))
