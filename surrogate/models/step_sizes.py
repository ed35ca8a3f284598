"""Step sizes τ^[0] … τ^[depth-1] (§5): fixed, learned (positive by construction), or
learned with an exact time horizon Σ τ = T."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from surrogate.models.config import ModelConfig


def inverse_softplus(x: Tensor) -> Tensor:
    """ρ with softplus(ρ) = x for x >= 0 (-inf at 0), computed stably: x + log(-expm1(-x))."""
    return x + torch.log(-torch.expm1(-x))


def _as_float(values) -> Tensor:
    """Values as a floating tensor, keeping a floating dtype it already has."""
    values = torch.as_tensor(values)
    return values if values.is_floating_point() else values.to(torch.get_default_dtype())


class FixedSteps(nn.Module):
    """The same step τ in every layer (§4); τ is a buffer, not trained."""

    def __init__(self, depth: int, tau: float) -> None:
        super().__init__()
        self.depth = depth
        self.register_buffer("tau", torch.tensor(float(tau), dtype=torch.float64))

    def forward(self) -> Tensor:
        """Steps, shape (depth,), float64 (the model casts them to its own dtype)."""
        return self.tau.repeat(self.depth)

    def subset(self, keep: Sequence[int]) -> FixedSteps:
        """The same fixed step for the kept layers."""
        return FixedSteps(len(keep), float(self.tau))


class LearnedSteps(nn.Module):
    """One learned step per layer, τ = τ_min + softplus(ρ) >= τ_min, whatever ρ is (§5)."""

    def __init__(self, values: Tensor, tau_min: float) -> None:
        super().__init__()
        values = _as_float(values)
        self.register_buffer("tau_min", torch.tensor(float(tau_min), dtype=torch.float64))
        self.raw = nn.Parameter(inverse_softplus(values - self.tau_min))

    def forward(self) -> Tensor:
        """Steps, shape (depth,), every entry >= tau_min."""
        return self.tau_min + F.softplus(self.raw)

    def subset(self, keep: Sequence[int]) -> LearnedSteps:
        """Learned steps for the kept layers with their current values."""
        with torch.no_grad():
            values = self()[list(keep)]
        return LearnedSteps(values, float(self.tau_min)).to(self.raw.dtype)


class HorizonSteps(nn.Module):
    """Learned steps with Σ τ = T exactly: τ = τ_min + (T - depth·τ_min) softmax(ρ) > 0."""

    def __init__(self, values: Tensor, tau_min: float, horizon: float) -> None:
        super().__init__()
        values = _as_float(values)
        self.register_buffer("tau_min", torch.tensor(float(tau_min), dtype=torch.float64))
        self.register_buffer("horizon", torch.tensor(float(horizon), dtype=torch.float64))
        self.raw = nn.Parameter(torch.log(values - self.tau_min))

    def forward(self) -> Tensor:
        """Steps, shape (depth,), summing to the horizon."""
        free = self.horizon - self.raw.numel() * self.tau_min
        return self.tau_min + free * torch.softmax(self.raw, dim=0)

    def subset(self, keep: Sequence[int]) -> HorizonSteps:
        """Steps for the kept layers; the new horizon is the sum of the kept steps."""
        with torch.no_grad():
            values = self()[list(keep)]
        return HorizonSteps(values, float(self.tau_min), float(values.sum())).to(self.raw.dtype)


def make_steps(config: ModelConfig) -> nn.Module:
    """The step-size module a config asks for (fixed, learned, or learned with exact horizon)."""
    if config.tau is not None:
        return FixedSteps(config.depth, config.tau)
    if config.time_horizon is not None and config.horizon_mode == "exact":
        values = torch.full((config.depth,), config.time_horizon / config.depth)
        return HorizonSteps(values, config.tau_min, config.time_horizon)
    return LearnedSteps(torch.full((config.depth,), config.tau_init), config.tau_min)


__all__ = ["FixedSteps", "LearnedSteps", "HorizonSteps", "make_steps", "inverse_softplus"]
