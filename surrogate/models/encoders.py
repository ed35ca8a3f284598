"""Sensor encoders: a static network whose problem is given by data, not by parameters.

With ``inputs="fields"`` a row is ``(x, s)``: the point x (:data:`POINT_COLUMNS` columns)
and the problem's sensor values s (q columns: f and φ at volume sensors, u × n at boundary
sensors). :class:`EncodedInputs` maps it to ``core([x, E(s)])`` with a learned encoder
``E: R^q -> R^c`` (``c = code_size``), ``E(s) = W₃ σ(W₂ σ(W₁ s + b₁) + b₂) + b₃``, and any
τ-stepping network ``core`` built for ``in_features = 3 + c``. The registry builds the
wrapper whenever a pointwise config has ``inputs == "fields"``, so the encoder is an option of
every static architecture; the trainer sees the usual interface (``taus``,
``layer_weights``, ``layer_biases``, ``prune``, ``config``) of the core (the encoder's
parameters count among the "other" parameters of the gradient log and are not penalised).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import torch
from torch import Tensor, nn

from surrogate.core.errors import InputError
from surrogate.models.activations import make_activation
from surrogate.models.config import POINT_COLUMNS, ModelConfig


def core_config(config: ModelConfig) -> ModelConfig:
    """The config of the core network behind the encoder: inputs (x, code), plain inputs."""
    return replace(config, in_features=POINT_COLUMNS + config.code_size, inputs="pointwise")


class SensorEncoder(nn.Module):
    """E(s) = W₃ σ(W₂ σ(W₁ s + b₁) + b₂) + b₃: sensor values (N, q) -> code (N, c)."""

    def __init__(self, sensors: int, width: int, code_size: int, activation: str) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(sensors, width), make_activation(activation),
                                 nn.Linear(width, width), make_activation(activation),
                                 nn.Linear(width, code_size))

    def forward(self, s: Tensor) -> Tensor:
        """Code (N, code_size) of sensor rows s (N, q)."""
        return self.net(s)


class EncodedInputs(nn.Module):
    """u(x; s) = core([x, E(s)]): a τ-stepping ``core`` fed the point and a sensor code."""

    def __init__(self, config: ModelConfig, core: nn.Module,
                 encoder: SensorEncoder | None = None) -> None:
        super().__init__()
        if config.inputs != "fields":
            raise InputError(f"EncodedInputs needs a config with inputs 'fields', got "
                             f"{config.inputs!r}")
        self.config = config
        self.encoder = encoder if encoder is not None else SensorEncoder(
            config.in_features - POINT_COLUMNS, config.encoder_width, config.code_size,
            config.activation)
        self.core = core

    def forward(self, rows: Tensor) -> Tensor:
        """Outputs (N, out_features) for rows (N, 3 + q) = (x, sensor values)."""
        if rows.ndim != 2 or rows.shape[1] != self.config.in_features:
            raise InputError(f"model input must have shape (N, {self.config.in_features}), "
                             f"got {tuple(rows.shape)}")
        points, sensors = rows[:, :POINT_COLUMNS], rows[:, POINT_COLUMNS:]
        return self.core(torch.cat([points, self.encoder(sensors)], dim=1))

    def taus(self) -> Tensor:
        """The core's steps τ (depth,)."""
        return self.core.taus()

    def layer_weights(self) -> list[Tensor]:
        """The core's W^[0] … W^[L-1] (eq. 2.4 penalises the core only)."""
        return self.core.layer_weights()

    def layer_biases(self) -> list[Tensor]:
        """The core's b^[0] … b^[L-2]."""
        return self.core.layer_biases()

    def prune(self, tol: float) -> tuple[EncodedInputs, list[int], ModelConfig]:
        """The core pruned (its ``prune``), behind the same encoder; (model, removed, config)."""
        core, removed, pruned = self.core.prune(tol)
        config = replace(pruned, in_features=self.config.in_features, inputs="fields")
        return EncodedInputs(config, core, self.encoder), removed, config

    def linear_head(self) -> EncodedHead:
        """The core's linear head (its ``linear_head``; AttributeError without one) on the
        encoded rows (x, E(s))."""
        return EncodedHead(self, self.core.linear_head())

    def __getattr__(self, name: str) -> Any:
        """Modules and parameters first (nn.Module), then the core's other attributes."""
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name in ("core", "encoder", "config"):
                raise
            return getattr(self._modules["core"], name)


class EncodedHead:
    """A core's linear head seen from the sensor rows: rows are encoded, θ is the core's."""

    def __init__(self, model: EncodedInputs, head: Any) -> None:
        self.model, self.head = model, head

    def normal_equations(self, rows: Tensor, targets: Tensor) -> tuple[Tensor, Tensor]:
        """The core head's (ΦᵀΦ, ΦᵀY) on the rows (x, E(s))."""
        with torch.no_grad():
            code = self.model.encoder(rows[:, POINT_COLUMNS:])
        return self.head.normal_equations(torch.cat([rows[:, :POINT_COLUMNS], code], 1),
                                          targets)

    def weights(self) -> Tensor:
        """The core head's θ."""
        return self.head.weights()

    def assign(self, theta: Tensor) -> None:
        """Set the core head's θ."""
        self.head.assign(theta)


__all__ = ["EncodedInputs", "EncodedHead", "SensorEncoder", "core_config"]
