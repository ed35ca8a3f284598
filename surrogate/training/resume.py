"""What ``fit(..., resume=True)`` may continue: the same data, the stored configuration with
only :data:`RESUMABLE_CHANGES`, the same number of processes, epochs still to run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from surrogate.core.errors import InputError
from surrogate.training.config import TrainConfig
from surrogate.training.distributed import DistributedContext
from surrogate.training.state import TrainingState

# Fields of TrainConfig that a resumed run may change (they do not alter the trajectory
# before the new settings take effect).
RESUMABLE_CHANGES = ("epochs", "device", "checkpoint_every", "patience")


def check_same_dataset(payload: Mapping[str, Any], dataset: Any) -> None:
    """InputError unless ``dataset`` has the content hash the checkpoint records."""
    stored = payload.get("dataset", {}).get("content_hash")
    if stored != dataset.content_hash:
        raise InputError(f"{dataset.path} is not the dataset this run was trained on "
                         f"(hash {dataset.content_hash[:19]}…, run {str(stored)[:19]}…)")


def resume_config(stored: Mapping[str, Any], given: TrainConfig | Mapping | None
                  ) -> TrainConfig:
    """The stored TrainConfig with the allowed changes of ``given`` applied."""
    config = TrainConfig.from_dict(stored)
    if given is None:
        return config
    given = given if isinstance(given, TrainConfig) else TrainConfig.from_dict(
        {**config.to_dict(), **dict(given)})
    stored = config.to_dict()  # fields added since the checkpoint was written: defaults
    changed = {k: v for k, v in given.to_dict().items() if stored.get(k) != v}
    frozen = sorted(set(changed) - set(RESUMABLE_CHANGES))
    if frozen:
        detail = ", ".join(f"{k} (stored {stored.get(k)!r}, given {changed[k]!r})"
                           for k in frozen)
        raise InputError(f"--resume continues the stored configuration; it may change only "
                         f"{', '.join(RESUMABLE_CHANGES)}, not {detail}")
    return replace(config, **{k: changed[k] for k in changed})


def processes_config(config: TrainConfig, context: DistributedContext | None,
                     resume: bool) -> TrainConfig:
    """``config`` with ``nproc`` = the processes training; InputError when that cannot be."""
    world = 1 if context is None else context.world_size
    if context is not None and config.prune_every is not None:
        raise InputError("--prune-every changes the network while it trains; prune with one "
                         "process, not with --nproc/torchrun")
    if config.nproc == world:
        return config
    if resume:
        raise InputError(f"this run trained with {config.nproc} process(es); resume it with as "
                         f"many (--nproc {config.nproc}), not {world}")
    if config.nproc != 1:
        raise InputError(f"nproc {config.nproc} given but {world} process(es) were launched")
    return replace(config, nproc=world)


def reopen(state: TrainingState, config: TrainConfig, out_dir: Path, files_complete: bool
           ) -> None:
    """Clear the stop of a restored run that has epochs left; InputError when it has none.

    A run whose training had finished but whose run files were cut off
    (``files_complete`` False) is left finished: resuming it only writes the files.
    """
    finished = state.epoch >= config.epochs or state.stop_reason == "early-stopping"
    if finished and not files_complete:
        return
    if state.stop_reason == "early-stopping" and state.epoch < config.epochs:
        raise InputError(f"{out_dir} stopped early at epoch {state.epoch} (no val "
                         "improvement); raise --patience to continue it")
    if state.epoch >= config.epochs:
        raise InputError(f"{out_dir} already ran all {config.epochs} epochs; pass a "
                         "larger --epochs to continue it")
    state.stop_reason = None


__all__ = ["RESUMABLE_CHANGES", "check_same_dataset", "resume_config", "processes_config",
           "reopen"]
