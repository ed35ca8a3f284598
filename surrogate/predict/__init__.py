"""Use a trained surrogate: a run bound to a point set answers u for problems (the predictor),
the parameter and point tables a user hands in, and the files ``surrogate predict`` writes.

Exports are lazy (PEP 562): importing this package loads neither torch nor h5py.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "predictor": ("Predictor",),
    "point_sets": ("PointSet",),
    "parameters": ("parameter_rows", "outside_box"),
    "tables": ("read_table",),
    "options": ("PredictOptions",),
    "to_files": ("PredictionRequest", "predict_to_files"),
})
