"""The config of the separable family model (``deeponet``): trunk and branch networks.

u_c(x; μ) = Σ_k b_{c,k}(μ) t_k(x) + β_c (DeepONet's branch and trunk, Lu et al. 2021). The
trunk t: R³ -> R^p is a τ-stepping network of ``width`` × ``depth`` on the point x (the first
:data:`~surrogate.models.config.POINT_COLUMNS` input columns); the branch b: R^m -> R^{n×p} is
a τ-stepping network of ``branch_width`` × ``branch_depth`` on the rest of the row (μ for
``inputs="params"``, the sensor code for ``"fields"``, f(x) and φ(x) for ``"pointwise"``); p is
``basis``. Both networks take the shared fields (τ, its bounds, σ, the quadratic output)
from this config. Torch-free (the registry and the command line read it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.models.config import POINT_COLUMNS, ModelConfig
from surrogate.models.stepping_configs import FRACTIONAL

SEPARABLE = "Separable (deeponet)"
STEPPING_PARTS = ("resnet", "frac-dnn", "densenet")
"""Architectures a trunk or a branch may be (their own fields at defaults, but ``gamma``)."""


def _part_arch(which: str) -> str:
    return setting("resnet", doc=f"Architecture of the {which} network.",
                   panel=SEPARABLE, choices=STEPPING_PARTS)


@dataclass(frozen=True, kw_only=True)
class DeepONetConfig(ModelConfig):
    """Separable model: trunk (``width`` × ``depth``) on x, branch on the problem's columns."""

    arch: str = "deeponet"
    basis: int = setting(64, doc="Number p of trunk features t_k(x) (basis size).",
                         panel=SEPARABLE, ge=1)
    branch_width: int | None = setting(None, doc="Hidden width of the branch "
                                       "network (default: --width).", panel=SEPARABLE, ge=1)
    branch_depth: int | None = setting(None, doc="Steps τ of the branch network "
                                       "(default: --depth).", panel=SEPARABLE, ge=1)
    trunk_arch: str = _part_arch("trunk (x)")
    branch_arch: str = _part_arch("branch (μ)")
    gamma: float = setting(0.5, doc="Fractional order γ in (0, 1) (eq. 5.7).",
                           panel=FRACTIONAL, gt=0.0, lt=1.0)  # that of a frac-dnn trunk/branch

    def check(self) -> None:
        """The rows hold x and at least one problem column; no time horizon (two networks)."""
        super().check()
        if self.in_features <= POINT_COLUMNS:
            raise InputError(f"arch 'deeponet' needs the {POINT_COLUMNS} point columns and at "
                             f"least one problem column (params, sensor code, f and φ), got "
                             f"in_features={self.in_features}")
        if self.inputs == "params-geometry":
            raise InputError("arch 'deeponet' takes per-problem columns in its branch; "
                             "inputs 'params-geometry' vary with x (use params or fields)")
        if self.time_horizon is not None:
            raise InputError("arch 'deeponet' has two networks; time_horizon is not supported")
        if "frac-dnn" in (self.trunk_arch, self.branch_arch) and self.tau is None \
                and self.tau_min <= 0.0:
            raise InputError("tau_min must be > 0 for a frac-dnn trunk or branch with learned "
                             "tau (eq. 5.7 divides by every step)")

    def part_fields(self, part: str) -> dict[str, Any]:
        """Fields of the ``"trunk"`` or ``"branch"`` network's own config (registry form)."""
        if part not in ("trunk", "branch"):
            raise InputError(f"part must be 'trunk' or 'branch', got {part!r}")
        arch = self.trunk_arch if part == "trunk" else self.branch_arch
        shared = {"arch": arch, "tau": self.tau, "tau_init": self.tau_init,
                  "tau_min": self.tau_min, "activation": self.activation,
                  "quadratic_output": self.quadratic_output}
        if arch == "frac-dnn":
            shared["gamma"] = self.gamma
        if part == "trunk":
            return {**shared, "in_features": POINT_COLUMNS, "out_features": self.basis,
                    "width": self.width, "depth": self.depth}
        return {**shared, "in_features": self.in_features - POINT_COLUMNS,
                "out_features": self.out_features * self.basis,
                "width": self.branch_width or self.width,
                "depth": self.branch_depth or self.depth}

    def parameter_floor(self) -> int:
        """Affine maps and linear read-outs of both networks, plus β (n numbers); with
        ``inputs="fields"`` the branch acts on the sensor code (the encoder not counted)."""
        if self.inputs == "fields":
            return replace(self, in_features=POINT_COLUMNS + self.code_size,
                           inputs="pointwise").parameter_floor()
        total = self.out_features
        for part in ("trunk", "branch"):
            f = self.part_fields(part)
            total += (f["width"] * (f["in_features"] + 1)
                      + (f["depth"] - 1) * f["width"] * (f["width"] + 1)
                      + f["width"] * f["out_features"])
        return total


__all__ = ["DeepONetConfig", "STEPPING_PARTS", "SEPARABLE"]
