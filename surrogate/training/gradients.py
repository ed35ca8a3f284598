"""Squared gradient norms logged per epoch (before clipping).

A mini-batch step of a small network costs a few milliseconds, so the logging must not: a
*meter* works out once per epoch which parameter belongs to which group (walking the
module tree costs more than the norms) and then reads the current gradients in one fused
norm per step.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

GradientMeter = Callable[[], Tensor]
"""Squared gradient norms of the current ``.grad`` s, per group (a fixed shape per meter)."""


def _grouped_squares(params: list[nn.Parameter], index: Tensor, groups: int,
                     reference: Tensor) -> GradientMeter:
    """Σ ‖grad p‖² over the parameters p of each group (``index[i]``: the group of
    ``params[i]``); parameters without a gradient count zero."""

    def squares() -> Tensor:
        out = reference.new_zeros(groups)
        grads = [p.grad for p in params]
        where = index
        if any(g is None for g in grads):
            kept = [k for k, g in enumerate(grads) if g is not None]
            if not kept:
                return out
            grads, where = [grads[k] for k in kept], index[kept]
        norms = torch.stack(torch._foreach_norm(grads))
        return out.index_add(0, where, norms.to(out.dtype) ** 2)

    return squares


def layer_gradient_meter(model: nn.Module) -> GradientMeter:
    """Meter of the squared gradient norms per layer: hidden layers 0 … depth−1 (W and b),
    the output layer, then all remaining parameters (the steps); shape (depth + 2,). One
    fused norm over every gradient (``torch._foreach_norm``, as ``clip_grad_norm_``), then
    summed per group."""
    weights, biases = model.layer_weights(), model.layer_biases()
    depth = len(biases)
    group = {id(b): k for k, b in enumerate(biases)}
    group.update({id(w): k for k, w in enumerate(weights[:-1])})
    group[id(weights[-1])] = depth
    params = list(model.parameters())
    index = torch.tensor([group.get(id(p), depth + 1) for p in params],
                         device=weights[0].device, dtype=torch.long)
    return _grouped_squares(params, index, depth + 2, weights[0])


def total_gradient_meter(model: nn.Module) -> GradientMeter:
    """Meter of ‖∂J/∂θ‖² over all parameters (the global norm² before clipping), shape (1,):
    every parameter in one group."""
    params = list(model.parameters())
    index = torch.zeros(len(params), dtype=torch.long, device=params[0].device)
    return _grouped_squares(params, index, 1, params[0].detach())


__all__ = ["GradientMeter", "layer_gradient_meter", "total_gradient_meter"]
