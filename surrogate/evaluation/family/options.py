"""Options of a family evaluation: unseen problems, test domains, levels, FEM orders, probes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.evaluation.devices import DEVICE_CHOICES
from surrogate.evaluation.family.fitted import check_maxh, parse_maxh_list, resolved_maxh
from surrogate.evaluation.option_fields import (
    batch_size_field,
    device_field,
    domains_field,
    fem_backends_field,
    fem_max_dofs_field,
    fem_orders_field,
    intorder_field,
    levels_field,
    solver_field,
)
from surrogate.fem.hcurl.registry import (
    check_backend,
    check_order,
    check_solver,
    evaluation_methods,
)

EXTRAPOLATE_WIDEN = 0.25
"""``--extrapolate``: the box is widened by this fraction of its width on each side."""
EXACT_LEVELS = (0, 1, 2, 3, 4)
"""Default levels of a closed-form family, from the coarsest each test domain has (the cube's
level 0 is 6 tets: high-order FEM at equal error is often fastest there)."""
TRUTH_LEVELS = (1, 2, 3)


def coarsest_to(levels: tuple[int, ...], domains: tuple[str, ...]) -> tuple[int, ...]:
    """``levels`` without those below the coarsest level of any of ``domains``."""
    from surrogate.fem.domains import get_domain

    coarsest = max(get_domain(name).min_level for name in domains)
    return tuple(level for level in levels if level >= coarsest)


@dataclass(frozen=True)
class FamilyEvaluationOptions:
    """Resolved options of one family evaluation (written into ``evaluation.json``).

    ``domains``/``levels`` None: the cube and levels 1–4 for a family with an exact solution,
    the training domain and levels 1–3 for a FEM-truth family (:meth:`resolved`). ``fem_orders``:
    the orders of the FEM candidates (the toolkit's naming, docs/cli.md: 0 = N0, 1 = complete
    linear, ...; None: each backend's defaults) of every backend of ``fem_backends`` (None:
    every installed one); orders ≥ 1 run on levels ≤ ``higher_order_max_level``, and no
    candidate above ``fem_max_dofs`` H(curl) DOFs runs. ``fem_fitted_maxh``: the fitted
    candidates' maxh (None: :data:`~surrogate.evaluation.family.fitted.FITTED_MAXH` for a
    family with a fitted geometry, () for none; resolved per family). ``solver`` and
    ``rtol`` go to every FEM solve unchanged.
    ``seed`` None: the training data's seed + 1 (a fresh quasi-random draw). ``truth_level``
    None: a FEM-truth family is judged on its data's truth level (raised where an evaluated
    level needs it, :func:`surrogate.evaluation.family.measure.truth_choice`); data with the
    fitted truth are judged by that fitted truth, and ``truth_level`` is an InputError there.
    """

    problems: int = setting(32, doc="Number K of unseen problems drawn from the training "
                            "parameter box.")
    extrapolate: bool = setting(False, doc="Draw the unseen problems from the parameter box "
                                "widened by 25 % of its width per side.")
    domains: tuple[str, ...] | None = domains_field(
        None, shown="the cube (closed form) or the training domain (FEM truth)")
    levels: tuple[int, ...] | None = levels_field(None, shown="0-4 (closed form; from 1 on "
                                                  "domains without a level 0) or 1-3 (FEM "
                                                  "truth)")
    fem_backends: tuple[str, ...] | None = fem_backends_field()
    fem_orders: tuple[int, ...] | None = fem_orders_field()
    higher_order_max_level: int = setting(3, doc="Finest level of the FEM candidates of order ≥ 1.")
    fem_max_dofs: int = fem_max_dofs_field(32_000)
    fem_fitted_maxh: tuple[float, ...] | None = setting(
        None, doc="Largest tet sizes of the fitted FEM candidates (families with a fitted "
        "geometry, inclusion: each member meshed to fit its ball, curved, solved by ngsolve at "
        "the --fem-order orders, default 1,2,3; their time includes the meshing), "
        "comma-separated; 'none': no fitted candidates.", parse=parse_maxh_list,
        shown="0.5,0.35 for inclusion with ngsolve installed, else none")
    probes: int = setting(100, doc="Probe points of the probe-query timings.")
    query_batch: int = setting(1000, doc="Problems answered in one call by the batched-query "
                               "timing (break-even of the batch pattern).")
    seed: int | None = setting(None, doc="Seed of the quasi-random draw of the unseen problems "
                               "(another seed: another K problems, to check a conclusion on a "
                               "fresh draw).", flag="draw-seed", shown="the data's seed + 1")
    solver: str = solver_field()
    rtol: float = setting(1e-10, doc="Relative tolerance of the iterative FEM solves.")
    intorder: int = intorder_field()
    repeats: int = setting(3, doc="Repeats of each timing, the surrogates' queries and FEM "
                           "solves under 0.5 s (the fastest counts).")
    batch_size: int | None = batch_size_field()
    device: str = device_field()
    truth_level: int | None = setting(
        None, doc="Mesh level of the FEM truth (families without a closed form) that judges "
        "every error (finer than the data's truth: its error is smaller). A run on data of the "
        "fitted truth is judged by that fitted truth; --truth-level is an error there.",
        shown="the data's truth level")

    def __post_init__(self) -> None:
        if self.problems < 1:
            raise InputError(f"--problems must be >= 1, got {self.problems}")
        if self.domains is not None and not self.domains:
            raise InputError("at least one --domain is needed")
        if self.levels is not None and (not self.levels or min(self.levels) < 0):
            raise InputError(f"levels must be >= 0, got {list(self.levels)}")
        if self.fem_orders is not None and not self.fem_orders:
            raise InputError("at least one FEM order is needed")
        for order in self.fem_orders or ():
            check_order(order, None)
        for backend in self.fem_backends or ():
            check_backend(backend)
        evaluation_methods(self.fem_backends, self.fem_orders)
        if self.fem_fitted_maxh is not None:
            check_maxh(tuple(self.fem_fitted_maxh))
        if self.fem_max_dofs < 1:
            raise InputError(f"--fem-max-dofs must be >= 1, got {self.fem_max_dofs}")
        if not 0 < self.rtol < 1:
            raise InputError(f"rtol must lie in (0, 1), got {self.rtol}")
        if self.probes < 1:
            raise InputError(f"need at least one probe point, got {self.probes}")
        if self.query_batch < 1:
            raise InputError(f"--query-batch must be >= 1, got {self.query_batch}")
        check_solver(self.solver)
        if self.device not in DEVICE_CHOICES:
            raise InputError(f"unknown device {self.device!r}; choose one of: "
                             f"{', '.join(DEVICE_CHOICES)}")
        if self.truth_level is not None and self.truth_level < 1:
            raise InputError(f"--truth-level must be >= 1, got {self.truth_level}")
        if self.intorder < 1 or self.repeats < 1:
            raise InputError("quadrature order and timing repeats must be >= 1")

    @property
    def widen(self) -> float:
        """Fraction of the box width added on each side of the parameter box."""
        return EXTRAPOLATE_WIDEN if self.extrapolate else 0.0

    def resolved(self, family: Any) -> FamilyEvaluationOptions:
        """Domains and levels filled in for ``family``; InputError for a FEM-truth family on a
        domain other than its training domain (its solution depends on the domain)."""
        training = str(family.training_domain)
        if family.has_exact and self.truth_level is not None:
            raise InputError(f"family {family.name!r} has a closed-form solution: "
                             "--truth-level applies to FEM-truth families only")
        if family.has_exact:
            domains = self.domains or ("cube",)
            levels = self.levels or coarsest_to(EXACT_LEVELS, domains)
        else:
            domains = self.domains or (training,)
            levels = self.levels or TRUTH_LEVELS
            if set(domains) != {training}:
                raise InputError(f"family {family.name!r} has no closed-form solution: it is "
                                 f"evaluated on its training domain {training!r} only")
        return replace(self, domains=tuple(dict.fromkeys(domains)),
                       levels=tuple(sorted(set(levels))),
                       fem_fitted_maxh=resolved_maxh(family, self.fem_fitted_maxh,
                                                     self.fem_backends))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (tuples as lists) with the widening used."""
        out = asdict(self)
        for key in ("domains", "levels", "fem_orders", "fem_backends", "fem_fitted_maxh"):
            out[key] = None if out[key] is None else list(out[key])
        out["widen"] = self.widen
        return out


__all__ = ["EXACT_LEVELS", "EXTRAPOLATE_WIDEN", "FamilyEvaluationOptions",
           "TRUTH_LEVELS"]
