"""Family runs on K unseen members of their problem family, next to Nédélec FEM.

``measure`` (:func:`measure_family`), ``options``, ``fem`` (meshes, reference u, FEM
candidates), ``economics`` (break-even N*), ``summary`` (``evaluation.json``), ``plots`` and
``report``. Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "measure": ("FamilyEvaluation", "evaluate_family_runs", "family_of_runs",
                "load_family_runs", "measure_family"),
    "options": ("FamilyEvaluationOptions",),
})
