"""The relative L² difference of two solutions, at the quadrature points of the finer one.

‖u_c − u_f‖ / ‖u_f‖ over the fine solution's (curved) mesh Ω_f, by NGSolve's integration rule
of degree 2o (o = min(order_f + 1, 5), the data's rule of the fine solve) in every element:
u_f at those points through their element (no search), u_c through its own point location
(``values_at(points, outside="extrapolate")``: a fitted or an unfitted solution), the
weights w_i |det J(x_i)| by integrating the rule's point functionals (an
``IntegrationRuleSpace`` test function) over Ω_f, so curved elements carry their true volume.
"""

from __future__ import annotations

import numpy as np


def rule_points(solution, rule_order: int | None = None) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """(mesh points, physical points (M, 3), weights (M,)) of the rule of order
    ``rule_order`` (default: min(order + 1, 5)) on a fitted solution's mesh."""
    import ngsolve

    from surrogate.fem.hcurl.ngsolve.mesh_setup import (
        MAX_RULE_ORDER,
        reference_mesh_points,
        volume_rule_order,
    )

    ngmesh = solution.mesh.ngmesh
    o = volume_rule_order(solution.order) if rule_order is None \
        else min(int(rule_order), MAX_RULE_ORDER)
    space = ngsolve.comp.IntegrationRuleSpace(ngmesh, order=o, dim=1)
    rules = space.GetIntegrationRules()
    weights = ngsolve.LinearForm(space.TestFunction() * ngsolve.dx(intrules=rules)).Assemble()
    reference = np.asarray(rules[ngsolve.TET].points, dtype=np.float64)
    mips = reference_mesh_points(ngmesh, reference, 0)
    xyz = np.asarray(ngsolve.CF((ngsolve.x, ngsolve.y, ngsolve.z))(mips)).reshape(-1, 3)
    return mips, xyz, weights.vec.FV().NumPy().copy()


def relative_l2_difference(coarse, fine, rule_order: int | None = None) -> float:
    """‖u_c − u_f‖ / ‖u_f‖ in L²(Ω_f) (module docstring); ``fine`` a fitted solution."""
    mips, xyz, weights = rule_points(fine, rule_order)
    u_f = np.asarray(fine.field_u(mips)).reshape(-1, 3)
    diff = coarse.values_at(xyz, outside="extrapolate") - u_f
    norm = float(np.sqrt(weights @ np.einsum("ij,ij->i", u_f, u_f)))
    return float(np.sqrt(weights @ np.einsum("ij,ij->i", diff, diff))) / norm


__all__ = ["relative_l2_difference", "rule_points"]
