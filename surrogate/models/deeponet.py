"""Separable family model: u_c(x; μ) = Σ_k b_{c,k}(μ) t_k(x) + β_c (Lu et al. 2021).

A row is ``(x, z)``: the point x (3 columns) and the problem's columns z (μ, a sensor code, or
f(x) and φ(x)). The trunk ``t = T(x)`` (P, p) and the branch ``b = B(z)`` reshaped (N, n, p)
are two τ-stepping networks built by the registry from
:meth:`~surrogate.models.deeponet_config.DeepONetConfig.part_fields` (ResNet eq. 5.2,
Fractional-DNN eq. 5.7, ...): one trunk for every output component, one branch head per
component (the branch's read-out has n·p rows), so the vector structure of u is kept and
the k-th basis function is shared by u₁, u₂, u₃.

The trainer sees the generic interface: ``taus`` = the trunk's steps then the branch's,
``layer_biases`` their hidden biases, ``layer_weights`` their hidden weights then the
branch's read-out (the "output layer" of eq. 2.4). The trunk's read-out W_t is left out of
the λ₁ penalty: u is unchanged by W_t -> c W_t, W_b -> W_b / c, so one of the pair fixes the
scale. A predictor caches :meth:`trunk_features` per point set and calls
:meth:`branch_coefficients` per problem (:mod:`surrogate.predict`). u is linear in the
branch's read-out and β given both networks' features: :meth:`linear_head`, which training
may solve by least squares (``TrainConfig.head_solve_epochs``).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor, nn

from surrogate.core.errors import InputError
from surrogate.models.config import POINT_COLUMNS
from surrogate.models.deeponet_config import DeepONetConfig
from surrogate.models.registry import build_model, config_from_dict
from surrogate.models.separable_head import SeparableHead, distinct_rows


class DeepONet(nn.Module):
    """u(x; z) (N, n) from rows (N, 3 + m): trunk T on x, branch B on z, bias β (n,)."""

    def __init__(self, config: DeepONetConfig, trunk: nn.Module | None = None,
                 branch: nn.Module | None = None) -> None:
        super().__init__()
        self.config = config
        self.trunk = trunk if trunk is not None else \
            build_model(config_from_dict(config.part_fields("trunk")))
        self.branch = branch if branch is not None else \
            build_model(config_from_dict(config.part_fields("branch")))
        self.output_bias = nn.Parameter(torch.zeros(config.out_features))

    def trunk_features(self, points: Tensor) -> Tensor:
        """t_k(x): (P, p) for normalised points (P, 3); depends on x alone (cacheable)."""
        return self.trunk(points)

    def branch_coefficients(self, problems: Tensor) -> Tensor:
        """b_{c,k}(z): (B, n, p) for the problems' normalised columns z (B, m)."""
        return self.branch(problems).view(-1, self.config.out_features, self.config.basis)

    def combine(self, coefficients: Tensor, features: Tensor) -> Tensor:
        """u_c = Σ_k b_{c,k} t_k + β_c row by row: (N, n, p) and (N, p) -> (N, n)."""
        return (coefficients * features.unsqueeze(1)).sum(-1) + self.output_bias

    def forward(self, rows: Tensor) -> Tensor:
        """Outputs (N, n) for rows (N, 3 + m) = (x, z); the branch runs once per distinct z
        (a mini-batch of a family dataset holds a few problems' rows many times each)."""
        if rows.ndim != 2 or rows.shape[1] != self.config.in_features:
            raise InputError(f"model input must have shape (N, {self.config.in_features}), "
                             f"got {tuple(rows.shape)}")
        distinct, inverse = distinct_rows(rows[:, POINT_COLUMNS:])
        coefficients = self.branch_coefficients(distinct)
        if inverse is not None:
            coefficients = coefficients.index_select(0, inverse)
        return self.combine(coefficients, self.trunk_features(rows[:, :POINT_COLUMNS]))

    def linear_head(self) -> SeparableHead:
        """The parameters u is linear in given trunk and branch features: the branch's read-out
        and β (:class:`~surrogate.models.separable_head.SeparableHead`)."""
        return SeparableHead(self)

    def taus(self) -> Tensor:
        """Steps of the trunk (depth,) then of the branch (branch depth,)."""
        return torch.cat([self.trunk.taus(), self.branch.taus()])

    def layer_weights(self) -> list[Tensor]:
        """Hidden W of the trunk, then of the branch, then the branch's read-out (eq. 2.4)."""
        return [*self.trunk.layer_weights()[:-1], *self.branch.layer_weights()]

    def layer_biases(self) -> list[Tensor]:
        """Hidden biases of the trunk, then of the branch (one per step of :meth:`taus`)."""
        return [*self.trunk.layer_biases(), *self.branch.layer_biases()]

    def prune(self, tol: float) -> tuple[DeepONet, list[int], DeepONetConfig]:
        """Each network pruned by its own ``prune`` (steps k >= 1 with τ < tol); removed
        indices are positions in :meth:`taus`. Returns (model, removed, config)."""
        trunk, removed_trunk, trunk_config = self.trunk.prune(tol)
        branch, removed_branch, branch_config = self.branch.prune(tol)
        config = replace(self.config, depth=trunk_config.depth,
                         branch_depth=branch_config.depth)
        model = DeepONet(config, trunk, branch).to(self.output_bias)
        with torch.no_grad():
            model.output_bias.copy_(self.output_bias)
        offset = self.config.depth
        return model, [*removed_trunk, *(offset + k for k in removed_branch)], config


__all__ = ["DeepONet", "distinct_rows"]
