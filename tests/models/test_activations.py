"""Activations: the paper's smoothReLU (§7) and the explicit derivatives σ'."""

import pytest
import torch

from surrogate.models.activations import ReLU, SiLU, SmoothReLU, Softplus, Tanh


def test_smooth_relu_matches_piecewise_definition():
    eta = 1e-4
    y = torch.cat([torch.linspace(-3e-4, 3e-4, 601, dtype=torch.float64),
                   torch.tensor([-2.0, 0.5, 7.0], dtype=torch.float64)])
    inside = y.abs() <= eta
    want = torch.where(inside, y ** 2 / (4 * eta) + 0.5 * y + 0.25 * eta, torch.clamp(y, min=0))
    torch.testing.assert_close(SmoothReLU(eta)(y), want, rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize("act", [SmoothReLU(), ReLU(), Tanh(), Softplus(), SiLU()])
def test_derivative_matches_autograd(act):
    z = torch.cat([torch.linspace(-3, 3, 101), torch.linspace(-3e-4, 3e-4, 101)]).double()
    z = z[z != 0].requires_grad_(True)
    (grad,) = torch.autograd.grad(act(z).sum(), z)
    torch.testing.assert_close(act.derivative(z), grad, rtol=1e-12, atol=1e-12)
    value, slope = act.value_and_derivative(z)
    torch.testing.assert_close(value, act(z))
    torch.testing.assert_close(slope, grad, rtol=1e-12, atol=1e-12)
