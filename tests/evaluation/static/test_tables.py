"""The terminal tables of a static evaluation, as data, from a hand-made ``evaluation.json``."""

from __future__ import annotations

from surrogate.evaluation.static.tables import static_tables
from surrogate.evaluation.terminal_tables import Cell, Table


def _record(level: int, h: float, n0: float, order2: float, run: float) -> dict:
    fem = {"order": 0, "method": "best", "l2_error": n0, "seconds": {"total": 0.002 * level}}
    return {
        "domain": "meshes/part.msh", "level": level, "h": h, "n_nodes": 27 * level,
        "n_quadrature": 528 * level, "inside_fraction": {"cylinder": 0.75},
        "fem": fem, "fem_orders": [fem, {"order": 1, "method": "best", "l2_error": order2,
                                         "seconds": {"total": 0.01 * level}}],
        "runs": {"fdnn": {"l2_error": run, "inside": {"relative_error": 0.5 * run},
                          "outside": {"relative_error": 2 * run},
                          "seconds": {"field_on_mesh": 1e-4, "inference": 2e-4},
                          "speedup_vs_fem": 20.0 * level, "speedup_vs_fem_quadrature": None}},
    }


SUMMARY = {
    "kind": "pointwise", "reference": "order-2 solve on level 3", "inference_device": "cpu",
    "runs": {"fdnn": {}}, "notes": ["a note"],
    "records": [_record(1, 0.5, 1e-2, 4e-3, 5e-3), _record(2, 0.25, 5e-3, 1e-3, 6e-3)],
    "fastest_fem_at_equal_error": {"part": {"fdnn": {
        "surrogate": {"error": 6e-3, "seconds": 1e-4, "level": 2},
        "fem": {"label": "order 1, level 1", "seconds": 0.002, "dofs": 98, "error": 1e-2},
        "lower_bound": True, "verdict": "no FEM reaches the run's error"}}},
}


def test_errors_splits_and_timings_one_row_per_source():
    errors, legend, split, inside, timing, fastest, reference, note = static_tables(SUMMARY)
    assert isinstance(errors, Table) and isinstance(timing, Table)
    assert errors.title.endswith("(green: below sk0 best)")
    assert [c.header for c in errors.columns] == ["", "part L1\nh=0.5", "part L2\nh=0.25"]
    assert errors.rows[0] == ("sk0 best", "1.00e-02", "5.00e-03")
    assert errors.rows[1] == ("sk1 best", "4.00e-03", "1.00e-03")
    assert legend == ("FEM: sk0 = skfem order 0 (N0), sk1 = skfem order 1 (complete linear); "
                      "best = best approximation")
    # green where the run is below N0: level 1 (5e-3 < 1e-2), not level 2 (6e-3 > 5e-3)
    assert errors.rows[2] == ("fdnn", Cell("5.00e-03", True), Cell("6.00e-03", False))
    assert split.rows == (("fdnn inside", "2.5e-03", "3.0e-03"),
                          ("fdnn outside", "1.0e-02", "1.2e-02"))
    assert inside == "volume inside the training domain (finest levels): part L2: 75% in cylinder"
    assert [row[0] for row in timing.rows] == ["sk0 best", "sk1 best", "fdnn (nodes)",
                                               "fdnn (quad. pts)"]
    assert "speed-up over sk0 best in brackets" in timing.title
    assert timing.rows[2] == ("fdnn (nodes)", "0.0001 (20×)", "0.0001 (40×)")
    assert timing.rows[3] == ("fdnn (quad. pts)", "0.0002", "0.0002")
    assert fastest == ("part, fdnn: error 6.00e-03 (level 2) in 0.0001 s; most accurate FEM: "
                       "order 1, level 1, 0.002 s (98 DOFs, error 1.00e-02) — no FEM reaches "
                       "the run's error")
    assert reference == "reference: order-2 solve on level 3 (no exact solution)"
    assert note == "note: a note"


def test_a_reference_level_shows_as_reference():
    summary = {**SUMMARY, "records": [_record(1, 0.5, 1e-2, 4e-3, 5e-3)]}
    summary["records"][0]["fem"] = {**summary["records"][0]["fem"], "is_reference": True}
    errors = static_tables(summary)[0]
    assert errors.rows[0] == ("sk0 best", "reference")


def test_another_backends_rows_are_named_and_a_level_above_the_dof_cap_is_blank():
    """One row per (backend, order); an entry without a backend is the own backend's."""
    records = [_record(1, 0.5, 1e-2, 4e-3, 5e-3), _record(2, 0.25, 5e-3, 1e-3, 6e-3)]
    quadratic = {"backend": "ngsolve", "order": 2, "method": "solve", "l2_error": 2e-4,
                 "seconds": {"total": 0.009}}
    records[0]["fem_orders"].append(quadratic)  # level 2: above --fem-max-dofs, not solved
    errors, legend = static_tables({**SUMMARY, "records": records})[:2]
    assert errors.rows[2] == ("ng2 solve", "2.00e-04", "–")
    assert legend.startswith("FEM: sk0 = skfem order 0 (N0), sk1 = skfem order 1 (complete "
                             "linear), ng2 = ngsolve order 2 (complete quadratic); best = best "
                             "approximation, solve = mixed solve")
