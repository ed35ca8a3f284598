"""DenseNet with variable τ (Theorem 6.4)."""

from __future__ import annotations

from torch import Tensor

from surrogate.core.errors import InputError
from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import DenseNetConfig


class DenseNet(SteppingNetwork):
    """y^[ℓ] = Σ_{k=0}^{ℓ-1} P_k^ℓ y^[k] + τ^[ℓ-1] σ(W^[ℓ-1] y^[ℓ-1] + b^[ℓ-1]) (Theorem 6.4).

    As for the ResNet (§4) the input enters only through the input layer (``P_0^ℓ = 0``),
    hidden widths are equal (``P_k^ℓ = I``), so ``y^[1] = τ^[0] σ(W^[0] u + b^[0])`` and
    ``y^[ℓ] = y^[1] + … + y^[ℓ-1] + τ^[ℓ-1] σ(...)``. The running sum is carried along, so a
    step costs the same as a ResNet step. Note the sum of all earlier states roughly doubles
    the state per layer (Remark 6.5): deep DenseNets need small weights or few layers.
    """

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        y = taus[0] * self.activation(self.layers[0](x))
        total = y
        for k in range(1, len(self.layers)):
            y = total + taus[k] * self.activation(self.layers[k](y))
            total = total + y
        return y

    def prune(self, tol: float) -> tuple[DenseNet, list[int], DenseNetConfig]:
        """Not defined: with τ^[k] = 0 the layer still adds the sum of all earlier states."""
        raise InputError("pruning is not defined for densenet: a layer with tau = 0 still adds "
                         "the sum of all earlier states (Theorem 6.4), so it cannot be dropped")


__all__ = ["DenseNet"]
