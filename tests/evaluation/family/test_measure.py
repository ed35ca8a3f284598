"""Family evaluation: region errors, FEM convergence, break-even terms, bad input.

A stand-in "run" predicts (1 + ε) u of the problem it is told (its rows carry μ), so every
relative L² error it gets must be ε exactly, in every region and on every mesh.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from surrogate.core.equal_error import FemCandidate, fastest_fem
from surrogate.core.errors import InputError
from surrogate.evaluation.family.economics import (
    break_even,
    break_even_table,
    median_counting_never,
    median_index,
    problem_break_even,
)
from surrogate.evaluation.family.fem import interface_distance
from surrogate.evaluation.family.fitted import fitted_dofs
from surrogate.evaluation.family.measure import evaluate_family_runs, family_of_runs
from surrogate.evaluation.family.options import FamilyEvaluationOptions
from surrogate.fem.families import get_family
from surrogate.models.normalisation import Normalisation


class ScaledExactNet(torch.nn.Module):
    """The stand-in's network on rows (x, μ) of one problem: (1 + eps) u_μ(x), no weights."""

    def __init__(self, family, eps: float):
        super().__init__()
        self.family, self.eps = family, eps
        self.register_buffer("scale", torch.tensor(1.0 + eps, dtype=torch.float64))

    def forward(self, rows):
        if self.eps == -1.0:
            return rows.new_zeros(len(rows), 3)
        values = rows.detach().cpu().double().numpy()
        u = self.family.problem(values[0, 3:]).u(values[:, :3])
        return torch.as_tensor(u, dtype=rows.dtype, device=rows.device) * self.scale.to(rows)


class ScaledExact:
    """A params-input stand-in run: u_NN = (1 + eps) u_μ (μ read from the rows); its model
    sees the rows unscaled (identity normalisation), so the predictor can time it."""

    def __init__(self, family, eps: float):
        self.family, self.eps, self.path = family, eps, f"scaled-{eps}"
        self.model = ScaledExactNet(family, eps)
        columns = 3 + len(family.param_names)
        self.normalisation = Normalisation(np.zeros(columns), np.ones(columns), np.zeros(3),
                                           np.ones(3))
        self.model_config = SimpleNamespace(inputs="params", arch="exact")
        self.dataset = {"family": family.name, "recipe": {"seed": 3},
                        "param_box": family.box.tolist(), "generation_seconds": 10.0}
        self.metrics = {"train_seconds": 20.0}

    def predict(self, rows, batch_size=None):
        return (1 + self.eps) * self.family.problem(rows[0, 3:]).u(rows[:, :3])


@pytest.fixture(scope="module")
def radial_summary():
    family = get_family("radial")
    runs = [ScaledExact(family, 0.01), ScaledExact(family, 0.3)]
    options = FamilyEvaluationOptions(problems=3, levels=(1, 2), repeats=1, probes=10,
                                      fem_backends=("skfem",), query_batch=7)
    evaluation = evaluate_family_runs(runs, family, options, labels=["tight", "loose"])
    return evaluation.to_dict()


def test_scaled_exact_run_has_relative_error_eps_everywhere(radial_summary):
    assert radial_summary["options"]["fem_fitted_maxh"] == []  # no fitted geometry
    assert all("fitted" not in p["domains"]["cube"] for p in radial_summary["problems"])
    rows = [r for r in radial_summary["error_table"]["cube"] if r["kind"] == "surrogate"]
    assert len(rows) == 4  # two runs x two levels
    for row in rows:
        eps = 0.01 if row["source"] == "tight" else 0.3
        for region in ("relative_error", "inside", "outside"):
            stats = row["errors"][region]
            assert stats["median"] == pytest.approx(eps, rel=1e-9)
            assert stats["p90"] == pytest.approx(eps, rel=1e-9)


def test_fem_errors_fall_with_the_level_and_complete_linear_beats_n0(radial_summary):
    table = {(r["method"], r["order"], r["level"]): r["errors"]["relative_error"]["median"]
             for r in radial_summary["error_table"]["cube"] if r["kind"] == "fem"}
    for method in ("best", "solve"):
        for order in (0, 1):
            assert table[(method, order, 2)] < 0.75 * table[(method, order, 1)]
        assert table[(method, 1, 2)] < table[(method, 0, 2)]
    assert table[("best", 0, 2)] <= table[("solve", 0, 2)] * 1.5


def test_break_even_terms_are_consistent(radial_summary):
    for label in ("tight", "loose"):
        table = radial_summary["break_even_queries"][label]["cube"]
        assert table["one_off_seconds"] == {"generation": 10.0, "training": 20.0, "total": 30.0}
        for kind in ("field", "probes", "batch"):
            query = table["queries"][kind]
            assert len(query["per_problem"]) == 3
            for entry in query["per_problem"]:
                if entry["n_star"] is not None:
                    assert entry["n_star"] == pytest.approx(
                        30.0 / (entry["fem_seconds"] - entry["surrogate_seconds"]))
                if not entry["fem_lower_bound"]:
                    assert entry["fem"]["error"] <= entry["surrogate_error"]
            assert query["median_problem"]["text"]
    # 1 % is below every N0/complete-linear level-1..2 mixed solve on the cube: a lower bound
    tight = radial_summary["break_even_queries"]["tight"]["cube"]["queries"]["field"]
    assert all(e["fem_lower_bound"] for e in tight["per_problem"])


def test_three_query_patterns_are_timed_through_the_predictor(radial_summary):
    """Whole field and probes per problem, and a batch of query_batch problems in one call
    (time per problem); the batch's FEM per query is the same as the field's."""
    batch = radial_summary["batch"]
    assert batch["problems"] == 7
    for label in ("tight", "loose"):
        per_problem = batch["seconds"]["cube"][label]
        assert per_problem > 0 and batch["setup_seconds"]["cube"][label] > 0
        queries = radial_summary["break_even_queries"][label]["cube"]["queries"]
        assert set(queries) == {"field", "probes", "batch"}
        assert queries["batch"]["surrogate_seconds"]["median"] == per_problem
        assert [e["fem_seconds"] for e in queries["batch"]["per_problem"]] == \
            [e["fem_seconds"] for e in queries["field"]["per_problem"]]
        seconds = radial_summary["problems"][0]["domains"]["cube"]["surrogate_seconds"][label]
        assert set(seconds) == {"field", "probes"} and min(seconds.values()) > 0
        point = next(r for r in radial_summary["pareto"]["cube"]["surrogates"]
                     if r["label"] == label)
        assert point["batch_seconds"] == per_problem


def test_break_even_formula_and_verdicts():
    assert break_even(100.0, 1.0, 0.5) == pytest.approx(200.0)
    assert break_even(100.0, 0.5, 0.5) is None and break_even(100.0, None, 0.1) is None
    cands = [FemCandidate(1, 1, 0.2, 0.01), FemCandidate(1, 2, 0.05, 0.1),
             FemCandidate(2, 1, 0.04, 0.05)]
    entry = problem_break_even(fastest_fem(cands, 0.06), 0.06, 0.001, 10.0)
    assert (entry["fem"]["order"], entry["fem"]["level"]) == (2, 1)  # fastest at equal error
    assert entry["n_star"] == pytest.approx(10.0 / 0.049)
    assert not entry["fem_lower_bound"]
    bound = problem_break_even(fastest_fem(cands, 0.001), 0.001, 0.001, 10.0)
    assert bound["fem_lower_bound"] and bound["n_star_upper_bound"]
    assert bound["fem"]["error"] == 0.04  # the most accurate one
    slow = problem_break_even(fastest_fem(cands, 0.3), 0.3, 1.0, 10.0)
    assert slow["n_star"] is None and "never" in break_even_table(
        [cands], [0.3], {"field": [1.0]}, 4.0, 6.0)["queries"]["field"]["median_problem"]["text"]
    assert median_index([0.3, 0.1, 0.2, 0.4]) == 2
    assert median_counting_never([300.0, None, 100.0]) == 300.0  # never counts as +∞
    assert median_counting_never([300.0, None, None]) is None and median_counting_never([]) is None
    table = break_even_table([cands, cands, cands], [0.06, 0.3, 0.06],
                             {"field": [0.001, 1.0, 0.002]}, 4.0, 6.0)["queries"]["field"]
    assert table["problems_never_break_even"] == 1 and table["n_star"]["count"] == 2
    assert table["n_star_median_all"] == pytest.approx(10.0 / 0.048)  # of 204, ∞, 208


def test_interface_distance_of_a_sphere():
    problem = SimpleNamespace(centre=np.array([0.1, 0.0, 0.5]), radius=0.2)
    points = np.array([[0.1, 0.0, 0.5], [0.4, 0.0, 0.5], [0.1, 0.2, 0.5]])
    np.testing.assert_allclose(interface_distance(problem, points), [0.2, 0.1, 0.0], atol=1e-15)
    assert interface_distance(SimpleNamespace(), points) is None


def test_runs_must_share_one_family():
    assert family_of_runs([{"kind": "pointwise"}]) is None
    assert family_of_runs([{"family": "radial"}, {"family": "radial"}]) == "radial"
    with pytest.raises(InputError, match="different families"):
        family_of_runs([{"family": "radial"}, {"family": "inclusion"}])
    with pytest.raises(InputError, match="single problem"):
        family_of_runs([{"family": "radial"}, {}])


def test_run_facts_count_the_training_problems():
    from surrogate.evaluation.family.measure import run_facts

    dataset = {"problems": 320, "n_samples": 640_000,
               "splits": {"train": 512_000, "val": 64_000, "test": 64_000}}
    run = SimpleNamespace(path="r", model_config=None, metrics={"train_seconds": 2.0},
                          dataset=dataset)
    facts = run_facts(run)
    assert facts["problems"] == 320 and facts["training_problems"] == 256
    assert run_facts(SimpleNamespace(path="r", model_config=None, metrics={},
                                     dataset={"problems": 5}))["training_problems"] is None


def test_options_refuse_bad_values():
    with pytest.raises(InputError, match="--problems"):
        FamilyEvaluationOptions(problems=0)
    inclusion = get_family("inclusion")
    with pytest.raises(InputError, match="training domain"):
        FamilyEvaluationOptions(domains=("cube",)).resolved(inclusion)
    with pytest.raises(InputError, match="--truth-level applies to FEM-truth families"):
        FamilyEvaluationOptions(truth_level=4).resolved(get_family("radial"))
    with pytest.raises(InputError, match="--truth-level must be >= 1"):
        FamilyEvaluationOptions(truth_level=0)
    resolved = FamilyEvaluationOptions().resolved(inclusion)
    assert resolved.domains == ("cylinder",) and resolved.levels == (1, 2, 3)
    radial = get_family("radial")  # the cube's level 0 (6 tets) is a FEM candidate by default
    assert FamilyEvaluationOptions().resolved(radial).levels == (0, 1, 2, 3, 4)
    assert FamilyEvaluationOptions(domains=("cube", "ball")).resolved(radial).levels == (
        1, 2, 3, 4)
    with pytest.raises(InputError, match="levels must be >= 0"):
        FamilyEvaluationOptions(levels=(-1, 1))
    assert FamilyEvaluationOptions(extrapolate=True).widen == 0.25


class ZeroRun(ScaledExact):
    """A stand-in run of a FEM-truth family that predicts u = 0 (relative error 1 exactly)."""

    def __init__(self, family, **dataset):
        super().__init__(family, 0.0)
        self.dataset.update(dataset)
        self.model = ScaledExactNet(family, -1.0)  # scale 0: u_NN = 0 (u itself not called)

    def predict(self, rows, batch_size=None):
        return np.zeros((len(rows), 3))


def test_truth_choice_follows_the_recorded_order_and_level():
    from surrogate.evaluation.family.measure import higher_order_levels, truth_choice
    from surrogate.fem.families.truth import TruthSpec as Level  # (order, level)

    run = SimpleNamespace
    new = run(dataset={"truth_fem_order": 1, "truth_level": 3})
    assert truth_choice(new, [1, 2, 3]) == Level(1, 3)
    assert truth_choice(new, [1, 2, 3, 4]) == Level(1, 3)  # N0 L4 judged by compl. linear L3
    assert truth_choice(new, [1, 5]) == Level(1, 4)
    legacy = run(dataset={"truth_order": 2, "truth_level": 3})  # runs of the old naming
    assert truth_choice(legacy, [1, 2, 3]) == Level(1, 3)
    old = run(dataset={"truth_level": 4, "recipe": {"truth_level": 4}})  # no order: N0 files
    assert truth_choice(old, [1, 2, 3]) == Level(0, 4) and truth_choice(old, [4]) == Level(0, 5)
    in_recipe = run(dataset={"recipe": {"truth_level": 2, "truth_order": 2}})
    assert truth_choice(in_recipe, [1, 2]) == Level(1, 2)
    assert truth_choice(new, [1, 2, 3], 4) == Level(1, 4)  # --truth-level: a finer judge
    assert truth_choice(new, [1, 2, 3, 4], 2) == Level(1, 3)  # never below what levels need
    stored = run(dataset={"truth_fem_order": 1, "truth_level": 3,  # the reader's legacy fill
                          "recipe": {"truth_mesh": "level", "truth_maxh": None}})
    assert truth_choice(stored, [1, 2, 3]) == Level(1, 3)
    options = FamilyEvaluationOptions()
    assert higher_order_levels([1, 2, 3], options, Level(1, 3)) == [1, 2]
    assert higher_order_levels([1, 2, 3], options, Level(0, 4)) == []
    assert higher_order_levels([1, 2, 3, 4], options, None) == [1, 2, 3]
    assert higher_order_levels([1, 2], FamilyEvaluationOptions(fem_orders=(0,)),
                               Level(1, 3)) == []


def test_inclusion_is_judged_by_its_complete_linear_truth_with_both_orders():
    family = get_family("inclusion")
    run = ZeroRun(family, truth_level=1, truth_fem_order=1)  # judged on level 2: --truth-level
    options = FamilyEvaluationOptions(problems=1, levels=(1,), repeats=1, probes=5,
                                      truth_level=2, fem_backends=("skfem",))
    evaluation = evaluate_family_runs([run], family, options, labels=["zero"])
    assert evaluation.truth == "complete linear mixed solve on level 2 of cylinder"
    assert "u_ref = the complete linear mixed solve on level 2 of cylinder" in evaluation.notes
    [level] = evaluation.problems[0]["domains"]["cylinder"]["levels"]
    solves = level["fem"]["solve"]
    assert set(level["fem"]) == {"solve"} and set(solves) == {"skfem:0", "skfem:1"}
    n0, n2 = (solves[k]["relative_error"] for k in ("skfem:0", "skfem:1"))
    assert n2 < 0.9 * n0 < 0.9
    assert solves["skfem:1"]["ndofs"] == 2 * solves["skfem:0"]["ndofs"]
    assert level["runs"]["zero"]["relative_error"] == pytest.approx(1.0, rel=1e-12)


def test_a_fitted_truth_run_is_judged_by_the_same_fitted_truth(monkeypatch):
    """Data made with the fitted truth (order 1, maxh 0.6 here): the unseen problems'
    reference is that fitted truth, solved once per problem, never the level truth; every
    order is judged on every level; --truth-level is refused."""
    pytest.importorskip("ngsolve")
    from surrogate.evaluation.family.measure import higher_order_levels, truth_choice
    from surrogate.fem.families import truth as truth_module
    from surrogate.fem.families.truth import TruthSpec
    from surrogate.fem.fitted import solve as fitted_module

    recipe = {"seed": 3, "truth_mesh": "fitted", "truth_maxh": 0.6}
    spec = truth_choice(SimpleNamespace(dataset={"truth_fem_order": 1, "recipe": recipe}),
                        [1, 2, 3])
    assert spec == TruthSpec(1, None, "fitted", 0.6) and spec.fitted
    with pytest.raises(InputError, match="--truth-level applies to a level truth"):
        truth_choice(SimpleNamespace(dataset={"truth_fem_order": 1, "recipe": recipe}), [1], 4)
    assert higher_order_levels([1, 2, 3], FamilyEvaluationOptions(), spec) == [1, 2, 3]

    calls, real = [], fitted_module.fitted_truth

    def counted(problem, order, maxh, **kwargs):
        calls.append((order, maxh))
        return real(problem, order, maxh, **kwargs)

    def no_level_truth(*args, **kwargs):
        raise AssertionError("the level truth was solved")

    monkeypatch.setattr(fitted_module, "fitted_truth", counted)
    monkeypatch.setattr(truth_module, "fem_truth", no_level_truth)
    family = get_family("inclusion")
    run = ZeroRun(family, truth_fem_order=1, recipe=recipe)
    options = FamilyEvaluationOptions(problems=2, levels=(1,), repeats=1, probes=5,
                                      fem_backends=("skfem",))
    evaluation = evaluate_family_runs([run], family, options, labels=["zero"])
    assert calls == [(1, 0.6), (1, 0.6)]
    assert evaluation.truth == spec.description("cylinder")
    assert "fitted to the member's interface (maxh 0.6" in evaluation.truth
    assert f"u_ref = the {evaluation.truth}" in evaluation.notes
    for problem in evaluation.problems:
        [level] = problem["domains"]["cylinder"]["levels"]
        assert level["runs"]["zero"]["relative_error"] == pytest.approx(1.0, rel=1e-12)
        assert set(level["fem"]["solve"]) == {"skfem:0", "skfem:1"}  # both orders on level 1


def test_fem_per_method_takes_each_backends_fastest_level_at_each_problems_error():
    from surrogate.evaluation.family.economics import fem_per_method
    from surrogate.evaluation.family.tables import fem_per_method_lines

    # order 0: error 1e-2 / 2^(l-1), order 2 (ngsolve): 1e-3 / 8^(l-1); times 8^(l-1) × base
    cands = ([FemCandidate(0, level, 1e-2 / 2 ** (level - 1), 0.003 * 8 ** (level - 1))
              for level in (1, 2, 3)]
             + [FemCandidate(2, level, 1e-3 / 8 ** (level - 1), 0.011 * 8 ** (level - 1),
                             backend="ngsolve") for level in (1, 2)])
    errors = [6e-3, 3e-3, 2e-4]  # order 0 reaches the first two (levels 2, 3), order 2 all
    methods = fem_per_method([cands] * 3, errors)
    n0, quadratic = methods["skfem order 0"], methods["ngsolve order 2"]
    assert n0["levels"] == [2, 3, None] and n0["reached"] == 2 and n0["problems"] == 3
    assert n0["seconds"]["median"] == pytest.approx((0.024 + 0.192) / 2)
    assert quadratic["levels"] == [1, 1, 2]
    assert quadratic["seconds"]["median"] == pytest.approx(0.011)
    line = fem_per_method_lines("fam", methods)[0]
    assert line.index("ng2 0.011 s (3/3)") < line.index("sk0 0.108 s (2/3)")  # short labels


def test_fitted_candidates_are_timed_with_their_meshing_and_chosen_beside_the_levels():
    """An inclusion run on fitted-truth data (order 2, maxh 0.6) with one fitted candidate
    (order 1, maxh 0.6): its seconds include the meshing, its error is measured against the
    same truth and at the same rule as the level candidates, the equal-error choice sees it."""
    pytest.importorskip("ngsolve")
    family = get_family("inclusion")
    recipe = {"seed": 3, "truth_mesh": "fitted", "truth_maxh": 0.6}
    run = ZeroRun(family, truth_fem_order=2, recipe=recipe)
    options = FamilyEvaluationOptions(problems=1, levels=(1,), repeats=1, probes=5,
                                      fem_backends=("skfem", "ngsolve"), fem_orders=(1,),
                                      fem_fitted_maxh=(0.6,))
    summary = evaluate_family_runs([run], family, options, labels=["zero"]).to_dict()
    assert summary["options"]["fem_fitted_maxh"] == [0.6]
    assert any("fitted candidates" in note and "meshing" in note for note in summary["notes"])
    record = summary["problems"][0]["domains"]["cylinder"]
    [(key, entry)] = record["fitted"].items()
    assert key == "ngsolve:1@0.6" and entry["order"] == 1 and entry["curve_order"] == 2
    # --fem-max-dofs counts a fitted candidate's DOFs before solving it: NGSolve's count
    problem = family.problem(np.asarray(summary["problems"][0]["params"]))
    assert fitted_dofs(problem, 0.6, (1,)) == {1: entry["ndofs"]}
    assert 0 < entry["mesh_seconds"] < entry["seconds"]
    # judged against the order-2 truth on the same mesh: small, but not zero
    assert 1e-4 < entry["relative_error"] < 0.5
    level_errors = record["levels"][0]["fem"]["solve"]
    assert set(level_errors) == {"skfem:1", "ngsolve:1"}
    assert entry["intorder"] == level_errors["ngsolve:1"]["intorder"]
    table = summary["break_even_queries"]["zero"]["cylinder"]
    assert table["fem_per_method"]["ngsolve order 1 fitted"]["levels"] == ["fitted maxh 0.6"]
    # the surrogate's error is 1: every candidate reaches it, the fastest is chosen
    fem = table["queries"]["field"]["median_problem"]["fem"]
    seconds = [e["seconds"] for e in level_errors.values()] + [entry["seconds"]]
    assert fem["seconds"] == pytest.approx(min(seconds))
