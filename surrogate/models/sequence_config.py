"""SequenceModelConfig: the small, typed, JSON-safe description of one sequence model.

The models (Rusch, thesis): LEM (ch. 5, eq. 5.3), coRNN (ch. 2, eq. 2.3) and torch's
LSTM as a same-size baseline, each followed by a linear read-out applied at every step
(``readout="sequence"``, seq-to-seq) or at the last step only (``readout="last"``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from surrogate.core.errors import InputError

SEQUENCE_ARCHS = ("lem", "cornn", "lstm")
DAMPING_MODES = ("implicit", "explicit")
READOUT_MODES = ("sequence", "last")

# Δt when none is given: LEM's Δt = 1 (thesis Table 5.8, FitzHugh–Nagumo); coRNN's
# Δt = 0.042, γ = 2.7, ε = 4.7 (Table 2.8, sMNIST with 256 units).
DEFAULT_DT = {"lem": 1.0, "cornn": 0.042, "lstm": 1.0}

_INT_FIELDS = ("in_features", "out_features", "hidden")
_POSITIVE_FLOAT_FIELDS = ("dt", "gamma", "epsilon")


@dataclass(frozen=True)
class SequenceModelConfig:
    """Typed description of a sequence model acting on batch-first ``(N, T, d)`` inputs.

    Attributes
    ----------
    arch
        ``"lem"`` (eq. 5.3), ``"cornn"`` (eq. 2.3) or ``"lstm"`` (``torch.nn.LSTM``).
    in_features, out_features
        ``d`` (input channels per step) and the read-out size.
    hidden
        ``m``, the number of hidden units (LEM and coRNN carry two states ``y, z ∈ R^m``).
    dt
        Time step ``Δt > 0`` (the initial value when ``learn_dt``); ``None`` takes the
        architecture's default (:data:`DEFAULT_DT`). Unused by ``"lstm"``.
    gamma, epsilon
        coRNN's ``γ > 0`` (oscillation frequency) and ``ε > 0`` (damping), eq. 2.3.
    damping
        coRNN's treatment of ``-Δt ε z_n̄``: ``"implicit"`` (n̄ = n, solved in closed form)
        or ``"explicit"`` (n̄ = n − 1).
    learn_dt
        Learn one ``Δt_i = softplus(ρ_i) > 0`` per hidden unit (LEM, coRNN), starting at
        ``dt``.
    readout
        ``"sequence"``: outputs ``(N, T, out_features)``; ``"last"``: ``(N, out_features)``.
    """

    arch: str
    in_features: int
    out_features: int
    hidden: int = 32
    dt: float | None = None
    gamma: float = 2.7
    epsilon: float = 4.7
    damping: str = "implicit"
    learn_dt: bool = False
    readout: str = "sequence"

    def __post_init__(self) -> None:
        for name in ("arch", "damping", "readout"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"{name} must be a string, got {value!r}")
        _check_choice("arch", self.arch, SEQUENCE_ARCHS)
        _check_choice("damping", self.damping, DAMPING_MODES)
        _check_choice("readout", self.readout, READOUT_MODES)
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be an integer >= 1, got {value!r}")
        if self.dt is None:
            object.__setattr__(self, "dt", DEFAULT_DT[self.arch])
        for name in _POSITIVE_FLOAT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value) or value <= 0.0:
                raise InputError(f"{name} must be a finite number > 0, got {value!r}")
            object.__setattr__(self, name, float(value))
        if not isinstance(self.learn_dt, bool):
            raise InputError(f"learn_dt must be true or false, got {self.learn_dt!r}")
        if self.learn_dt and self.arch == "lstm":
            raise InputError("learn_dt applies to arch 'lem' and 'cornn' only, not 'lstm'")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SequenceModelConfig:
        """Build a config from :meth:`to_dict` output; InputError on unknown keys or values."""
        if not isinstance(data, Mapping):
            raise InputError(f"sequence model config must be a mapping, got "
                             f"{type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(map(str, set(data) - known))
        if unknown:
            raise InputError(f"unknown sequence model config key(s): {', '.join(unknown)}; "
                             f"valid keys: {', '.join(sorted(known))}")
        missing = [k for k in ("arch", "in_features", "out_features") if k not in data]
        if missing:
            raise InputError(f"sequence model config is missing: {', '.join(missing)}")
        return cls(**dict(data))


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(f"unknown {name} {value!r}; choose one of: {', '.join(choices)}")


__all__ = ["SequenceModelConfig", "SEQUENCE_ARCHS", "DAMPING_MODES", "READOUT_MODES",
           "DEFAULT_DT"]
