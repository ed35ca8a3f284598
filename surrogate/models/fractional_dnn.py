"""Fractional-DNN with variable τ (§5.2, eq. 5.7).

The memory sum is not built layer by layer. Once per forward the D×D kernel
``K = cumsum((I + A)^{-1}) diag(g)`` is computed from the step vector with ordinary
autograd ops (:func:`surrogate.models.caputo_memory.trajectory_kernel`, so every τ-derivative of
the coefficients a_{ℓ,j} — Appendix A.2 — is kept). The hidden trajectory is then one
fused autograd function: activations σ(z^[j]) are written into one preallocated
(D, N, width) buffer and every state is a single matrix–vector product
``ŷ^[k+1] = Σ_{j<=k} K[k, j] σ(z^[j])`` over that buffer; the backward pass is the
transposed sweep (the discrete adjoint of eq. 5.9) plus one (D × N·width)·(N·width × D)
product for ∂J/∂K. No per-layer concatenation, O(D) autograd nodes.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from surrogate.models.activations import Activation
from surrogate.models.caputo_memory import gamma_factor, trajectory_kernel
from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import FractionalDNNConfig


class _FractionalTrajectory(torch.autograd.Function):
    """ŷ^[D] from u, K and (W^[k], b^[k])_{k<D}; first derivatives only."""

    @staticmethod
    def forward(ctx, x: Tensor, kernel: Tensor, activation: Activation, *params: Tensor):
        weights, biases = params[0::2], params[1::2]
        depth, n, width = len(weights), x.shape[0], weights[0].shape[0]
        sig = x.new_empty(depth, n, width)
        dsig = x.new_empty(depth, n, width)
        states = x.new_empty(depth, n, width)  # states[k] = ŷ^[k+1]
        sig_flat, states_flat = sig.view(depth, -1), states.view(depth, -1)
        z = torch.addmm(biases[0], x, weights[0].t())
        for k in range(depth):
            value, slope = activation.value_and_derivative(z)
            sig[k].copy_(value)
            dsig[k].copy_(slope)
            torch.mm(kernel[k:k + 1, :k + 1], sig_flat[:k + 1], out=states_flat[k:k + 1])
            if k + 1 < depth:
                z = torch.addmm(biases[k + 1], states[k], weights[k + 1].t())
        ctx.save_for_backward(x, kernel, sig, dsig, states, *weights)
        return states[depth - 1].clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out: Tensor):
        x, kernel, sig, dsig, states, *weights = ctx.saved_tensors
        depth = len(weights)
        grad_states = torch.empty_like(states)  # ∂J/∂ŷ^[k+1] (total)
        grad_states[depth - 1].copy_(grad_out)
        flat = grad_states.view(depth, -1)
        grad_w: list[Tensor | None] = [None] * depth
        grad_b: list[Tensor | None] = [None] * depth
        grad_x = None
        for j in reversed(range(depth)):
            grad_sig = torch.mm(kernel[j:, j].unsqueeze(0), flat[j:]).view_as(grad_out)
            grad_z = grad_sig.mul_(dsig[j])
            layer_in = x if j == 0 else states[j - 1]
            grad_w[j] = grad_z.t().mm(layer_in)
            grad_b[j] = grad_z.sum(0)
            if j > 0:
                torch.mm(grad_z, weights[j], out=grad_states[j - 1])
            elif ctx.needs_input_grad[0]:
                grad_x = grad_z.mm(weights[0])
        grad_kernel = None
        if ctx.needs_input_grad[1]:
            grad_kernel = torch.tril(flat.mm(sig.view(depth, -1).t()))
        grads = [g for pair in zip(grad_w, grad_b, strict=True) for g in pair]
        return (grad_x, grad_kernel, None, *grads)


class FractionalDNN(SteppingNetwork):
    """Fractional-DNN with variable τ, eq. 5.7 (§5.2); fixed τ gives the network of §4.

    With ``ŷ^[0] = 0`` (``P_0^ℓ = 0``: the input enters only through the input layer)

        ŷ^[ℓ] = ŷ^[ℓ-1] - Σ_{j=0}^{ℓ-2} a_{ℓ-1,j} (ŷ^[j+1] - ŷ^[j])
                + (τ^[ℓ-1])^γ Γ(2-γ) σ(W^[ℓ-1] ŷ^[ℓ-1] + b^[ℓ-1]),   ℓ = 1 … depth,

    where the ℓ = 1 argument of σ is ``W^[0] u + b^[0]``, so
    ``ŷ^[1] = (τ^[0])^γ Γ(2-γ) σ(W^[0] u + b^[0])``; output ``W^[L-1] ŷ^[L-1]``.
    γ and Γ(2-γ) are buffers. Double backward is not supported. (Theorem 6.6 writes
    a_{ℓ,k} in this recursion; eqs. 5.4 and 5.7 give a_{ℓ-1,j}, which is what is used.)
    """

    def __init__(self, config: FractionalDNNConfig, activation: Activation | None = None
                 ) -> None:
        super().__init__(config, activation)
        # float64 0-dim buffers: exact after .double(), no type promotion in float32 models.
        self.register_buffer("gamma", torch.tensor(config.gamma, dtype=torch.float64))
        self.register_buffer("gamma_factor",
                             torch.tensor(gamma_factor(config.gamma), dtype=torch.float64))

    def kernel(self, taus: Tensor) -> Tensor:
        """Trajectory kernel K (depth, depth) of the current steps (see module docstring)."""
        return trajectory_kernel(taus, self.gamma, self.gamma_factor)

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        params = [p for layer in self.layers for p in (layer.weight, layer.bias)]
        return _FractionalTrajectory.apply(x, self.kernel(taus), self.activation, *params)

    def prune(self, tol: float) -> tuple[FractionalDNN, list[int], FractionalDNNConfig]:
        """Delete steps τ^[k] < tol, k >= 1; the result is the network on the coarser grid.

        As τ^[k] -> 0 the increment ŷ^[k+1] - ŷ^[k] = O((τ^[k])^γ) vanishes and every other
        a_{ℓ,j} tends to its value on the grid without that step (the sums in a_{ℓ,j} just
        lose τ^[k]; a_{ℓ,k} stays bounded), so the pruned network is the limit of the
        original one. The output changes by O(tol^γ) rather than the ResNet's O(tol).
        """
        return self._prune_small_steps(tol)


__all__ = ["FractionalDNN"]
