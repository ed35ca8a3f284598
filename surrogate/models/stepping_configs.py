"""The config of each τ-stepping architecture: :class:`ModelConfig` plus its own fields.

Torch-free (the command line reads the defaults of its help from here); the networks live in
one file per architecture and the registry (:mod:`surrogate.models.registry`) pairs the two.
"""

from __future__ import annotations

from dataclasses import dataclass

from surrogate.core.errors import InputError
from surrogate.core.typed_config import setting
from surrogate.models.config import MODEL, STEPS, ModelConfig

FRACTIONAL = "Fractional"


def _step_lipschitz() -> float | None:
    return setting(None, doc="Bound c > 0 on τ^k‖W‖₂ of every hidden step (c < 1: invertible "
                   "ResNet steps, Behrmann et al. 2019).", panel=STEPS, gt=0.0)


def _skew_weights() -> bool:
    return setting(False, doc="Hidden layers use W = A − Aᵀ (purely imaginary spectrum, "
                   "Reshniak & Webster eq. 8).", panel=MODEL)


@dataclass(frozen=True, kw_only=True)
class ResNetConfig(ModelConfig):
    """ResNet with variable τ (eq. 5.2), optionally with bounded or skew-symmetric steps."""

    arch: str = "resnet"
    step_lipschitz: float | None = _step_lipschitz()
    skew_weights: bool = _skew_weights()


@dataclass(frozen=True, kw_only=True)
class FractionalDNNConfig(ModelConfig):
    """Fractional-DNN of order γ ∈ (0, 1) (eq. 5.7)."""

    arch: str = "frac-dnn"
    gamma: float = setting(0.5, doc="Fractional order γ in (0, 1) (eq. 5.7).",
                           panel=FRACTIONAL, gt=0.0, lt=1.0)

    def check(self) -> None:
        """Learned steps need ``tau_min > 0``: eq. 5.7 divides by every step."""
        super().check()
        if self.tau is None and self.tau_min <= 0.0:
            raise InputError("tau_min must be > 0 for frac-dnn with learned tau (eq. 5.7 divides "
                             "by every step)")


@dataclass(frozen=True, kw_only=True)
class DenseNetConfig(ModelConfig):
    """DenseNet with variable τ (Theorem 6.4): no fields of its own."""

    arch: str = "densenet"


@dataclass(frozen=True, kw_only=True)
class ImplicitResNetConfig(ModelConfig):
    """Implicit ResNet, θ-method per layer (Reshniak & Webster eq. 7)."""

    arch: str = "implicit-resnet"
    theta: float = setting(0.5, doc="θ in [0, 1] (0.5 = trapezoidal, "
                           "0 = ResNet).", panel=MODEL, ge=0.0, le=1.0)
    solver_tol: float = setting(1e-6, doc="Tolerance of the layer solve.",
                                panel=MODEL, gt=0.0)
    solver_max_iter: int = setting(100, doc="Iteration cap of the layer solve.",
                                   panel=MODEL, ge=1)
    skew_weights: bool = _skew_weights()


@dataclass(frozen=True, kw_only=True)
class CkNetConfig(ModelConfig):
    """Cᵏ network of order k (Hauser et al. eq. 7; k = 1 is the ResNet)."""

    arch: str = "ck-net"
    order: int = setting(2, doc="Order k (k = 1: ResNet).", panel=MODEL, ge=1)
    step_lipschitz: float | None = _step_lipschitz()


@dataclass(frozen=True, kw_only=True)
class ODENetConfig(ModelConfig):
    """ODE network with cubic damping (Ruseckas eqs. 109–111)."""

    arch: str = "ode-net"
    cubic: float = setting(0.1, doc="Cubic damping γ̃ >= 0 (eq. 109).", panel=MODEL,
                           ge=0.0)
    multistep: bool = setting(False, doc="Two-step variant with trainable k_l "
                              "(eq. 111).", panel=MODEL)


__all__ = ["ResNetConfig", "FractionalDNNConfig", "DenseNetConfig", "ImplicitResNetConfig",
           "CkNetConfig", "ODENetConfig"]
