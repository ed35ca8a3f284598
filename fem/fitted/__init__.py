"""Meshes fitted to a family member's geometry, and the mixed solve on them (NGSolve).

:mod:`.geometry`: the cylinder with an ``inclusion`` member's ball glued in as an internal
interface (netgen's OCC kernel), meshed and curved to the geometry per member;
:mod:`.solve`: the mixed solve (eq. 7.1, the ngsolve backend's form) on such a mesh with φ
exact per material; :mod:`.difference`: the relative L² difference of two fitted solutions.
Nothing here imports NGSolve at import time. Names load on first use (PEP 562).
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "geometry": ("FittedMesh", "fitted_mesh", "material_volumes"),
    "solve": ("FittedSolution", "fitted_solve", "fitted_truth", "material_phi"),
    "difference": ("relative_l2_difference",),
})
