"""Uncertainty propagation through a family surrogate with the FEM as reference.

Multifidelity Monte Carlo (Peherstorfer, Willcox & Gunzburger 2016): the surrogate's batched
predictor as the low-fidelity model, a FEM of the registry (or a closed form) as the high-
fidelity one; the estimate of E[Q] is unbiased for the high-fidelity model whatever the
surrogate's error. Exports are lazy (PEP 562): importing this package loads neither torch
nor scipy.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "estimators": ("Estimate", "mc_estimate", "mfmc_estimate"),
    "allocation": ("PilotStatistics", "pilot_statistics", "optimal_ratio", "Allocation",
                   "allocate_for_rse", "allocate_for_budget"),
    "quantities": ("Quantity", "QuantityPoints", "function_quantity", "parse_quantities",
                   "quantity_points"),
    "models": ("SurrogateQuantities", "FemQuantities", "ExactQuantities", "fem_quantities",
               "default_domain", "one_off_seconds"),
    "distributions": ("InputDistribution", "input_distribution", "run_distribution"),
    "mfmc": ("MfmcSettings", "UqResult", "estimate_mean"),
    "sobol": ("sobol_indices", "sobol_comparison"),
    "field_output": ("write_field_series",),
    "options": ("UqOptions", "ServeOptions"),
    "study": ("run_uq", "study_models"),
    "server": ("serve", "umbridge_model"),
})
