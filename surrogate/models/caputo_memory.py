"""Memory coefficients of the Fractional-DNN with variable steps (§5.2, eq. 5.7).

With steps τ^[0] … τ^[D-1] (``D = depth``) the L1-type discretisation of the Caputo
derivative (eqs. 5.3–5.4) gives, for ``0 <= j < ℓ <= D-1``,

    a_{ℓ,j} = (τ^[ℓ])^γ / τ^[j] · [ (Σ_{i=j}^{ℓ} τ^[i])^{1-γ} - (Σ_{i=j+1}^{ℓ} τ^[i])^{1-γ} ],

and eq. 5.7 (with ``P_0^ℓ = 0``, so the hidden state starts from ``ŷ^[0] = 0``) reads

    ŷ^[ℓ] = ŷ^[ℓ-1] - Σ_{j=0}^{ℓ-2} a_{ℓ-1,j} (ŷ^[j+1] - ŷ^[j]) + (τ^[ℓ-1])^γ Γ(2-γ) σ(z^[ℓ-1]).

Everything here is differentiable in τ (the τ-derivatives of a_{ℓ,j} are part of the
gradient, Appendix A.2) and costs O(D²) on D×D matrices, independent of the batch.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def gamma_factor(gamma: float) -> float:
    """c_{γ-1}^{-1} = Γ(2-γ), the factor in front of σ in eq. 5.7."""
    return math.gamma(2.0 - gamma)


def tail_sums(taus: Tensor) -> Tensor:
    """S[ℓ, j] = Σ_{i=j}^{ℓ} τ^[i] for j <= ℓ, 0 above the diagonal; shape (D, D).

    Sums of positive numbers only (no differences of cumulative sums), so small steps keep
    full relative accuracy.
    """
    depth = taus.shape[0]
    rows = torch.tril(taus.unsqueeze(0).expand(depth, depth))
    return torch.flip(torch.cumsum(torch.flip(rows, dims=[1]), dim=1), dims=[1])


def memory_coefficients(taus: Tensor, gamma: float | Tensor) -> Tensor:
    """a_{ℓ,j} of eq. 5.7 (§5.2) for j < ℓ, zero elsewhere; shape (D, D).

    ``A = Σ_{i=j}^{ℓ} τ^[i]`` and ``B = Σ_{i=j+1}^{ℓ} τ^[i] = A - τ^[j] > 0``; the bracket
    ``A^{1-γ} - B^{1-γ}`` is evaluated as ``B^{1-γ} expm1((1-γ) log1p(τ^[j]/B))`` so that
    it stays accurate when τ^[j] ≪ B. Equal steps give ``(ℓ-j+1)^{1-γ} - (ℓ-j)^{1-γ}``.
    """
    depth = taus.shape[0]
    sums = tail_sums(taus)
    lower = torch.ones(depth, depth, dtype=torch.bool, device=taus.device).tril(-1)
    # B[ℓ, j] = S[ℓ, j+1]; only used strictly below the diagonal, where it is > 0.
    b = torch.cat([sums[:, 1:], torch.zeros_like(sums[:, :1])], dim=1)
    b = torch.where(lower, b, torch.ones_like(b))
    ratio = taus.unsqueeze(0) / b
    p = 1.0 - gamma
    bracket_over_tau = b.pow(p) * torch.expm1(p * torch.log1p(ratio)) / taus.unsqueeze(0)
    coeff = taus.pow(gamma).unsqueeze(1) * bracket_over_tau
    return torch.where(lower, coeff, torch.zeros_like(coeff))


def trajectory_kernel(taus: Tensor, gamma: float | Tensor, factor: float | Tensor | None = None
                      ) -> Tensor:
    """K with ŷ^[k+1] = Σ_{j<=k} K[k, j] σ(z^[j]) for the recursion of eq. 5.7; shape (D, D).

    Eq. 5.7 says ``d_k + Σ_{j<k} a_{k,j} d_j = g_k σ(z^[k])`` for the increments
    ``d_k = ŷ^[k+1] - ŷ^[k]`` with ``g_k = (τ^[k])^γ Γ(2-γ)``; hence ``d = (I + A)^{-1}
    diag(g) σ`` and ``ŷ^[k+1] = Σ_{i<=k} d_i``: K is the row-cumulative sum of
    ``(I + A)^{-1}`` with column j scaled by ``g_j`` (lower triangular). ``factor`` is
    Γ(2-γ) (computed from ``gamma`` when omitted).
    """
    depth = taus.shape[0]
    eye = torch.eye(depth, dtype=taus.dtype, device=taus.device)
    system = eye + memory_coefficients(taus, gamma)
    inverse = torch.linalg.solve_triangular(system, eye, upper=False, unitriangular=True)
    factor = gamma_factor(float(gamma)) if factor is None else factor
    gains = taus.pow(gamma) * factor
    return torch.cumsum(inverse, dim=0) * gains.unsqueeze(0)


__all__ = ["gamma_factor", "tail_sums", "memory_coefficients", "trajectory_kernel"]
