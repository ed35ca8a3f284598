"""SequenceModelConfig and the config of each sequence architecture (LEM, coRNN, LSTM).

The models (Rusch, thesis): LEM (ch. 5, eq. 5.3), coRNN (ch. 2, eq. 2.3) and torch's
LSTM as a same-size baseline, each followed by a linear read-out applied at every step
(``readout="sequence"``, seq-to-seq) or at the last step only (``readout="last"``).
Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from surrogate.core.errors import InputError
from surrogate.core.typed_config import TypedConfig, setting

DAMPING_MODES = ("implicit", "explicit")
READOUT_MODES = ("sequence", "last")
READOUT_INITS = ("kaiming", "uniform")
SEQUENCE = "Sequence"


@dataclass(frozen=True, kw_only=True)
class SequenceModelConfig(TypedConfig):
    """Fields of every sequence model acting on batch-first ``(N, T, d)`` inputs.

    Not built directly: ``LEMConfig``, ``CoRNNConfig``, ``LSTMConfig`` (``arch`` defaults
    to their name) add their own fields; ``dt=None`` takes the class's ``default_dt``,
    ``readout_init=None`` the class's ``default_readout_init``.
    """

    dispatch_field: ClassVar[str | None] = "arch"

    kind: ClassVar[str] = "sequence"
    config_name: ClassVar[str] = "sequence model config"
    default_dt: ClassVar[float] = 1.0
    default_readout_init: ClassVar[str] = "kaiming"

    arch: str = setting(doc="Architecture.")
    in_features: int = setting(doc="d, input channels per step (from the data).", ge=1,
                               cli=False)
    out_features: int = setting(doc="Read-out size (from the data).", ge=1, cli=False)
    hidden: int = setting(32, doc="lem, cornn, lstm: hidden units m (pointwise archs use "
                          "--width).", panel=SEQUENCE, ge=1)
    dt: float | None = setting(None, doc="lem, cornn: time step Δt > 0 (the initial value with "
                               "--learn-dt).", panel=SEQUENCE, gt=0.0,
                               shown="lem 1, cornn 0.042")
    learn_dt: bool = setting(False, doc="lem, cornn: learn one Δt_i = softplus(ρ_i) > 0 per "
                             "hidden unit.", panel=SEQUENCE)
    readout: str = setting("sequence", doc="Sequence archs: linear read-out at every step "
                           "(seq-to-seq) or at the last step (seq-to-one).", panel=SEQUENCE,
                           choices=READOUT_MODES,
                           shown="last when the dataset's targets hold one time step, else "
                           "sequence")
    readout_init: str | None = setting(None, doc="Sequence archs: read-out weight N(0, 2/m) "
                                       "(kaiming, the LEM code's) or torch's U(±1/√m) "
                                       "(uniform, the coRNN code's); bias U(±1/√m) either way.",
                                       panel=SEQUENCE, choices=READOUT_INITS,
                                       shown="lem, cornn kaiming; lstm uniform")
    linear_response: int = setting(0, doc="Sequence archs on maxwell-nl data: learn the "
                                   "residual to the linear response ℓ, one convolution with "
                                   "a bank of this many FEM ramp responses on a σ₀ grid "
                                   "(surrogate.models.linear_response, eq. 2); 0: off.",
                                   panel=SEQUENCE, ge=0)
    response_steps: int = setting(0, doc="Longest sequence (steps) the linear-response bank "
                                  "covers (from the data: 4× its steps).", ge=0, cli=False)

    def __post_init__(self) -> None:
        if self.dt is None:
            object.__setattr__(self, "dt", type(self).default_dt)
        if self.readout_init is None:
            object.__setattr__(self, "readout_init", type(self).default_readout_init)
        super().__post_init__()

    def check(self) -> None:
        """The class's own arch; a base config is not a model."""
        if type(self) is SequenceModelConfig:
            raise InputError("SequenceModelConfig is the base of the sequence configs; use "
                             "config_from_dict({'arch': ..., ...}) or e.g. LEMConfig(...)")
        own = type(self).__dataclass_fields__["arch"].default
        if self.arch != own:
            raise InputError(f"{type(self).__name__} describes arch {own!r}, got {self.arch!r}")
        if self.linear_response and (self.linear_response < 2 or self.readout != "sequence"):
            raise InputError(f"linear_response={self.linear_response}: needs >= 2 grid points "
                             "and the read-out 'sequence' (or 0: off)")

    @property
    def core_in_features(self) -> int:
        """Input channels of the recurrent core: d, or d + out with the linear response ℓ."""
        return self.in_features + (self.out_features if self.linear_response else 0)

    def parameter_floor(self) -> int:
        """Parameters every sequence model has: input (m×d), recurrent (m×m), read-out (k×m)."""
        return self.hidden * (self.in_features + self.hidden + self.out_features)


@dataclass(frozen=True, kw_only=True)
class LEMConfig(SequenceModelConfig):
    """Long expressive memory (eq. 5.3); Δt = 1 by default (thesis Table 5.8)."""

    arch: str = "lem"
    split_bias: bool = setting(False, doc="lem: two bias vectors per pre-activation whose sum "
                               "acts, as the authors' code (its input and recurrent maps each "
                               "carry one): init U + U, twice the Adam step on the sum.",
                               panel=SEQUENCE)


@dataclass(frozen=True, kw_only=True)
class CoRNNConfig(SequenceModelConfig):
    """Coupled oscillatory RNN (eq. 2.3); Δt = 0.042, γ = 2.7, ε = 4.7 (Table 2.8)."""

    default_dt: ClassVar[float] = 0.042

    arch: str = "cornn"
    gamma: float = setting(2.7, doc="Oscillation frequency γ > 0 of eq. 2.3.", panel=SEQUENCE,
                           gt=0.0, flag="cornn-gamma")
    epsilon: float = setting(4.7, doc="Damping ε > 0 of eq. 2.3.", panel=SEQUENCE,
                             gt=0.0)
    damping: str = setting("implicit", doc="Damping −Δt ε z taken at the new step "
                           "(implicit) or the old one (explicit).", panel=SEQUENCE,
                           choices=DAMPING_MODES)


@dataclass(frozen=True, kw_only=True)
class LSTMConfig(SequenceModelConfig):
    """torch's LSTM, the same-size baseline (``dt`` unused)."""

    default_readout_init: ClassVar[str] = "uniform"

    arch: str = "lstm"

    def check(self) -> None:
        """No learned Δt: the LSTM has no time step."""
        super().check()
        if self.learn_dt:
            raise InputError("learn_dt applies to arch 'lem' and 'cornn' only, not 'lstm'")


__all__ = ["SequenceModelConfig", "LEMConfig", "CoRNNConfig", "LSTMConfig", "DAMPING_MODES",
           "READOUT_MODES", "READOUT_INITS"]
