"""ResNet with variable τ (eq. 5.2)."""

from __future__ import annotations

from torch import Tensor
from torch.nn import functional as F

from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import ResNetConfig


class ResNet(SteppingNetwork):
    """y^[1] = τ^[0] σ(W^[0] u + b^[0]);  y^[ℓ] = y^[ℓ-1] + τ^[ℓ-1] σ(W^[ℓ-1] y^[ℓ-1] + b^[ℓ-1]).

    Eq. 5.2 with ``P_0^1 = 0`` (§4) and equal hidden widths (``P_{ℓ-1}^ℓ = I``); output
    ``y^[L] = W^[L-1] y^[L-1]``. With ``config.skew_weights`` hidden layers use
    ``W^[ℓ-1] = A − Aᵀ`` (Reshniak & Webster eq. 8). With ``config.step_lipschitz`` = c < 1
    every hidden step is invertible: τ ‖W_eff‖₂ <= c (:meth:`effective_weights`).
    """

    config: ResNetConfig

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        steps = taus.unbind(0)  # one view per step (one backward node, not one per step)
        y = steps[0] * self.activation(self.layers[0](x))
        weights = self.effective_weights(taus)
        for k in range(1, len(self.layers)):
            y = y + steps[k] * self.activation(F.linear(y, weights[k], self.layers[k].bias))
        return y

    def prune(self, tol: float) -> tuple[ResNet, list[int], ResNetConfig]:
        """Delete hidden layers with τ^[k] < tol, k >= 1 (τ^[k] = 0 gives y^[k+1] = y^[k], §7).

        Returns ``(new_model, removed, new_config)``; ``removed`` are indices into
        :meth:`taus`. The output changes by O(tol) (exactly nothing for τ = 0).
        """
        return self._prune_small_steps(tol)


__all__ = ["ResNet"]
