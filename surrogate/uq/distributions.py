"""The input distribution of a UQ study: independent parameters, each a scipy.stats
distribution; by default uniform over the run's training box.

``--dist dist.toml`` names a distribution per parameter with scipy.stats' names and
arguments (a parameter left out stays uniform over the box)::

    [k]
    distribution = "norm"        # loc, scale
    loc = 1.2
    scale = 0.1
    [alpha]
    distribution = "truncnorm"   # a, b (in units of scale from loc), loc, scale
    a = -2.0
    b = 2.0
    loc = 1.0
    scale = 0.2

(``uniform``: loc, scale; ``lognorm``: s, loc, scale.) A distribution with mass outside the
training box is said, per parameter, with that mass; ``strict`` refuses it. Draws are
independent: μ_j = F_j⁻¹(U_j) with U iid uniform (plain Monte Carlo). Torch-free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.fem.families.family import check_box

DISTRIBUTIONS = {"uniform": ("loc", "scale"), "norm": ("loc", "scale"),
                 "lognorm": ("s", "loc", "scale"), "truncnorm": ("a", "b", "loc", "scale")}
"""The scipy.stats distributions a parameter may follow, with the arguments they take."""
OUTSIDE_TOLERANCE = 1e-9
"""Probability outside the box below which a distribution counts as inside it."""


@dataclass(frozen=True)
class InputDistribution:
    """Independent marginals (scipy.stats frozen distributions), one per parameter; ``box``
    (p, 2) is the run's training box they are checked against."""

    names: tuple[str, ...]
    box: np.ndarray = field(repr=False)
    marginals: tuple[Any, ...] = field(repr=False)
    specs: tuple[dict[str, Any], ...] = field(repr=False)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent draws (n, p): μ_j = F_j⁻¹(U_j)."""
        unit = rng.random((int(n), len(self.names)))
        return np.column_stack([m.ppf(unit[:, j]) for j, m in enumerate(self.marginals)])

    def outside_box(self) -> list[str]:
        """One line per parameter whose distribution has mass outside the box."""
        lines = []
        for name, (low, high), marginal in zip(self.names, self.box, self.marginals,
                                               strict=True):
            mass = float(marginal.cdf(low) + marginal.sf(high))
            if mass > OUTSIDE_TOLERANCE:
                lines.append(f"parameter {name}: {100 * mass:.3g} % of its distribution lies "
                             f"outside the training box [{low:g}, {high:g}]")
        return lines

    def describe(self) -> dict[str, dict[str, Any]]:
        """JSON-safe description: each parameter's scipy.stats name and arguments."""
        return dict(zip(self.names, self.specs, strict=True))


def _marginal(name: str, spec: Mapping[str, Any]) -> Any:
    """The frozen scipy.stats distribution of ``spec``; InputError for an unknown name,
    a wrong argument or one that scipy refuses."""
    import scipy.stats

    kind = spec.get("distribution")
    if kind not in DISTRIBUTIONS:
        raise InputError(f"parameter {name}: unknown distribution {kind!r}; choose one of: "
                         f"{', '.join(DISTRIBUTIONS)} (scipy.stats names)")
    args = {k: v for k, v in spec.items() if k != "distribution"}
    wrong = sorted(set(args) - set(DISTRIBUTIONS[kind]))
    if wrong or not all(isinstance(v, int | float) and not isinstance(v, bool)
                        and np.isfinite(v) for v in args.values()):
        raise InputError(f"parameter {name}: {kind} takes the numbers "
                         f"{', '.join(DISTRIBUTIONS[kind])}, got {', '.join(map(str, args))}")
    marginal = getattr(scipy.stats, kind)(**args)
    if not np.isfinite(marginal.mean()) or not marginal.std() > 0:
        given = ", ".join(f"{k}={v}" for k, v in args.items())
        raise InputError(f"parameter {name}: {kind}({given}) is not a proper distribution")
    return marginal


def input_distribution(names: tuple[str, ...], box: np.ndarray,
                       specs: Mapping[str, Mapping[str, Any]] | None = None,
                       warn: Callable[[str], None] | None = None,
                       strict: bool = False) -> InputDistribution:
    """The distribution of ``specs`` (parameter -> scipy.stats name and arguments; the others
    uniform over ``box``); mass outside the box is warned about, or refused when ``strict``."""
    box = check_box(box, tuple(names))
    specs = dict(specs or {})
    unknown = sorted(set(specs) - set(names))
    if unknown:
        raise InputError(f"unknown parameter {', '.join(unknown)}; the family's parameters: "
                         f"{', '.join(names)}")
    resolved = tuple(dict(specs.get(name) or {"distribution": "uniform", "loc": float(low),
                                               "scale": float(high - low)})
                     for name, (low, high) in zip(names, box, strict=True))
    distribution = InputDistribution(tuple(names), box, tuple(
        _marginal(n, s) for n, s in zip(names, resolved, strict=True)), resolved)
    lines = distribution.outside_box()
    if lines and strict:
        raise InputError(f"{lines[0]} (--strict)")
    for line in lines:
        if warn is not None:
            warn(line)
    return distribution


def run_distribution(run: Any, path: str | Path | None = None,
                     warn: Callable[[str], None] | None = None,
                     strict: bool = False) -> InputDistribution:
    """The distribution of a family run: ``path`` (a dist.toml) or uniform over the run's
    recorded training box (else its family's box)."""
    from surrogate.core.toml_files import read_toml
    from surrogate.fem.families import get_family

    dataset = getattr(run, "dataset", {})
    family = get_family(str(dataset.get("family")))
    box = dataset.get("param_box")
    specs = None if path is None else read_toml(path, "distribution file")
    if specs is not None and not all(isinstance(v, Mapping) for v in specs.values()):
        raise InputError(f"{path}: each parameter is a table ([k] distribution = ..., ...)")
    return input_distribution(tuple(family.param_names), np.asarray(
        family.box if box is None else box, dtype=float), specs, warn, strict)


__all__ = ["DISTRIBUTIONS", "OUTSIDE_TOLERANCE", "InputDistribution", "input_distribution",
           "run_distribution"]
