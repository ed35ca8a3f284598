"""Memory coefficients a_{ℓ,j} and trajectory kernel of the variable-τ Fractional-DNN."""

import math

import pytest
import torch

from surrogate.models.caputo_memory import memory_coefficients, tail_sums, trajectory_kernel

f64 = torch.float64


def literal_coefficients(taus, gamma):
    """a_{ℓ,j} = (τ^ℓ)^γ/τ^j [(Σ_{i=j}^ℓ τ^i)^{1-γ} - (Σ_{i=j+1}^ℓ τ^i)^{1-γ}] (§5.2)."""
    t = [float(v) for v in taus]
    a = torch.zeros(len(t), len(t), dtype=f64)
    for ell in range(len(t)):
        for j in range(ell):
            a[ell, j] = t[ell] ** gamma / t[j] * (sum(t[j:ell + 1]) ** (1 - gamma)
                                                  - sum(t[j + 1:ell + 1]) ** (1 - gamma))
    return a


@pytest.mark.parametrize("gamma", [0.1, 0.5, 0.9])
def test_coefficients_match_formula_on_nonuniform_grid(gamma):
    taus = torch.tensor([0.3, 0.05, 1.2, 0.7, 0.01, 0.4], dtype=f64)
    torch.testing.assert_close(memory_coefficients(taus, gamma), literal_coefficients(taus, gamma),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("tau", [0.1, 1.0, 3.0])
def test_equal_steps_give_section4_coefficients(tau):
    gamma, depth = 0.4, 7
    a = memory_coefficients(torch.full((depth,), tau, dtype=f64), gamma)
    for ell in range(depth):
        for j in range(depth):
            want = (ell - j + 1) ** (1 - gamma) - (ell - j) ** (1 - gamma) if j < ell else 0.0
            assert math.isclose(float(a[ell, j]), want, rel_tol=1e-12, abs_tol=1e-15)


def test_tiny_steps_stay_accurate_in_float32():
    taus = torch.tensor([1e-7, 2.0, 1e-6, 0.5, 3e-8, 1.0], dtype=f64)
    ref = memory_coefficients(taus, 0.5)
    got = memory_coefficients(taus.float(), 0.5).double()
    torch.testing.assert_close(got, ref, rtol=2e-5, atol=1e-12)
    torch.testing.assert_close(ref, literal_coefficients(taus, 0.5), rtol=1e-8, atol=1e-14)


def test_tail_sums():
    taus = torch.tensor([1.0, 2.0, 4.0], dtype=f64)
    want = torch.tensor([[1, 0, 0], [3, 2, 0], [7, 6, 4]], dtype=f64)
    torch.testing.assert_close(tail_sums(taus), want)


def test_kernel_reproduces_recursion_of_eq_5_7():
    """ŷ^[k+1] = Σ_j K[k,j] s_j equals the explicit memory recursion for any forcing s."""
    gamma = 0.35
    taus = torch.tensor([0.2, 0.9, 0.05, 0.4, 0.6], dtype=f64)
    forcing = torch.randn(5, 3, generator=torch.Generator().manual_seed(0), dtype=f64)
    a = literal_coefficients(taus, gamma)
    gains = taus ** gamma * math.gamma(2 - gamma)
    y = [torch.zeros(3, dtype=f64)]
    for ell in range(1, 6):
        memory = sum((a[ell - 1, j] * (y[j + 1] - y[j]) for j in range(ell - 1)),
                     torch.zeros(3, dtype=f64))
        y.append(y[ell - 1] - memory + gains[ell - 1] * forcing[ell - 1])
    kernel = trajectory_kernel(taus, gamma)
    torch.testing.assert_close(kernel @ forcing, torch.stack(y[1:]), rtol=1e-12, atol=1e-14)
    assert torch.equal(kernel, torch.tril(kernel))


def test_coefficient_gradients_match_finite_differences():
    taus = torch.tensor([0.3, 0.8, 0.2, 0.5], dtype=f64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: memory_coefficients(t, 0.6), (taus,))
    assert torch.autograd.gradcheck(lambda t: trajectory_kernel(t, 0.6), (taus,))
