"""The fitted candidates in what a family evaluation shows: a row per order and maxh in the
error table (terminal and HTML), a dotted curve through maxh in the Pareto data and figure,
beside the level rows and the surrogates; the --fem-max-dofs limit applies to them. Built from
hand-made per-problem records (the measurement itself: tests/evaluation/family/test_measure.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from surrogate.evaluation.family.fitted import fitted_dofs, fitted_fem
from surrogate.evaluation.family.summary import error_table, fitted_rows, pareto_points


def _fitted(order: int, maxh: float, error: float, seconds: float, ndofs: int) -> dict:
    return {"relative_error": error, "seconds": seconds, "mesh_seconds": 0.2 * seconds,
            "ndofs": ndofs, "backend": "ngsolve", "order": order, "maxh": maxh}


def _problem(k: int) -> dict:
    """Problem k: one level (N0 on level 1), two fitted candidates, one surrogate."""
    level = {"level": 1, "h": 0.5, "runs": {"params": {"relative_error": 0.01 * (k + 1)}},
             "fem": {"solve": {"skfem:0": {"relative_error": 0.6, "seconds": 0.01,
                                           "ndofs": 248}}}}
    fitted = {"ngsolve:3@0.5": _fitted(3, 0.5, 0.003 * (k + 1), 4.0 + k, 20_000 + 1000 * k),
              "ngsolve:2@0.35": _fitted(2, 0.35, 0.016, 1.5, 9_000)}
    if k == 2:  # its order-3 solve failed there: the row counts the others
        del fitted["ngsolve:3@0.5"]
    return {"domains": {"cylinder": {"levels": [level], "fitted": fitted,
                                     "surrogate_seconds": {"params": {"field": 1e-3,
                                                                      "probes": 5e-4}}}}}


PROBLEMS = [_problem(k) for k in range(3)]


def test_fitted_candidates_get_rows_beside_the_levels():
    rows = error_table(PROBLEMS, "cylinder", ["params"])
    assert [r["source"] for r in rows] == [
        "N0 mixed solve L1", "ngsolve: complete cubic mixed solve, fitted maxh 0.5",
        "ngsolve: complete quadratic mixed solve, fitted maxh 0.35", "params"]
    cubic = rows[1]
    assert cubic["kind"] == "fem" and cubic["level"] is None and cubic["maxh"] == 0.5
    assert cubic["mesh"] == "fitted maxh 0.5" and cubic["order"] == 3
    assert cubic["ndofs"] == 20_500  # median over the two problems it ran on
    assert cubic["seconds"]["median"] == pytest.approx(4.5)
    assert cubic["mesh_seconds"]["median"] == pytest.approx(0.9)
    assert cubic["errors"]["relative_error"]["median"] == pytest.approx(0.0045)
    assert cubic["errors"]["relative_error"]["count"] == 2
    assert fitted_rows([{"domains": {"cube": {"levels": []}}}], "cube") == []


def test_fitted_candidates_in_the_pareto_data_tables_and_figure(tmp_path):
    from surrogate.evaluation.family.plots import pareto_figure
    from surrogate.evaluation.family.report import distribution_rows
    from surrogate.evaluation.family.tables import error_table as terminal_table

    rows = error_table(PROBLEMS, "cylinder", ["params"])
    pareto = pareto_points(PROBLEMS, "cylinder", rows, ["params"])
    fitted = [p for p in pareto["fem"] if p.get("mesh")]
    assert [(p["order"], p["maxh"], p["level"]) for p in fitted] == [(3, 0.5, None),
                                                                     (2, 0.35, None)]
    assert pareto["surrogates"][0]["error"] == pytest.approx(0.02)
    summary = {"error_table": {"cylinder": rows}, "options": {"levels": [1]}}
    names = [r[0] for r in terminal_table(summary, "cylinder").rows]
    assert names == ["sk0 solve L1", "ng3 solve fitted maxh 0.5",
                     "ng2 solve fitted maxh 0.35", "params (NN, L1 mesh)"]
    _, html_rows = distribution_rows(rows, 1)
    assert html_rows[1][0][0] == "ngsolve: complete cubic mixed solve, fitted maxh 0.5"
    pytest.importorskip("matplotlib")
    path = pareto_figure(pareto, "cylinder", "inclusion", tmp_path / "p.png")
    assert path.stat().st_size > 1000


def test_fem_max_dofs_applies_to_the_fitted_candidates():
    """Counted on the member's own mesh before any solve: over the limit, no solve and a
    note; the count is NGSolve's (tests/evaluation/family/test_measure.py compares it)."""
    pytest.importorskip("ngsolve")
    from surrogate.fem.families import get_family

    problem = get_family("inclusion").problem(np.array([0.1, 0.2, 0.5, 0.25, 4.0, 0, 0, 0.5]))
    dofs = fitted_dofs(problem, 0.6, (1, 2, 3))
    assert 0 < dofs[1] < dofs[2] < dofs[3]
    options = SimpleNamespace(fem_fitted_maxh=(0.6,), fem_orders=(2, 3),
                              fem_max_dofs=dofs[1] - 1, solver="auto", repeats=1, intorder=2)
    skipped: set[str] = set()
    rules = SimpleNamespace(problem=problem)  # never asked for a rule: nothing is solved
    assert fitted_fem(rules, options, skipped) == {}
    assert skipped == {f"ngsolve order {k}, fitted maxh 0.6: more H(curl) DOFs than "
                       f"--fem-max-dofs {dofs[1] - 1} on some problems" for k in (2, 3)}
