"""``quadratic_output``: y^[L] = W y + W_q (y ⊙ y) on the last hidden state y (W_q starts at
0), for every τ-stepping architecture."""

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.registry import build_model, model_config

from .adjoint_reference import resnet_adjoint

ARCHS = ["resnet", "frac-dnn", "densenet"]


def make(arch, quadratic, seed=0):
    torch.manual_seed(seed)
    config = model_config(arch=arch, in_features=4, out_features=3, width=6, depth=4,
                          activation="silu", quadratic_output=quadratic)
    return build_model(config).double()


@pytest.mark.parametrize("arch", ARCHS)
def test_starts_as_the_linear_output_network(arch):
    x = torch.randn(7, 4, dtype=torch.float64)
    plain, quad = make(arch, False), make(arch, True)
    assert torch.count_nonzero(quad.quadratic_output.weight) == 0
    torch.testing.assert_close(quad(x), plain(x), rtol=0, atol=0)


@pytest.mark.parametrize("arch", ARCHS)
def test_output_is_linear_plus_quadratic_form_of_last_hidden_state(arch):
    model = make(arch, True)
    with torch.no_grad():
        model.quadratic_output.weight.normal_()
    x = torch.randn(5, 4, dtype=torch.float64)
    y = model.hidden(x, model.taus())
    want = y @ model.output.weight.T + (y * y) @ model.quadratic_output.weight.T
    torch.testing.assert_close(model(x), want, rtol=1e-12, atol=1e-12)
    (grad,) = torch.autograd.grad(model(x).sum(), model.quadratic_output.weight)
    torch.testing.assert_close(grad, (y * y).sum(0).expand(3, -1), rtol=1e-12, atol=1e-12)


def test_pruning_keeps_the_quadratic_weights():
    model = make("resnet", True)
    with torch.no_grad():
        model.quadratic_output.weight.normal_()
    pruned, removed, config = model.prune(0.0)
    assert removed == [] and config.quadratic_output
    x = torch.randn(5, 4, dtype=torch.float64)
    torch.testing.assert_close(pruned(x), model(x), rtol=1e-12, atol=1e-12)


def test_adjoint_refuses_a_quadratic_output():
    model = make("resnet", True)
    x = torch.randn(5, 4, dtype=torch.float64)
    with pytest.raises(InputError, match="linear output layer"):
        resnet_adjoint(model, x, torch.zeros(5, 3, dtype=torch.float64))
