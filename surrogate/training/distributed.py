"""Data-parallel training plumbing: the torchrun environment, the process group, the shards.

``torchrun --nproc-per-node N -m surrogate fit ...`` (or ``surrogate fit --nproc N``, see
:mod:`surrogate.training.launch`) starts N processes with ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``MASTER_ADDR`` and ``MASTER_PORT`` set. :func:`process_group` joins them (gloo on CPU, nccl
on CUDA, one GPU per local rank); :func:`surrogate.training.loop.fit` then trains with
``DistributedDataParallel`` on the shard :func:`shard_rows` gives each rank.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Iterator
from dataclasses import dataclass

import torch
import torch.distributed as dist

from surrogate.core.errors import InputError

COLLECTIVE_TIMEOUT = datetime.timedelta(minutes=10)
ENV_KEYS = ("RANK", "LOCAL_RANK", "WORLD_SIZE")


@dataclass(frozen=True)
class DistributedContext:
    """This process's place among the training processes."""

    rank: int
    local_rank: int
    world_size: int

    @property
    def is_main(self) -> bool:
        """Rank 0: the only process that logs, checkpoints and writes the run."""
        return self.rank == 0


def launched_world_size() -> int:
    """``WORLD_SIZE`` of a torchrun launch (1 when not launched by torchrun)."""
    try:
        return max(1, int(os.environ.get("WORLD_SIZE", "1")))
    except ValueError:
        return 1


def current_context() -> DistributedContext | None:
    """The context of an initialised process group of two or more processes, else None."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
        return None
    local = int(os.environ.get("LOCAL_RANK", dist.get_rank()))
    return DistributedContext(dist.get_rank(), local, dist.get_world_size())


def backend() -> str:
    """gloo for CPU tensors, plus nccl for CUDA tensors when this machine has both."""
    if torch.cuda.is_available() and dist.is_nccl_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


@contextlib.contextmanager
def process_group() -> Iterator[DistributedContext | None]:
    """Join the torchrun processes (None, and nothing to do, outside a launch of >= 2).

    Collectives on CPU tensors use gloo, on CUDA tensors nccl (:func:`backend`); local rank k
    trains on GPU k. Unless OMP_NUM_THREADS is set, each process uses its share of the CPUs.
    """
    world = launched_world_size()
    if world < 2 or (dist.is_available() and dist.is_initialized()):
        yield current_context()
        return
    if not dist.is_available():
        raise InputError("this torch build has no torch.distributed; train with one process")
    missing = [key for key in (*ENV_KEYS, "MASTER_ADDR", "MASTER_PORT") if key not in os.environ]
    if missing:
        raise InputError(f"WORLD_SIZE={world} but {', '.join(missing)} not set; start the "
                         "processes with torchrun or surrogate fit --nproc")
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available() and local_rank < torch.cuda.device_count():
        torch.cuda.set_device(local_rank)
    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // int(
            os.environ.get("LOCAL_WORLD_SIZE", world))))
    dist.init_process_group(backend(), timeout=COLLECTIVE_TIMEOUT)
    try:
        yield current_context()
    finally:
        dist.destroy_process_group()


def shard_rows(n: int, context: DistributedContext, seed: int, epoch: int) -> torch.Tensor:
    """This rank's rows of an ``n``-row split in ``epoch`` (``DistributedSampler``).

    The sampler shuffles with ``seed`` and ``set_epoch(epoch)`` (the same permutation on every
    rank) and gives rank r the positions r, r + W, ... of it. The padding it adds to make the
    shards equal (repeated rows) is dropped, so every row counts once per epoch; shard sizes
    differ by at most one row.
    """
    from torch.utils.data import DistributedSampler

    sampler = DistributedSampler(range(n), num_replicas=context.world_size, rank=context.rank,
                                 shuffle=True, seed=seed, drop_last=False)
    sampler.set_epoch(epoch)
    rows = [index for k, index in enumerate(sampler)
            if context.rank + k * context.world_size < n]  # position in the padded order
    return torch.tensor(rows, dtype=torch.long)


def shard_size(n: int, rank: int, world_size: int) -> int:
    """Rows of rank ``rank``'s shard of an ``n``-row split: len(range(rank, n, world_size))."""
    return len(range(rank, n, world_size))


def all_reduce_sum(tensor: torch.Tensor) -> torch.Tensor:
    """Sum of ``tensor`` over all ranks (in place; returned)."""
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def any_rank(flag: bool, device: torch.device) -> bool:
    """True on every rank when ``flag`` is true on at least one (e.g. an interrupt came)."""
    value = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return bool(value.item() > 0)


__all__ = ["DistributedContext", "process_group", "current_context", "launched_world_size",
           "shard_rows", "shard_size", "all_reduce_sum", "any_rank", "backend"]
