"""What ``surrogate uq`` computes: the quantities, the target, the FEM of reference, the
input distribution. The command's options are the :func:`setting` fields of
:class:`UqOptions`, and a Python caller of :func:`~surrogate.uq.study.run_uq` gets the same
checks (a plain frozen dataclass, as the evaluation options: ``qoi`` is a tuple, which
:class:`~surrogate.core.typed_config.TypedConfig` does not check). Torch-free.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.evaluation.devices import DEVICE_CHOICES
from surrogate.fem.hcurl import registry
from surrogate.uq.mfmc import PILOT
from surrogate.uq.quantities import QUANTITY_HELP
from surrogate.uq.reference_fem import DEFAULT_FEM
from surrogate.uq.sobol import SOBOL_BASE, SOBOL_FEM_BASE

_SHOWN = (f"the --evaluation's, else {DEFAULT_FEM[0]} order {DEFAULT_FEM[1]} level "
          f"{DEFAULT_FEM[2]}")


@dataclass(frozen=True)
class ModelOptions:
    """The two models of a study or a server: the quantities, the FEM of reference, the test
    domain and the surrogate's device."""

    qoi: tuple[str, ...] = setting(("energy",), doc=f"Quantity of interest (repeatable): "
                                   f"{QUANTITY_HELP}.", multiple=True, shown="energy")
    fem_backend: str | None = setting(None, doc="Backend of the FEM of reference (the "
                                      "high-fidelity model), as evaluate names its candidates.",
                                      listed=registry.backend_names, shown=_SHOWN)
    fem_order: int | None = setting(None, doc="Order of the FEM of reference (0 = N0, 1 = "
                                    "complete linear, ...).", ge=0,
                                    listed=lambda: registry.FEM_ORDERS, shown=_SHOWN)
    fem_level: int | None = setting(None, doc="Mesh level of the FEM of reference on the "
                                    "test domain.", ge=0, shown=_SHOWN)
    fem_maxh: float | None = setting(None, doc="Largest tet of a mesh fitted to each "
                                     "sample's geometry (inclusion): the FEM of reference "
                                     "meshes every sample to fit its interface (ngsolve, "
                                     "curved), as evaluate's fitted candidates, and --fem-level "
                                     "only places the quantities' points; 0: the level's mesh.",
                                     ge=0, shown="the --evaluation's, else none")
    evaluation: str | None = setting(None, doc="A family evaluation.json of this run: the FEM "
                                     "of reference is the fastest one it found at the run's "
                                     "error on its median problem, on its test domain (the "
                                     "--fem-* options given still win).", shown="none")
    domain: str | None = setting(None, doc="Test domain: the energy's integral and the FEM's "
                                 "mesh.", shown="the cube (closed form) or the training domain")
    device: str = setting("cpu", doc="Where the surrogate runs.", choices=DEVICE_CHOICES)
    surrogate_level: int | None = setting(None, doc="Mesh level of the surrogate's own energy "
                                          "rule: fewer points make a pointwise surrogate's "
                                          "queries cheaper; MFMC stays unbiased for the FEM's "
                                          "mean (only the correlation changes).", ge=0,
                                          shown="the FEM's points")
    surrogate_intorder: int | None = setting(None, doc="Degree of the surrogate's own energy "
                                             "rule (with or without --surrogate-level).", ge=1,
                                             shown="the FEM's points")

    def __post_init__(self) -> None:
        if not self.qoi:
            raise InputError("at least one --qoi is needed")
        maxh = self.fem_maxh
        if maxh is not None and (isinstance(maxh, bool) or not isinstance(maxh, int | float)
                                 or not math.isfinite(maxh) or maxh < 0):
            raise InputError(f"--fem-maxh must be a finite number >= 0, got {self.fem_maxh!r}")
        for name, least in (("surrogate_level", 0), ("surrogate_intorder", 1)):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < least):
                raise InputError(f"--{name.replace('_', '-')} must be an integer >= {least}, "
                                 f"got {value!r}")
        if self.device not in DEVICE_CHOICES:
            raise InputError(f"unknown device {self.device!r}; choose one of: "
                             f"{', '.join(DEVICE_CHOICES)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (written into uq.json)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class UqOptions(ModelOptions):
    """One MFMC study of a family run (``rse`` or ``budget``: exactly one)."""

    rse: float | None = setting(None, doc="Target relative standard error of the first "
                                "quantity's mean; the allocation follows it.", gt=0, shown="none")
    budget: float | None = setting(None, doc="Seconds of sampling, pilot included (the run's "
                                   "one-off not counted).", gt=0, shown="none")
    dist: str | None = setting(None, doc="TOML file of per-parameter scipy.stats "
                               "distributions (uniform, norm, lognorm, truncnorm); the others "
                               "uniform over the training box.", shown="uniform over the box")
    strict: bool = setting(False, doc="Refuse a distribution with mass outside the training "
                           "box instead of warning.")
    pilot: int = setting(PILOT, doc="Shared pilot samples (costs, variances, correlation).",
                         ge=3)
    seed: int = setting(0, doc="Seed of the draws (numpy Generator).")
    report: bool = setting(True, doc="With --out, also index.html: estimate ± error against "
                           "cost for MC and MFMC, the allocation, the Sobol bars.")
    sobol: bool = setting(False, doc="Also first-order and total Sobol indices of each "
                          "quantity through the surrogate (SALib, bootstrap intervals), and "
                          "from the FEM on a small sample.")
    sobol_samples: int = setting(SOBOL_BASE, doc="Base sample N of the Sobol indices (a "
                                 "power of 2): N (parameters + 2) surrogate queries.", ge=2)
    sobol_fem_samples: int = setting(SOBOL_FEM_BASE, doc="Base sample of the same indices "
                                     "from the FEM of reference, beside the surrogate's on that "
                                     "sample (N (parameters + 2) solves; 0: none).", ge=0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.rse is None) == (self.budget is None):
            raise InputError("give either --rse (a target relative standard error) or "
                             "--budget (seconds)")
        for name in ("rse", "budget"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise InputError(f"--{name} must be > 0, got {value!r}")
        if self.sobol_samples < 2:
            raise InputError(f"--sobol-samples must be >= 2, got {self.sobol_samples}")
        if self.sobol_fem_samples < 0:
            raise InputError(f"--sobol-fem-samples must be >= 0, got {self.sobol_fem_samples}")
        if self.pilot < 3:
            raise InputError(f"--pilot must be >= 3, got {self.pilot}")


@dataclass(frozen=True)
class ServeOptions(ModelOptions):
    """A UM-Bridge server of the two models."""

    port: int = setting(4242, doc="TCP port of the server.", ge=1, le=65535)
    max_seconds: float | None = setting(None, doc="Stop by itself after this many seconds.",
                                        gt=0, shown="never")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.port <= 65535:
            raise InputError(f"--port must lie in [1, 65535], got {self.port}")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise InputError(f"--max-seconds must be > 0, got {self.max_seconds!r}")


__all__ = ["DEFAULT_FEM", "ModelOptions", "UqOptions", "ServeOptions"]
