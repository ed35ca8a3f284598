"""Sequence runs on sequences they never saw: unseen signals, materials, a longer horizon.

``measure`` (:func:`evaluate_sequence_run`), ``options``, ``sets`` (what each set is),
``builders``, ``maxwell_td``, ``metrics``, ``fem_verdict`` and ``td_candidates`` (maxwell-td:
the fastest FEM at equal error and N* per set), ``vtk``, ``plots``, ``report``, ``tables`` and
``run_kind`` (its registry entry). Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "measure": ("SequenceEvaluation", "evaluate_sequence_run", "prepare"),
    "options": ("SequenceEvaluationOptions",),
})
