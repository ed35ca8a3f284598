"""Regularisation terms of the training objective J_λ (§2, §5)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def _l2_l1(tensors: Sequence[Tensor]) -> Tensor:
    """Σ (‖t‖₂² + ‖t‖₁) over the tensors (Frobenius norm for matrices)."""
    return sum((t.pow(2).sum() + t.abs().sum() for t in tensors), torch.zeros(()))


def weight_penalty(weights: Sequence[Tensor], biases: Sequence[Tensor], lambda1: float) -> Tensor:
    """λ₁/2 Σ_ℓ (‖W^[ℓ]‖²_F + ‖W^[ℓ]‖₁) + λ₁/2 Σ_ℓ (‖b^[ℓ]‖²₂ + ‖b^[ℓ]‖₁)  (eq. 2.4)."""
    return 0.5 * lambda1 * (_l2_l1(weights) + _l2_l1(biases))


def tau_penalty(taus: Tensor, lambda2: float) -> Tensor:
    """λ₂/2 Σ_ℓ (|τ^[ℓ]|² + |τ^[ℓ]|)  (the τ term of J_λ, §5)."""
    return 0.5 * lambda2 * (taus.pow(2).sum() + taus.abs().sum())


def bias_ordering_penalty(biases: Sequence[Tensor], beta: float) -> Tensor:
    """Moreau–Yosida penalty of b_j^[ℓ] <= b_{j+1}^[ℓ] (eq. 2.5): β/2 Σ max(0, b_j - b_{j+1})².

    Zero exactly when every bias vector is sorted ascending, positive otherwise.
    """
    terms = (torch.relu(b[:-1] - b[1:]).pow(2).sum() for b in biases)
    return 0.5 * beta * sum(terms, torch.zeros(()))


def time_horizon_penalty(taus: Tensor, horizon: float, weight: float = 1.0) -> Tensor:
    """weight/2 (Σ_ℓ τ^[ℓ] - T)²: soft version of the time horizon Σ τ = T."""
    return 0.5 * weight * (taus.sum() - horizon).pow(2)


def smoothness_penalty(weights: Sequence[Tensor], biases: Sequence[Tensor],
                       weight: float) -> Tensor:
    """weight/2 Σ_ℓ (‖W^[ℓ+1] − W^[ℓ]‖²_F + ‖b^[ℓ+1] − b^[ℓ]‖²₂) over consecutive hidden layers.

    Ruseckas §7: weights that vary slowly with depth keep the network a discretised ODE.
    Pairs whose shapes differ (the input layer) are skipped.
    """
    terms = [(a - b).pow(2).sum() for seq in (weights, biases)
             for a, b in zip(seq[1:], seq[:-1], strict=True) if a.shape == b.shape]
    return 0.5 * weight * sum(terms, torch.zeros(()))


def regularisation(model: nn.Module, *, lambda1: float = 0.0, lambda2: float = 0.0,
                   beta: float = 0.0, horizon_weight: float = 0.0,
                   smoothness: float = 0.0) -> Tensor:
    """Every penalty for one model: eq. 2.4 (λ₁), τ (λ₂), eq. 2.5 (β), horizon, smoothness.

    The horizon term is added only when ``model.config.time_horizon`` is set with
    ``horizon_mode="penalty"`` (in ``"exact"`` mode Σ τ = T holds by construction).
    Works for every architecture: it uses only ``taus``, ``layer_weights``,
    ``layer_biases`` and ``config``.
    """
    weights, biases = model.layer_weights(), model.layer_biases()
    total = torch.zeros((), dtype=weights[0].dtype, device=weights[0].device)
    if lambda1:
        total = total + weight_penalty(weights, biases, lambda1)
    taus = model.taus() if (lambda2 or horizon_weight) else None
    if lambda2:
        total = total + tau_penalty(taus, lambda2)
    if beta:
        total = total + bias_ordering_penalty(biases, beta)
    config = model.config
    if horizon_weight and config.time_horizon is not None and config.horizon_mode == "penalty":
        total = total + time_horizon_penalty(taus, config.time_horizon, horizon_weight)
    if smoothness:
        # Hidden layers only: W^[1] … W^[L-2] (the output map is not a step of the ODE).
        total = total + smoothness_penalty(weights[1:-1], biases[1:], smoothness)
    return total


__all__ = ["weight_penalty", "tau_penalty", "bias_ordering_penalty", "time_horizon_penalty",
           "smoothness_penalty", "regularisation"]
