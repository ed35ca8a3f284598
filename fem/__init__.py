"""Finite elements: domains, meshes, H(curl) Maxwell solves (fem.hcurl), point evaluation.

The names below are loaded on first use (``surrogate.fem.get_domain`` imports
``surrogate.fem.domains`` then), so ``import surrogate.fem`` stays cheap.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "domains": ("Domain", "DOMAINS", "domain_names", "get_domain"),
    "problems": ("Problem", "MaxwellBessel", "problem_names", "get_problem"),
    "hcurl.skfem.n0": ("NedelecSolution", "best_approximation", "solve_maxwell", "edge_interpolant",
                       "l2_error", "curl_l2_error", "hcurl_errors"),
    "hcurl.skfem.complete_linear.element": ("ElementTetCompleteLinear",
                                            "complete_linear_interpolant", "p2_gradient"),
    "hcurl.skfem.complete_linear.solve": ("best_approximation_complete_linear",
                                          "solve_maxwell_complete_linear"),
    "hcurl.skfem.complete_linear.evaluate": ("evaluate_complete_linear",
                                             "evaluate_complete_linear_curl"),
    "hcurl.skfem.solution": ("SkfemSolution",),
    "hcurl.registry": ("FEM_ORDERS", "FEM_BACKENDS", "Backend", "FemMethod", "backend_names",
                       "register_backend", "fem_method", "fem_methods", "fem_approximation",
                       "fem_hcurl_errors", "installed_backends"),
    "convergence": ("convergence_study", "observed_rate"),
    "mesh_quality": ("check_mesh",),
    "point_evaluation": ("PointLocator", "point_locator", "locate_points", "evaluate_n0",
                         "evaluate_n0_curl", "sample_in_mesh"),
    "quadrature": ("quadrature_rule", "l2_norm"),
    "hcurl.solvers": ("SolveInfo", "solve_hcurl_spd", "solve_maxwell_saddle"),
    "vtk": ("write_vtu", "write_pvd", "read_pvd"),
    "time_domain": ("Material", "CavityOperators", "cavity_operators", "dipole_load",
                    "NewmarkStepper", "newmark_run", "discrete_energy", "impulse_response",
                    "convolve_response", "step_loads"),
    "nonlinear_newmark": ("NonlinearNewmarkStepper", "NewtonStep", "NonlinearRun",
                          "nonlinear_run"),
    "nonlinear_schur_newmark": ("SchurNewmarkStepper",),
    "probes": ("probe_points", "n0_evaluation_matrix", "n0_cell_centre_matrix",
               "n0_node_matrix"),
})
