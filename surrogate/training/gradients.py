"""Squared gradient norms logged per epoch (before clipping)."""

from __future__ import annotations

import torch
from torch import Tensor, nn


def layer_gradient_squares(model: nn.Module) -> Tensor:
    """Squared gradient norms per layer: hidden layers 0 … depth−1 (W and b), the output
    layer, then all remaining parameters (the steps); shape (depth + 2,). One fused norm over
    every gradient (``torch._foreach_norm``, as ``clip_grad_norm_``), then summed per group."""
    weights, biases = model.layer_weights(), model.layer_biases()
    depth = len(biases)
    group = {id(b): k for k, b in enumerate(biases)}
    group.update({id(w): k for k, w in enumerate(weights[:-1])})
    group[id(weights[-1])] = depth
    pairs = [(p.grad, group.get(id(p), depth + 1)) for p in model.parameters()
             if p.grad is not None]
    out = weights[0].new_zeros(depth + 2)
    if not pairs:
        return out
    grads, index = zip(*pairs, strict=True)
    norms = torch.stack(torch._foreach_norm(list(grads)))
    return out.index_add(0, torch.tensor(index, device=out.device), norms.to(out.dtype) ** 2)


def total_gradient_square(model: nn.Module) -> Tensor:
    """‖∂J/∂θ‖² over all parameters (the global norm² before clipping), shape (1,)."""
    grads = [p.grad.pow(2).sum() for p in model.parameters() if p.grad is not None]
    reference = next(model.parameters())
    return torch.stack(grads).sum().reshape(1) if grads else reference.new_zeros(1)


__all__ = ["layer_gradient_squares", "total_gradient_square"]
