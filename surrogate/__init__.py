"""surrogate: neural-network surrogates of PDE solutions, held against finite elements.

The import package has four parts: ``surrogate.fem`` (finite elements),
``surrogate.datasets`` (HDF5 datasets), ``surrogate`` itself (models, training,
evaluation; needs torch) and ``surrogate.cli`` (the command line). Importing
``surrogate`` alone is cheap: torch is loaded only by the modules that need it. It sets the
OpenMP wait policy torch will load with (``OMP_WAIT_POLICY=PASSIVE`` unless the environment
sets one: :func:`surrogate.core.thread_settings.set_default_wait_policy`).
"""

from surrogate.core.lazy_exports import lazy_exports
from surrogate.core.thread_settings import set_default_wait_policy
from surrogate.core.version import __version__

set_default_wait_policy()  # every entry point (command line, API) passes here before torch

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
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
    "evaluation.static.options": ("EvaluationOptions",),
    "evaluation.static.measure": ("Evaluation", "evaluate_runs"),
    "evaluation.sequence.options": ("SequenceEvaluationOptions",),
    "evaluation.sequence.measure": ("SequenceEvaluation", "evaluate_sequence_run"),
    "evaluation.report": ("write_report",),
    "predict.predictor": ("Predictor",),
    "predict.point_sets": ("PointSet",),
})
__all__ = ["__version__", *__all__]
