"""Training: the loop behind ``surrogate fit``, its epoch, checkpoints, metrics and pruning.

Exports are lazy (PEP 562): importing ``surrogate.training`` does not load torch.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "config": ("TrainConfig",),
    "loop": ("fit", "TrainingInterrupted"),
    "pruning": ("prune_run",),
})
