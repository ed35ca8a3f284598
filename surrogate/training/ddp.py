"""The data-parallel :class:`~surrogate.training.epoch.Reduction`: the same J_λ, rows split by
rank.

Rank r of W trains on its shard of the training split
(:func:`surrogate.training.distributed.shard_rows`: ``DistributedSampler`` shuffled with the
run's shuffling seed and the epoch). A global batch of B rows is W local batches of ⌈B/W⌉
rows (full batch: the whole shard); every rank takes the same number of steps (a shorter
shard may see an empty last batch). In step k with G_k rows over all ranks, rank r
back-propagates

    (W / G_k) Σ_{i in its batch} ℓ_i + penalty,   ℓ_i = ½ ‖ŷ_i − y_i‖² (sequences: / T),

and DDP averages the gradients over the W ranks: the result is the gradient of the global
batch's J = (1/G_k) Σ_i ℓ_i + penalty, whatever the shard sizes. With full batches this is
the single-process gradient, so the trajectories agree to round-off. Logged losses and
gradient norms are the global ones (identical on every rank).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from surrogate.training.distributed import (
    DistributedContext,
    all_reduce_sum,
    any_rank,
    shard_rows,
    shard_size,
)
from surrogate.training.epoch import Batch
from surrogate.training.state import TrainingState


def row_loss_sum(prediction: Tensor, target: Tensor) -> Tensor:
    """Σ_i ℓ_i = ½ Σ_i ‖ŷ_i − y_i‖² over rows (sequences (N, T, k): divided by T); 0 for none."""
    steps = math.prod(prediction.shape[1:-1])
    return 0.5 * (prediction - target).pow(2).sum() / steps


def step_rows(n: int, context: DistributedContext, batch_size: int | None
              ) -> tuple[int, list[int]]:
    """(local batch size, rows of each step over all ranks) for an ``n``-row split."""
    longest = shard_size(n, 0, context.world_size)
    local = longest if batch_size is None else max(1, math.ceil(batch_size / context.world_size))
    steps = max(1, math.ceil(longest / local))
    sizes = [shard_size(n, r, context.world_size) for r in range(context.world_size)]
    totals = [sum(min(local, max(0, size - k * local)) for size in sizes) for k in range(steps)]
    return local, totals


class DataParallel:
    """This rank's shard through ``DistributedDataParallel(model)``; losses summed over ranks."""

    def __init__(self, model: nn.Module, context: DistributedContext, device: torch.device,
                 shuffle_seed: int) -> None:
        from torch.nn.parallel import DistributedDataParallel

        self.context, self.device, self.shuffle_seed = context, device, shuffle_seed
        self.wrapped = DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None)

    def network(self, model: nn.Module) -> nn.Module:
        """The DDP wrapper (it averages the gradients over the ranks)."""
        return self.wrapped

    def batches(self, n: int, batch_size: int | None, state: TrainingState,
                device: torch.device) -> list[Batch]:
        """Steps of ⌈B/W⌉ rows of this rank's shard with the global rows of each step."""
        rows = shard_rows(n, self.context, self.shuffle_seed, state.epoch).to(device)
        full = batch_size is None or batch_size >= n
        local, totals = step_rows(n, self.context, None if full else batch_size)
        return [(rows[step * local:(step + 1) * local], total)
                for step, total in enumerate(totals)]

    def batch_loss(self, prediction: Tensor, target: Tensor, rows: int
                   ) -> tuple[Tensor, Tensor]:
        """(W/G_k) Σ ℓ_i to back-propagate, Σ ℓ_i of this rank to log."""
        local_sum = row_loss_sum(prediction, target)
        return local_sum * (self.context.world_size / rows), local_sum

    def objective(self, logged: Tensor, penalty: Tensor, rows: int) -> Tensor:
        """The global J_λ of the step, the same on every rank."""
        return all_reduce_sum(logged.clone()) / rows + penalty

    def epoch_share(self, logged: Tensor, rows: int, n: int) -> Tensor:
        """This rank's Σ ℓ_i (divided by n once, over all ranks, at the end)."""
        return logged

    def epoch_loss(self, total: Tensor, n: int) -> float:
        """J = (1/n) Σ over all ranks and rows of ℓ_i."""
        return float(all_reduce_sum(total.reshape(1).clone()) / n)

    def anyone(self, flag: bool) -> bool:
        """True on every rank when ``flag`` holds on at least one."""
        return any_rank(flag, self.device)

    def stop_requested(self) -> bool:
        """Never between mini-batches: the ranks agree at the epoch's end (:meth:`anyone`)."""
        return False


__all__ = ["DataParallel", "row_loss_sum", "step_rows"]
