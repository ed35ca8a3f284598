"""ODE network with cubic damping (Ruseckas, eqs. 54, 56, 59, 109–111).

Forward Euler on dx/dt = w(t) x + b(t) − γ x³ (eq. 56) with the layer's step τ^[ℓ] as Δt: the
scaled weights and bias of eq. 110 are ``w̃^(ℓ) = τ^[ℓ] W^[ℓ]``, ``b̃^(ℓ) = τ^[ℓ] b^[ℓ]`` with
``W^[ℓ], b^[ℓ]`` the layer's ``nn.Linear``; the cubic coefficient ``γ̃ = config.cubic`` is
used as given (it is already the scaled ``Δt γ`` of eq. 110). All affine maps start at zero
(§4.4): with w = 0 signals decay as a power law, x ~ (2 γ̃ ℓ)^{-1/2} (eqs. 87–88), not
exponentially.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from surrogate.models.activations import Activation
from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import ODENetConfig


def embed(u: Tensor, width: int) -> Tensor:
    """P u with P the (width × in) rectangular identity (eq. 59): zero-pad or truncate columns.

    ``u`` (N, in) -> (N, width).
    """
    n_in = u.shape[1]
    return F.pad(u, (0, width - n_in)) if width >= n_in else u[:, :width]


def cubic_euler_step(x: Tensor, affine: Tensor, cubic: Tensor) -> Tensor:
    """x + w̃ x + b̃ − γ̃ x³ (eq. 109) for ``affine`` = w̃ x + b̃; all (N, width)."""
    return x + affine - cubic * x.pow(3)


class ODENet(SteppingNetwork):
    """Ruseckas's cubic ODE network, eq. 109 (Euler) or eq. 111 (two-step, ``multistep``).

    With x^(0) = P u (the input embedded by the rectangular identity, extra units zero, eq. 59)
    and the cubic term acting on the embedded units (on u itself in the input layer):

        x^(1)   = P u + τ^[0] (W^[0] u + b^[0]) − γ̃ (P u)³,
        x^(ℓ+1) = x^(ℓ) + τ^[ℓ] (W^[ℓ] x^(ℓ) + b^[ℓ]) − γ̃ (x^(ℓ))³,       ℓ = 1 … depth-1,

    i.e. eq. 109 with w̃^(ℓ) = τ^[ℓ] W^[ℓ], b̃^(ℓ) = τ^[ℓ] b^[ℓ] (eq. 110, Δt = τ^[ℓ]) and
    γ̃ = ``config.cubic`` (a float64 buffer ``cubic``). With ``config.multistep`` the hidden
    layers use the explicit two-step scheme (eq. 111)

        x^(ℓ+1) = (1 − k_ℓ) x^(ℓ) + k_ℓ x^(ℓ-1) + τ^[ℓ] (W^[ℓ] x^(ℓ) + b^[ℓ]) − γ̃ (x^(ℓ))³

    with trainable ``multistep_k`` = (k_1 … k_{depth-1}), shape (depth-1,), starting at 0 (the
    Euler network); the input layer is an Euler step (there is no x^(-1)). Every W^[ℓ], b^[ℓ]
    starts at zero (§4.4); the output ``W^[L-1] x^(L)`` keeps torch's default initialisation.
    """

    def __init__(self, config: ODENetConfig, activation: Activation | None = None) -> None:
        super().__init__(config, activation)
        with torch.no_grad():
            for layer in self.layers:
                layer.weight.zero_()
                layer.bias.zero_()
        self.register_buffer("cubic", torch.tensor(config.cubic, dtype=torch.float64))
        if config.multistep:
            self.multistep_k = nn.Parameter(torch.zeros(config.depth - 1))

    def trajectory(self, x: Tensor, taus: Tensor) -> list[Tensor]:
        """Hidden states x^(1) … x^(depth), each (N, width) (x^(0) = P u not included)."""
        width = self.config.width
        previous = embed(x, width)
        current = cubic_euler_step(previous, taus[0] * self.layers[0](x), self.cubic)
        states = [current]
        for index in range(1, self.config.depth):
            affine = taus[index] * self.layers[index](current)
            following = cubic_euler_step(current, affine, self.cubic)
            if self.config.multistep:
                following = following + self.multistep_k[index - 1] * (previous - current)
            previous, current = current, following
            states.append(current)
        return states

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        """x^(depth), shape (N, width)."""
        return self.trajectory(x, taus)[-1]

    def scaled_parameters(self) -> tuple[list[Tensor], list[Tensor]]:
        """(w̃^(ℓ), b̃^(ℓ)) = (τ^[ℓ] W^[ℓ], τ^[ℓ] b^[ℓ]) for ℓ = 0 … depth-1 (eq. 110)."""
        taus = self.taus()
        weights = [tau * layer.weight for tau, layer in zip(taus, self.layers, strict=True)]
        biases = [tau * layer.bias for tau, layer in zip(taus, self.layers, strict=True)]
        return weights, biases


__all__ = ["ODENet", "embed", "cubic_euler_step"]
