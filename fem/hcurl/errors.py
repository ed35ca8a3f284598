"""L² errors of an H(curl) solution of any backend and order, by the toolkit's own quadrature.

‖u − u_h‖_{L²(Ω_h)} and ‖curl u − curl u_h‖_{L²(Ω_h)} by a global degree-``intorder`` rule
(:func:`~surrogate.fem.quadrature.quadrature_rule`); the solution supplies (u_h, curl u_h) at
the rule's points, block by block of elements (``solution.fields_at_quadrature(intorder)``),
so every backend is judged by the same points and weights against the same exact field.
"""

from __future__ import annotations

import numpy as np

from surrogate.fem.quadrature import l2_norm, quadrature_rule

MAX_INTORDER = 9  # the highest-degree tetrahedron rule of scikit-fem


def error_intorder(order: int) -> int:
    """Degree of the error rule for a space of ``order``: 2·order + 4 (capped at 9), so that
    its own error stays far below the discretisation error O(h^{order+1})."""
    return min(2 * int(order) + 4, MAX_INTORDER)


def hcurl_errors(solution, exact, exact_curl, *, intorder: int | None = None
                 ) -> tuple[float, float]:
    """(‖u − u_h‖, ‖curl u − curl u_h‖) in L²(Ω_h) in one pass; a None callable gives NaN."""
    intorder = error_intorder(solution.order) if intorder is None else int(intorder)
    points, weights = quadrature_rule(solution.mesh, intorder)
    sums, start = np.zeros(2), 0
    for value, curl_value in solution.fields_at_quadrature(intorder):
        stop = start + len(value)
        x, w = points[start:stop], weights[start:stop]
        for k, (fn, approx) in enumerate(((exact, value), (exact_curl, curl_value))):
            if fn is not None:
                diff = np.asarray(fn(x)) - approx
                sums[k] += float(np.dot(w, np.einsum("ij,ij->i", diff, diff)))
        start = stop
    return (float(np.sqrt(sums[0])) if exact is not None else float("nan"),
            float(np.sqrt(sums[1])) if exact_curl is not None else float("nan"))


def field_l2_norm(mesh, fn, *, intorder: int = 6) -> float:
    """‖fn‖_{L²(Ω_h)} by a global rule (the denominator of relative errors)."""
    points, weights = quadrature_rule(mesh, intorder)
    return l2_norm(np.asarray(fn(points)), weights)


__all__ = ["MAX_INTORDER", "error_intorder", "hcurl_errors", "field_l2_norm"]
