"""ResNet (eq. 5.2), Fractional-DNN (eq. 5.7) and DenseNet (Theorem 6.4): forward passes
against independent formulas, gradients against finite differences and the paper's
adjoints (eq. 5.9, Appendix A), step positivity, pruning, non-regression."""

import math

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.fractional_dnn import _FractionalTrajectory
from surrogate.models.registry import ARCHITECTURES, build_model, model_config

from .adjoint_reference import fractional_adjoint, resnet_adjoint


def own_fields(arch, **options):
    """``options`` less the fields ``arch``'s config does not have (shared test settings)."""
    names = ARCHITECTURES[arch].config.field_names()
    return model_config(arch=arch, **{k: v for k, v in options.items() if k in names})


f64 = torch.float64
ARCHS = ["resnet", "frac-dnn", "densenet"]


@pytest.fixture

def float64_default():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(f64)
    yield
    torch.set_default_dtype(previous)


def make(arch, seed=0, **kwargs):
    options = {"in_features": 4, "out_features": 3, "width": 6, "depth": 5, **kwargs}
    torch.manual_seed(seed)
    return build_model(own_fields(arch, **options)).to(f64)


def data(n=9, seed=1):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, 4, generator=gen, dtype=f64), torch.randn(n, 3, generator=gen, dtype=f64)


def mse(model, u, target, taus):
    """J = 1/(2N) Σ ‖y^[L] - S‖², the paper's loss (§2.2)."""
    return 0.5 * ((model.forward_with_taus(u, taus) - target) ** 2).sum() / u.shape[0]


def section4_fractional(model, u, tau, gamma):
    """Fixed-τ Fractional-DNN of §4, a_{ℓ-j} = (ℓ+1-j)^{1-γ} - (ℓ-j)^{1-γ}, written out."""
    sigma = model.activation
    w = [layer.weight for layer in model.layers]
    b = [layer.bias for layer in model.layers]
    g = tau ** gamma * math.gamma(2 - gamma)
    y = [torch.zeros(u.shape[0], w[0].shape[0], dtype=f64)]  # P_0^ℓ y^[0] = 0
    for ell in range(1, len(w) + 1):
        arg = u if ell == 1 else y[ell - 1]
        memory = sum(((ell + 1 - j) ** (1 - gamma) - (ell - j) ** (1 - gamma)) * (y[j] - y[j - 1])
                      for j in range(1, ell))
        y.append(y[ell - 1] - memory + g * sigma(arg @ w[ell - 1].T + b[ell - 1]))
    return y[-1] @ model.output.weight.T


@pytest.mark.parametrize("gamma", [0.2, 0.5, 0.8])
def test_fixed_steps_equal_section4_network(gamma):
    tau = 0.3
    model = make("frac-dnn", depth=7, tau=tau, gamma=gamma)
    u, _ = data()
    torch.testing.assert_close(model(u), section4_fractional(model, u, tau, gamma),
                               rtol=1e-12, atol=1e-13)


def test_resnet_and_densenet_forward_by_hand():
    u, _ = data(n=3)
    taus = torch.tensor([0.3, 0.7, 0.2], dtype=f64)
    for arch in ("resnet", "densenet"):
        model = make(arch, depth=3)
        z = [layer for layer in model.layers]
        s = model.activation
        y1 = taus[0] * s(z[0](u))
        y2 = y1 + taus[1] * s(z[1](y1))
        y3 = (y2 if arch == "resnet" else y1 + y2) + taus[2] * s(z[2](y2))
        torch.testing.assert_close(model.forward_with_taus(u, taus), model.output(y3),
                                   rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("arch", ARCHS)
def test_equal_learned_steps_equal_fixed_step_network(arch, float64_default):
    fixed = make(arch, depth=6, tau=0.37, gamma=0.45)
    learned = make(arch, depth=6, tau_init=0.37, gamma=0.45)
    torch.testing.assert_close(learned.taus(), fixed.taus(), rtol=1e-14, atol=0)
    u, _ = data()
    torch.testing.assert_close(learned(u), fixed(u), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("activation", ["smooth-relu", "tanh"])
def test_tau_gradients_match_central_differences(arch, activation):
    model = make(arch, activation=activation, gamma=0.35)
    u, target = data()
    taus = torch.tensor([0.4, 0.15, 0.9, 0.3, 0.6], dtype=f64, requires_grad=True)
    (grad,) = torch.autograd.grad(mse(model, u, target, taus), taus)
    h = 1e-6
    with torch.no_grad():
        for ell in range(5):
            step = torch.zeros(5, dtype=f64)
            step[ell] = h
            fd = (mse(model, u, target, taus + step) - mse(model, u, target, taus - step)) / (2 * h)
            assert math.isclose(float(grad[ell]), float(fd), rel_tol=1e-6,
                                abs_tol=1e-9 * float(grad.abs().max())), (ell, grad, fd)


@pytest.mark.parametrize("arch,adjoint", [("resnet", resnet_adjoint),
                                          ("frac-dnn", fractional_adjoint)])
@pytest.mark.parametrize("gamma", [0.3, 0.7])
def test_autograd_matches_paper_adjoint(arch, adjoint, gamma):
    """Autograd (fused backward for frac-dnn) against eq. 5.9/§5.1 adjoints and App. A.2."""
    model = make(arch, gamma=gamma)
    u, target = data()
    taus = torch.tensor([0.4, 0.15, 0.9, 0.3, 0.6], dtype=f64, requires_grad=True)
    params = model.layer_weights() + model.layer_biases()
    loss = mse(model, u, target, taus)
    grads = torch.autograd.grad(loss, [taus, *params])
    ref = adjoint(model, u, target, taus)
    assert math.isclose(loss.item(), ref.loss, rel_tol=1e-13)
    torch.testing.assert_close(grads[0], ref.taus, rtol=1e-10, atol=1e-14)
    for got, want in zip(grads[1:], ref.weights + ref.biases, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-14)


def test_fused_fractional_backward_gradcheck():
    model = make("frac-dnn", depth=4, width=5)
    u, _ = data(n=6)
    u.requires_grad_(True)
    kernel = model.kernel(torch.tensor([0.3, 0.5, 0.2, 0.8], dtype=f64)).detach()
    kernel.requires_grad_(True)
    params = [p for layer in model.layers for p in (layer.weight, layer.bias)]

    def trajectory(x, k, *p):
        return _FractionalTrajectory.apply(x, k, model.activation, *p)

    assert torch.autograd.gradcheck(trajectory, (u, kernel, *params))


@pytest.mark.parametrize("config", [{}, {"time_horizon": 2.0, "horizon_mode": "exact"}])
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_steps_stay_positive_under_huge_optimiser_steps(config, opt):
    model = make("frac-dnn", **config)
    optimiser = (torch.optim.SGD(model.parameters(), lr=1e8) if opt == "sgd"
                 else torch.optim.Adam(model.parameters(), lr=1e4))
    u, _ = data()
    for sign in (1.0, -1.0, 1.0):
        optimiser.zero_grad()
        (sign * 1e6 * model.taus().sum() + model(u).sum() * 0).backward()
        optimiser.step()
        taus = model.taus()
        assert torch.all(taus > 0) and torch.all(torch.isfinite(taus)), taus
        if "time_horizon" in config:
            assert math.isclose(taus.sum().item(), 2.0, rel_tol=1e-12)
    assert torch.all(torch.isfinite(model(u)))


@pytest.mark.parametrize("arch", ["resnet", "frac-dnn"])
def test_depth32_small_tau_training_with_large_lr_stays_finite(arch):
    torch.manual_seed(0)
    model = build_model(own_fields(arch, in_features=7, out_features=3, width=10,
                                    depth=32, tau_init=1e-3))
    x, y = torch.randn(64, 7), torch.randn(64, 3)
    lr = 1.0
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    for it in range(8):
        optimiser.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        if it == 0:  # an unconstrained τ = 1e-3 would cross zero here (Adam moves it by lr)
            assert bool((model.steps.raw.grad > 0).any())
        optimiser.step()
        assert math.isfinite(loss.item())
        assert bool((model.taus() > 0).all())
    assert torch.all(torch.isfinite(model(x)))


def set_steps(model, values):
    from surrogate.models.step_sizes import inverse_softplus

    with torch.no_grad():
        model.steps.raw.copy_(inverse_softplus(torch.tensor(values, dtype=f64)
                                               - model.steps.tau_min))


def test_resnet_pruning_zero_steps_keeps_outputs():
    model = make("resnet", tau_min=0.0)
    set_steps(model, [0.3, 0.0, 0.5, 0.0, 0.2])
    u, _ = data()
    new_model, removed, new_config = model.prune(1e-3)
    assert removed == [1, 3]
    assert new_config.depth == 3 and new_model.config == new_config
    torch.testing.assert_close(new_model.taus(), torch.tensor([0.3, 0.5, 0.2], dtype=f64),
                               rtol=1e-14, atol=0)
    torch.testing.assert_close(new_model(u), model(u), rtol=0, atol=0)
    # The pruned run reloads from its config alone (what `surrogate prune` saves).
    rebuilt = build_model(new_config).to(f64)
    rebuilt.load_state_dict(new_model.state_dict())
    torch.testing.assert_close(rebuilt(u), model(u), rtol=0, atol=0)


def test_pruning_never_removes_input_layer_and_checks_tol():
    model = make("resnet", tau_min=0.0)
    set_steps(model, [0.0, 0.5, 0.5, 0.5, 0.5])
    assert model.prune(0.1)[1] == []
    with pytest.raises(InputError):
        model.prune(-1.0)


def test_fractional_pruning_converges_like_tau_to_the_gamma():
    u, _ = data()
    errors = []
    for small in (1e-6, 1e-10):
        model = make("frac-dnn", gamma=0.5, tau_min=1e-14)
        set_steps(model, [0.3, small, 0.5, 0.7, 0.2])
        new_model, removed, _ = model.prune(1e-3)
        assert removed == [1]
        errors.append((new_model(u) - model(u)).abs().max().item())
    assert 0 < errors[1] < errors[0] < 1e-2
    assert 30 < errors[0] / errors[1] < 300  # (1e-6 / 1e-10)^γ = 100


def test_exact_horizon_pruning_keeps_kept_steps():
    model = make("frac-dnn", time_horizon=2.0, horizon_mode="exact")
    with torch.no_grad():
        model.steps.raw.copy_(torch.tensor([0.0, -30.0, 0.5, 1.0, 0.0], dtype=f64))
    new_model, removed, new_config = model.prune(2e-6)
    assert removed == [1]
    torch.testing.assert_close(new_model.taus(), model.taus()[[0, 2, 3, 4]], rtol=1e-12, atol=0)
    assert math.isclose(new_config.time_horizon, model.taus()[[0, 2, 3, 4]].sum().item())


def test_densenet_pruning_is_not_defined():
    with pytest.raises(InputError, match="densenet"):
        make("densenet").prune(0.1)


EXPECTED = {  # y^[L] of make(arch, seed=1234) at data(n=2, seed=5), first sample
    "resnet": [0.022495103765516063, 0.07002052494972813, -0.007724043044651158],
    "frac-dnn": [0.046523516400772666, 0.09277680311333561, 0.005595547208108689],
    "densenet": [0.007138329364479723, 0.36500319352919125, -0.11020414232467811],
}


@pytest.mark.parametrize("arch", ARCHS)
def test_non_regression_fixed_seed(arch):
    model = make(arch, seed=1234)
    u, _ = data(n=2, seed=5)
    got = model(u)[0].detach()
    torch.testing.assert_close(got, torch.tensor(EXPECTED[arch], dtype=f64), rtol=1e-6, atol=1e-9)
