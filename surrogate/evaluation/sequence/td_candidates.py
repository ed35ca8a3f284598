"""The FEM ladder of a maxwell-td verdict: specs, their cavity systems, the data's own FEM.

A candidate is ``backend:order:level:substeps`` with an ``r`` for Richardson in time
(``ngsolve:4:2:2r``: NGSolve's order 4 on the level-2 mesh, Newmark Δt/2, extrapolated with
Δt/4). Every candidate solves the data's cavity: the same domain, dipole (centre, width) and
probe points, on its own mesh; its set-up (mesh and operators) is paid once per evaluation.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from surrogate.core.errors import InputError

DEFAULT_LADDER = ("skfem:0:2:1", "skfem:0:3:1", "ngsolve:2:2:2", "ngsolve:3:2:2",
                  "ngsolve:4:1:4", "ngsolve:4:2:2", "ngsolve:4:2:2r")
"""The candidates of a maxwell-td verdict unless ``--fem-candidates`` names others."""
NONE = "none"
"""``--fem-candidates none``: no verdict."""
SPEC = re.compile(r"^([a-z][a-z0-9_-]*):(\d+):(\d+):(\d+)(r?)$")


@dataclass(frozen=True)
class FemSpec:
    """One time-domain FEM: backend, order, mesh level, Newmark steps per output step and
    whether a second run at twice as many is extrapolated in Δt (Richardson)."""

    backend: str
    order: int
    level: int
    substeps: int = 1
    richardson: bool = False

    @property
    def text(self) -> str:
        """``"ngsolve:4:2:2r"``."""
        return (f"{self.backend}:{self.order}:{self.level}:{self.substeps}"
                f"{'r' if self.richardson else ''}")

    @property
    def method(self) -> str:
        """``"Newmark Δt/2 + Richardson"`` (Δt: the output step)."""
        step = "Δt" if self.substeps == 1 else f"Δt/{self.substeps}"
        return f"Newmark {step}{' + Richardson' if self.richardson else ''}"


def recipe_spec(recipe: Any) -> FemSpec:
    """The FEM a maxwell-td recipe's data were made with."""
    return FemSpec(recipe.fem_backend, int(recipe.fem_order), int(recipe.level),
                   int(recipe.substeps), bool(recipe.richardson))


def parse_spec(text: str) -> FemSpec:
    """``"ngsolve:4:2:2r"`` -> :class:`FemSpec`; InputError (one line) when malformed or the
    backend or order is unknown (an uninstalled backend is accepted here)."""
    from surrogate.fem.hcurl.registry import BACKENDS

    match = SPEC.match(text.strip())
    if match is None:
        raise InputError(f"--fem-candidates {text!r}: expected backend:order:level:substeps "
                         "with an optional r for Richardson (e.g. ngsolve:4:2:2r), or none")
    backend, order, level, substeps, richardson = match.groups()
    if backend not in BACKENDS:
        raise InputError(f"--fem-candidates {text!r}: unknown FEM backend {backend!r}; choose "
                         f"one of: {', '.join(BACKENDS)}")
    offered = tuple(sorted(BACKENDS[backend].time_domain))
    if int(order) not in offered:
        raise InputError(f"--fem-candidates {text!r}: the {backend} time-domain backend "
                         f"offers orders {offered}")
    if int(level) < 1 or int(substeps) < 1:
        raise InputError(f"--fem-candidates {text!r}: level and substeps must be >= 1")
    return FemSpec(backend, int(order), int(level), int(substeps), richardson == "r")


def spec_texts(values: Sequence[str] | None, default: Sequence[str] = DEFAULT_LADDER
               ) -> tuple[str, ...]:
    """The specs of ``--fem-candidates`` values (each may hold several, comma or space
    separated); None -> ``default`` (maxwell-td's :data:`DEFAULT_LADDER`)."""
    if values is None:
        return tuple(default)
    return tuple(t for v in values for t in re.split(r"[,\s]+", str(v)) if t)


def parse_candidates(values: Sequence[str] | None, default: Sequence[str] = DEFAULT_LADDER
                     ) -> tuple[tuple[FemSpec, ...] | None, list[str]]:
    """The installed candidates of ``--fem-candidates`` (``default`` when not given; None
    for ``none``: no verdict) and notes on those left out (backend not installed);
    InputError on a bad spec."""
    from surrogate.fem.hcurl.registry import BACKENDS, backend_installed

    texts = spec_texts(values, default)
    if NONE in texts:
        if len(texts) > 1:
            raise InputError("--fem-candidates none turns the FEM verdict off; give it alone")
        return None, []
    specs = list(dict.fromkeys(parse_spec(t) for t in texts))
    missing = [s for s in specs if not backend_installed(s.backend)]
    notes = [f"FEM candidate {s.text} left out: the {s.backend} backend is not installed "
             f"(pip install 'surrogate[{BACKENDS[s.backend].extra}]')" for s in missing]
    return tuple(s for s in specs if s not in missing), notes


def candidate_setup(data_setup: Any, spec: FemSpec) -> tuple[Any, float]:
    """The data's setup (same recipe otherwise, dipole and probes) with ``spec``'s mesh and
    operators, and the seconds that took (mesh + assembly: one-off per evaluation)."""
    from surrogate.fem.time_domain_operators import cavity_system

    start = time.perf_counter()
    recipe = dataclasses.replace(data_setup.recipe, fem_backend=spec.backend,
                                 fem_order=spec.order, level=spec.level,
                                 substeps=spec.substeps, richardson=spec.richardson)
    centre = (recipe.source_centre if recipe.source_centre is not None
              else data_setup.domain.bounds.mean(axis=1))
    system = cavity_system(data_setup.domain.mesh(spec.level), spec.order, spec.backend,
                           centre, recipe.source_width, data_setup.probe_points)
    setup = dataclasses.replace(data_setup, recipe=recipe, ops=system.ops, load=system.load,
                                observe=system.observe)
    return setup, time.perf_counter() - start


def with_steps(setup: Any, steps: int) -> Any:
    """``setup`` for ``steps`` output steps (a longer horizon: the same operators)."""
    return dataclasses.replace(setup, recipe=dataclasses.replace(setup.recipe, steps=steps))


__all__ = ["DEFAULT_LADDER", "FemSpec", "NONE", "candidate_setup", "parse_candidates",
           "parse_spec", "recipe_spec", "spec_texts", "with_steps"]
