"""Scalar quantities of interest of a field u: the energy ∫|u|² and probe components.

``energy`` is ∫_Ω |u|² dx over the test domain by the toolkit's quadrature rule
(:func:`~surrogate.fem.quadrature.quadrature_rule` of a mesh level: Σ_m w_m |u(x_m)|²);
``probe:x,y,z`` is u(x, y, z), three quantities (u1, u2, u3). Every model (surrogate, FEM,
closed form) answers u at the same points, :attr:`QuantityPoints.points` (the rule's points,
then the probes), so that the quantities of all models are the same functionals. Torch-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

COMPONENTS = ("u1", "u2", "u3")
QUANTITY_HELP = "energy (∫|u|² over the test domain) or probe:x,y,z (u1, u2, u3 there)"


@dataclass(frozen=True)
class Quantity:
    """``energy``, or ``probe`` at ``point`` (x, y, z)."""

    kind: str
    point: tuple[float, float, float] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The scalar names: ("energy",) or ("probe:x,y,z:u1", ..., ":u3")."""
        if self.kind == "energy":
            return ("energy",)
        where = ",".join(f"{v:g}" for v in self.point)
        return tuple(f"probe:{where}:{c}" for c in COMPONENTS)


def parse_quantity(text: str) -> Quantity:
    """``"energy"`` or ``"probe:x,y,z"``; InputError (one line) for anything else."""
    spec = str(text).strip()
    if spec == "energy":
        return Quantity("energy")
    kind, _, where = spec.partition(":")
    if kind == "probe":
        try:
            point = tuple(float(v) for v in where.split(","))
        except ValueError:
            point = ()
        if len(point) == 3 and np.isfinite(point).all():
            return Quantity("probe", point)
    raise InputError(f"unknown quantity {spec!r}; choose {QUANTITY_HELP}")


def parse_quantities(texts: Sequence[str] | None) -> tuple[Quantity, ...]:
    """The distinct quantities of ``texts`` in their order (none given: energy)."""
    return tuple(dict.fromkeys(parse_quantity(t) for t in (texts or ("energy",))))


@dataclass(frozen=True)
class QuantityPoints:
    """Where the models answer u: a quadrature rule of ``mesh`` (``domain`` at ``level``,
    degree ``intorder``; empty without an energy) followed by the probes."""

    quantities: tuple[Quantity, ...]
    domain: str
    level: int
    intorder: int
    mesh: Any = field(repr=False)
    quadrature: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    probes: np.ndarray = field(repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        """One name per scalar quantity, in the order of the columns."""
        return tuple(name for q in self.quantities for name in q.names)

    @property
    def points(self) -> np.ndarray:
        """(M + R, 3): the rule's points, then the probes."""
        return np.concatenate([self.quadrature, self.probes])

    def from_fields(self, u: np.ndarray) -> np.ndarray:
        """The quantities (B, q) of fields u (B, M + R, 3) at :attr:`points`."""
        u = np.asarray(u, dtype=np.float64)
        m = len(self.weights)
        energy = np.einsum("bmc,bmc,m->b", u[:, :m], u[:, :m], self.weights)
        probes = u[:, m:].reshape(len(u), -1)
        columns, next_probe = [], 0
        for quantity in self.quantities:
            if quantity.kind == "energy":
                columns.append(energy[:, None])
            else:
                columns.append(probes[:, 3 * next_probe:3 * next_probe + 3])
                next_probe += 1
        return np.concatenate(columns, axis=1)


def quantity_points(quantities: Sequence[Quantity], domain: str, level: int,
                    intorder: int) -> QuantityPoints:
    """The points of ``quantities`` on ``domain`` at ``level`` (rule of degree ``intorder``);
    InputError for a probe outside the domain."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.quadrature import quadrature_rule

    resolved = get_domain(domain)
    mesh = resolved.mesh(int(level))
    if any(q.kind == "energy" for q in quantities):
        points, weights = quadrature_rule(mesh, int(intorder))
    else:
        points, weights = np.zeros((0, 3)), np.zeros(0)
    probes = np.array([q.point for q in quantities if q.kind == "probe"],
                      dtype=float).reshape(-1, 3)
    outside = ~np.asarray(resolved.contains(probes), dtype=bool) if len(probes) else []
    if np.any(outside):
        bad = ", ".join(f"({','.join(f'{v:g}' for v in p)})" for p in probes[outside])
        raise InputError(f"probe point {bad} lies outside the {resolved.name} domain")
    return QuantityPoints(tuple(quantities), resolved.name, int(level), int(intorder), mesh,
                          points, weights, probes)


__all__ = ["COMPONENTS", "QUANTITY_HELP", "Quantity", "parse_quantity", "parse_quantities",
           "QuantityPoints", "quantity_points"]
