"""ModelConfig: the fields every τ-stepping network shares (the base of their configs).

Layer counting follows Antil, Díaz, Herberg (§2.2, eqs. 5.2 and 5.7): the input
``u = y^[0]`` is mapped by the input layer ``y^[1] = τ^[0] σ(W^[0] u + b^[0])``
into the hidden space, hidden layers ``y^[ℓ]``, ``ℓ = 2 … L-1``, advance the state
with one step ``τ^[ℓ-1]`` each, and the output layer ``y^[L] = W^[L-1] y^[L-1]`` is
linear without bias. ``depth`` is the number of τ-steps, input layer included,
i.e. the number of hidden feature vectors ``y^[1] … y^[L-1]``: ``depth = L - 1``.
The paper's "2 layers × 50 nodes" (Table 1, "2-50", steps τ^[0], τ^[1]) is
``depth=2, width=50``; its "6-50" is ``depth=6``. ``width`` is ``n_ℓ`` of every
hidden feature vector. Each architecture's config subclasses :class:`ModelConfig`
(:mod:`surrogate.models.stepping_configs`) and adds only its own fields. Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from surrogate.core.errors import InputError
from surrogate.core.typed_config import TypedConfig, setting

HORIZON_MODES = ("penalty", "exact")
ACTIVATION_NAMES = ("smooth-relu", "relu", "tanh", "softplus", "silu")
INPUT_KINDS = ("pointwise", "params", "fields", "params-geometry")
MODEL, STEPS, FAMILY = "Model", "Steps (τ)", "Family inputs"
POINT_COLUMNS = 3
"""Leading input columns that are the point x (with ``inputs="fields"`` the rest are sensors)."""


@dataclass(frozen=True, kw_only=True)
class ModelConfig(TypedConfig):
    """Fields of every τ-stepping network (ResNet eq. 5.2, Fractional-DNN eq. 5.7, ...).

    Not built directly: each architecture has a subclass (``ResNetConfig``, ...) whose
    ``arch`` defaults to its name; ``config_from_dict({"arch": ..., ...})`` of
    :mod:`surrogate.models.registry` picks the subclass by name.
    """

    dispatch_field: ClassVar[str | None] = "arch"

    kind: ClassVar[str] = "pointwise"
    config_name: ClassVar[str] = "model config"
    #: Not fields here: the architectures that honour them declare them as fields.
    step_lipschitz: ClassVar[float | None] = None
    skew_weights: ClassVar[bool] = False

    arch: str = setting(doc="Architecture.", panel=MODEL)
    in_features: int = setting(doc="n_0, the input size (from the data).", ge=1, cli=False)
    out_features: int = setting(doc="n_L, the output size (from the data).", ge=1, cli=False)
    width: int = setting(50, doc="Hidden width n_ℓ.", panel=MODEL, ge=1)
    depth: int = setting(2, doc="Number of τ-steps (hidden layers).", panel=MODEL, ge=1)
    tau: float | None = setting(None, doc="'learned' (one step per layer) or a fixed step > 0.",
                                panel=STEPS, gt=0.0, shown="learned", text=True)
    tau_init: float = setting(0.1, doc="Initial learned step.", panel=STEPS)
    tau_min: float = setting(1e-6, doc="Lower bound of learned steps: τ = tau_min + softplus(ρ).",
                             panel=STEPS, ge=0.0)
    activation: str = setting("smooth-relu", doc="Activation σ.", panel=MODEL,
                              choices=ACTIVATION_NAMES)
    quadratic_output: bool = setting(False, doc="Add W_q (y ⊙ y) to the linear output W y "
                                     "(W_q starts at 0): beyond its data the network then "
                                     "continues with curvature, not linearly.", panel=MODEL)
    time_horizon: float | None = setting(None, doc="Final time T = Σ τ.", panel=STEPS, gt=0.0)
    horizon_mode: str = setting("penalty", doc="Enforce Σ τ = T by a penalty or exactly "
                                "(τ = tau_min + (T - depth·tau_min) softmax(ρ)).", panel=STEPS,
                                choices=HORIZON_MODES)
    inputs: str = setting("pointwise", doc="What identifies the problem of a family dataset: "
                          "pointwise (x, f(x), φ(x)), params (x, μ), fields (x and a learned "
                          "encoding of the sensor values) or params-geometry (x, μ and the "
                          "family's features of the member's geometry at x, e.g. the signed "
                          "distance to inclusion's ball).", panel=FAMILY, choices=INPUT_KINDS)
    encoder_width: int = setting(128, doc="fields: hidden width of the sensor encoder.",
                                 panel=FAMILY, ge=1)
    code_size: int = setting(32, doc="fields: size of the sensor encoding joined to x.",
                             panel=FAMILY, ge=1)

    def check(self) -> None:
        """Cross-field checks: the class's own arch, τ bounds, the exact-horizon mode."""
        if type(self) is ModelConfig:
            raise InputError("ModelConfig is the base of the architectures' configs; use "
                             "config_from_dict({'arch': ..., ...}) or e.g. ResNetConfig(...)")
        own = type(self).__dataclass_fields__["arch"].default
        if self.arch != own:
            raise InputError(f"{type(self).__name__} describes arch {own!r}, got {self.arch!r}")
        if self.tau_init <= self.tau_min:
            raise InputError(f"tau_init must be > tau_min = {self.tau_min}, got {self.tau_init!r}")
        if self.inputs == "fields" and self.in_features <= POINT_COLUMNS:
            raise InputError(f"inputs 'fields' needs the {POINT_COLUMNS} point columns and at "
                             f"least one sensor value, got in_features={self.in_features}")
        if self.time_horizon is not None:
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

    def parameter_floor(self) -> int:
        """Parameters every τ-stepping network has: ``depth`` affine maps and a linear output
        (with ``inputs="fields"`` the first acts on x and the code, the encoder not counted)."""
        first = self.in_features if self.inputs != "fields" else POINT_COLUMNS + self.code_size
        return (self.width * (first + 1)
                + (self.depth - 1) * self.width * (self.width + 1)
                + self.width * self.out_features)

    @classmethod
    def shared_field_names(cls) -> tuple[str, ...]:
        """Fields every τ-stepping architecture has."""
        return tuple(f.name for f in fields(ModelConfig))


__all__ = ["ModelConfig", "HORIZON_MODES", "ACTIVATION_NAMES", "INPUT_KINDS", "POINT_COLUMNS",
           "MODEL", "STEPS", "FAMILY"]
