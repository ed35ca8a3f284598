"""The input distribution of a UQ study: independent parameters, by default uniform over
the run's training box. Torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from surrogate.fem.families.family import check_box


@dataclass(frozen=True)
class UniformBox:
    """μ uniform over ``box`` (p, 2): μ_j = low_j + U_j (high_j − low_j), U_j iid U(0, 1)."""

    names: tuple[str, ...]
    box: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "box", check_box(self.box, tuple(self.names)))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent draws (n, p) (plain Monte Carlo: the estimators' variances assume
        independent samples)."""
        low, high = self.box[:, 0], self.box[:, 1]
        return low + rng.random((int(n), len(self.names))) * (high - low)

    def describe(self) -> dict[str, object]:
        """JSON-safe description."""
        return {name: {"distribution": "uniform", "low": float(lo), "high": float(hi)}
                for name, (lo, hi) in zip(self.names, self.box, strict=True)}


def training_box(run: object) -> UniformBox:
    """Uniform over the run's recorded parameter box (else its family's box)."""
    from surrogate.fem.families import get_family

    dataset = getattr(run, "dataset", {})
    family = get_family(str(dataset.get("family")))
    box = dataset.get("param_box")
    return UniformBox(tuple(family.param_names), np.asarray(
        family.box if box is None else box, dtype=float))


__all__ = ["UniformBox", "training_box"]
