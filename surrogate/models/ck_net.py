"""Cᵏ-smooth network in state-space form (Hauser, Gunn, Saab, Ray, eqs. 4c, 5 and 7).

The k-th order network ``δ⁺(δ⁻)^{k-1} x^(l) = σ(W^(l) x^(l) + b^(l)) Δl^k`` (eq. 4c) is advanced
through its states ``q_n^(l) = (δ⁻)^{n-1} x^(l)``, n = 1 … k (eq. 5): position, velocity,
acceleration, … of the hidden feature vector. The layer's weights and bias act on the position
only, ``σ^(l)(q_1) = σ(W^(l) q_1 + b^(l))`` (§2), and every state receives the same increment
(eq. 7). The step ``Δl`` of layer l is its learnable τ^[l].
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import functional as F

from surrogate.core.errors import InputError
from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import CkNetConfig


def state_space_step(states: Tensor, forcing: Tensor) -> Tensor:
    """One layer of eq. 7: q_n^(l+1) = Σ_{l'=n}^{k} q_{l'}^(l) + forcing, n = 1 … k.

    ``states`` has shape (k, N, width) (``states[n-1] = q_n``), ``forcing`` = σ(·) Δl^k has
    shape (N, width); returns the new states (k, N, width). The suffix sums are the upper
    triangular block matrix of ones of eq. 8.
    """
    suffix_sums = torch.flip(torch.cumsum(torch.flip(states, (0,)), dim=0), (0,))
    return suffix_sums + forcing


class CkNet(SteppingNetwork):
    """Cᵏ network, k = ``config.order`` (Hauser et al. eq. 7; k = 1 is the ResNet, eq. 2).

    States ``q^(ℓ)`` of shape (k, N, width). The input layer sets the initial condition: the
    position is the ResNet's first hidden vector and every higher difference (velocity, …)
    starts at zero, i.e. the ghost values x^(0) = x^(-1) = … = x^(2-k) equal x^(1) (§2.2):

        q_1^(1) = τ^[0] σ(W^[0] u + b^[0]),        q_n^(1) = 0 for n = 2 … k,

    and hidden layers ℓ = 1 … depth-1 apply eq. 7 with Δl = τ^[ℓ] and σ^(ℓ)(q_1) =
    σ(W^[ℓ] q_1 + b^[ℓ]) (§2):

        q_n^(ℓ+1) = Σ_{l'=n}^{k} q_{l'}^(ℓ) + (τ^[ℓ])^k σ(W^[ℓ] q_1^(ℓ) + b^[ℓ]),   n = 1 … k.

    The output reads the position only: ``W^[L-1] q_1^(L)``. For k = 1 this is exactly
    :class:`surrogate.models.resnet.ResNet` (eq. 5.2). Equivalently (eqs. 4c, 5) the k-th order
    difference equation x^(ℓ+1) = Σ_{j=1}^{k} (-1)^{j+1} C(k, j) x^(ℓ+1-j)
    + (τ^[ℓ])^k σ(W^[ℓ] x^(ℓ) + b^[ℓ]) started from the ghost values above. Parameters are
    those of the ResNet (no extra ones). With ``config.step_lipschitz`` = c the hidden layers
    use W_eff^[ℓ] of :meth:`effective_weights`, (τ^[ℓ])^k ‖W_eff^[ℓ]‖₂ <= c; for k = 1 and
    c < 1 every step is invertible and a width-1 network is strictly monotone in its input.
    """

    config: CkNetConfig

    @property
    def order(self) -> int:
        """k, the number of state components (position, velocity, …)."""
        return self.config.order

    @property
    def step_power(self) -> int:
        """k: the increment of every state is Δl^k σ(·) (eq. 7), bounded by step_lipschitz."""
        return self.order

    def states(self, x: Tensor, taus: Tensor) -> Tensor:
        """All states q_1 … q_k after the last layer, shape (k, N, width)."""
        k = self.order
        position = taus[0] * self.activation(self.layers[0](x))
        q = torch.cat([position.unsqueeze(0), position.new_zeros(k - 1, *position.shape)])
        powers = taus.pow(k)
        weights = self.effective_weights(taus)
        for index in range(1, len(self.layers)):
            affine = F.linear(q[0], weights[index], self.layers[index].bias)
            q = state_space_step(q, powers[index] * self.activation(affine))
        return q

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        """Position q_1^(L) = x^(L), shape (N, width)."""
        return self.states(x, taus)[0]

    def prune(self, tol: float) -> tuple[CkNet, list[int], CkNetConfig]:
        """Delete steps τ^[ℓ] < tol, ℓ >= 1 — only for k = 1 (the ResNet, exact as τ -> 0).

        For k >= 2 a step with Δl = 0 still moves the position by the velocity
        (q_1 <- q_1 + q_2 + …), so removing it is not a small change: InputError.
        """
        if self.order != 1:
            raise InputError(f"pruning ck-net needs order 1 (a zero step is not the identity "
                             f"for order {self.order})")
        return self._prune_small_steps(tol)


__all__ = ["CkNet", "state_space_step"]
