"""A sequence model told the linear response of its system, learning what the response leaves.

Where the data come from a nonlinear system whose small-amplitude limit is linear and
time-invariant (the ``maxwell-nl`` varistor cavity), the linear answer to a new input costs
one convolution (eq. 1 of :mod:`surrogate.datasets.sequence.linear_response_bank`):

    ℓ_n = Σ_{k=1}^{n} R_p[n − k + 1] (s_k − s_{k−1}),   ℓ_0 = 0,                    (1)

with R_p the bank's ramp responses interpolated linearly in the parameter p (σ₀) between
its grid values (held constant outside the grid). The model sees ℓ beside its inputs and
predicts the residual (a "hybrid" or residual-physics model):

    ŷ = ℓ̂ + f([û, ℓ̂]),   û, ℓ̂, ŷ normalised per channel as the run's inputs and targets,   (2)

with f any :class:`~surrogate.models.sequence_models.SequenceModel` (LEM, coRNN, LSTM) of
in_features d + C. The bank and both normalisations are buffers (saved with the weights, set
once by :meth:`LinearResponseResidual.set_bank` before training); a query's cost includes (1).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from surrogate.core.errors import InputError
from surrogate.models.lem import check_sequence_input


class LinearResponseResidual(nn.Module):
    """ŷ = ℓ̂ + f([û, ℓ̂]) of eq. (2); ``inner`` is f, ``grid_points`` × (``steps`` + 1) × C
    the bank's shape, ``source``/``parameter`` the input channels of s and p."""

    def __init__(self, inner: nn.Module, in_features: int, out_features: int, grid_points: int,
                 steps: int, source: int = 0, parameter: int = 1) -> None:
        super().__init__()
        if grid_points < 2 or steps < 1 or not (0 <= source < in_features) \
                or not (0 <= parameter < in_features):
            raise InputError(f"linear response: need >= 2 grid points, >= 1 step and channels "
                             f"in [0, {in_features}), got {grid_points}, {steps}, {source}, "
                             f"{parameter}")
        self.inner = inner
        self.in_features, self.out_features = in_features, out_features
        self.source, self.parameter = source, parameter
        self.config = getattr(inner, "config", None)
        self.register_buffer("grid", torch.linspace(0.0, 1.0, grid_points))
        self.register_buffer("ramp", torch.zeros(grid_points, steps + 1, out_features))
        for name, size in (("input_mean", in_features), ("input_std", in_features),
                           ("target_mean", out_features), ("target_std", out_features)):
            self.register_buffer(name, torch.ones(size) if name.endswith("std")
                                 else torch.zeros(size))

    def set_bank(self, grid: np.ndarray, ramp: np.ndarray, normalisation) -> None:
        """Copy the bank (grid (K,) increasing, ramp (K, L + 1, C)) and the run's
        :class:`~surrogate.models.normalisation.Normalisation` into the buffers."""
        grid, ramp = np.asarray(grid, np.float64), np.asarray(ramp, np.float64)
        if grid.shape != tuple(self.grid.shape) or ramp.shape != tuple(self.ramp.shape) \
                or np.any(np.diff(grid) < 0) or not np.all(np.isfinite(ramp)):
            raise InputError(f"linear-response bank of shapes {grid.shape}, {ramp.shape} "
                             f"(finite, grid increasing) expected {tuple(self.grid.shape)}, "
                             f"{tuple(self.ramp.shape)}")
        values = {"grid": grid, "ramp": ramp, "input_mean": normalisation.input_mean,
                  "input_std": normalisation.input_std,
                  "target_mean": normalisation.target_mean,
                  "target_std": normalisation.target_std}
        for name, value in values.items():
            buffer = getattr(self, name)
            buffer.copy_(torch.as_tensor(np.asarray(value), dtype=buffer.dtype))

    def learned_dt(self) -> Tensor | None:
        """The inner model's learned per-unit Δt, if any."""
        return self.inner.learned_dt()

    def grid_weights(self, p: Tensor) -> Tensor:
        """(N, K) weights of linear interpolation in p (N,) between the grid's values,
        constant beyond its ends."""
        grid = self.grid
        k = grid.shape[0]
        p = p.clamp(grid[0], grid[-1])
        upper = torch.searchsorted(grid, p.contiguous()).clamp(1, k - 1)
        lo, hi = grid[upper - 1], grid[upper]
        span = hi - lo
        t = torch.where(span > 0, (p - lo) / torch.where(span > 0, span, 1.0), 0.0)
        weights = torch.zeros(p.shape[0], k, dtype=p.dtype, device=p.device)
        weights.scatter_(1, (upper - 1)[:, None], (1.0 - t)[:, None])
        weights.scatter_add_(1, upper[:, None], t[:, None])
        return weights

    def linear_response(self, u: Tensor) -> Tensor:
        """ℓ (N, T, C) of eq. (1) from physical inputs u (N, T, d)."""
        steps = u.shape[1]
        if steps > self.ramp.shape[1]:
            raise InputError(f"sequences of {steps} steps, the linear-response bank covers "
                             f"{self.ramp.shape[1]}; refit with a longer bank")
        s = u[..., self.source]
        d = s[:, 1:] - s[:, :-1]  # (N, T − 1)
        lag = (torch.arange(steps, device=u.device)[:, None]
               - torch.arange(1, steps, device=u.device)[None, :] + 1)  # n − k + 1
        toeplitz = self.ramp[:, lag.clamp(min=0)] * (lag > 0)[None, :, :, None]  # (K, T, T−1, C)
        per_grid = torch.einsum("ktjc,nj->nktc", toeplitz, d)
        return torch.einsum("nk,nktc->ntc", self.grid_weights(u[:, 0, self.parameter]),
                            per_grid)

    def forward(self, u: Tensor) -> Tensor:
        """Normalised inputs û (N, T, d) -> normalised outputs ŷ (N, T, C) of eq. (2)."""
        check_sequence_input(u, self.in_features)
        physical = u * self.input_std + self.input_mean
        linear = (self.linear_response(physical) - self.target_mean) / self.target_std
        return linear + self.inner(torch.cat([u, linear], dim=-1))


__all__ = ["LinearResponseResidual"]
