"""The run directory: save (:mod:`.save`), load (:mod:`.load`), safe loading
(:mod:`.safe_load`), validation (:mod:`.validate`), checkpoints, history and predictions.

Exports are lazy (PEP 562), like :mod:`surrogate`: importing this package loads nothing else.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "run": ("Run",),
    "save": ("save_run",),
    "load": ("load_run", "read_config", "run_summary"),
    "validate": ("validate_run",),
    "checkpoints": ("save_checkpoint", "load_checkpoint"),
    "predict": ("predict_array", "predict_sequences"),
})
