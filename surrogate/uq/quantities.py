"""Scalar quantities of interest of a field u: the energy ∫|u|² and probe components.

``energy`` is ∫_Ω |u|² dx over the test domain by the toolkit's quadrature rule
(:func:`~surrogate.fem.quadrature.quadrature_rule` of a mesh level: Σ_m w_m |u(x_m)|²);
``probe:x,y,z`` is u(x, y, z), three quantities (u1, u2, u3); ``field`` is u at every node of
the mesh (3 × nodes columns after the scalar ones, estimated on the scalars' allocation and
written as a ParaView file, not into the per-quantity record; alone it brings ``energy`` to
set the allocation). In Python, :func:`function_quantity` makes any function of u at given
points a quantity. Every model (surrogate, FEM, closed form) answers u at the same points,
:attr:`QuantityPoints.points` (the rule's points, then the probes, the nodes and the points
of functions), so that the quantities of all models are the same functionals, unless
:func:`with_energy_rule` gives the surrogate a cheaper energy rule of its own. Torch-free.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from surrogate.core.errors import InputError

COMPONENTS = ("u1", "u2", "u3")
QUANTITY_HELP = ("energy (∫|u|² over the test domain), probe:x,y,z (u1, u2, u3 there) or field "
                 "(u at the mesh's nodes: mean and standard deviation as a ParaView file)")


@dataclass(frozen=True)
class Quantity:
    """``energy``; ``probe`` at ``point`` (x, y, z); ``field`` (u at the mesh's nodes); or
    ``function``: ``function`` (u (B, m, 3) at ``points`` (m, 3) -> (B, len(labels)))."""

    kind: str
    point: tuple[float, float, float] | None = None
    points: tuple[tuple[float, float, float], ...] = ()
    function: Callable[[np.ndarray], np.ndarray] | None = field(default=None, compare=False)
    labels: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The scalar names: ("energy",), ("probe:x,y,z:u1", ..., ":u3"), a function's
        labels, or () for the field."""
        if self.kind == "energy":
            return ("energy",)
        if self.kind == "field":
            return ()
        if self.kind == "function":
            return self.labels
        where = ",".join(f"{v:g}" for v in self.point)
        return tuple(f"probe:{where}:{c}" for c in COMPONENTS)


def function_quantity(labels: Sequence[str], points: np.ndarray,
                      function: Callable[[np.ndarray], np.ndarray]) -> Quantity:
    """A quantity ``function`` (u (B, m, 3) at ``points`` (m, 3) -> (B, len(labels))), e.g.
    the mean of u1 over a line: ``function_quantity(["mean u1"], line, lambda u: u[:, :, 0]
    .mean(axis=1, keepdims=True))``; every model answers u at ``points`` for it."""
    xyz = np.asarray(points, dtype=float).reshape(-1, 3)
    if not len(labels) or not len(xyz) or not np.isfinite(xyz).all():
        raise InputError("a function quantity needs labels and finite points (m, 3)")
    return Quantity("function", points=tuple(map(tuple, xyz.tolist())), function=function,
                    labels=tuple(map(str, labels)))


def parse_quantity(text: str) -> Quantity:
    """``"energy"`` or ``"probe:x,y,z"``; InputError (one line) for anything else."""
    spec = str(text).strip()
    if spec in ("energy", "field"):
        return Quantity(spec)
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
    """The distinct quantities of ``texts`` in their order (none given: energy; the field
    alone: energy first, to set the allocation)."""
    quantities = tuple(dict.fromkeys(parse_quantity(t) for t in (texts or ("energy",))))
    if all(q.kind == "field" for q in quantities):
        quantities = (Quantity("energy"), *quantities)
    return quantities


@dataclass(frozen=True)
class QuantityPoints:
    """Where the models answer u: a quadrature rule of ``domain`` at ``level`` (degree
    ``intorder``; empty without an energy) followed by the located points (``probes``:
    probes, functions' points and the nodes of ``mesh``, the field's, in the quantities'
    order). ``mesh`` is the rule's unless :func:`with_energy_rule` gave the rule another."""

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
    def field_nodes(self) -> int:
        """Nodes of the ``field`` (its 3 × nodes columns follow the scalars); 0 without."""
        return self.mesh.p.shape[1] if any(q.kind == "field" for q in self.quantities) else 0

    @property
    def points(self) -> np.ndarray:
        """(M + R, 3): the rule's points, then the located points (:attr:`probes`: the
        probes, the functions' points and the field's nodes, in the quantities' order)."""
        return np.concatenate([self.quadrature, self.probes])

    def from_fields(self, u: np.ndarray) -> np.ndarray:
        """The quantities (B, q) of fields u (B, M + R, 3) at :attr:`points`: the scalars in
        the quantities' order, then the field's node values (n1 u1, n1 u2, ...)."""
        u = np.asarray(u, dtype=np.float64)
        m = len(self.weights)
        energy = np.einsum("bmc,bmc,m->b", u[:, :m], u[:, :m], self.weights)
        columns, nodal, offset = [], [], m
        for quantity in self.quantities:
            if quantity.kind == "energy":
                columns.append(energy[:, None])
                continue
            count = {"probe": 1, "field": self.field_nodes}.get(quantity.kind,
                                                                len(quantity.points))
            part, offset = u[:, offset:offset + count], offset + count
            if quantity.kind == "field":
                nodal.append(part.reshape(len(u), -1))
            elif quantity.kind == "probe":
                columns.append(part.reshape(len(u), 3))
            else:
                columns.append(_function_values(quantity, part))
        return np.concatenate(columns + nodal, axis=1)


def _function_values(quantity: Quantity, u: np.ndarray) -> np.ndarray:
    """(B, len(labels)) of a function quantity; InputError for another shape."""
    values = np.asarray(quantity.function(u), dtype=np.float64)
    if values.ndim == 1 and len(quantity.labels) == 1:
        values = values[:, None]
    if values.shape != (len(u), len(quantity.labels)):
        raise InputError(f"the function of {', '.join(quantity.labels)} returned shape "
                         f"{values.shape}, not ({len(u)}, {len(quantity.labels)})")
    return values


def quantity_points(quantities: Sequence[Quantity], domain: str, level: int,
                    intorder: int) -> QuantityPoints:
    """The points of ``quantities`` on ``domain`` at ``level`` (rule of degree ``intorder``);
    InputError for a probe or a function's point outside the domain."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.quadrature import quadrature_rule

    resolved = get_domain(domain)
    mesh = resolved.mesh(int(level))
    if any(q.kind == "energy" for q in quantities):
        points, weights = quadrature_rule(mesh, int(intorder))
    else:
        points, weights = np.zeros((0, 3)), np.zeros(0)
    chosen = [np.asarray([q.point] if q.kind == "probe" else q.points, dtype=float)
              for q in quantities if q.kind in ("probe", "function")]
    chosen = np.concatenate(chosen).reshape(-1, 3) if chosen else np.zeros((0, 3))
    outside = ~np.asarray(resolved.contains(chosen), dtype=bool) if len(chosen) else []
    if np.any(outside):
        bad = ", ".join(f"({','.join(f'{v:g}' for v in p)})" for p in chosen[outside][:3])
        raise InputError(f"probe point {bad} lies outside the {resolved.name} domain")
    located = [np.asarray([q.point] if q.kind == "probe" else q.points, dtype=float)
               .reshape(-1, 3) if q.kind != "field" else np.asarray(mesh.p.T, dtype=float)
               for q in quantities if q.kind != "energy"]
    probes = np.concatenate(located) if located else np.zeros((0, 3))
    return QuantityPoints(tuple(quantities), resolved.name, int(level), int(intorder), mesh,
                          points, weights, probes)


def with_energy_rule(points: QuantityPoints, level: int | None,
                     intorder: int | None) -> QuantityPoints:
    """``points`` with the energy's rule of degree ``intorder`` on ``level`` of its domain
    (None: its own), the located points unchanged: a low-fidelity model's cheaper energy, a
    different functional whose only effect on MFMC is the correlation. InputError for a level
    the domain does not have."""
    from surrogate.fem.domains import get_domain
    from surrogate.fem.quadrature import quadrature_rule

    level = points.level if level is None else int(level)
    intorder = points.intorder if intorder is None else int(intorder)
    if not len(points.weights) or (level, intorder) == (points.level, points.intorder):
        return points
    resolved = get_domain(points.domain)
    if level < resolved.min_level:
        raise InputError(f"surrogate level {level} does not exist on the {resolved.name} "
                         f"(levels from {resolved.min_level})")
    quadrature, weights = quadrature_rule(resolved.mesh(level), intorder)
    return replace(points, level=level, intorder=intorder, quadrature=quadrature,
                   weights=weights)


__all__ = ["COMPONENTS", "QUANTITY_HELP", "Quantity", "function_quantity", "parse_quantity",
           "parse_quantities", "QuantityPoints", "quantity_points", "with_energy_rule"]
