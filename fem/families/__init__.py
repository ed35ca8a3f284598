"""Families of static Maxwell problems: a parameter box, a sampler, one Problem per draw μ.

``get_family(name)`` / ``family_names()`` (the registry), ``sensor_layout`` /
``sensor_values`` / ``sensor_names`` (fixed sensor encodings) and ``fem_truth`` (the fine
complete-linear mixed solve of a family without a closed form). Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "registry": ("get_family", "family_names", "FAMILY_MODULES"),
    "family": ("Family", "SAMPLERS", "check_box", "widened"),
    "sensors": ("Sensors", "sensor_layout", "sensor_values", "sensor_names",
                "recorded_sensors"),
    "truth": ("fem_truth", "TRUTH_LEVEL", "TRUTH_ORDER", "TruthSpec"),
})
