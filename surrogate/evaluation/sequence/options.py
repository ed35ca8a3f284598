"""Options of a sequence evaluation: the sets, the horizon, fresh sequences, materials, VTK,
the FEM verdict's candidates (maxwell-td, maxwell-nl) and response store (maxwell-td)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.evaluation.option_fields import batch_size_field, device_field
from surrogate.evaluation.sequence.nl_verdict import NL_LADDER
from surrogate.evaluation.sequence.sets import SET_NAMES, parse_material_ranges
from surrogate.evaluation.sequence.td_candidates import DEFAULT_LADDER, parse_candidates


@dataclass(frozen=True)
class SequenceEvaluationOptions:
    """Resolved options of a sequence evaluation (written into ``evaluation.json``)."""

    sets: tuple[str, ...] | None = setting(None, doc="Evaluation set (repeatable).",
                                           flag="set", choices=SET_NAMES, multiple=True,
                                           shown="every set the dataset's recipe allows")
    horizon_factor: float = setting(2.0, doc="Longer-horizon length as a multiple of the "
                                    "trained one.")
    fresh: int = setting(0, doc="Also regenerate N new sequences beyond the file (unseen "
                         "signals; the other sets use the same ones).")
    max_sequences: int | None = setting(None, doc="At most N sequences per set.", shown="all")
    material_seed: int | None = setting(None, doc="Seed of the new materials (maxwell-td: the "
                                        "pool; maxwell-nl: amplitudes and varistors).",
                                        shown="seed + 1")
    material_ranges: tuple[str, ...] = setting(
        (), doc="Range of the unseen-materials set, NAME=LOW,HIGH with NAME eps, mu or sigma "
        "(maxwell-td) or amplitude, sigma0 or e0 (maxwell-nl) (repeatable; extrapolates "
        "outside training).", flag="material-range", multiple=True, shown="off")
    sample: int = setting(0, doc="Which unseen-signals sequence --vtk shows.")
    vtk_every: int | None = setting(None, doc="Write every N-th time step to VTK.",
                                    shown="at most 50 frames")
    fem_candidates: tuple[str, ...] | None = setting(
        None, doc="FEM candidates of the verdict (maxwell-td, maxwell-nl), backend:order:level:"
        "substeps with r for Richardson in time (repeatable or comma-separated; 'none': no "
        "verdict); the data's own FEM is always one.", multiple=True,
        shown=f"maxwell-td: {' '.join(DEFAULT_LADDER)}; maxwell-nl: {' '.join(NL_LADDER)}")
    fem_cache: str | None = setting(None, doc="Directory of the FEM impulse responses "
                                    "(maxwell-td; reused by later evaluations).",
                                    shown="in memory")
    batch_size: int | None = batch_size_field()
    device: str = device_field()

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
        parse_candidates(self.fem_candidates)
        if self.fem_cache is not None and Path(self.fem_cache).exists() \
                and not Path(self.fem_cache).is_dir():
            raise InputError(f"--fem-cache {self.fem_cache}: not a directory")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary of the options."""
        return {"sets": list(self.sets) if self.sets else None,
                "horizon_factor": self.horizon_factor, "fresh": self.fresh,
                "max_sequences": self.max_sequences, "material_seed": self.material_seed,
                "material_ranges": parse_material_ranges(self.material_ranges),
                "sample": self.sample, "vtk_every": self.vtk_every,
                "fem_candidates": None if self.fem_candidates is None
                else list(self.fem_candidates), "fem_cache": self.fem_cache,
                "batch_size": self.batch_size, "device": self.device}


__all__ = ["SequenceEvaluationOptions"]
