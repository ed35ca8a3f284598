"""Evaluation numerics: quadrature errors, in/out split, shared FEM baseline, references, VTK."""

from pathlib import Path

import meshio
import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.evaluation.static import measure as ev
from surrogate.evaluation.static.measure import evaluate_runs
from surrogate.evaluation.static.options import EvaluationOptions, parse_slice
from surrogate.evaluation.static.records import TIMING_REPEATS, equal_error_summary
from surrogate.evaluation.static.runs import (
    check_runs_match_problem,
    resolve_fem_method,
    resolve_problem_name,
    run_labels,
)
from surrogate.evaluation.static.slices import slice_fields
from surrogate.fem.domains import get_domain
from surrogate.fem.problems import get_problem
from surrogate.fem.quadrature import quadrature_rule
from surrogate.fem.vtk import read_pvd

MAXWELL = get_problem("maxwell")


class OffsetRun:
    """Stand-in for a loaded run whose surrogate is u(x) + c (x = the first three inputs)."""

    def __init__(self, path, offset, domain="cylinder", problem=MAXWELL, input_names=None):
        self.path = Path(path)
        self.offset = np.asarray(offset, dtype=float)
        self.problem = problem
        self.dataset = {"problem": problem.name, "domain": domain,
                        "input_names": list(input_names or problem.in_names),
                        "target_names": list(problem.out_names)}
        self.history = [{"epoch": k, "train_loss": 1.0 / (k + 1)} for k in range(3)]

    def predict(self, inputs, batch_size=65536):
        return MAXWELL.u(np.asarray(inputs)[:, :3]) + self.offset


class NoExact:
    """The Maxwell problem presented as one without an exact solution."""

    name, has_exact = "maxwell", False
    in_names, out_names = MAXWELL.in_names, MAXWELL.out_names

    def __getattr__(self, item):
        return getattr(MAXWELL, item)


def _only(records, **match):
    return [r for r in records if all(r[k] == v for k, v in match.items())]


def test_surrogate_equal_to_the_exact_field_has_zero_error():
    result = evaluate_runs([OffsetRun("runs/exact", [0, 0, 0])], MAXWELL,
                           EvaluationOptions(domains=("cube",), levels=(1,), fem="none"))
    rec = result.records[0]["runs"]["exact"]
    assert rec["l2_error"] == 0.0 and rec["inside"]["l2_error"] == 0.0
    assert rec["outside"]["l2_error"] == 0.0
    assert result.records[0]["fem"] is None


@pytest.mark.parametrize("domain", ["cube", "ball"])
def test_constant_offset_gives_abs_c_times_sqrt_volume(domain):
    c = np.array([0.03, -0.04, 0.0])  # |c| = 0.05
    result = evaluate_runs([OffsetRun("runs/off", c)], MAXWELL,
                           EvaluationOptions(domains=(domain,), levels=(1, 2), fem="none"))
    for record in result.records:
        rec = record["runs"]["off"]
        volume = record["volume"]  # Σ quadrature weights = volume of the mesh
        assert rec["l2_error"] == pytest.approx(0.05 * np.sqrt(volume), rel=1e-12)
        inside = record["inside_fraction"]["cylinder"] * volume
        assert rec["inside"]["l2_error"] == pytest.approx(0.05 * np.sqrt(inside), rel=1e-12)
        assert rec["outside"]["l2_error"] == pytest.approx(0.05 * np.sqrt(volume - inside),
                                                           rel=1e-12)
    if domain == "cube":
        assert result.records[0]["volume"] == pytest.approx(1.0, rel=1e-13)
        # the quarter disc x1, x2 >= 0 of the unit disc covers π/4 of the cube
        assert result.records[-1]["inside_fraction"]["cylinder"] == pytest.approx(
            np.pi / 4, abs=0.02)


def test_relative_error_divides_by_the_norm_of_u_on_the_same_region():
    result = evaluate_runs([OffsetRun("runs/off", [0.1, 0, 0])], MAXWELL,
                           EvaluationOptions(domains=("cube",), levels=(2,), fem="none"))
    points, weights = quadrature_rule(get_domain("cube").mesh(2), 4)
    inside = get_domain("cylinder").contains(points)
    u = MAXWELL.u(points)
    rec = result.records[0]["runs"]["off"]
    norm = np.sqrt(weights @ (u * u).sum(1))
    norm_in = np.sqrt(weights[inside] @ (u[inside] ** 2).sum(1))
    assert rec["relative_error"] == pytest.approx(rec["l2_error"] / norm, rel=1e-12)
    assert rec["inside"]["relative_error"] == pytest.approx(rec["inside"]["l2_error"] / norm_in,
                                                            rel=1e-12)


def test_fem_baseline_is_computed_once_per_level_and_shared_by_runs(monkeypatch):
    calls = []
    real = ev.fem_baseline

    def counting(mesh, problem, method, solver, fem=None):
        calls.append((mesh.t.shape[1], fem.order))
        return real(mesh, problem, method, solver, fem)

    monkeypatch.setattr(ev, "fem_baseline", counting)
    runs = [OffsetRun("runs/a", [0.01, 0, 0]), OffsetRun("runs/b", [0, 0.02, 0]),
            OffsetRun("runs/c", [0, 0, 0.03])]
    result = evaluate_runs(runs, MAXWELL, EvaluationOptions(domains=("cube",), levels=(1, 2),
                                                            fem_backends=("skfem",)))
    # per level and order, not per run: a solve under 0.5 s is timed TIMING_REPEATS times
    # (as the surrogate's field is), and the record keeps the solve of median time
    assert [order for _, order in calls] == [0] * 3 + [1] * 3 + [0] * 3 + [1] * 3
    assert TIMING_REPEATS == 3
    for record in result.records:  # "fem" is the N0 record, "fem_orders" both
        assert [f["order"] for f in record["fem_orders"]] == [0, 1]
        assert record["fem"] is record["fem_orders"][0]
        assert record["fem_orders"][1]["l2_error"] < record["fem"]["l2_error"]
    fem_errors = [r["fem"]["l2_error"] for r in result.records]
    assert fem_errors[1] < fem_errors[0]
    for record in result.records:
        assert record["fem"]["ndofs"] > 0 and record["fem"]["seconds"]["total"] > 0
        for rec in record["runs"].values():
            assert rec["speedup_vs_fem"] == pytest.approx(
                record["fem"]["seconds"]["total"] / rec["seconds"]["field_on_mesh"])
            assert rec["speedup_vs_fem_quadrature"] == pytest.approx(
                record["fem"]["seconds"]["total"] / rec["seconds"]["inference"])


def test_fem_best_approximation_error_converges_at_first_order_on_the_cube():
    result = evaluate_runs([OffsetRun("runs/a", [0, 0, 0])], MAXWELL,
                           EvaluationOptions(domains=("cube",), levels=(2, 3), fem_orders=(0,),
                                             fem_backends=("skfem",)))
    (e2, h2), (e3, h3) = [(r["fem"]["l2_error"], r["h"]) for r in result.records]
    rate = np.log(e2 / e3) / np.log(h2 / h3)
    assert 0.85 < rate < 1.2, rate
    assert all(len(r["fem_orders"]) == 1 for r in result.records)


def test_complete_linear_rows_converge_at_second_order_with_their_solver_facts():
    result = evaluate_runs([OffsetRun("runs/a", [0, 0, 0])], MAXWELL,
                           EvaluationOptions(domains=("cube",), levels=(1, 2), fem="solve",
                                             fem_orders=(1,)))
    rows = [r["fem_orders"][0] for r in result.records]
    assert [f["order"] for f in rows] == [1, 1] and [f["ndofs"] for f in rows] == [196, 1208]
    (e1, h1), (e2, h2) = [(f["l2_error"], r["h"])
                          for f, r in zip(rows, result.records, strict=True)]
    assert np.log(e1 / e2) / np.log(h1 / h2) > 1.9
    assert all(f["solver"]["method"] == "direct-split" and f["seconds"]["total"] > 0
               for f in rows)
    summary = result.to_dict()["fastest_fem_at_equal_error"]["cube"]["a"]
    assert summary["lower_bound"] and summary["fem"]["order"] == 1  # exact run: error 0


def test_without_exact_solution_the_finest_solve_is_the_reference(monkeypatch):
    # stand-in problem without an exact solution; the N0 solve itself still needs boundary
    # data, so the baseline solves the real problem (whose exact u supplies u × n)
    real = ev.fem_baseline
    monkeypatch.setattr(ev, "fem_baseline", lambda mesh, problem, method, solver, fem=None:
                        real(mesh, MAXWELL, method, solver, fem))
    c = np.array([0.05, 0.0, 0.0])
    run = OffsetRun("runs/off", c)
    notes = []
    assert resolve_fem_method(NoExact(), "best", notes) == "solve" and notes
    result = evaluate_runs([run], NoExact(), EvaluationOptions(domains=("cube",),
                                                                 levels=(1, 2, 3)))
    exact = evaluate_runs([run], MAXWELL, EvaluationOptions(domains=("cube",), levels=(1, 2, 3),
                                                            fem="solve", fem_backends=("skfem",),
                                                            fem_orders=(0,)))  # "fem" = N0
    assert result.reference.startswith("fem-solve") and result.notes
    assert any("boundary data" in note for note in result.notes)  # higher orders need exact u
    assert all([f["order"] for f in r["fem_orders"]] == [0] for r in result.records)
    finest = _only(result.records, level=3)[0]
    assert finest["fem"]["is_reference"] and finest["fem"]["l2_error"] is None
    assert finest["reference"] == "fem-solve level 3"
    ref_error = _only(exact.records, level=3)[0]["fem"]["l2_error"]  # ‖u − u_ref‖
    for level in (1, 2):
        got = _only(result.records, level=level)[0]
        want = _only(exact.records, level=level)[0]
        assert got["reference_coverage"] == pytest.approx(1.0)  # nested cube meshes
        # triangle inequality: |‖u_h − u_ref‖ − ‖u_h − u‖| <= ‖u − u_ref‖
        assert abs(got["fem"]["l2_error"] - want["fem"]["l2_error"]) <= ref_error * (1 + 1e-9)
        nn = got["runs"]["off"]["l2_error"]
        assert abs(nn - 0.05) <= ref_error * (1 + 1e-9)


def test_no_exact_solution_and_no_fem_is_an_input_error():
    with pytest.raises(InputError, match="no exact solution"):
        resolve_fem_method(NoExact(), "none", [])


def test_validation_of_problem_and_input_names():
    good = OffsetRun("runs/good", [0, 0, 0])
    assert resolve_problem_name([good]) == "maxwell"
    with pytest.raises(InputError, match="trained on problem 'maxwell', not the requested 'other'"):
        resolve_problem_name([good], "other")
    other = OffsetRun("runs/other", [0, 0, 0])
    other.dataset["problem"] = "heat"
    with pytest.raises(InputError, match="'other' was trained on problem 'heat'"):
        resolve_problem_name([good, other])
    renamed = OffsetRun("runs/renamed", [0, 0, 0],
                        input_names=("x", "y", "z", "f1", "f2", "f3", "phi"))
    with pytest.raises(InputError, match="'renamed' takes inputs"):
        check_runs_match_problem([good, renamed], MAXWELL)
    check_runs_match_problem([good], MAXWELL)


def test_run_labels_are_unique():
    runs = [OffsetRun(p, [0, 0, 0]) for p in ("a/fdnn", "b/fdnn", "resnet")]
    assert run_labels(runs) == ["a/fdnn", "b/fdnn", "resnet"]


def test_parse_slice():
    assert parse_slice("z=0.5") == (2, 0.5)
    assert parse_slice("x1=-1") == (0, -1.0)
    for bad in ("z", "w=1", "z=abc", "z=nan"):
        with pytest.raises(InputError, match="--slice"):
            parse_slice(bad)


def test_options_reject_bad_values():
    with pytest.raises(InputError, match="FEM baseline"):
        EvaluationOptions(fem="exact")
    with pytest.raises(InputError, match="solver"):
        EvaluationOptions(solver="lu")
    with pytest.raises(InputError, match="levels"):
        EvaluationOptions(levels=(-1, 1))
    with pytest.raises(InputError, match="unknown FEM order 7"):
        EvaluationOptions(fem_orders=(0, 7))
    with pytest.raises(InputError, match="no FEM backend of skfem offers the orders 2"):
        EvaluationOptions(fem_orders=(2,), fem_backends=("skfem",))
    with pytest.raises(InputError, match="--fem-max-dofs"):
        EvaluationOptions(fem_max_dofs=0)
    with pytest.raises(InputError, match="at least one FEM order"):
        EvaluationOptions(fem_orders=())


def test_vtk_files_hold_every_field_and_the_pvd_every_level(tmp_path):
    runs = [OffsetRun("runs/a", [0.01, 0, 0]), OffsetRun("runs/b", [0, 0.02, 0])]
    result = evaluate_runs(runs, MAXWELL, EvaluationOptions(domains=("cube",), levels=(1, 2)),
                           vtk_dir=tmp_path)
    assert read_pvd(tmp_path / "cube.pvd") == [(1.0, "cube_level1.vtu"),
                                               (2.0, "cube_level2.vtu")]
    mesh = meshio.read(tmp_path / "cube_level2.vtu")
    fields = {"u_exact", "u_nn", "error_nn", "u_nn_b", "error_nn_b", "u_fem", "error_fem",
              "u_fem1", "error_fem1"}
    assert set(mesh.point_data) == fields and set(mesh.cell_data) == fields
    np.testing.assert_allclose(mesh.point_data["error_nn"], 0.01, rtol=1e-12)
    np.testing.assert_allclose(mesh.point_data["error_nn_b"], 0.02, rtol=1e-12)
    np.testing.assert_allclose(mesh.point_data["u_exact"], MAXWELL.u(mesh.points), atol=0)
    assert mesh.point_data["u_fem"].shape == (len(mesh.points), 3)
    # nodal N0 values approximate u to O(h)
    fem_err = mesh.point_data["error_fem"]
    assert fem_err.max() < 0.2 and fem_err.mean() < 0.05
    # complete linear (linear per cell): at the cell centres far closer to u than N0
    assert mesh.point_data["u_fem1"].shape == (len(mesh.points), 3)
    cell_err = mesh.cell_data["error_fem"][0]
    assert mesh.cell_data["error_fem1"][0].mean() < 0.5 * cell_err.mean()
    assert {"u_fem1", "error_fem1"} <= set(result.vtk["point_data"]) & set(result.vtk["cell_data"])
    assert result.vtk["runs_by_field"] == {"u_nn": "a", "u_nn_b": "b"}


def test_slice_spans_training_and_test_domains_and_holds_the_pointwise_error():
    run = OffsetRun("runs/a", [0.0, 0.03, 0.04])
    sl = slice_fields([run], MAXWELL, EvaluationOptions(domains=("cube",), slice_resolution=41))
    assert sl["s"][0] == -1.0 and sl["s"][-1] == 1.0 and sl["t"][0] == -1.0
    assert sl["error"]["a"].shape == (41, 41)
    np.testing.assert_allclose(sl["error"]["a"], 0.05, rtol=1e-12)
    inside = sl["inside_training"]["a"]
    assert inside[20, 20] and not inside[0, 0]  # centre of the disc in, corner out
    assert sl["inside_test"]["cube"][30, 30] and not sl["inside_test"]["cube"][10, 10]


def _record(level, fem, runs):
    """A hand-made evaluation record: fem = [(order, error, seconds, dofs)], runs = {label:
    (error, seconds)}."""
    return {"domain": "cube", "level": level,
            "fem_orders": [{"order": o, "l2_error": e, "seconds": {"total": t}, "ndofs": n}
                           for o, e, t, n in fem],
            "runs": {k: {"l2_error": e, "seconds": {"field_on_mesh": t}}
                     for k, (e, t) in runs.items()}}


def test_equal_error_names_the_fastest_fem_of_any_order_and_level():
    fem1 = [(1, 3e-2, 0.004, 98), (2, 1e-2, 0.006, 196)]
    fem2 = [(1, 1.5e-2, 0.03, 604), (2, 2.5e-3, 0.02, 1208)]
    runs = {"fast": (1.2e-2, 0.001), "slow": (1.2e-2, 0.5), "exact": (1e-4, 0.001)}
    out = equal_error_summary([_record(1, fem1, runs), _record(2, fem2, runs)], list(runs))
    fast = out["cube"]["fast"]
    # FEMs at error <= 1.2e-2: order 2 level 1 (6 ms) and order 2 level 2 (20 ms)
    assert fast["fem"]["label"] == "skfem order 2, level 1 (196 DOFs)"
    assert fast["fem"]["seconds"] == 0.006 and fast["at_coarsest_level"]
    assert "fastest at the coarsest evaluated mesh: could be faster" in fast["verdict"]
    assert fast["fem"]["dofs"] == 196 and fast["surrogate"]["level"] == 2
    assert fast["speedup"] == pytest.approx(6.0) and "surrogate wins" in fast["verdict"]
    slow = out["cube"]["slow"]
    assert slow["speedup"] < 1 and "the FEM wins" in slow["verdict"]
    assert "skfem order 2, level 1 (196 DOFs)" in slow["verdict"]
    exact = out["cube"]["exact"]  # below every FEM: a lower bound, said so
    assert exact["lower_bound"] and "no evaluated FEM reaches" in exact["verdict"]
    assert exact["fem"]["label"] == "skfem order 2, level 2 (1208 DOFs)"
    assert not exact["at_coarsest_level"]


def test_a_failed_or_too_large_candidate_is_left_out_with_a_note(monkeypatch):
    """A solve that raises SolverError (a singular system on a domain with a cavity) drops
    that candidate on that level, said in a note; so does one above --fem-max-dofs."""
    from surrogate.core.errors import SolverError

    real = ev.fem_baseline

    def failing(mesh, problem, method, solver, fem=None):
        if fem is not None and fem.order == 1 and mesh.t.shape[1] == 48:
            raise SolverError("direct solve did not converge")
        return real(mesh, problem, method, solver, fem)

    monkeypatch.setattr(ev, "fem_baseline", failing)
    result = evaluate_runs([OffsetRun("runs/a", [0.01, 0, 0])], MAXWELL,
                           EvaluationOptions(domains=("cube",), levels=(1, 2),
                                             fem_backends=("skfem",), fem_max_dofs=1000))
    level1, level2 = result.records
    assert [f["order"] for f in level1["fem_orders"]] == [0]  # order 1 failed on level 1
    assert [f["order"] for f in level2["fem_orders"]] == [0]  # 1208 DOFs > 1000
    note = next(n for n in result.notes if n.startswith("FEM candidates left out"))
    assert "skfem order 1 (complete linear) on cube level 1: its solve failed" in note
    assert "on cube level 2: 1208 H(curl) DOFs > --fem-max-dofs 1000" in note
