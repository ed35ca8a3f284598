"""Options of a sequence evaluation: the sets, the horizon, fresh sequences, materials, VTK."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.evaluation.sequence.sets import SET_NAMES, parse_material_ranges


@dataclass(frozen=True)
class SequenceEvaluationOptions:
    """Resolved options of a sequence evaluation (written into ``evaluation.json``)."""

    sets: tuple[str, ...] | None = None
    horizon_factor: float = 2.0
    fresh: int = 0
    max_sequences: int | None = None
    material_seed: int | None = None
    material_ranges: tuple[str, ...] = ()
    sample: int = 0
    vtk_every: int | None = None
    batch_size: int | None = None
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.sets is not None:
            unknown = [s for s in self.sets if s not in SET_NAMES]
            if unknown:
                raise InputError(f"unknown evaluation set {unknown[0]!r}; choose from: "
                                 f"{', '.join(SET_NAMES)}")
        if not np.isfinite(self.horizon_factor) or self.horizon_factor <= 1:
            raise InputError(f"--horizon-factor must be a number > 1, got {self.horizon_factor}")
        for name, minimum in (("fresh", 0), ("sample", 0), ("max_sequences", 1),
                              ("vtk_every", 1), ("material_seed", 0)):
            value = getattr(self, name)
            if value is not None and value < minimum:
                raise InputError(f"--{name.replace('_', '-')} must be >= {minimum}, got {value}")
        parse_material_ranges(self.material_ranges)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary of the options."""
        return {"sets": list(self.sets) if self.sets else None,
                "horizon_factor": self.horizon_factor, "fresh": self.fresh,
                "max_sequences": self.max_sequences, "material_seed": self.material_seed,
                "material_ranges": parse_material_ranges(self.material_ranges),
                "sample": self.sample, "vtk_every": self.vtk_every,
                "batch_size": self.batch_size, "device": self.device}


__all__ = ["SequenceEvaluationOptions"]
