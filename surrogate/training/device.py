"""Where and in what precision training runs: the device, the dtype, the seeds, autocast."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from surrogate.core.errors import InputError
from surrogate.training.config import TrainConfig
from surrogate.training.distributed import DistributedContext


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` or ``auto`` (cuda when available) -> torch.device."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError("device 'cuda' requested but torch sees no CUDA device; use "
                         "--device cpu or auto")
    if name not in ("cpu", "cuda"):
        raise InputError(f"unknown device {name!r}; choose one of: cpu, cuda, auto")
    return torch.device(name)


def process_device(name: str, context: DistributedContext | None) -> torch.device:
    """:func:`resolve_device`; under data parallelism on CUDA, the GPU of this local rank."""
    device = resolve_device(name)
    if context is None or device.type != "cuda":
        return device
    if context.local_rank >= torch.cuda.device_count():
        raise InputError(f"process {context.rank} has no GPU of its own (local rank "
                         f"{context.local_rank}, {torch.cuda.device_count()} visible); use "
                         "fewer processes per node or --device cpu")
    return torch.device("cuda", context.local_rank)


def torch_dtype(name: str) -> torch.dtype:
    """``float32`` | ``float64`` -> torch dtype."""
    return {"float32": torch.float32, "float64": torch.float64}[name]


def seed_streams(seed: int) -> tuple[int, int]:
    """(model initialisation seed, batch shuffling seed) from ``SeedSequence(seed)``."""
    children = np.random.SeedSequence(seed).spawn(2)
    return tuple(int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in children)


def autocast(config: TrainConfig, device: torch.device) -> contextlib.AbstractContextManager:
    """bfloat16 autocast of the forward pass when ``config.bf16`` (else nothing)."""
    if not config.bf16:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


__all__ = ["resolve_device", "process_device", "torch_dtype", "seed_streams", "autocast"]
