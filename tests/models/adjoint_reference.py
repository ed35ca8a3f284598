"""Reference gradients from the paper's adjoint equations (§5.1, eq. 5.9, Appendix A).

Plain loops over layers, written to follow the formulas line by line; used by the tests
to check autograd (and the fused Fractional-DNN backward), not for training. The loss is
the paper's mean squared error ``J = 1/(2N) Σ_i ‖y^[L](u_i) - S(u_i)‖²`` without
regularisation, so ``ϕ^[L] = (y^[L] - S)/N``. Samples are rows: ``W^T ϕ`` is ``ϕ @ W``.
Hidden states are indexed as in the paper: ``y[0]`` is the input's hidden image
(``P_0^ℓ y^[0] = 0``), ``y[1] … y[L-1]`` the hidden layers, ``L = depth + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from surrogate.core.errors import InputError
from surrogate.models.caputo_memory import gamma_factor


@dataclass(frozen=True)
class AdjointGradients:
    """dJ/dW^[ℓ] (ℓ = 0 … L-1, torch layout), dJ/db^[ℓ] (ℓ = 0 … L-2), dJ/dτ (depth,)."""

    weights: list[Tensor]
    biases: list[Tensor]
    taus: Tensor
    loss: float


def _parameters(model) -> tuple[list[Tensor], list[Tensor], Tensor]:
    if getattr(model.config, "quadratic_output", False):
        raise InputError("the adjoint gradients assume a linear output layer; this model has "
                         "quadratic_output")
    weights = [layer.weight.detach() for layer in model.layers]
    biases = [layer.bias.detach() for layer in model.layers]
    return weights, biases, model.output.weight.detach()


def resnet_adjoint(model, u: Tensor, target: Tensor, taus: Tensor | None = None
                   ) -> AdjointGradients:
    """Gradients of J for the variable-τ ResNet from its adjoint system (§5.1)."""
    with torch.no_grad():
        taus = model.taus().detach() if taus is None else taus.detach()
        weights, biases, w_out = _parameters(model)
        sigma, depth = model.activation, len(weights)
        n = u.shape[0]
        big_l = depth + 1
        y = [u]  # y[0] = u enters only through z^[0]
        z = []
        for ell in range(depth):  # state equation (5.2): y[ℓ+1] from y[ℓ]
            z.append(y[ell] @ weights[ell].T + biases[ell])
            previous = y[ell] if ell > 0 else torch.zeros_like(sigma(z[0]))
            y.append(previous + taus[ell] * sigma(z[ell]))
        y.append(y[big_l - 1] @ w_out.T)
        residual = y[big_l] - target
        phi = [None] * (big_l + 1)
        phi[big_l] = residual / n
        phi[big_l - 1] = phi[big_l] @ w_out
        for ell in range(big_l - 2, 0, -1):  # adjoint system, ℓ = L-2 … 1
            phi[ell] = phi[ell + 1] + taus[ell] * (phi[ell + 1] * sigma.derivative(z[ell])) \
                @ weights[ell]
        grad_w, grad_b, grad_tau = [], [], torch.zeros_like(taus)
        for ell in range(big_l - 1):  # ℓ = 0 … L-2
            scaled = phi[ell + 1] * taus[ell] * sigma.derivative(z[ell])
            grad_w.append(scaled.T @ y[ell])
            grad_b.append(scaled.sum(0))
            grad_tau[ell] = (sigma(z[ell]) * phi[ell + 1]).sum()
        grad_w.append(phi[big_l].T @ y[big_l - 1])
        loss = 0.5 * float((residual ** 2).sum()) / n
    return AdjointGradients(grad_w, grad_b, grad_tau, loss)


def coefficient(taus: Tensor, gamma: float, k: int, j: int) -> Tensor:
    """a_{k,j} of §5.2 for j < k, written out literally."""
    a = taus[j:k + 1].sum()
    b = taus[j + 1:k + 1].sum()
    return taus[k] ** gamma / taus[j] * (a ** (1 - gamma) - b ** (1 - gamma))


def coefficient_derivative(taus: Tensor, gamma: float, k: int, j: int, ell: int) -> Tensor:
    """∂a_{k,j}/∂τ^[ℓ] for j < k, the three cases of Appendix A.2 (zero if ℓ ∉ [j, k])."""
    zero = torch.zeros((), dtype=taus.dtype)
    if not j <= ell <= k:
        return zero
    a = taus[j:k + 1].sum()
    b = taus[j + 1:k + 1].sum()
    if j < ell == k:  # product rule, j < ℓ = k
        return ((1 - gamma) * taus[ell] ** gamma / taus[j] * (a ** -gamma - b ** -gamma)
                + gamma * taus[ell] ** (gamma - 1) / taus[j]
                * (a ** (1 - gamma) - b ** (1 - gamma)))
    if j < ell < k:
        return (1 - gamma) * taus[k] ** gamma / taus[j] * (a ** -gamma - b ** -gamma)
    # j = ℓ < k
    return (taus[k] ** gamma / taus[ell] ** 2 * (b ** (1 - gamma) - a ** (1 - gamma))
            + (1 - gamma) * taus[k] ** gamma / taus[ell] * a ** -gamma)


def fractional_adjoint(model, u: Tensor, target: Tensor, taus: Tensor | None = None
                       ) -> AdjointGradients:
    """Gradients of J for the variable-τ Fractional-DNN: state (5.7), adjoint (5.9), A.2."""
    with torch.no_grad():
        taus = model.taus().detach() if taus is None else taus.detach()
        gamma = float(model.gamma)
        factor = gamma_factor(gamma)
        weights, biases, w_out = _parameters(model)
        sigma, depth = model.activation, len(weights)
        n = u.shape[0]
        big_l = depth + 1
        coef = {(k, j): coefficient(taus, gamma, k, j) for k in range(depth) for j in range(k)}
        gains = [taus[ell] ** gamma * factor for ell in range(depth)]
        z = [u @ weights[0].T + biases[0]]
        y = [torch.zeros_like(z[0])]  # y[0]: the input's hidden image, P_0^ℓ y^[0] = 0
        for ell in range(1, big_l):  # state equation (5.7), ℓ = 1 … L-1
            if ell > 1:
                z.append(y[ell - 1] @ weights[ell - 1].T + biases[ell - 1])
            memory = sum((coef[ell - 1, j] * (y[j + 1] - y[j]) for j in range(ell - 1)),
                         torch.zeros_like(y[0]))
            y.append(y[ell - 1] - memory + gains[ell - 1] * sigma(z[ell - 1]))
        y.append(y[big_l - 1] @ w_out.T)
        residual = y[big_l] - target
        phi = [None] * (big_l + 1)
        phi[big_l] = residual / n
        phi[big_l - 1] = phi[big_l] @ w_out
        for ell in range(big_l - 2, 0, -1):  # adjoint (5.9), ℓ = L-2 … 1
            value = (1 - coef.get((ell, ell - 1), 0.0)) * phi[ell + 1]
            for j in range(ell + 2, big_l):
                value = value + (coef[j - 1, ell] - coef.get((j - 1, ell - 1), 0.0)) * phi[j]
            value = value + gains[ell] * (phi[ell + 1] * sigma.derivative(z[ell])) @ weights[ell]
            phi[ell] = value
        inputs = [u] + y[1:big_l - 1]
        grad_w, grad_b, grad_tau = [], [], torch.zeros_like(taus)
        for ell in range(big_l - 1):  # ℓ = 0 … L-2
            scaled = phi[ell + 1] * gains[ell] * sigma.derivative(z[ell])
            grad_w.append(scaled.T @ inputs[ell])
            grad_b.append(scaled.sum(0))
            total = (gamma * taus[ell] ** (gamma - 1) * factor * sigma(z[ell]) * phi[ell + 1]).sum()
            for k in range(ell, big_l - 1):  # Appendix A.2 double sum
                for j in range(min(k - 1, ell) + 1):
                    total = total - coefficient_derivative(taus, gamma, k, j, ell) \
                        * ((y[j + 1] - y[j]) * phi[k + 1]).sum()
            grad_tau[ell] = total
        grad_w.append(phi[big_l].T @ y[big_l - 1])
        loss = 0.5 * float((residual ** 2).sum()) / n
    return AdjointGradients(grad_w, grad_b, grad_tau, loss)


__all__ = ["AdjointGradients", "resnet_adjoint", "fractional_adjoint", "coefficient",
           "coefficient_derivative"]
