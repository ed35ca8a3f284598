"""First-order and total Sobol indices of each scalar quantity, through a model (the
surrogate: N (p + 2) batched queries), with SALib.

SALib's Saltelli scheme on Sobol' points (``SALib.sample.sobol``, ``calc_second_order``
off) draws the unit cube; each coordinate goes through its parameter's inverse CDF (the
indices of independent inputs do not change under such per-coordinate maps), the model
answers, and ``SALib.analyze.sobol`` gives S1 and ST with 95 % bootstrap intervals
(``num_resamples`` resamples of the N base rows). Torch-free; SALib is the ``[uq]`` extra.

:func:`sobol_comparison` adds the indices of the high-fidelity model (the FEM) on a small
base sample, and the surrogate's on that same sample: their difference is the surrogate's
effect on the indices with the sampling noise of the small design shared (the FEM's own
intervals are wide; the surrogate's on the large sample are the estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

SOBOL_BASE = 4096
"""Default base sample N (a power of 2): N (p + 2) model evaluations."""
SOBOL_FEM_BASE = 32
"""Default base sample of the FEM's indices: N (p + 2) solves (256 on ``radial``)."""


def _salib() -> tuple[Any, Any]:
    """SALib's Sobol' sampler and analyser, or an InputError naming the extra."""
    try:
        from SALib.analyze import sobol as analyze
        from SALib.sample import sobol as sample
    except ImportError:
        raise InputError("Sobol indices need SALib, which is not installed: "
                         "pip install 'surrogate[uq]'") from None
    return sample, analyze


def sobol_indices(model: Callable[[np.ndarray], np.ndarray], distribution: Any,
                  names: Sequence[str], *, base: int = SOBOL_BASE, seed: int = 0,
                  resamples: int = 100) -> dict[str, Any]:
    """``{quantity: {"S1": {parameter: {"index", "ci95"}}, "ST": {...}}}`` of ``model``
    (μ (B, p) -> Q (B, q), quantities ``names``) for ``distribution`` (its ``names`` and
    ``marginals``), with ``base`` N rows (rounded up to a power of 2)."""
    sample, analyze = _salib()
    if base < 2:
        raise InputError(f"the Sobol base sample must be >= 2, got {base}")
    base = 1 << (int(base) - 1).bit_length()
    params = tuple(distribution.names)
    problem = {"num_vars": len(params), "names": list(params),
               "bounds": [[0.0, 1.0]] * len(params)}
    unit = sample.sample(problem, base, calc_second_order=False, seed=seed)
    unit = np.clip(unit, 0.5 / base, 1.0 - 0.5 / base)  # finite ppf of unbounded marginals
    mu = np.column_stack([m.ppf(unit[:, j]) for j, m in enumerate(distribution.marginals)])
    values = np.asarray(model(mu), dtype=np.float64)
    out: dict[str, Any] = {"base_samples": base, "evaluations": int(len(mu)),
                           "resamples": resamples, "quantities": {}}
    for j, name in enumerate(names):
        column = values[:, j]
        if not np.ptp(column) > 0:
            out["quantities"][name] = None  # a constant quantity has no variance to split
            continue
        result = analyze.analyze(problem, column, calc_second_order=False,
                                 num_resamples=resamples, conf_level=0.95, seed=seed)
        out["quantities"][name] = {
            kind: {p: {"index": float(result[kind][i]),
                       "ci95": [float(result[kind][i] - result[f"{kind}_conf"][i]),
                                float(result[kind][i] + result[f"{kind}_conf"][i])]}
                   for i, p in enumerate(params)} for kind in ("S1", "ST")}
    return out


def _differences(high: dict[str, Any], low: dict[str, Any]) -> dict[str, Any]:
    """Per quantity and kind, the largest |index_low − index_high| over the parameters."""
    out: dict[str, Any] = {}
    for name, entry in high["quantities"].items():
        other = low["quantities"].get(name)
        out[name] = None if entry is None or other is None else {
            kind: max(abs(other[kind][p]["index"] - entry[kind][p]["index"])
                      for p in entry[kind]) for kind in ("S1", "ST")}
    return out


def sobol_comparison(surrogate: Callable[[np.ndarray], np.ndarray],
                     high: Callable[[np.ndarray], np.ndarray] | None, distribution: Any,
                     names: Sequence[str], *, base: int = SOBOL_BASE,
                     high_base: int = SOBOL_FEM_BASE, seed: int = 0) -> dict[str, Any]:
    """The surrogate's indices on ``base`` rows (:func:`sobol_indices`) and, with a ``high``
    model and ``high_base`` > 0, ``high``'s indices on ``high_base`` rows beside the
    surrogate's on the same rows, and the largest difference of each kind per quantity."""
    record: dict[str, Any] = {"model": "surrogate", **sobol_indices(
        surrogate, distribution, names, base=base, seed=seed)}
    if high is not None and high_base > 0:
        fem = sobol_indices(high, distribution, names, base=high_base, seed=seed)
        same = sobol_indices(surrogate, distribution, names, base=high_base, seed=seed)
        record["high_fidelity"] = {**fem, "surrogate_on_same_sample": same["quantities"],
                                   "largest_difference": _differences(fem, same)}
    return record


__all__ = ["SOBOL_BASE", "SOBOL_FEM_BASE", "sobol_indices", "sobol_comparison"]
