"""What ``surrogate predict`` computes: the problems, the points, the device and float type.

:class:`PredictOptions` holds them as a typed config: ``surrogate predict``'s options are its
fields, and a Python caller of :func:`~surrogate.predict.to_files.predict_to_files` gets the
same checks (one-line InputError each). Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from surrogate.core.errors import InputError
from surrogate.core.typed_config import TypedConfig, setting
from surrogate.evaluation.devices import DEVICE_CHOICES

DTYPE_CHOICES = ("float32", "float64")
"""Float types of a prediction (of the computation and of u)."""


@dataclass(frozen=True)
class PredictOptions(TypedConfig):
    """The problems (``params``: a table file, or none for a single-problem run) and the points
    (``domain`` at ``level``, or a ``points`` file: exactly one of the two)."""

    config_name: ClassVar[str] = "predict options"

    params: str | None = setting(
        None, doc="Problems of a family run, one row per problem: the family's parameters "
        "(CSV with a header naming them, any order, or NPY in the family's order); for a "
        "`fields` run, its sensor values in the run's sensor order.", shown="none")
    domain: str | None = setting(
        None, doc="Predict at the nodes of this domain's mesh: a built-in domain or a mesh "
        "file (.msh, .vtu, ...).", shown="none")
    level: int = setting(3, doc="Refinement level of --domain's mesh, from the domain's "
                         "coarsest (0 on the cube, 1 elsewhere).", ge=0)
    points: str | None = setting(
        None, doc="Predict at these points: CSV (x1,x2,x3 or x,y,z header optional), NPY or "
        "FILE.h5[:DATASET], one point per row.", shown="none")
    strict: bool = setting(False, doc="Refuse parameters outside the training box instead of "
                           "warning per row.")
    device: str = setting("cpu", doc="Where the network runs.", choices=DEVICE_CHOICES)
    dtype: str = setting("float32", doc="Float type of the computation and of u.",
                         choices=DTYPE_CHOICES)

    def check(self) -> None:
        if (self.domain is None) == (self.points is None):
            raise InputError("give the points with either --domain (and --level) or --points")


__all__ = ["DTYPE_CHOICES", "PredictOptions"]
