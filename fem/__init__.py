"""Finite elements: domains, meshes, H(curl) Maxwell solves (fem.hcurl), point evaluation.

The names below are loaded on first use (``surrogate.fem.get_domain`` imports
``surrogate.fem.domains`` then), so ``import surrogate.fem`` stays cheap.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "domains": ("Domain", "DOMAINS", "domain_names", "get_domain"),
    "problems": ("Problem", "MaxwellBessel", "problem_names", "get_problem"),
    "hcurl.n0": ("NedelecSolution", "best_approximation", "solve_maxwell", "edge_interpolant",
                 "l2_error", "curl_l2_error", "hcurl_errors"),
    "hcurl.complete_linear_element": ("ElementTetN2", "edge_interpolant2", "p2_gradient"),
    "hcurl.complete_linear": ("Nedelec2Solution", "best_approximation2", "solve_maxwell2"),
    "hcurl.complete_linear_eval": ("evaluate_n2", "evaluate_n2_curl"),
    "hcurl.skfem_solution": ("SkfemSolution",),
    "hcurl.registry": ("FEM_ORDERS", "FEM_BACKENDS", "FemMethod", "fem_method", "fem_methods",
                       "fem_approximation", "fem_hcurl_errors", "installed_backends"),
    "convergence": ("convergence_study", "observed_rate"),
    "mesh_quality": ("check_mesh",),
    "point_evaluation": ("PointLocator", "point_locator", "locate_points", "evaluate_n0",
                         "evaluate_n0_curl"),
    "quadrature": ("quadrature_rule", "l2_norm"),
    "hcurl.solvers": ("SolveInfo", "solve_hcurl_spd", "solve_maxwell_saddle"),
    "vtk": ("write_vtu", "write_pvd", "read_pvd"),
    "time_domain": ("Material", "CavityOperators", "cavity_operators", "dipole_load",
                    "NewmarkStepper", "newmark_run", "discrete_energy", "impulse_response",
                    "convolve_response", "step_loads"),
    "probes": ("probe_points", "n0_evaluation_matrix", "n0_cell_centre_matrix",
               "n0_node_matrix"),
})
