"""The models of a study and one whole MFMC study with a FEM of the registry as reference."""

import json

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.families import get_family
from surrogate.uq import (
    ExactQuantities,
    MfmcSettings,
    SurrogateQuantities,
    estimate_mean,
    fem_quantities,
    one_off_seconds,
    parse_quantities,
    run_distribution,
)

pytestmark = pytest.mark.usefixtures("single_torch_thread")
QUANTITIES = parse_quantities(["energy", "probe:0.3,0.2,0.5"])


def test_fem_quantities_are_the_registrys_solve_at_its_error_rule():
    from surrogate.fem.hcurl.registry import fem_hcurl_errors

    family = get_family("radial")
    mu = family.sample(2, 9)
    fem = fem_quantities(family, QUANTITIES, backend="skfem", order=1, level=1,
                         domain="cylinder")
    assert fem.points.intorder == 6  # the error rule of the complete-linear space
    weights = fem.points.weights
    for m in mu:
        problem = family.problem(m)
        u_h, u = fem.one(m), problem.u(fem.points.points)
        diff = (u_h - u)[: len(weights)]
        error = np.sqrt(weights @ np.einsum("ij,ij->i", diff, diff))
        # u_h at the rule's points in their order: the registry's own ‖u − u_h‖
        solution = fem.method.run(fem.points.mesh, problem)
        assert error == pytest.approx(fem_hcurl_errors(solution, problem.u, None)[0], rel=1e-9)
        np.testing.assert_allclose(u_h[len(weights):], solution.values_at(fem.points.probes),
                                   rtol=1e-12)
    exact, values = ExactQuantities(family, fem.points)(mu), fem(mu)
    # a coarse solve (cylinder level 1, ‖u − u_h‖/‖u‖ ≈ 0.16): E_h within (1 ± 0.2)² of E
    assert np.all(np.abs(np.sqrt(values[:, 0] / exact[:, 0]) - 1) < 0.2)


@pytest.mark.parametrize("spec, match", [({"backend": "nosuch"}, "unknown FEM backend"),
                                         ({"order": 7}, "unknown FEM order"),
                                         ({"level": 0, "domain": "cylinder"}, "level 0")])
def test_a_fem_that_does_not_exist_is_a_one_line_error(spec, match):
    with pytest.raises(InputError, match=match):
        fem_quantities(get_family("radial"), QUANTITIES, **spec)


def test_a_fitted_fem_is_each_member_s_own_mesh_read_at_the_points():
    from surrogate.fem.fitted.solve import fitted_truth

    family = get_family("inclusion")
    quantities = parse_quantities(["energy", "probe:0,0.8,0.5"])
    fem = fem_quantities(family, quantities, backend="ngsolve", order=1, level=1, maxh=0.5)
    assert fem.label == "ngsolve order 1 (complete linear), fitted maxh 0.5"
    assert fem.where == "each sample's mesh (points on cylinder level 1)"
    mu = family.sample(2, 5)
    values = fem(mu)
    for m, row in zip(mu, values, strict=True):
        solution = fitted_truth(family.problem(m), 1, 0.5)
        u_h = solution.values_at(fem.points.points, outside="extrapolate")
        np.testing.assert_allclose(fem.points.from_fields(u_h[None])[0], row, rtol=1e-9)
        # the rule's energy of u_h (kinks cut by the unfitted rule) within 1 % of its exact
        # integral on its own curved mesh
        import ngsolve

        exact = ngsolve.Integrate(ngsolve.InnerProduct(solution.field_u, solution.field_u),
                                  solution.mesh.ngmesh, order=4)
        assert row[0] == pytest.approx(exact, rel=0.01)


@pytest.mark.parametrize("spec, match", [
    ({"family": "radial"}, "no fitted geometry"),
    ({"backend": "skfem"}, "solved by ngsolve"),
    ({"domain": "cube"}, "not the cube"),
    ({"maxh": -0.5}, "--fem-maxh"),
])
def test_a_fitted_fem_that_cannot_be_is_a_one_line_error(spec, match):
    spec = {"family": "inclusion", "backend": "ngsolve", "order": 1, "level": 1, "maxh": 0.5,
            **spec}
    with pytest.raises(InputError, match=match):
        fem_quantities(get_family(spec.pop("family")), QUANTITIES, **spec)


def test_a_study_against_the_fem_and_its_record(radial_run):
    family = get_family("radial")
    fem = fem_quantities(family, QUANTITIES, order=0, level=1, domain="cylinder")
    surrogate = SurrogateQuantities.from_run(radial_run, fem.points)
    one_off = one_off_seconds(radial_run)
    assert one_off["training"] > 0 and one_off["total"] >= one_off["training"]
    settings = MfmcSettings(rse=0.05, pilot=8, seed=3, one_off_seconds=one_off["total"])
    result = estimate_mean(fem, surrogate, run_distribution(radial_run).sample, settings,
                           fem.points.names)
    record = json.loads(json.dumps(result.to_dict()))
    assert list(record["quantities"]) == list(fem.points.names)
    energy = record["quantities"]["energy"]
    assert energy["mfmc"]["n_high"] == record["allocation"]["high_samples"] >= 2
    assert record["allocation"]["surrogate_samples"] >= record["allocation"]["high_samples"]
    assert settings.one_off_seconds > 0 and record["seconds"]["one_off"] > 0
    reduction = energy["variance_reduction"]
    assert reduction["with_one_off"] < reduction["without_one_off"]
    assert energy["surrogate_mc"]["note"].startswith("biased")
    low, high = energy["mfmc"]["ci95"]
    assert low < energy["mfmc"]["mean"] < high


def test_a_budget_too_small_for_the_pilot_is_a_one_line_error(radial_run):
    family = get_family("radial")
    exact = ExactQuantities(family, fem_quantities(family, QUANTITIES[:1], level=1).points)
    with pytest.raises(InputError, match="too small for the pilot"):
        estimate_mean(exact, exact, run_distribution(radial_run).sample,
                      MfmcSettings(budget=10.0, pilot=20, costs=(1.0, 0.01)), ("energy",))


def test_the_surrogate_may_integrate_the_energy_by_its_own_cheaper_rule(radial_run):
    from surrogate.uq.options import ModelOptions
    from surrogate.uq.study import study_models

    options = ModelOptions(qoi=("energy", "probe:0.3,0.2,0.5"), fem_order=1, fem_level=2,
                           surrogate_level=1, surrogate_intorder=2)
    _, _, fem, surrogate = study_models(radial_run, options)
    assert (fem.points.level, fem.points.intorder) == (2, 6)
    assert (surrogate.points.level, surrogate.points.intorder) == (1, 2)
    assert len(surrogate.predictor.point_set) == len(surrogate.points.points)
    assert len(surrogate.points.weights) < len(fem.points.weights) / 20
    mu = run_distribution(radial_run).sample(3, np.random.default_rng(0))
    same = SurrogateQuantities.from_run(radial_run, fem.points)(mu)
    values = surrogate(mu)
    np.testing.assert_allclose(values[:, 1:], same[:, 1:], rtol=1e-6)
    np.testing.assert_allclose(values[:, 0], same[:, 0], rtol=0.05)
    with pytest.raises(InputError, match="surrogate-level must be an integer"):
        ModelOptions(surrogate_level=-1)
