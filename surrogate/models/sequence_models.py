"""Sequence models: a recurrent core (LEM, coRNN or torch's LSTM) plus a linear read-out.

Batch first: inputs ``u`` (N, T, d); outputs ``W_o y_n + b_o`` at every step
(``readout="sequence"``, (N, T, out)) or at the last step only (``readout="last"``,
(N, out)). The hidden state starts at zero, allocated from the input's device and dtype.
"""

from __future__ import annotations

from torch import Tensor, nn

from surrogate.core.errors import InputError
from surrogate.models.cornn import CoRNNCell
from surrogate.models.lem import LEMCell, check_sequence_input
from surrogate.models.sequence_config import (
    CoRNNConfig,
    LEMConfig,
    LSTMConfig,
    SequenceModelConfig,
)


class SequenceModel(nn.Module):
    """Recurrent ``core`` (returns hidden states (N, T, m) first) + linear read-out.

    ``config`` is the :class:`SequenceModelConfig` the model was built from
    (``build_lem``, ...; None when assembled by hand).
    """

    def __init__(self, core: nn.Module, in_features: int, hidden: int, out_features: int,
                 readout: str = "sequence", config: SequenceModelConfig | None = None) -> None:
        super().__init__()
        if readout not in ("sequence", "last"):
            raise InputError(f"unknown readout {readout!r}; choose one of: sequence, last")
        self.core = core
        self.in_features = in_features
        self.readout_mode = readout
        self.readout = nn.Linear(hidden, out_features)
        self.config = config

    def learned_dt(self) -> Tensor | None:
        """Per-unit Δt_i = softplus(ρ_i) (m,) of a core that learns it, else None."""
        if getattr(self.core, "fixed_dt", 0.0) is None:
            return self.core.dt
        return None

    def forward(self, u: Tensor) -> Tensor:
        """u (N, T, d) -> (N, T, out) for readout "sequence", (N, out) for "last"."""
        check_sequence_input(u, self.in_features)
        weight = self.readout.weight
        if u.dtype != weight.dtype or u.device != weight.device:
            raise InputError(f"sequence input is {u.dtype} on {u.device} but the model is "
                             f"{weight.dtype} on {weight.device}; move one with .to()")
        states = self.core(u)[0]
        if self.readout_mode == "last":
            return self.readout(states[:, -1])
        return self.readout(states)


def build_lem(config: LEMConfig) -> nn.Module:
    """LEM core (eq. 5.3) and read-out (``config.readout_init``, :func:`kaiming_readout`);
    weights from torch's global RNG."""
    core = LEMCell(config.core_in_features, config.hidden, dt=config.dt, learn_dt=config.learn_dt,
                   split_bias=config.split_bias)
    return _with_readout(core, config)


def build_cornn(config: CoRNNConfig) -> nn.Module:
    """coRNN core (eq. 2.3) and read-out (``config.readout_init``, :func:`kaiming_readout`);
    weights from torch's global RNG."""
    core = CoRNNCell(config.core_in_features, config.hidden, dt=config.dt, gamma=config.gamma,
                     epsilon=config.epsilon, damping=config.damping, learn_dt=config.learn_dt)
    return _with_readout(core, config)


def kaiming_readout(model: SequenceModel) -> SequenceModel:
    """The authors' read-out initialisation (github.com/tk-rusch/LEM, ``network.py``): weight
    ~ N(0, 2/m) (``kaiming_normal_``) after torch's default, bias torch's U(±1/√m).

    Std √(2/m) against the default's 1/√(3m): 2.4× larger. On FitzHugh–Nagumo (LEM, 16
    units, seed 0) it lowered the best val RMSE after 200 epochs from 1.13·10⁻² to
    8.4·10⁻³ (docs/results/sequences.md)."""
    nn.init.kaiming_normal_(model.readout.weight)
    return model


def build_lstm(config: LSTMConfig) -> nn.Module:
    """torch's batch-first LSTM and read-out; weights from torch's global RNG."""
    core = nn.LSTM(config.core_in_features, config.hidden, batch_first=True)
    return _with_readout(core, config)


def _with_readout(core: nn.Module, config: SequenceModelConfig) -> nn.Module:
    """The model with its read-out, Kaiming-initialised where ``config.readout_init`` says;
    inside :class:`~surrogate.models.linear_response.LinearResponseResidual` when
    ``config.linear_response`` > 0 (its bank set by training)."""
    model = SequenceModel(core, config.core_in_features, config.hidden, config.out_features,
                          config.readout, config)
    model = kaiming_readout(model) if config.readout_init == "kaiming" else model
    if not config.linear_response:
        return model
    from surrogate.models.linear_response import LinearResponseResidual

    return LinearResponseResidual(model, config.in_features, config.out_features,
                                  config.linear_response, max(config.response_steps, 1))


__all__ = ["SequenceModel", "build_lem", "build_cornn", "build_lstm", "kaiming_readout"]
