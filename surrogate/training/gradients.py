"""Squared gradient norms logged per epoch (before clipping)."""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor, nn


def layer_gradient_squares(model: nn.Module) -> Tensor:
    """Squared gradient norms per layer: hidden layers 0 … depth−1 (W and b), the output
    layer, then all remaining parameters (the steps); shape (depth + 2,)."""
    weights, biases = model.layer_weights(), model.layer_biases()

    def sq(tensors: Iterable[Tensor]) -> Tensor:
        grads = [t.grad for t in tensors if t.grad is not None]
        if not grads:
            return weights[0].new_zeros(())
        return sum(g.pow(2).sum() for g in grads)

    layered = {id(t) for t in (*weights, *biases)}
    others = [p for p in model.parameters() if id(p) not in layered]
    parts = [sq((w, b)) for w, b in zip(weights[:-1], biases, strict=True)]
    return torch.stack([*parts, sq(weights[-1:]), sq(others)])


def total_gradient_square(model: nn.Module) -> Tensor:
    """‖∂J/∂θ‖² over all parameters (the global norm² before clipping), shape (1,)."""
    grads = [p.grad.pow(2).sum() for p in model.parameters() if p.grad is not None]
    reference = next(model.parameters())
    return torch.stack(grads).sum().reshape(1) if grads else reference.new_zeros(1)


__all__ = ["layer_gradient_squares", "total_gradient_square"]
