"""One ``surrogate uq`` study: a family run, its FEM of reference, MFMC, ``uq.json``.

The run's batched predictor is the low-fidelity model, the named FEM of the registry on the
test domain the high-fidelity one (:mod:`surrogate.uq.models`); the input distribution is
uniform over the run's training box or a ``--dist`` file
(:mod:`surrogate.uq.distributions`); :func:`~surrogate.uq.mfmc.estimate_mean` does the rest.
``uq.json`` (written atomically) holds the record of :meth:`UqResult.to_dict` with the run,
the FEM, the distribution and the one-off seconds, and with ``sobol`` the Sobol indices of
each quantity through the surrogate and, on a small sample, through the FEM
(:func:`~surrogate.uq.sobol.sobol_comparison`); with the ``field`` quantity, ``field.pvd``
beside it (:mod:`surrogate.uq.field_output`); ``index.html`` and its figures with
``report`` (:mod:`surrogate.uq.report`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError
from surrogate.uq.options import ModelOptions, UqOptions

FORMAT = "surrogate-uq"
VERSION = 1


def study_models(run: Any, options: ModelOptions) -> tuple[Any, Any, Any, Any]:
    """(loaded run, family, FEM model, surrogate model) of ``options`` for ``run`` (a Run or
    its folder); InputError for a single-problem run, an unknown quantity or a FEM that does
    not exist."""
    from surrogate.fem.families import get_family
    from surrogate.runs.load import load_run
    from surrogate.uq.models import SurrogateQuantities, default_domain, fem_quantities
    from surrogate.uq.quantities import parse_quantities, with_energy_rule
    from surrogate.uq.reference_fem import reference_fem

    quantities = parse_quantities(options.qoi)
    run = run if hasattr(run, "model") else load_run(run)
    name = run.dataset.get("family")
    if name is None:
        raise InputError(f"run {run.path} was trained on one problem; a family run is needed")
    family = get_family(str(name))
    chosen = reference_fem(options, run.path, default_domain(family))
    fem = fem_quantities(family, quantities, backend=chosen["backend"], order=chosen["order"],
                         level=chosen["level"], domain=chosen["domain"],
                         maxh=chosen.get("maxh"))
    fem.choice = chosen
    points = with_energy_rule(fem.points, options.surrogate_level, options.surrogate_intorder)
    return run, family, fem, SurrogateQuantities.from_run(run, points, device=options.device)


def run_uq(run: Any, options: UqOptions, out: str | Path | None = None, *,
           progress: Callable[[int, int, str], None] | None = None,
           warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The study of ``run`` (a Run or its folder) with ``options``; its record, also written
    to ``out``/uq.json when ``out`` is given."""
    from surrogate.core.json_files import write_json_file
    from surrogate.uq.distributions import run_distribution
    from surrogate.uq.mfmc import MfmcSettings, estimate_mean
    from surrogate.uq.models import one_off_seconds

    run, family, fem, surrogate = study_models(run, options)
    distribution = run_distribution(run, options.dist, warn, options.strict)
    one_off = one_off_seconds(run)
    settings = MfmcSettings(rse=options.rse, budget=options.budget, pilot=options.pilot,
                            seed=options.seed, one_off_seconds=one_off["total"])
    result = estimate_mean(fem, surrogate, distribution.sample, settings, fem.points.names,
                           progress)
    record = {"format": FORMAT, "version": VERSION, "run": str(run.path), "family": family.name,
              "high_fidelity": {"backend": fem.method.backend, "order": fem.method.order,
                                "label": fem.label, "domain": fem.points.domain,
                                "level": fem.points.level, "intorder": fem.points.intorder,
                                "fitted_maxh": fem.maxh, "where": fem.where,
                                "chosen_by": fem.choice},
              "surrogate": {"arch": str(getattr(run.model_config, "arch", "?")),
                            "inputs": str(getattr(run.model_config, "inputs", "?")),
                            "device": options.device, "energy_rule": {
                                "level": surrogate.points.level,
                                "intorder": surrogate.points.intorder,
                                "points": len(surrogate.points.weights)}},
              "distribution": distribution.describe(), "one_off_seconds": one_off,
              "options": options.to_dict(), **result.to_dict()}
    if fem.points.field_nodes:
        from surrogate.uq.field_output import write_field_series

        record["field"] = (write_field_series(out, fem.points, result) if out is not None
                           else {"nodes": fem.points.field_nodes,
                                 "note": "not written: give an output folder"})
    if options.sobol:
        from surrogate.uq.sobol import sobol_comparison

        record["sobol"] = sobol_comparison(
            surrogate, fem, distribution, fem.points.names, base=options.sobol_samples,
            high_base=options.sobol_fem_samples, seed=options.seed)
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
        write_json_file(Path(out) / "uq.json", record)
        if options.report:
            from surrogate.uq.report import write_report

            write_report(record, out)
    return record


__all__ = ["FORMAT", "VERSION", "study_models", "run_uq"]
