"""Time-domain H(curl) operators of every order for the PEC cavity stepper of ``time_domain``.

``ngsolve_operators`` (NGSolve's HCurl of orders 0–6 on the toolkit's mesh: M, K, the dipole
load, the probe matrix as scipy arrays) and ``cavity`` (:func:`cavity_system`: one entry point
by (backend, order), skfem N0 kept as order 0; the impulse response on a finer time step
observed on the recipe's grid, and its Richardson extrapolation in Δt) and
``nonlinear_conduction`` (the varistor conductivity σ(|E|) of the nonlinear cavity: its form
N(e) and Jacobian N'(e) on either backend's space) and ``region_conduction`` (the same medium
confined to a region of cells: N, N' on the region's DOFs for the Schur-complement stepper).
Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "ngsolve_operators": ("HCurlCavityOperators", "hcurl_cavity_operators",
                          "hcurl_cavity_system", "hcurl_dipole_load",
                          "hcurl_observation_matrix", "load_intorder"),
    "cavity": ("CavitySystem", "cavity_system", "n0_cavity_system", "fine_step_loads",
               "convolve_subsampled", "convolve_subsampled_batch", "richardson_in_time"),
    "nonlinear_conduction": ("VaristorConductivity", "conduction_operator", "NGSolveConduction",
                             "N0Conduction"),
    "region_conduction": ("RegionConduction", "box_cells", "tet_rule", "conical_tet_rule"),
})
