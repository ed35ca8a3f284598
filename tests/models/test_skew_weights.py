"""Skew-symmetric hidden weights W = A − Aᵀ (Reshniak & Webster eq. 8): exact skew symmetry and
a purely imaginary spectrum, unchanged outputs without the option, gradients of the implicit
net against finite differences, and the option surviving config round trips and pruning."""

import json

import pytest
import torch
from torch.func import functional_call

from surrogate.core.errors import InputError
from surrogate.models.registry import build_model, config_from_dict, model_config

f64 = torch.float64
pytestmark = pytest.mark.usefixtures("single_torch_thread")
SKEW_ARCHS = ("resnet", "implicit-resnet")


def make(arch, skew=True, seed=0, **kwargs):
    options = {"in_features": 2, "out_features": 2, "width": 5, "depth": 4, "tau": 0.5,
               "activation": "tanh", "skew_weights": skew, **kwargs}
    torch.manual_seed(seed)
    return build_model(model_config(arch=arch, **options)).to(f64)


def by_hand(model, u, skew):
    """y¹ = τ σ(W⁰u + b⁰); hidden steps with W = A − Aᵀ (or A); θ = 0 for the ResNet."""
    taus, sigma = model.taus(), torch.tanh
    y = taus[0] * sigma(model.layers[0](u))
    for k in range(1, model.config.depth):
        a, b = model.layers[k].weight, model.layers[k].bias
        w = a - a.T if skew else a
        y = y + taus[k] * sigma(y @ w.T + b)
    return model.output(y)


@pytest.mark.parametrize("arch", SKEW_ARCHS)
def test_hidden_weights_are_skew_with_purely_imaginary_spectrum(arch):
    model = make(arch)
    weights = model.hidden_weights()
    assert weights[0] is model.layers[0].weight  # not square: as is
    for k in range(1, model.config.depth):
        w = weights[k].detach()
        assert torch.equal(w, -w.T) and float(w.abs().max()) > 0.1
        assert float(torch.linalg.eigvals(w).real.abs().max()) <= 1e-12


@pytest.mark.parametrize("skew", [False, True])
def test_resnet_and_theta_zero_implicit_net_match_the_formula(skew):
    u = torch.randn(9, 2, generator=torch.Generator().manual_seed(1), dtype=f64)
    for arch, extra in (("resnet", {}), ("implicit-resnet", {"theta": 0.0})):
        model = make(arch, skew=skew, **extra)
        torch.testing.assert_close(model(u), by_hand(model, u, skew), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("arch", SKEW_ARCHS)
def test_skew_weights_off_leaves_outputs_unchanged(arch):
    model = make(arch, skew=False)
    assert all(w is layer.weight for w, layer in zip(model.hidden_weights(), model.layers,
                                                     strict=True))
    u = torch.randn(9, 2, generator=torch.Generator().manual_seed(2), dtype=f64)
    skewed = make(arch, skew=True)
    skewed.load_state_dict(model.state_dict())
    assert not torch.allclose(skewed(u), model(u))  # the option does change the map
    with torch.no_grad():
        for layer in model.layers[1:]:
            layer.weight.copy_(layer.weight - layer.weight.T)
    torch.testing.assert_close(skewed(u), model(u), rtol=1e-12, atol=1e-12)


def test_implicit_net_gradients_with_skew_weights_match_finite_differences():
    model = make("implicit-resnet", width=3, depth=3, tau=0.8, solver_tol=1e-14)
    names = [name for name, _ in model.named_parameters()]
    u = torch.randn(4, 2, generator=torch.Generator().manual_seed(3), dtype=f64)

    def forward(u, *params):
        return functional_call(model, dict(zip(names, params, strict=True)), (u,))

    inputs = (u.requires_grad_(), *(p.detach().clone().requires_grad_()
                                    for p in model.parameters()))
    assert torch.autograd.gradcheck(forward, inputs, eps=1e-6, atol=1e-7, rtol=1e-6)


def test_config_round_trip_and_bad_values():
    config = model_config(arch="implicit-resnet", in_features=1, out_features=1,
                         skew_weights=True)
    again = config_from_dict(json.loads(json.dumps(config.to_dict())))
    assert again == config and again.skew_weights is True
    assert model_config(arch="resnet", in_features=1, out_features=1).skew_weights is False
    with pytest.raises(InputError, match="skew_weights must be true or false"):
        model_config(arch="resnet", in_features=1, out_features=1, skew_weights=1)
    with pytest.raises(InputError, match=r"^skew_weights is not supported by arch 'densenet'; "
                                         r"use one of: .*implicit-resnet.*resnet"):
        model_config(arch="densenet", in_features=1, out_features=1, skew_weights=True)


@pytest.mark.parametrize("arch", SKEW_ARCHS)
def test_pruning_keeps_skew_weights(arch):
    model = make(arch, tau=None, tau_init=0.3)
    with torch.no_grad():
        model.steps.raw[2] = -60.0  # τ^[2] ≈ 1e-6
    u = torch.randn(7, 2, generator=torch.Generator().manual_seed(4), dtype=f64)
    pruned, removed, config = model.prune(1e-3)
    assert removed == [2] and config.skew_weights and pruned.config.skew_weights
    torch.testing.assert_close(pruned(u), model(u), rtol=0, atol=1e-5)
