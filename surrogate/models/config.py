"""ModelConfig: the small, typed, JSON-safe description of one network.

Layer counting follows Antil, Díaz, Herberg (§2.2, eqs. 5.2 and 5.7): the input
``u = y^[0]`` is mapped by the input layer ``y^[1] = τ^[0] σ(W^[0] u + b^[0])``
into the hidden space, hidden layers ``y^[ℓ]``, ``ℓ = 2 … L-1``, advance the state
with one step ``τ^[ℓ-1]`` each, and the output layer ``y^[L] = W^[L-1] y^[L-1]`` is
linear without bias. ``depth`` is the number of τ-steps, input layer included,
i.e. the number of hidden feature vectors ``y^[1] … y^[L-1]``: ``depth = L - 1``.
The paper's "2 layers × 50 nodes" (Table 1, "2-50", steps τ^[0], τ^[1]) is
``depth=2, width=50``; its "6-50" is ``depth=6``. ``width`` is ``n_ℓ`` of every
hidden feature vector.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from surrogate.core.errors import InputError

HORIZON_MODES = ("penalty", "exact")

_INT_FIELDS = ("in_features", "out_features", "width", "depth", "order", "solver_max_iter")
_FLOAT_FIELDS = ("tau", "tau_init", "tau_min", "gamma", "time_horizon", "theta", "cubic",
                 "solver_tol", "step_lipschitz")
_STR_FIELDS = ("arch", "activation", "horizon_mode")


@dataclass(frozen=True)
class ModelConfig:
    """Typed description of a τ-stepping network (ResNet eq. 5.2, Fractional-DNN eq. 5.7, ...).

    Attributes
    ----------
    arch
        Architecture name, a key of ``surrogate.models.registry.ARCHITECTURES``
        (``"resnet"``, ``"frac-dnn"``, ``"densenet"``).
    in_features, out_features
        ``n_0`` (input size) and ``n_L`` (output size).
    width
        ``n_ℓ`` of every hidden feature vector ``y^[1] … y^[L-1]``.
    depth
        Number of τ-steps ``τ^[0] … τ^[depth-1]`` including the input layer, i.e. the
        number of hidden layers ``L - 1`` of the paper ("2-50" is ``depth=2``).
    tau
        Fixed step used in every layer (stored as a buffer); ``None`` learns one step per
        layer.
    tau_init
        Initial value of every learned step (ignored when ``tau`` is set or when
        ``horizon_mode="exact"``, which starts from ``time_horizon / depth``).
    tau_min
        Lower bound of learned steps: ``τ = tau_min + softplus(ρ) > 0`` by construction.
        Must be ``> 0`` for a learned-τ ``frac-dnn`` (its coefficients divide by τ).
    gamma
        Fractional order ``γ ∈ (0, 1)`` of the Fractional-DNN (eq. 5.7).
    activation
        ``"smooth-relu"`` (the paper's smoothReLU, η = 1e-4), ``"relu"``, ``"tanh"``,
        ``"softplus"``.
    time_horizon
        Optional final time ``T = Σ_ℓ τ^[ℓ]``.
    horizon_mode
        ``"penalty"``: ``Σ τ = T`` is enforced by ``penalties.time_horizon_penalty``;
        ``"exact"``: steps are parametrised as ``τ = tau_min + (T - depth·tau_min)
        softmax(ρ)`` so the sum is exactly ``T`` and every step stays positive.
    theta
        ``θ ∈ [0, 1]`` of the implicit ResNet (Reshniak & Webster eq. 7; ½ = trapezoidal,
        0 = explicit ResNet).
    solver_tol, solver_max_iter
        Tolerance and iteration cap of the implicit layer's nonlinear solve.
    order
        ``k >= 1`` of the Cᵏ network (Hauser et al. eq. 7; k = 1 is the ResNet update).
    cubic
        ``γ̃ >= 0``, the cubic damping of the ODE network (Ruseckas eq. 109).
    multistep
        ODE network: use the two-step variant with trainable ``k_l`` (Ruseckas eq. 111).
    step_lipschitz
        Optional bound ``c > 0`` on the Lipschitz constant of every hidden step's increment
        (``resnet``, ``ck-net``): hidden layer ℓ >= 1 uses ``W_eff = W min(1, c / (τ^k ‖W‖₂))``,
        so ``τ^k ‖W_eff‖₂ <= c`` (k = 1 for the ResNet, ``order`` for ck-net). With ``c < 1``
        and a 1-Lipschitz σ every ResNet step is invertible (Behrmann et al. 2019).
    skew_weights
        Hidden layers ℓ >= 1 use the skew-symmetric ``W = A − Aᵀ`` of their stored weight
        ``A`` (Reshniak & Webster eq. 8: purely imaginary spectrum); the input layer is not
        square and stays as is (``resnet``, ``implicit-resnet``).
    """

    arch: str
    in_features: int
    out_features: int
    width: int = 50
    depth: int = 2
    tau: float | None = None
    tau_init: float = 0.1
    tau_min: float = 1e-6
    gamma: float = 0.5
    activation: str = "smooth-relu"
    time_horizon: float | None = None
    horizon_mode: str = "penalty"
    theta: float = 0.5
    solver_tol: float = 1e-6
    solver_max_iter: int = 100
    order: int = 2
    cubic: float = 0.1
    multistep: bool = False
    step_lipschitz: float | None = None
    skew_weights: bool = False

    def __post_init__(self) -> None:
        for name in _STR_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"{name} must be a string, got {value!r}")
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be an integer >= 1, got {value!r}")
        for name in _FLOAT_FIELDS:
            value = getattr(self, name)
            if value is None and name in ("tau", "time_horizon", "step_lipschitz"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InputError(f"{name} must be finite, got {value!r}")
            object.__setattr__(self, name, float(value))
        if not isinstance(self.multistep, bool):
            raise InputError(f"multistep must be true or false, got {self.multistep!r}")
        if not isinstance(self.skew_weights, bool):
            raise InputError(f"skew_weights must be true or false, got {self.skew_weights!r}")
        self._check_values()

    def _check_values(self) -> None:
        # Imported here: the registry imports the model modules, which import this one.
        from surrogate.models.registry import ACTIVATIONS, ARCHITECTURES

        _check_choice("arch", self.arch, ARCHITECTURES)
        _check_choice("activation", self.activation, ACTIVATIONS)
        _check_choice("horizon_mode", self.horizon_mode, HORIZON_MODES)
        if not 0.0 < self.gamma < 1.0:
            raise InputError(f"gamma must lie in (0, 1), got {self.gamma!r}")
        if self.tau is not None and self.tau <= 0.0:
            raise InputError(f"tau must be > 0, got {self.tau!r}")
        if self.tau_min < 0.0:
            raise InputError(f"tau_min must be >= 0, got {self.tau_min!r}")
        if self.tau_init <= self.tau_min:
            raise InputError(f"tau_init must be > tau_min = {self.tau_min}, got {self.tau_init!r}")
        if self.arch == "frac-dnn" and self.tau is None and self.tau_min <= 0.0:
            raise InputError("tau_min must be > 0 for frac-dnn with learned tau (eq. 5.7 divides "
                             "by every step)")
        if not 0.0 <= self.theta <= 1.0:
            raise InputError(f"theta must lie in [0, 1], got {self.theta!r}")
        if self.solver_tol <= 0.0:
            raise InputError(f"solver_tol must be > 0, got {self.solver_tol!r}")
        if self.cubic < 0.0:
            raise InputError(f"cubic must be >= 0, got {self.cubic!r}")
        if self.step_lipschitz is not None:
            if self.step_lipschitz <= 0.0:
                raise InputError(f"step_lipschitz must be > 0, got {self.step_lipschitz!r}")
            if not ARCHITECTURES[self.arch].supports_step_lipschitz:
                able = sorted(n for n, c in ARCHITECTURES.items() if c.supports_step_lipschitz)
                raise InputError(f"step_lipschitz is not supported by arch {self.arch!r}; "
                                 f"use one of: {', '.join(able)}")
        if self.skew_weights and not ARCHITECTURES[self.arch].supports_skew_weights:
            able = sorted(n for n, c in ARCHITECTURES.items() if c.supports_skew_weights)
            raise InputError(f"skew_weights is not supported by arch {self.arch!r}; use one of: "
                             f"{', '.join(able)}")
        if self.time_horizon is not None:
            if self.time_horizon <= 0.0:
                raise InputError(f"time_horizon must be > 0, got {self.time_horizon!r}")
            if self.horizon_mode == "exact":
                if self.tau is not None:
                    raise InputError("horizon_mode 'exact' needs learned steps (tau=None); "
                                     "a fixed tau already fixes the horizon")
                if self.time_horizon <= self.depth * self.tau_min:
                    raise InputError(f"time_horizon must exceed depth * tau_min = "
                                     f"{self.depth * self.tau_min}, got {self.time_horizon!r}")
        elif self.horizon_mode == "exact":
            raise InputError("horizon_mode 'exact' needs a time_horizon")

    @property
    def learned_tau(self) -> bool:
        """True when every layer learns its own step."""
        return self.tau is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelConfig:
        """Build a config from :meth:`to_dict` output; InputError on unknown keys or values."""
        if not isinstance(data, Mapping):
            raise InputError(f"model config must be a mapping, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"unknown model config key(s): {', '.join(map(str, unknown))}; "
                             f"valid keys: {', '.join(sorted(known))}")
        missing = [k for k in ("arch", "in_features", "out_features") if k not in data]
        if missing:
            raise InputError(f"model config is missing: {', '.join(missing)}")
        return cls(**dict(data))


def _check_choice(name: str, value: str, choices) -> None:
    if value not in choices:
        raise InputError(f"unknown {name} {value!r}; choose one of: {', '.join(sorted(choices))}")


__all__ = ["ModelConfig", "HORIZON_MODES"]
