"""surrogate: neural-network surrogates of PDE solutions, held against finite elements.

The import package has four parts: ``surrogate.fem`` (finite elements),
``surrogate.datasets`` (HDF5 datasets), ``surrogate`` itself (models, training,
evaluation; needs torch) and ``surrogate.cli`` (the command line). Importing
``surrogate`` alone is cheap: torch is loaded only by the modules that need it. It sets the
OpenMP wait policy torch will load with (``OMP_WAIT_POLICY=PASSIVE`` unless the environment
sets one: :func:`surrogate.core.thread_settings.set_default_wait_policy`).
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from surrogate.core.thread_settings import set_default_wait_policy

set_default_wait_policy()  # every entry point (command line, API) passes here before torch

try:
    __version__ = version("surrogate")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

_EXPORTS = {
    "models.stepping_configs": ("ModelConfig",),
    "models.sequence_config": ("SequenceModelConfig",),
    "models.registry": ("architecture_names", "all_architecture_names", "activation_names",
                 "build_model"),
    "training.config": ("TrainConfig",),
    "models.normalisation": ("Normalisation",),
    "training.loop": ("fit", "TrainingInterrupted"),
    "runs.run": ("Run",),
    "runs.load": ("load_run", "run_summary"),
    "runs.save": ("save_run",),
    "runs.validate": ("validate_run",),
    "training.pruning": ("prune_run",),
    "evaluation.api": ("evaluate", "EvaluationResult"),
    "evaluation.static_options": ("EvaluationOptions",),
    "evaluation.static": ("Evaluation", "evaluate_runs"),
    "evaluation.sequence": ("SequenceEvaluationOptions", "SequenceEvaluation",
                            "evaluate_sequence_run"),
    "evaluation.report": ("write_report",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["__version__", *sorted(_MODULE_OF)]


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first access (PEP 562; keeps torch lazy)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
