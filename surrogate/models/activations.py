"""Activation functions σ with their derivative σ' (needed by the fused Fractional-DNN
backward and by the adjoint reference of the tests, tests/models/adjoint_reference.py)."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from surrogate.models.config import ACTIVATION_NAMES

SMOOTH_RELU_ETA = 1e-4


class Activation(nn.Module):
    """Elementwise σ with an explicit derivative σ'."""

    def derivative(self, z: Tensor) -> Tensor:
        """σ'(z), same shape as ``z``."""
        raise NotImplementedError

    def value_and_derivative(self, z: Tensor) -> tuple[Tensor, Tensor]:
        """(σ(z), σ'(z)) in one pass where that is cheaper."""
        return self(z), self.derivative(z)


class SmoothReLU(Activation):
    """The paper's smoothReLU (§7): max(0, y) for |y| > η, y²/(4η) + y/2 + η/4 on [-η, η].

    Written as ``η t² + relu(y - η)`` with ``t = clamp(y/(2η) + 1/2, 0, 1)``, which equals
    the piecewise definition and has derivative ``σ'(y) = t`` (C¹, Lipschitz 1).
    """

    def __init__(self, eta: float = SMOOTH_RELU_ETA) -> None:
        super().__init__()
        self.eta = float(eta)

    def forward(self, z: Tensor) -> Tensor:
        t = torch.clamp(z * (0.5 / self.eta) + 0.5, 0.0, 1.0)
        return self.eta * t * t + F.relu(z - self.eta)

    def derivative(self, z: Tensor) -> Tensor:
        return torch.clamp(z * (0.5 / self.eta) + 0.5, 0.0, 1.0)

    def value_and_derivative(self, z: Tensor) -> tuple[Tensor, Tensor]:
        t = torch.clamp(z * (0.5 / self.eta) + 0.5, 0.0, 1.0)
        return torch.addcmul(F.relu(z - self.eta), t, t, value=self.eta), t

    def extra_repr(self) -> str:
        return f"eta={self.eta}"


class ReLU(Activation):
    """σ(y) = max(0, y); σ'(y) = 1 for y > 0, else 0."""

    def forward(self, z: Tensor) -> Tensor:
        return F.relu(z)

    def derivative(self, z: Tensor) -> Tensor:
        return (z > 0).to(z.dtype)


class Tanh(Activation):
    """σ(y) = tanh y; σ'(y) = 1 - tanh² y."""

    def forward(self, z: Tensor) -> Tensor:
        return torch.tanh(z)

    def derivative(self, z: Tensor) -> Tensor:
        return 1.0 - torch.tanh(z) ** 2

    def value_and_derivative(self, z: Tensor) -> tuple[Tensor, Tensor]:
        t = torch.tanh(z)
        return t, 1.0 - t * t


class Softplus(Activation):
    """σ(y) = log(1 + eʸ); σ'(y) = sigmoid(y)."""

    def forward(self, z: Tensor) -> Tensor:
        return F.softplus(z)

    def derivative(self, z: Tensor) -> Tensor:
        return torch.sigmoid(z)


class SiLU(Activation):
    """σ(y) = y sigmoid(y) (swish); σ'(y) = s (1 + y (1 − s)) with s = sigmoid(y)."""

    def forward(self, z: Tensor) -> Tensor:
        return F.silu(z)

    def derivative(self, z: Tensor) -> Tensor:
        s = torch.sigmoid(z)
        return s * (1.0 + z * (1.0 - s))

    def value_and_derivative(self, z: Tensor) -> tuple[Tensor, Tensor]:
        s = torch.sigmoid(z)
        return z * s, s * (1.0 + z * (1.0 - s))


#: ``activation`` name -> class, in the order of ``ACTIVATION_NAMES`` (the configs' choices).
ACTIVATIONS: dict[str, type[Activation]] = dict(
    zip(ACTIVATION_NAMES, (SmoothReLU, ReLU, Tanh, Softplus, SiLU), strict=True))


def make_activation(name: str) -> Activation:
    """A new activation module of the given name."""
    return ACTIVATIONS[name]()


__all__ = ["Activation", "SmoothReLU", "ReLU", "Tanh", "Softplus", "SiLU", "SMOOTH_RELU_ETA",
           "ACTIVATIONS", "make_activation"]
