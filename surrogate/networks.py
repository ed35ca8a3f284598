"""Shared frame of the τ-stepping networks (§4–5): input layer, hidden steps, linear output.

Every model has ``depth`` affine maps ``z^[k] = W^[k] y^[k] + b^[k]`` (``k = 0`` acts on
the input ``u``), ``depth`` steps ``τ^[k]`` and a linear output ``y^[L] = W^[L-1] y^[L-1]``
without bias (§4, last display). Subclasses define only how the hidden states advance
(:meth:`hidden`). The trainer never needs the architecture name: ``taus``,
``layer_weights``, ``layer_biases`` and ``prune`` exist on every model.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace

import torch
from torch import Tensor, nn

from surrogate.activations import Activation
from surrogate.config import ModelConfig
from surrogate.errors import InputError
from surrogate.step_sizes import make_steps


class SteppingNetwork(nn.Module):
    """Base class: ``forward(x (N, in)) -> (N, out)`` with steps from ``self.steps``."""

    def __init__(self, config: ModelConfig, activation: Activation) -> None:
        super().__init__()
        self.config = config
        self.activation = activation
        self.steps = make_steps(config)
        sizes = [config.in_features] + [config.width] * config.depth
        self.layers = nn.ModuleList(nn.Linear(n_in, config.width) for n_in in sizes[:-1])
        self.output = nn.Linear(config.width, config.out_features, bias=False)

    def taus(self) -> Tensor:
        """Current steps τ^[0] … τ^[depth-1], shape (depth,), all > 0 (learned: >= tau_min)."""
        return self.steps().to(self.output.weight.dtype)

    def layer_weights(self) -> list[Tensor]:
        """W^[0] … W^[L-1] (output layer included), for the λ₁ penalty (eq. 2.4)."""
        return [layer.weight for layer in self.layers] + [self.output.weight]

    def layer_biases(self) -> list[Tensor]:
        """b^[0] … b^[L-2] (the output layer has none), for eqs. 2.4 and 2.5."""
        return [layer.bias for layer in self.layers]

    def forward(self, x: Tensor) -> Tensor:
        """Network output y^[L], shape (N, out_features), for inputs u of shape (N, in)."""
        return self.forward_with_taus(x, self.taus())

    def forward_with_taus(self, x: Tensor, taus: Tensor) -> Tensor:
        """Output for explicitly given steps ``taus`` (depth,) (gradient checks, adjoints)."""
        if x.ndim != 2 or x.shape[1] != self.config.in_features:
            raise InputError(f"model input must have shape (N, {self.config.in_features}), "
                             f"got {tuple(x.shape)}")
        if taus.shape != (self.config.depth,):
            raise InputError(f"taus must have shape ({self.config.depth},), "
                             f"got {tuple(taus.shape)}")
        return self.output(self.hidden(x, taus))

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        """Last hidden state y^[L-1], shape (N, width)."""
        raise NotImplementedError

    def prune(self, tol: float) -> tuple[SteppingNetwork, list[int], ModelConfig]:
        """Drop hidden steps with τ < tol; returns (new_model, removed_indices, new_config)."""
        raise InputError(f"pruning is not defined for arch {self.config.arch!r}")

    def _prune_small_steps(self, tol: float) -> tuple[SteppingNetwork, list[int], ModelConfig]:
        """Remove steps k >= 1 with τ^[k] < tol (never the input layer k = 0).

        Removed indices are positions in :meth:`taus`; removing step k deletes the hidden
        layer y^[k+1] of the paper (§7: τ^[1], τ^[3], τ^[4] ≈ 0 -> hidden layers 2, 4, 5).
        """
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) \
                or tol < 0:
            raise InputError(f"prune tolerance must be a finite number >= 0, got {tol!r}")
        with torch.no_grad():
            taus = self.taus()
        removed = [k for k in range(1, self.config.depth) if float(taus[k]) < tol]
        keep = [k for k in range(self.config.depth) if k not in removed]
        new_steps = self.steps.subset(keep)
        horizon = self.config.time_horizon
        if horizon is not None and self.config.horizon_mode == "exact":
            horizon = float(new_steps.horizon)
        new_config = replace(self.config, depth=len(keep), time_horizon=horizon)
        new_model = type(self)(new_config, copy.deepcopy(self.activation))
        reference = self.output.weight
        new_model.to(dtype=reference.dtype, device=reference.device)
        new_model.steps = new_steps.to(dtype=reference.dtype, device=reference.device)
        with torch.no_grad():
            for new_layer, k in zip(new_model.layers, keep, strict=True):
                new_layer.weight.copy_(self.layers[k].weight)
                new_layer.bias.copy_(self.layers[k].bias)
            new_model.output.weight.copy_(self.output.weight)
        self._copy_constants(new_model)
        return new_model, removed, new_config

    def _copy_constants(self, new_model: SteppingNetwork) -> None:
        """Hook for subclasses with extra buffers (nothing to do by default)."""


__all__ = ["SteppingNetwork"]
