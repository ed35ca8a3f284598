"""Static (single-problem, pointwise) runs against Nédélec FEM baselines on test domains.

``measure`` (:func:`evaluate_runs`), ``options``, ``records``, ``runs``, ``slices``, ``vtk``,
``plots``, ``fem_order_plots`` and ``report``. Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "measure": ("Evaluation", "evaluate_runs", "fem_baseline"),
    "options": ("EvaluationOptions", "parse_slice"),
})
