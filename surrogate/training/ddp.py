"""One training epoch under ``DistributedDataParallel``: the same J_λ, the rows split by rank.

Rank r of W trains on its shard of the training split (:func:`surrogate.training.distributed.shard_rows`:
``DistributedSampler`` shuffled with the run's shuffling seed and the epoch). A global batch
of B rows is W local batches of ⌈B/W⌉ rows (full batch: the whole shard); every rank takes
the same number of steps (a shorter shard may see an empty last batch). In step k with G_k
rows over all ranks, rank r back-propagates

    (W / G_k) Σ_{i in its batch} ℓ_i + penalty,   ℓ_i = ½ ‖ŷ_i − y_i‖² (sequences: / T),

and DDP averages the gradients over the W ranks: the result is the gradient of the global
batch's J = (1/G_k) Σ_i ℓ_i + penalty, whatever the shard sizes. With full batches this is
the single-process gradient, so the trajectories agree to round-off. Logged losses and
gradient norms are the global ones (identical on every rank).
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import torch
from torch import Tensor, nn

from surrogate.training.config import TrainConfig
from surrogate.training.distributed import (
    DistributedContext,
    all_reduce_sum,
    shard_rows,
    shard_size,
)
from surrogate.training.penalties import regularisation


def row_loss_sum(prediction: Tensor, target: Tensor) -> Tensor:
    """Σ_i ℓ_i = ½ Σ_i ‖ŷ_i − y_i‖² over rows (sequences (N, T, k): divided by T); 0 for none."""
    steps = math.prod(prediction.shape[1:-1])
    return 0.5 * (prediction - target).pow(2).sum() / steps


def autocast(config: TrainConfig, device: torch.device) -> contextlib.AbstractContextManager:
    """bfloat16 autocast of the forward pass when ``config.bf16`` (else nothing)."""
    if not config.bf16:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def step_rows(n: int, context: DistributedContext, batch_size: int | None
              ) -> tuple[int, list[int]]:
    """(local batch size, rows of each step over all ranks) for an ``n``-row split."""
    longest = shard_size(n, 0, context.world_size)
    local = longest if batch_size is None else max(1, math.ceil(batch_size / context.world_size))
    steps = max(1, math.ceil(longest / local))
    sizes = [shard_size(n, r, context.world_size) for r in range(context.world_size)]
    totals = [sum(min(local, max(0, size - k * local)) for size in sizes) for k in range(steps)]
    return local, totals


def train_epoch_ddp(state: Any, ddp_model: nn.Module, config: TrainConfig, x: Tensor, y: Tensor,
                    context: DistributedContext, shuffle_seed: int
                    ) -> tuple[float, float, list[float]]:
    """One DDP pass over the training split; returns the global (data loss J, penalty, grad
    norms) as :func:`surrogate.training.loop.train_epoch` does for one process."""
    from surrogate.training.loop import layer_gradient_squares, total_gradient_square

    model, optimizer = state.model, state.optimizer
    n = x.shape[0]
    rows = shard_rows(n, context, shuffle_seed, state.epoch).to(x.device)
    full = config.batch_size is None or config.batch_size >= n
    local, totals = step_rows(n, context, None if full else config.batch_size)
    penalty_args = {"lambda1": config.lambda1, "lambda2": config.lambda2, "beta": config.beta,
                    "horizon_weight": config.horizon_weight, "smoothness": config.smoothness}
    penalised = any(penalty_args.values())
    gradient_squares = (layer_gradient_squares if state.kind == "pointwise"
                        else total_gradient_square)
    scale = context.world_size
    data_sum = x.new_zeros(())  # Σ over this rank's rows of ℓ_i, at the parameters seen
    penalty_sum = x.new_zeros(())
    grad_sq_sum = None
    for step, global_rows in enumerate(totals):
        index = rows[step * local:(step + 1) * local]
        xb, yb = x[index], y[index]
        seen: dict[str, Tensor] = {}

        def closure(xb=xb, yb=yb, seen=seen, global_rows=global_rows) -> Tensor:
            optimizer.zero_grad(set_to_none=True)
            with autocast(config, x.device):
                prediction = ddp_model(xb)
            local_sum = row_loss_sum(prediction.to(yb.dtype), yb)
            penalty = (regularisation(model, **penalty_args) if penalised
                       else local_sum.new_zeros(()))
            (local_sum * (scale / global_rows) + penalty).backward()
            if not seen:
                seen["data"], seen["penalty"] = local_sum.detach(), penalty.detach()
                seen["grad_sq"] = gradient_squares(model).detach()
            if config.optimizer != "lbfgs":
                return local_sum.detach()
            # the line search needs the global objective, the same on every rank
            return all_reduce_sum(local_sum.detach().clone()) / global_rows + penalty.detach()

        if config.optimizer == "lbfgs":
            optimizer.step(closure)
        else:
            closure()
            if config.grad_clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
        data_sum = data_sum + seen["data"]
        penalty_sum = penalty_sum + (global_rows / n) * seen["penalty"]
        grad_sq_sum = seen["grad_sq"] if grad_sq_sum is None else grad_sq_sum + seen["grad_sq"]
    data = all_reduce_sum(data_sum.reshape(1).clone()) / n
    grad_norms = (grad_sq_sum / len(totals)).sqrt().tolist()
    return float(data), float(penalty_sum), grad_norms


__all__ = ["train_epoch_ddp", "row_loss_sum", "step_rows", "autocast"]
