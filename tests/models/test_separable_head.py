"""The separable model's linear head: u = Φθ with φ = (g(z) ⊗ t(x), 1) and its normal equations."""

import pytest
import torch

from surrogate.models.registry import build_model, model_config

pytestmark = pytest.mark.usefixtures("single_torch_thread")


def separable(**extra):
    torch.manual_seed(5)
    model = build_model(model_config(arch="deeponet", in_features=3 + 4, out_features=3,
                                     width=6, depth=2, basis=5, branch_width=7,
                                     branch_depth=2, activation="tanh", **extra)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.sin(1.0 + torch.arange(p.numel(), dtype=p.dtype)).view(p.shape))
    return model


def rows_of_problems(count=4, rows=23, seed=6):
    g = torch.Generator().manual_seed(seed)
    problems = torch.randn(count, 4, generator=g, dtype=torch.float64)
    which = torch.randint(count, (rows,), generator=g)
    return torch.cat([torch.randn(rows, 3, generator=g, dtype=torch.float64),
                      problems[which]], 1)


def explicit_features(model, rows):
    """Φ (N, A p + 1) built row by row: kron(g(z_i), t(x_i)), then 1."""
    head = model.linear_head()
    g = head.branch_features(rows[:, 3:])
    t = model.trunk_features(rows[:, :3])
    kron = (g[:, :, None] * t[:, None, :]).reshape(rows.shape[0], -1)  # index a·p + k
    return torch.cat([kron, torch.ones(rows.shape[0], 1, dtype=rows.dtype)], 1)


@pytest.mark.parametrize("quadratic", [True, False])
def test_the_output_is_linear_in_the_head_with_the_explicit_features(quadratic):
    model = separable(quadratic_output=quadratic)
    rows = rows_of_problems()
    with torch.no_grad():
        phi = explicit_features(model, rows)
        theta = model.linear_head().weights()
        assert theta.shape == ((14 if quadratic else 7) * 5 + 1, 3)
        torch.testing.assert_close(model(rows), phi @ theta, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("quadratic", [True, False])
def test_the_grouped_normal_equations_are_those_of_the_explicit_features(quadratic):
    model = separable(quadratic_output=quadratic)
    rows = rows_of_problems()
    targets = torch.randn(rows.shape[0], 3, dtype=torch.float64)
    gram, moment = model.linear_head().normal_equations(rows, targets)
    with torch.no_grad():
        phi = explicit_features(model, rows)
    assert gram.dtype == moment.dtype == torch.float64
    torch.testing.assert_close(gram, phi.T @ phi, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(moment, phi.T @ targets, rtol=1e-12, atol=1e-12)
    # every row its own problem (no grouping), and very unequal groups (one of 20 rows and
    # 20 of one: summed by scatter, not padded) give the same equations
    shift = torch.arange(rows.shape[0], dtype=rows.dtype)[:, None]
    unequal = torch.cat([rows, rows[:20]])
    unequal[:20, 3:] = unequal[0, 3:]
    unequal[20:, 3:] += 1e-3 * shift[:23]
    for other in (torch.cat([rows[:, :3], rows[:, 3:] + 1e-3 * shift], 1), unequal):
        other_targets = torch.randn(other.shape[0], 3, dtype=torch.float64)
        gram_o, moment_o = model.linear_head().normal_equations(other, other_targets)
        with torch.no_grad():
            phi_o = explicit_features(model, other)
        torch.testing.assert_close(gram_o, phi_o.T @ phi_o, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(moment_o, phi_o.T @ other_targets, rtol=1e-12, atol=1e-12)


def test_assign_sets_the_read_out_and_bias_and_round_trips():
    model = separable(quadratic_output=True)
    head = model.linear_head()
    theta = head.weights().detach().clone()
    head.assign(theta)
    torch.testing.assert_close(head.weights(), theta, rtol=0, atol=0)
    other = torch.randn_like(theta)
    head.assign(other)
    torch.testing.assert_close(head.weights(), other, rtol=0, atol=0)
    torch.testing.assert_close(model.output_bias.detach(), other[-1], rtol=0, atol=0)
    rows = rows_of_problems()
    with torch.no_grad():
        torch.testing.assert_close(model(rows), explicit_features(model, rows) @ other,
                                   rtol=1e-12, atol=1e-12)
