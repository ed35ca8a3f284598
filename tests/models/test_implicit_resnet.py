"""Implicit ResNet (Reshniak & Webster eq. 7): the solve meets its tolerance, the custom backward
equals finite differences and autograd through unrolled fixed-point iterations, θ = 0 is the
ResNet, failures are one-line SolverErrors, and fit/evaluate run it on Maxwell data."""

import json

import pytest
import torch
from typer.testing import CliRunner

import surrogate.models.implicit_layer as implicit_layer
from surrogate.core.errors import SolverError
from surrogate.models.activations import SmoothReLU, Softplus, Tanh
from surrogate.models.implicit_layer import (
    ImplicitStep,
    effective_tolerance,
    implicit_step,
    solve_implicit_step,
)
from surrogate.models.registry import ARCHITECTURES, build_model, model_config


def own_fields(arch, **options):
    """``options`` less the fields ``arch``'s config does not have (shared test settings)."""
    names = ARCHITECTURES[arch].config.field_names()
    return model_config(arch=arch, **{k: v for k, v in options.items() if k in names})


f64 = torch.float64
pytestmark = pytest.mark.usefixtures("single_torch_thread")



def layer_case(n=7, width=5, scale=1.0, seed=0, dtype=f64):
    """(x (n, w), W (w, w), b (w,)) with ‖W‖ of order ``scale``."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, width, generator=gen, dtype=dtype)
    weight = scale * torch.randn(width, width, generator=gen, dtype=dtype) / width ** 0.5
    bias = 0.5 * torch.randn(width, generator=gen, dtype=dtype)
    return x, weight, bias


def eq7_residual(y, x, weight, bias, h, theta, sigma):
    """‖y − x − (1−θ) h σ(Wx+b) − θ h σ(Wy+b)‖∞ / (1 + ‖y‖∞) per sample, written out."""
    r = (y - x - (1 - theta) * h * sigma(x @ weight.T + bias)
         - theta * h * sigma(y @ weight.T + bias))
    return r.abs().amax(1) / (1 + y.abs().amax(1))


def make(theta=0.5, dtype=f64, seed=0, **kwargs):
    options = {"in_features": 3, "out_features": 2, "width": 6, "depth": 4, "tau": 0.6,
               "activation": "tanh", "theta": theta, **kwargs}
    torch.manual_seed(seed)
    return build_model(model_config(arch="implicit-resnet", **options)).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, f64])
@pytest.mark.parametrize("sigma", [Tanh(), SmoothReLU(), Softplus()])
def test_model_forward_solves_every_layer_to_tolerance(dtype, sigma):
    model = make(dtype=dtype, width=8, depth=4, solver_tol=1e-9)
    model.activation = sigma
    u = torch.randn(50, 3, generator=torch.Generator().manual_seed(3), dtype=dtype)
    taus = model.taus()
    with torch.no_grad():
        y = taus[0] * sigma(model.layers[0](u))
        for k in range(1, 4):
            x, layer = y, model.layers[k]
            stiffness = 0.5 * taus[k] * layer.weight.abs().sum(1).max()
            tol = effective_tolerance(1e-9, dtype, stiffness)
            assert tol <= (1e-9 if dtype == f64 else 2e-5)
            y = implicit_step(x, layer.weight, layer.bias, taus[k], 0.5, sigma, 1e-9, 100, k)
            assert eq7_residual(y, x, layer.weight, layer.bias, taus[k], 0.5, sigma).max() <= tol
            assert (y - x).abs().max() > 100 * tol  # a real step, not the identity
        assert torch.equal(model.hidden(u, taus), y)


def test_newton_takes_over_where_fixed_point_iteration_diverges():
    # a stiff layer, W = −2.5 I + skew: the fixed-point map expands (θ h ‖W‖ > 2.5) while
    # y − θ h σ(W y + b) is monotone, so the solution is unique and Newton finds it
    x, skew, bias = layer_case(n=40, width=6, scale=1.0, seed=4)
    weight = -2.5 * torch.eye(6, dtype=f64) + skew - skew.T
    h = torch.tensor(2.0, dtype=f64)
    solve = solve_implicit_step(x, weight, bias, h, 0.5, Tanh(), 1e-12, 100)
    assert solve.newton_steps > 0 and solve.residual <= 1e-12
    assert eq7_residual(solve.y, x, weight, bias, h, 0.5, torch.tanh).max() <= 1e-12
    # a mild step converges by fixed-point iteration alone, from the linearised estimate
    small = solve_implicit_step(x, 0.2 * weight, bias, 0.1 * h, 0.5, Tanh(), 1e-12, 100)
    assert small.newton_steps == 0 and 0 < small.fixed_point_steps <= 12


@pytest.mark.parametrize("theta", [0.5, 1.0, 0.3])
@pytest.mark.parametrize("sigma", [Tanh(), Softplus()])
def test_layer_gradients_match_finite_differences(theta, sigma):
    x, weight, bias = layer_case(n=4, width=4, scale=1.2, seed=1)
    h = torch.tensor(0.7, dtype=f64)
    inputs = [t.clone().requires_grad_() for t in (x, weight, bias, h)]

    def step(x, weight, bias, h):
        return ImplicitStep.apply(x, weight, bias, h, theta, sigma, 1e-14, 200, 1)

    assert torch.autograd.gradcheck(step, inputs, eps=1e-6, atol=1e-7, rtol=1e-6)


def test_model_gradients_match_finite_differences_in_inputs_and_steps():
    model = make(tau=None, tau_init=0.4, depth=3, width=4, solver_tol=1e-14)
    u = torch.randn(5, 3, generator=torch.Generator().manual_seed(2), dtype=f64,
                    requires_grad=True)
    taus = model.taus().detach().requires_grad_()
    assert torch.autograd.gradcheck(model.forward_with_taus, (u, taus), eps=1e-6, atol=1e-7)


@pytest.mark.parametrize("theta", [0.5, 1.0])
def test_layer_gradients_match_autograd_through_unrolled_iterations(theta):
    x, weight, bias = layer_case(n=6, width=5, scale=0.8, seed=2)
    h = torch.tensor(0.5, dtype=f64)
    upstream = torch.randn(6, 5, generator=torch.Generator().manual_seed(9), dtype=f64)

    def gradients(forward):
        leaves = [t.clone().requires_grad_() for t in (x, weight, bias, h)]
        (forward(*leaves) * upstream).sum().backward()
        return [t.grad for t in leaves]

    def unrolled(x, weight, bias, h):
        # θ h ‖σ'‖ ‖W‖ < 0.4: 80 plain fixed-point iterations contract below 1e-30
        known = x + (1 - theta) * h * torch.tanh(x @ weight.T + bias)
        y = x
        for _ in range(80):
            y = known + theta * h * torch.tanh(y @ weight.T + bias)
        return y

    expected = gradients(unrolled)
    got = gradients(lambda *a: ImplicitStep.apply(*a, theta, Tanh(), 1e-14, 100, 1))
    for name, g, e in zip(("x", "W", "b", "h"), got, expected, strict=True):
        torch.testing.assert_close(g, e, rtol=1e-11, atol=1e-13, msg=name)


@pytest.mark.parametrize("tau", [0.4, None])
def test_theta_zero_is_exactly_the_resnet(tau, monkeypatch):
    implicit = make(theta=0.0, tau=tau, tau_init=0.3, activation="smooth-relu")
    resnet = build_model(own_fields(**{**implicit.config.to_dict(), "arch": "resnet"})).to(f64)
    resnet.load_state_dict(implicit.state_dict())

    def no_solve(*args, **kwargs):
        raise AssertionError("θ = 0 must not solve anything")

    monkeypatch.setattr(implicit_layer, "solve_implicit_step", no_solve)
    u = torch.randn(11, 3, generator=torch.Generator().manual_seed(5), dtype=f64)
    out_implicit, out_resnet = implicit(u), resnet(u)
    assert torch.equal(out_implicit, out_resnet)
    out_implicit.square().sum().backward()
    out_resnet.square().sum().backward()
    for p, q in zip(implicit.parameters(), resnet.parameters(), strict=True):
        assert torch.equal(p.grad, q.grad)


def test_small_theta_tends_to_the_resnet():
    u = torch.randn(11, 3, generator=torch.Generator().manual_seed(5), dtype=f64)
    with torch.no_grad():
        explicit = make(theta=0.0)(u)
    gaps = []
    for theta in (1e-2, 1e-3):
        with torch.no_grad():
            gaps.append(float((make(theta=theta, solver_tol=1e-14)(u) - explicit).abs().max()))
    assert gaps[1] == pytest.approx(gaps[0] / 10, rel=0.05)  # O(θ)


def test_non_convergence_is_a_one_line_solver_error_naming_layer_and_residual():
    model = make(tau=2.0, solver_max_iter=1, solver_tol=1e-12)
    with torch.no_grad():
        model.layers[1].weight.mul_(4.0)
    u = torch.randn(20, 3, generator=torch.Generator().manual_seed(1), dtype=f64)
    with pytest.raises(SolverError) as info:
        model(u)
    message = str(info.value)
    assert "layer 1" in message and "residual" in message and "in 1 iteration (" in message
    assert "\n" not in message
    with pytest.raises(SolverError, match=r"layer 1: .*residual nan"):
        make()(torch.full((2, 3), float("nan"), dtype=f64))


def test_float32_inference_modes_and_empty_batch():
    model = make(dtype=torch.float32, width=16)
    u = torch.randn(64, 3, generator=torch.Generator().manual_seed(8))
    with_grad = model(u)
    with torch.no_grad():
        assert torch.equal(model(u), with_grad.detach())
    with torch.inference_mode():
        assert torch.equal(model(u), with_grad.detach())
    assert with_grad.dtype == torch.float32 and with_grad.shape == (64, 2)
    with_grad.sum().backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
    assert model(u[:0]).shape == (0, 2)


def test_pruning_a_zero_step_keeps_outputs():
    model = make(tau=None, tau_init=0.3)
    with torch.no_grad():
        model.steps.raw[2] = -60.0  # τ^[2] = tau_min + softplus(-60) ≈ 1e-6
    u = torch.randn(9, 3, generator=torch.Generator().manual_seed(6), dtype=f64)
    pruned, removed, config = model.prune(1e-3)
    assert removed == [2] and config.depth == 3
    torch.testing.assert_close(pruned(u), model(u), rtol=0, atol=1e-5)


def test_fit_and_evaluate_on_maxwell_data_through_the_cli(tmp_path):
    from surrogate.cli.app import app

    runner = CliRunner()
    data = tmp_path / "maxwell.h5"
    result = runner.invoke(app, ["gen-data", "maxwell", "-n", "200", "--seed", "1", "-o",
                                 str(data), "--quiet"])
    assert result.exit_code == 0, result.output
    run = tmp_path / "implicit"
    result = runner.invoke(app, ["fit", str(data), "--arch", "implicit-resnet", "--theta", "0.5",
                                 "--depth", "3", "--width", "6", "--epochs", "8", "--lr", "0.02",
                                 "-o", str(run), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert metrics["epochs_run"] == 8 and len(metrics["taus"]) == 3
    config = json.loads((run / "config.json").read_text())["model"]
    assert config["arch"] == "implicit-resnet" and config["theta"] == 0.5
    history = (run / "history.csv").read_text().splitlines()
    assert len(history) == 9
    result = runner.invoke(app, ["evaluate", str(run), "--levels", "1", "--fem-method", "none",
                                 "--out", str(tmp_path / "eval"), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    payload = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    record = payload["records"][0]["runs"]["implicit"]
    assert 0 < record["l2_error"] < float("inf")
