"""The least-squares step of hybrid LS/gradient training (Cyr et al. 2020, §3).

A model whose output is linear in some of its parameters θ given the others exposes them as
``model.linear_head()`` (:class:`LinearHead`; the separable model's branch read-out and β,
:class:`~surrogate.models.separable_head.SeparableHead`). After each of the last
``TrainConfig.head_solve_epochs`` epochs of gradient steps θ is set to the minimiser of the
data loss J = 1/(2N) ‖Φθ − Y‖² on a sample of the training rows: (ΦᵀΦ + ε I) θ = ΦᵀY, with
the ridge ε = :data:`HEAD_RIDGE` · mean diag(ΦᵀΦ) only against round-off, solved by Cholesky
in float64. The training code asks for the protocol, never for an architecture.
"""

from __future__ import annotations

from typing import Any, Protocol

import torch
from torch import Tensor, nn

from surrogate.core.errors import InputError

HEAD_RIDGE = 1e-10
"""ε relative to the mean diagonal of ΦᵀΦ: keeps the Cholesky factor of an ill-conditioned
ΦᵀΦ finite. θ is then the exact minimiser of J + ε ‖θ‖² / (2N) (∂J/∂θ = −(ε/N) θ); only
directions with eigenvalues below about ε are damped."""


class LinearHead(Protocol):
    """Parameters θ (F, n) with model output u(row) = φ(row)ᵀ θ, φ fixed by the others."""

    def normal_equations(self, rows: Tensor, targets: Tensor) -> tuple[Tensor, Tensor]:
        """(ΦᵀΦ (F, F), ΦᵀY (F, n)) in float64 for rows (N, d) and targets (N, n)."""

    def weights(self) -> Tensor:
        """The current θ (F, n)."""

    def assign(self, theta: Tensor) -> None:
        """Set θ (F, n) in the model's parameters."""


def linear_head(model: nn.Module) -> LinearHead:
    """``model.linear_head()``; InputError for a model without one."""
    try:
        return model.linear_head()
    except AttributeError:  # none, or a wrapper's core without one
        arch = getattr(getattr(model, "config", None), "arch", type(model).__name__)
        raise InputError(f"head_solve_epochs needs a model that is linear in a head given its "
                         f"features (the separable model, arch deeponet); "
                         f"this {arch!r} model has no linear head") from None


def head_solve_due(epoch: int, solves: int, epochs: int) -> bool:
    """Whether the head is solved after ``epoch`` (from 1): in the last ``solves`` of
    ``epochs`` epochs."""
    return solves > 0 and epoch > epochs - solves


def head_sample(n: int, rows: int, seed: int, epoch: int, device: Any) -> Tensor | None:
    """``rows`` of ``n`` training rows drawn without replacement by a generator seeded with
    (seed, epoch) (a resumed run draws the same); None: all of them."""
    if rows >= n:
        return None
    generator = torch.Generator().manual_seed(int(seed) * 1_000_003 + int(epoch))
    return torch.randperm(n, generator=generator)[:rows].sort().values.to(device)


def solve_linear_head(model: nn.Module, x: Tensor, y: Tensor) -> Tensor:
    """Set the model's linear head to the least-squares minimiser of J on (x, y); returns θ."""
    head = linear_head(model)
    gram, moment = head.normal_equations(x, y)
    gram.diagonal().add_(HEAD_RIDGE * float(gram.diagonal().mean()))
    factor, info = torch.linalg.cholesky_ex(gram)
    if int(info) == 0:
        theta = torch.cholesky_solve(moment, factor)
    else:  # singular beyond the ridge (fewer rows than features): the least-norm solution
        theta = torch.linalg.lstsq(gram, moment, driver="gelsd" if gram.device.type == "cpu"
                                   else None).solution
    head.assign(theta)
    return theta


__all__ = ["HEAD_RIDGE", "LinearHead", "linear_head", "head_solve_due", "head_sample",
           "solve_linear_head"]
