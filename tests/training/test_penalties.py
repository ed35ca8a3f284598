"""Penalties of J_λ: eq. 2.4 (λ₁), the τ term (λ₂), bias ordering (eq. 2.5), time horizon."""

import math

import pytest
import torch

from surrogate.models.registry import build_model, model_config
from surrogate.training.penalties import (
    bias_ordering_penalty,
    regularisation,
    tau_penalty,
    time_horizon_penalty,
    weight_penalty,
)


def test_weight_and_tau_penalties_by_hand():
    w = [torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0]])]
    b = [torch.tensor([-1.0, 0.5])]
    # λ/2 [(1+4+9) + (1+2+3)] + λ/2 [(1+0.25) + (1+0.5)]
    assert math.isclose(float(weight_penalty(w, b, 0.1)), 0.05 * (14 + 6 + 1.25 + 1.5),
                        rel_tol=1e-6)
    assert math.isclose(float(tau_penalty(torch.tensor([0.5, 2.0]), 2.0)), 4.25 + 2.5)
    assert math.isclose(float(time_horizon_penalty(torch.tensor([0.5, 2.0]), 2.0, 4.0)), 0.5)


def test_bias_ordering_zero_iff_sorted():
    gen = torch.Generator().manual_seed(0)
    for _ in range(50):
        biases = [torch.randn(int(n), generator=gen) for n in torch.randint(1, 6, (3,))]
        value = float(bias_ordering_penalty(biases, 10.0))
        is_sorted = all(bool((b[1:] >= b[:-1]).all()) for b in biases)
        assert (value == 0.0) == is_sorted
        assert value >= 0.0
    sorted_biases = [torch.sort(torch.randn(7, generator=gen)).values]
    assert float(bias_ordering_penalty(sorted_biases, 10.0)) == 0.0
    # β/2 Σ max(0, b_j - b_{j+1})²: one violation of size 2 -> β/2 · 4
    assert math.isclose(float(bias_ordering_penalty([torch.tensor([0.0, 3.0, 1.0])], 10.0)), 20.0)


@pytest.mark.parametrize("arch", ["resnet", "frac-dnn", "densenet"])
def test_regularisation_uses_only_the_model_interface(arch):
    torch.manual_seed(0)
    config = model_config(arch=arch, in_features=3, out_features=2, width=4, depth=3,
                         time_horizon=1.0)
    model = build_model(config)
    total = regularisation(model, lambda1=0.1, lambda2=0.2, beta=10.0, horizon_weight=3.0)
    want = (weight_penalty(model.layer_weights(), model.layer_biases(), 0.1)
            + tau_penalty(model.taus(), 0.2)
            + bias_ordering_penalty(model.layer_biases(), 10.0)
            + time_horizon_penalty(model.taus(), 1.0, 3.0))
    torch.testing.assert_close(total, want)
    total.backward()
    assert model.steps.raw.grad is not None
    assert float(regularisation(model)) == 0.0


def test_exact_horizon_needs_no_penalty():
    config = model_config(arch="resnet", in_features=3, out_features=2, depth=4,
                         time_horizon=2.0, horizon_mode="exact")
    model = build_model(config)
    assert math.isclose(model.taus().sum().item(), 2.0, rel_tol=1e-6)
    assert float(regularisation(model, horizon_weight=5.0)) == 0.0
