"""The separable model's linear head: the parameters its output is linear in, given the rest.

u_c(x; z) = Σ_k b_{c,k}(z) t_k(x) + β_c with the branch's read-out b_{c,k} = Σ_a W_{(c,k),a}
g_a(z), where g = h or (h, h ⊙ h) (quadratic output) and h is the branch's last hidden state.
So u_c = Σ_{a,k} θ_{(a,k),c} g_a(z) t_k(x) + θ_{β,c}: linear in θ = (W, β) with the features
φ(x, z) = (g(z) ⊗ t(x), 1). :meth:`SeparableHead.normal_equations` assembles ΦᵀΦ and ΦᵀY from
the rows grouped by problem (Σ_j (g_j g_jᵀ) ⊗ (Σ_{i∈j} t_i t_iᵀ)), in O(J A² p²) for J
distinct problems, never forming Φ (N × A p). Also the grouping of rows by problem,
:func:`distinct_rows`, that the model's forward pass uses.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from surrogate.models.config import POINT_COLUMNS

GROUP_CHUNK = 16384
"""Rows per pass when summing outer products t tᵀ by scatter (a few tens of MB in float64)."""
PRODUCT_ENTRIES = 2**23
"""Entries (float64: 64 MB) of the g gᵀ block that one pass of the Gram matrix's product
holds: problems per pass = PRODUCT_ENTRIES / A² (512 for A = 128)."""


def distinct_rows(z: Tensor) -> tuple[Tensor, Tensor | None]:
    """(distinct rows D (d, m), inverse (N,)) with ``D[inverse] == z`` exactly, or (z, None)
    when every row is distinct, when z requires grad (∂u_i/∂z_i must reach row i), or, never
    seen, when two distinct rows share a key.

    Rows are grouped by the key z·w (w_j = 1/√(j + 2), in float64), sorted by
    ``torch.unique`` in O(N log N); the grouping is verified bit for bit before it is used.
    """
    n = z.shape[0]
    if z.requires_grad or n == 0:
        return z, None
    weights = torch.arange(z.shape[1], dtype=torch.float64, device=z.device).add_(2.0).rsqrt_()
    _, inverse = torch.unique(z.to(torch.float64) @ weights, return_inverse=True)
    count = int(inverse.max()) + 1
    if count == n:
        return z, None
    first = torch.full((count,), n, dtype=inverse.dtype, device=z.device).scatter_reduce_(
        0, inverse, torch.arange(n, device=z.device), "amin")
    distinct = z.index_select(0, first)
    if not torch.equal(distinct.index_select(0, inverse), z):
        return z, None
    return distinct, inverse


def _sum_by_group(values: Tensor, inverse: Tensor, groups: int) -> Tensor:
    """S_j = Σ_{i: inverse_i = j} values_i: (groups, *values.shape[1:])."""
    return values.new_zeros((groups, *values.shape[1:])).index_add_(0, inverse, values)


def _padded_by_group(values: Tensor, inverse: Tensor, groups: int) -> Tensor | None:
    """(groups, c, d): group j's rows of ``values`` (N, d), then zero rows up to the largest
    group's c; None when the padding would exceed 4 N rows (very unequal groups)."""
    counts = torch.bincount(inverse, minlength=groups)
    largest = int(counts.max())
    if groups * largest > 4 * values.shape[0]:
        return None
    order = torch.argsort(inverse, stable=True)
    which = inverse.index_select(0, order)
    position = torch.arange(values.shape[0], device=values.device) \
        - (torch.cumsum(counts, 0) - counts).index_select(0, which)
    padded = values.new_zeros(groups, largest, values.shape[1])
    padded[which, position] = values.index_select(0, order)
    return padded


def _trunk_sums(t: Tensor, y: Tensor, inverse: Tensor, groups: int
                ) -> tuple[Tensor, Tensor, Tensor]:
    """Per group j: Σ t_i t_iᵀ (J, p, p), Σ t_i (J, p), Σ t_i y_iᵀ (J, p, n) over its rows."""
    padded = _padded_by_group(torch.cat([t, y], 1), inverse, groups)
    if padded is not None:  # one batched product per sum (the scatter below is ~10x slower)
        tp, yp = padded[..., :t.shape[1]], padded[..., t.shape[1]:]
        return tp.mT @ tp, tp.sum(1), tp.mT @ yp
    gram = sum(_sum_by_group(t[s:s + GROUP_CHUNK, :, None] * t[s:s + GROUP_CHUNK, None, :],
                             inverse[s:s + GROUP_CHUNK], groups)
               for s in range(0, t.shape[0], GROUP_CHUNK))
    return (gram, _sum_by_group(t, inverse, groups),
            _sum_by_group(t[:, :, None] * y[:, None, :], inverse, groups))


class SeparableHead:
    """θ ((A p + 1) × n): the branch's read-out, row (a, k) = a·p + k, then β (last row)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.branch = model.branch
        self.n, self.p = model.config.out_features, model.config.basis

    def _blocks(self) -> list[Tensor]:
        """The read-out weights (n p × width) θ stacks: W, then W_q with the quadratic output."""
        out = [self.branch.output.weight]
        if self.branch.config.quadratic_output:
            out.append(self.branch.quadratic_output.weight)
        return out

    def branch_features(self, problems: Tensor) -> Tensor:
        """g(z) (J, A): the branch's last hidden state h, and h ⊙ h with the quadratic output."""
        h = self.branch.hidden(problems, self.branch.taus())
        return torch.cat([h, h * h], 1) if self.branch.config.quadratic_output else h

    def weights(self) -> Tensor:
        """The current θ ((A p + 1), n)."""
        w = torch.cat(self._blocks(), 1)  # (n p, A), row c·p + k
        a = w.shape[1]
        theta = w.reshape(self.n, self.p, a).permute(2, 1, 0).reshape(a * self.p, self.n)
        return torch.cat([theta, self.model.output_bias[None]], 0)

    def assign(self, theta: Tensor) -> None:
        """Set the read-out and β from θ ((A p + 1), n), cast to the parameters' type."""
        with torch.no_grad():
            blocks = self._blocks()
            width = blocks[0].shape[1]
            w = theta[:-1].reshape(-1, self.p, self.n).permute(2, 1, 0).reshape(
                self.n * self.p, -1)
            for k, block in enumerate(blocks):
                block.copy_(w[:, k * width:(k + 1) * width])
            self.model.output_bias.copy_(theta[-1])

    def normal_equations(self, rows: Tensor, targets: Tensor) -> tuple[Tensor, Tensor]:
        """(ΦᵀΦ, ΦᵀY) in float64 for rows (N, 3 + m) and targets (N, n): the loss
        1/(2N) ‖Φθ − Y‖² is minimal where ΦᵀΦ θ = ΦᵀY."""
        with torch.no_grad():
            problems, inverse = distinct_rows(rows[:, POINT_COLUMNS:])
            if inverse is None:
                inverse = torch.arange(rows.shape[0], device=rows.device)
            g = self.branch_features(problems).double()  # (J, A)
            t = self.model.trunk_features(rows[:, :POINT_COLUMNS]).double()  # (N, p)
            y = targets.double()
            groups, a, p = g.shape[0], g.shape[1], self.p
            trunk_gram, trunk_sum, trunk_moment = _trunk_sums(t, y, inverse, groups)
            step = max(1, PRODUCT_ENTRIES // (a * a))
            gram = sum((g[s:s + step, :, None] * g[s:s + step, None, :]).reshape(-1, a * a).T
                       @ trunk_gram[s:s + step].reshape(-1, p * p)
                       for s in range(0, groups, step))  # (A A, p p): [(a, b), (k, l)]
            size = a * p
            out = g.new_empty(size + 1, size + 1)
            out[:size, :size] = gram.reshape(a, a, p, p).permute(0, 2, 1, 3).reshape(size, size)
            out[:size, size] = out[size, :size] = (g.T @ trunk_sum).reshape(size)
            out[size, size] = rows.shape[0]
            moment = torch.cat([torch.einsum("ja,jkc->akc", g, trunk_moment).reshape(size, -1),
                                y.sum(0, keepdim=True)], 0)
        return out, moment


__all__ = ["SeparableHead", "distinct_rows", "GROUP_CHUNK", "PRODUCT_ENTRIES"]
