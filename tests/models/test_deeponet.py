"""The separable model u_c(x; z) = Σ_k b_{c,k}(z) t_k(x) + β_c (arch ``deeponet``)."""

import json

import numpy as np
import pytest
import torch
from torch.func import functional_call

from surrogate.core.errors import InputError
from surrogate.models.deeponet import DeepONet, distinct_rows
from surrogate.models.encoders import EncodedInputs
from surrogate.models.registry import build_model, config_from_dict, model_config, parameter_floor

pytestmark = pytest.mark.usefixtures("single_torch_thread")


def config(**extra):
    fields = {"arch": "deeponet", "in_features": 3 + 4, "out_features": 3, "width": 6,
              "depth": 2, "basis": 5, "branch_width": 7, "branch_depth": 3, **extra}
    return model_config(**fields)


def perturbed(model, scale=0.3):
    """``model`` with every parameter moved by scale · sin(1 + k) (β and W_q no longer 0)."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(scale * torch.sin(1.0 + torch.arange(p.numel(), dtype=p.dtype)).view(p.shape))
    return model


@pytest.mark.parametrize("extra", [{}, {"branch_arch": "frac-dnn", "tau_min": 1e-3},
                                   {"trunk_arch": "densenet", "quadratic_output": True}])
def test_output_is_the_explicit_sum_over_the_basis(extra):
    torch.manual_seed(0)
    model = perturbed(build_model(config(activation="tanh", **extra)).double())
    rows = torch.randn(9, 7, dtype=torch.float64)
    t = model.trunk(rows[:, :3])  # (N, p): the trunk is a plain stepping network on x
    b = model.branch(rows[:, 3:])  # (N, n·p): its read-out holds one head per component
    assert t.shape == (9, 5) and b.shape == (9, 15)
    expected = torch.stack([sum(b[:, 5 * c + k] * t[:, k] for k in range(5))
                            + model.output_bias[c] for c in range(3)], dim=1)
    assert model.output_bias.abs().min() > 0
    torch.testing.assert_close(model(rows), expected, rtol=1e-13, atol=1e-13)
    # the cached form: features of the points once, coefficients of each problem
    coefficients = model.branch_coefficients(rows[:, 3:])
    torch.testing.assert_close(coefficients[:, 2, :], b[:, 10:15], rtol=0, atol=0)
    torch.testing.assert_close(model.combine(coefficients, model.trunk_features(rows[:, :3])),
                               expected, rtol=1e-13, atol=1e-13)


def test_gradients_match_finite_differences_in_float64():
    torch.manual_seed(1)
    model = perturbed(build_model(config(activation="tanh", quadratic_output=True)).double())
    rows = torch.randn(4, 7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(model, (rows,), eps=1e-6, atol=1e-7)
    names = [n for n, _ in model.named_parameters()]
    values = tuple(p.detach().clone().requires_grad_(True) for p in model.parameters())
    assert any("steps" in n for n in names) and "output_bias" in names  # τ and β take part

    def loss(*params):
        return functional_call(model, dict(zip(names, params, strict=True)), (rows.detach(),))

    assert torch.autograd.gradcheck(loss, values, eps=1e-6, atol=1e-7)


def test_generic_interface_lists_both_networks():
    model = build_model(config())
    assert isinstance(model, DeepONet)
    assert model.taus().shape == (2 + 3,)
    assert [tuple(w.shape) for w in model.layer_weights()] == [
        (6, 3), (6, 6), (7, 4), (7, 7), (7, 7), (15, 7)]
    assert [tuple(b.shape) for b in model.layer_biases()] == [(6,), (6,), (7,), (7,), (7,)]
    assert sum(p.numel() for p in model.parameters()) >= parameter_floor(model.config)


def test_pruning_each_network_drops_steps_below_the_tolerance():
    torch.manual_seed(2)
    model = perturbed(build_model(config(tau=None)).double(), scale=0.01)
    with torch.no_grad():
        model.trunk.steps.raw[1] = -50.0  # τ ≈ tau_min: a step to prune
        model.branch.steps.raw[2] = -50.0
    rows = torch.randn(6, 7, dtype=torch.float64)
    pruned, removed, new_config = model.prune(1e-3)
    assert removed == [1, 2 + 2]
    assert (new_config.depth, new_config.branch_depth) == (1, 2)
    assert pruned.taus().shape == (3,)
    torch.testing.assert_close(pruned(rows), model(rows), rtol=1e-5, atol=1e-5)


def test_fields_rows_go_through_the_sensor_encoder_into_the_branch():
    torch.manual_seed(3)
    cfg = config(in_features=3 + 9, inputs="fields", code_size=4, encoder_width=5)
    model = build_model(cfg).double()
    assert isinstance(model, EncodedInputs) and isinstance(model.core, DeepONet)
    assert model.core.config.in_features == 3 + 4
    rows = torch.randn(5, 12, dtype=torch.float64)
    code = model.encoder(rows[:, 3:])
    expected = model.core.combine(model.core.branch_coefficients(code),
                                  model.trunk_features(rows[:, :3]))
    torch.testing.assert_close(model(rows), expected, rtol=1e-14, atol=1e-14)


def test_config_round_trips_and_bad_configs_are_one_line():
    cfg = config(branch_arch="frac-dnn", gamma=0.3, tau_min=1e-3)
    again = config_from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg and type(again).__name__ == "DeepONetConfig"
    assert cfg.part_fields("branch")["gamma"] == 0.3
    assert "gamma" not in cfg.part_fields("trunk")
    for bad, message in [({"in_features": 3}, "at least one problem column"),
                         ({"time_horizon": 1.0}, "time_horizon"),
                         ({"trunk_arch": "lem"}, "unknown trunk_arch"),
                         ({"basis": 0}, "basis"),
                         ({"trunk_arch": "frac-dnn", "tau_min": 0.0}, "tau_min")]:
        with pytest.raises(InputError, match=message) as error:
            config(**bad)
        assert "\n" not in str(error.value)
    with pytest.raises(InputError, match="model input must have shape"):
        build_model(config())(torch.zeros(2, 6))


@pytest.fixture(scope="module")
def radial_file(tmp_path_factory):
    from surrogate.datasets import MaxwellFamilyRecipe, generate_dataset

    path = tmp_path_factory.mktemp("data") / "radial.h5"
    generate_dataset(MaxwellFamilyRecipe(family="radial", problems=6, points=60, seed=1,
                                         n_volume=4, n_boundary=2), path)
    return path


@pytest.mark.parametrize("inputs", ["params", "fields"])
def test_a_run_round_trips_and_trains_through_the_generic_loop(radial_file, tmp_path, inputs):
    from surrogate.runs.load import load_run
    from surrogate.training.loop import fit

    model = {"arch": "deeponet", "inputs": inputs, "width": 8, "depth": 2, "basis": 4,
             "branch_depth": 1, "code_size": 3, "encoder_width": 4}
    run = fit(radial_file, model, {"epochs": 4, "batch_size": 64, "lr": 3e-3,
                                   "lambda1": 1e-6, "lambda2": 1e-6}, tmp_path / inputs)
    assert run.history[-1]["train_loss"] < run.history[0]["train_loss"]
    assert {"tau_0", "tau_1", "tau_2", "grad_norm_2", "grad_norm_output"} <= set(run.history[0])
    again = load_run(tmp_path / inputs)
    assert again.model_config == run.model_config and again.model_config.basis == 4
    rows = np.random.default_rng(0).normal(size=(7, again.normalisation.in_features))
    np.testing.assert_array_equal(again.predict(rows), run.predict(rows))


def test_rows_of_one_problem_share_one_branch_evaluation():
    torch.manual_seed(4)
    model = perturbed(build_model(config()).double())
    problems = torch.randn(3, 4, dtype=torch.float64)
    which = torch.tensor([2, 0, 2, 1, 0, 2, 2])
    rows = torch.cat([torch.randn(7, 3, dtype=torch.float64), problems[which]], dim=1)
    distinct, inverse = distinct_rows(rows[:, 3:])
    assert distinct.shape == (3, 4) and torch.equal(distinct[inverse], rows[:, 3:])
    assert distinct_rows(problems)[1] is None  # nothing shared: the rows themselves
    calls = []
    model.branch.register_forward_hook(lambda module, args, out: calls.append(args[0].shape))
    out = model(rows)
    assert calls == [(3, 4)]
    expected = model.combine(model.branch_coefficients(rows[:, 3:]),
                             model.trunk_features(rows[:, :3]))
    torch.testing.assert_close(out, expected, rtol=1e-14, atol=1e-14)
    # the parameters' gradients are those of the row-by-row evaluation
    shared = torch.autograd.grad(out.square().sum(), list(model.parameters()))
    each = torch.autograd.grad(expected.square().sum(), list(model.parameters()))
    for a, b in zip(shared, each, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)
    # rows that require grad are not shared: ∂u_i/∂z_i reaches row i
    rows.requires_grad_(True)
    assert distinct_rows(rows[:, 3:])[1] is None
    assert torch.autograd.gradcheck(model, (rows,), eps=1e-6, atol=1e-7)
