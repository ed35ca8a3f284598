"""Implicit ResNet with variable τ (Reshniak & Webster, "Robust learning with implicit residual
networks", eq. 7); θ = ½ is the trapezoidal network, θ = 0 the ResNet of eq. 5.2."""

from __future__ import annotations

from torch import Tensor

from surrogate.models.implicit_layer import implicit_step
from surrogate.models.networks import SteppingNetwork
from surrogate.models.stepping_configs import ImplicitResNetConfig


class ImplicitResNet(SteppingNetwork):
    """y^[1] = τ^[0] σ(W^[0] u + b^[0]);  for ℓ = 2 … L-1, with x = y^[ℓ-1], h = τ^[ℓ-1],

        y^[ℓ] = x + (1 − θ) h σ(W^[ℓ-1] x + b^[ℓ-1]) + θ h σ(W^[ℓ-1] y^[ℓ] + b^[ℓ-1])   (eq. 7)

    solved per layer for the whole batch (:mod:`surrogate.models.implicit_layer`: linearised start,
    fixed-point iteration, Newton fallback, to ``config.solver_tol`` within
    ``config.solver_max_iter``; SolverError otherwise). Gradients come from one transposed
    linear solve per layer, never from the iterations. Output ``y^[L] = W^[L-1] y^[L-1]``.
    ``config.theta = 0`` is exactly :class:`surrogate.models.resnet.ResNet` (no solve). With
    ``config.skew_weights`` hidden layers use ``W^[ℓ-1] = A − Aᵀ`` (eq. 8) in the solve, its
    Jacobian and the transposed solve; autograd carries the gradient on to the stored A.
    """

    config: ImplicitResNetConfig

    def hidden(self, x: Tensor, taus: Tensor) -> Tensor:
        y = taus[0] * self.activation(self.layers[0](x))
        theta = self.config.theta
        weights = self.effective_weights(taus)
        for k in range(1, len(self.layers)):
            y = implicit_step(y, weights[k], self.layers[k].bias, taus[k], theta, self.activation,
                              self.config.solver_tol, self.config.solver_max_iter, layer=k)
        return y

    def prune(self, tol: float) -> tuple[ImplicitResNet, list[int], ImplicitResNetConfig]:
        """Delete hidden layers with τ^[k] < tol, k >= 1 (τ^[k] = 0 gives y^[k+1] = y^[k]).

        Returns ``(new_model, removed, new_config)``; ``removed`` are indices into
        :meth:`taus`. As for the ResNet, the output changes by O(tol).
        """
        return self._prune_small_steps(tol)


__all__ = ["ImplicitResNet"]
