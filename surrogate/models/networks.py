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

from surrogate.core.errors import InputError
from surrogate.models.activations import Activation, make_activation
from surrogate.models.config import ModelConfig
from surrogate.models.step_sizes import make_steps


def spectral_norms(weights: Tensor) -> Tensor:
    """‖W_i‖₂ (largest singular value) of a stack (B, m, n) -> (B,); ‖W_i‖_F if m or n is 1."""
    if min(weights.shape[-2:]) == 1:  # a row or column: no SVD needed
        return torch.linalg.vector_norm(weights, dim=(-2, -1))
    return torch.linalg.matrix_norm(weights, ord=2)


class SteppingNetwork(nn.Module):
    """Base class: ``forward(x (N, in)) -> (N, out)`` with steps from ``self.steps``."""

    def __init__(self, config: ModelConfig, activation: Activation | None = None) -> None:
        super().__init__()
        self.config = config
        self.activation = activation if activation is not None \
            else make_activation(config.activation)
        self.steps = make_steps(config)
        sizes = [config.in_features] + [config.width] * config.depth
        self.layers = nn.ModuleList(nn.Linear(n_in, config.width) for n_in in sizes[:-1])
        self.output = nn.Linear(config.width, config.out_features, bias=False)
        if config.quadratic_output:
            self.quadratic_output = nn.Linear(config.width, config.out_features, bias=False)
            nn.init.zeros_(self.quadratic_output.weight)

    def taus(self) -> Tensor:
        """Current steps τ^[0] … τ^[depth-1], shape (depth,), all > 0 (learned: >= tau_min)."""
        return self.steps().to(self.output.weight.dtype)

    def layer_weights(self) -> list[Tensor]:
        """W^[0] … W^[L-1] (output layer included), for the λ₁ penalty (eq. 2.4)."""
        return [layer.weight for layer in self.layers] + [self.output.weight]

    def layer_biases(self) -> list[Tensor]:
        """b^[0] … b^[L-2] (the output layer has none), for eqs. 2.4 and 2.5."""
        return [layer.bias for layer in self.layers]

    @property
    def step_power(self) -> int:
        """p with hidden step increment τ^p σ(W y + b): 1 here (ResNet eq. 5.2)."""
        return 1

    def hidden_weights(self) -> list[Tensor]:
        """W^[0] … W^[depth-1]; with ``config.skew_weights`` the hidden ones (k >= 1) are the
        skew-symmetric A − Aᵀ of the stored A = W^[k] (Reshniak & Webster eq. 8)."""
        weights = [layer.weight for layer in self.layers]
        if not self.config.skew_weights or len(weights) == 1:
            return weights
        hidden = torch.stack(weights[1:])  # (depth-1, width, width)
        return [weights[0], *(hidden - hidden.mT).unbind(0)]

    def effective_weights(self, taus: Tensor) -> list[Tensor]:
        """W_eff^[0] … W_eff^[depth-1]: W^[k] min(1, c / (τ^[k]^p ‖W^[k]‖₂)) for k >= 1, where
        W^[k] is :meth:`hidden_weights` (skew-symmetrised first when ``config.skew_weights``).

        The step bound of invertible ResNets (Behrmann et al. 2019, §2.1, eq. 2) with
        c = ``config.step_lipschitz``, so τ^[k]^p ‖W_eff^[k]‖₂ <= c; the weights themselves
        when c is None, and always for the input layer k = 0. Computed for all hidden layers
        at once as ``W c / max(c, τ^p ‖W‖₂)``: no division by zero for W = 0, and a bound that
        does not bind leaves W bit for bit.
        """
        weights = self.hidden_weights()
        bound = self.config.step_lipschitz
        if bound is None or len(weights) == 1:
            return weights
        hidden = torch.stack(weights[1:])  # (depth-1, width, width)
        size = taus[1:].to(hidden.dtype) ** self.step_power * spectral_norms(hidden)
        bound = size.new_tensor(bound)  # tensor / tensor: c / c is exactly 1 (scalar / tensor
        scale = bound / torch.maximum(size, bound)  # would multiply by a rounded 1 / c)
        return [weights[0], *(hidden * scale[:, None, None]).unbind(0)]

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
        return self.read_out(self.hidden(x, taus))

    def read_out(self, y: Tensor) -> Tensor:
        """y^[L] = W^[L-1] y, plus W_q (y ⊙ y) with ``config.quadratic_output``; y (N, width)."""
        if self.config.quadratic_output:
            return self.output(y) + self.quadratic_output(y * y)
        return self.output(y)

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
            if self.config.quadratic_output:
                new_model.quadratic_output.weight.copy_(self.quadratic_output.weight)
        self._copy_constants(new_model)
        return new_model, removed, new_config

    def _copy_constants(self, new_model: SteppingNetwork) -> None:
        """Hook for subclasses with extra buffers (nothing to do by default)."""


__all__ = ["SteppingNetwork"]
