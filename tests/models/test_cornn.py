"""coRNN (Rusch thesis eq. 2.3): the fused rollout against the plain per-step loop,
gradients against finite differences, implicit vs explicit damping as Δt → 0 (first
order), and the energy bounds of Propositions 2.2.4 and 2.2.9 (eqs. 2.10, 2.48)."""

import math

import pytest
import torch
from torch.func import functional_call

from surrogate.core.errors import InputError
from surrogate.models import cornn
from surrogate.models.cornn import CoRNNCell, CoRNNRollout

f64 = torch.float64


def make_cell(d=3, m=8, seed=0, **kwargs):
    torch.manual_seed(seed)
    return CoRNNCell(d, m, **kwargs).to(f64)


def sequence(n=4, steps=30, d=3, seed=1, scale=1.0):
    gen = torch.Generator().manual_seed(seed)
    return scale * torch.randn(n, steps, d, generator=gen, dtype=f64)


def all_states(cell, u, state=None):
    """ys, zs (N, T, m) of the fused rollout."""
    n, m = u.shape[0], cell.hidden
    y0, z0 = state if state is not None else (u.new_zeros(n, m), u.new_zeros(n, m))
    alpha, beta, dt = cell.coefficients()
    weight = torch.cat([cell.y_weight, cell.z_weight, cell.input_weight], dim=1)
    ys, zs = CoRNNRollout.apply(u.transpose(0, 1), weight, cell.input_bias, alpha, beta, dt,
                                float(cell.gamma), y0, z0)
    return ys.transpose(0, 1), zs.transpose(0, 1)


def outputs_and_gradients(cell, rollout, u, state, with_z=True):
    u = u.clone().requires_grad_(True)
    state = tuple(s.clone().requires_grad_(True) for s in state)
    ys, (_, z_last) = rollout(u, state)
    weights = torch.linspace(-1.0, 1.0, ys.numel(), dtype=f64).view_as(ys)
    loss = (ys * weights).sum() + (z_last ** 2).sum() * with_z
    leaves = [u, *state, *cell.parameters()]
    return ys.detach(), z_last.detach(), torch.autograd.grad(loss, leaves)


@pytest.mark.parametrize("damping", ["implicit", "explicit"])
@pytest.mark.parametrize("learn_dt", [False, True])
def test_fused_rollout_equals_per_step_loop(damping, learn_dt):
    cell = make_cell(dt=0.1, gamma=1.3, epsilon=2.0, damping=damping, learn_dt=learn_dt)
    u = sequence()
    gen = torch.Generator().manual_seed(5)
    state = (torch.randn(4, 8, generator=gen, dtype=f64), torch.randn(4, 8, generator=gen,
                                                                       dtype=f64))
    fused = outputs_and_gradients(cell, cell.forward, u, state)
    loop = outputs_and_gradients(cell, cell.forward_loop, u, state)
    torch.testing.assert_close(fused[0], loop[0], rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(fused[1], loop[1], rtol=1e-13, atol=1e-13)
    assert len(fused[2]) == 3 + (5 if learn_dt else 4)
    for g_fused, g_loop in zip(fused[2], loop[2], strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


def test_fused_gradients_when_only_the_outputs_are_used():
    """The backward path without a gradient on the final z (the read-out case)."""
    cell = make_cell(dt=0.1, damping="explicit", learn_dt=True)
    u = sequence()
    state = (u.new_zeros(4, 8), u.new_zeros(4, 8))
    fused = outputs_and_gradients(cell, cell.forward, u, state, with_z=False)
    loop = outputs_and_gradients(cell, cell.forward_loop, u, state, with_z=False)
    for g_fused, g_loop in zip(fused[2], loop[2], strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


def test_fused_gradients_when_only_the_final_z_is_used():
    """The backward path without a gradient on the hidden states ys (grad_ys is None)."""
    cell = make_cell(dt=0.1, damping="implicit", learn_dt=True)
    u = sequence()
    gen = torch.Generator().manual_seed(2)
    state = (torch.randn(4, 8, generator=gen, dtype=f64), torch.randn(4, 8, generator=gen,
                                                                       dtype=f64))
    results = []
    for rollout in (cell.forward, cell.forward_loop):
        leaves = [u.clone().requires_grad_(True), *(s.clone().requires_grad_(True)
                                                    for s in state), *cell.parameters()]
        _, (_, z_last) = rollout(leaves[0], (leaves[1], leaves[2]))
        results.append(torch.autograd.grad((z_last ** 3).sum(), leaves))
    for g_fused, g_loop in zip(*results, strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


def test_time_loops_are_torchscript_and_eager_fallback_agrees(monkeypatch):
    assert cornn.cornn_loops_fused()
    cell = make_cell(dt=0.2, learn_dt=True)
    u = sequence(steps=12)
    state = (u.new_zeros(4, 8), u.new_zeros(4, 8))
    scripted = outputs_and_gradients(cell, cell.forward, u, state)
    monkeypatch.setattr(cornn, "_FORWARD_LOOP", cornn.cornn_forward_loop)
    monkeypatch.setattr(cornn, "_BACKWARD_LOOP", cornn.cornn_backward_loop)
    eager = outputs_and_gradients(cell, cell.forward, u, state)
    torch.testing.assert_close(scripted[0], eager[0], rtol=0, atol=1e-15)
    for g_scripted, g_eager in zip(scripted[2], eager[2], strict=True):
        torch.testing.assert_close(g_scripted, g_eager, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("damping", ["implicit", "explicit"])
@pytest.mark.parametrize("learn_dt", [False, True])
def test_gradients_match_finite_differences(damping, learn_dt):
    cell = make_cell(d=2, m=3, dt=0.3, gamma=1.5, epsilon=0.8, damping=damping,
                     learn_dt=learn_dt)
    names = [name for name, _ in cell.named_parameters()]
    u = sequence(n=2, steps=5, d=2)
    gen = torch.Generator().manual_seed(3)
    y0 = torch.randn(2, 3, generator=gen, dtype=f64)
    z0 = torch.randn(2, 3, generator=gen, dtype=f64)
    params = [p.detach().clone() for p in cell.parameters()]

    def rollout(u, y0, z0, *values):
        ys, (y_last, z_last) = functional_call(cell, dict(zip(names, values, strict=True)),
                                               (u, (y0, z0)))
        return ys, z_last

    inputs = tuple(t.requires_grad_(True) for t in (u, y0, z0, *params))
    assert torch.autograd.gradcheck(rollout, inputs, eps=1e-6, atol=1e-8, rtol=1e-6)


def test_implicit_and_explicit_damping_agree_at_first_order_as_dt_shrinks():
    """On t ∈ [0, 1] with a smooth input the two versions differ by O(Δt) at t = 1."""
    d, m = 2, 6
    differences = []
    dts = [1 / 25, 1 / 50, 1 / 100, 1 / 200]
    for dt in dts:
        steps = round(1.0 / dt)
        t = torch.arange(1, steps + 1, dtype=f64) * dt
        u = torch.stack([torch.sin(2 * math.pi * t), torch.cos(3 * t)], dim=-1).expand(3, -1, -1)
        u = u * torch.tensor([1.0, 2.0, -1.5], dtype=f64).view(3, 1, 1)
        y_last = []
        for damping in ("implicit", "explicit"):
            cell = make_cell(d=d, m=m, seed=4, dt=dt, gamma=2.0, epsilon=3.0, damping=damping)
            with torch.no_grad():
                ys, (_, z_last) = cell(u)
            y_last.append(torch.cat([ys[:, -1], z_last], dim=1))
        differences.append((y_last[0] - y_last[1]).abs().max().item())
    orders = [math.log2(a / b) for a, b in zip(differences, differences[1:], strict=False)]
    assert differences[-1] < 1e-2
    assert all(0.9 < order < 1.1 for order in orders), (differences, orders)


def saturated_cell(m, dt, gamma, epsilon, damping, d=3):
    cell = make_cell(d=d, m=m, dt=dt, gamma=gamma, epsilon=epsilon, damping=damping)
    with torch.no_grad():
        for weight in (cell.input_weight, cell.input_bias, cell.y_weight, cell.z_weight):
            weight.mul_(20.0)
    return cell


def energy_ratio(cell, gamma, dt, steps=400):
    """max_n (y_nᵀy_n + z_nᵀz_n / γ) / (m t_n / γ) over a batch of random inputs."""
    u = sequence(n=32, steps=steps, d=3, scale=3.0)
    with torch.no_grad():
        ys, zs = all_states(cell, u)
    energy = (ys ** 2).sum(-1) + (zs ** 2).sum(-1) / gamma
    t = torch.arange(1, steps + 1, dtype=f64) * dt
    return (energy / (cell.hidden * t / gamma)).max().item()


@pytest.mark.parametrize("dt", [1.0, 0.5, 0.05])
def test_energy_bound_of_proposition_2_2_4(dt):
    """γ = ε = 1, implicit damping, Δt ≤ 1: y_nᵀy_n + z_nᵀz_n ≤ m t_n (eq. 2.10)."""
    cell = saturated_cell(16, dt, 1.0, 1.0, "implicit")
    ratio = energy_ratio(cell, 1.0, dt)
    assert ratio <= 1.0
    assert ratio > 0.05  # a real trajectory that the bound constrains


@pytest.mark.parametrize("damping, gamma, epsilon", [
    ("implicit", 2.7, 4.7), ("implicit", 0.5, 0.8),
    ("explicit", 2.7, 4.7), ("explicit", 1.0, 1.0), ("explicit", 0.3, 0.9),
])
def test_energy_bound_of_eq_2_48(damping, gamma, epsilon):
    """y_nᵀy_n + z_nᵀz_n / γ ≤ m t_n / γ for ε > 1/2 and Δt just inside the step condition:
    (2ε − 1)/γ for implicit damping (eq. 2.50), (2ε − 1)/(γ + ε²) for explicit (eq. 2.47)."""
    limit = (2 * epsilon - 1) / (gamma if damping == "implicit" else gamma + epsilon ** 2)
    dt = 0.95 * min(limit, 1.0)
    cell = saturated_cell(16, dt, gamma, epsilon, damping)
    ratio = energy_ratio(cell, gamma, dt)
    assert ratio <= 1.0
    assert ratio > 0.01


@pytest.mark.parametrize("damping, dt, gamma, epsilon", [
    ("explicit", 0.06, 0.1, 16.0), ("explicit", 0.016, 94.5, 9.5), ("implicit", 0.5, 2.7, 4.7),
])
def test_forcing_response_is_the_rollouts_input_gradient(damping, dt, gamma, epsilon):
    """With W = 𝒲 = 0, b = 0, V = 1 and u = 0 (tanh'(0) = 1), ∂y_T/∂u_n of the fused rollout
    is the linear part's response to a unit forcing at step n."""
    steps = 60
    cell = CoRNNCell(1, 1, dt, gamma, epsilon, damping).to(f64)
    with torch.no_grad():
        for weight in (cell.y_weight, cell.z_weight, cell.input_bias):
            weight.zero_()
        cell.input_weight.fill_(1.0)
    u = torch.zeros(1, steps, 1, dtype=f64, requires_grad=True)
    ys, _ = cell(u)
    ys[0, -1, 0].backward()
    expected = cornn.forcing_response(dt, gamma, epsilon, steps, damping)
    torch.testing.assert_close(u.grad[0, :, 0], expected, rtol=1e-12, atol=1e-300)
    assert expected[-1].item() == pytest.approx(dt * dt if damping == "explicit"
                                                else dt * dt / (1 + dt * epsilon))


def test_forcing_response_separates_memoryless_from_integrating_constants():
    """Δt ε ≈ 1 with small γ passes ≥ 83 % of a unit forcing from anywhere in 500 steps to
    y_T (a leaky integrator: y_n ≈ y_{n-1} + Δt² (σ_n − γ y_{n-1})); Table 2.8's adding
    constants pass < 10⁻⁸ of it from the first half."""
    integrating = cornn.forcing_response(0.06, 0.1, 16.0, 500, "explicit")
    assert (integrating / integrating.max()).min().item() == pytest.approx(0.830, abs=1e-3)
    assert integrating.max().item() == pytest.approx(0.06 / 16.0, rel=1e-3)  # Δt / ε
    table_2_8 = cornn.forcing_response(0.016, 94.5, 9.5, 500, "explicit")
    assert (table_2_8[:250].abs().max() / table_2_8.abs().max()).item() < 1e-8
    with pytest.raises(InputError, match="unknown damping 'semi'"):
        cornn.forcing_response(0.1, 1.0, 1.0, 5, "semi")


def test_state_follows_input_dtype():
    torch.manual_seed(0)
    cell = CoRNNCell(2, 4)
    ys, (y_last, z_last) = cell(torch.randn(3, 5, 2))
    assert ys.dtype == y_last.dtype == z_last.dtype == torch.float32
    ys64, _ = cell.to(f64)(torch.randn(3, 5, 2, dtype=f64))
    assert ys64.dtype == f64 and ys64.shape == (3, 5, 4)


def test_bad_inputs_raise_input_error():
    cell = CoRNNCell(2, 4)
    with pytest.raises(InputError, match=r"shape \(N, T, 2\)"):
        cell(torch.zeros(3, 5, 3))
    with pytest.raises(InputError, match=r"z0 must have shape \(3, 4\)"):
        cell(torch.zeros(3, 5, 2), (torch.zeros(3, 4), torch.zeros(4, 4)))
    with pytest.raises(InputError, match="unknown damping 'semi'"):
        CoRNNCell(2, 4, damping="semi")
    with pytest.raises(InputError, match="epsilon must be > 0"):
        CoRNNCell(2, 4, epsilon=-1.0)


@pytest.mark.parametrize("arch, default", [("lem", "kaiming"), ("cornn", "kaiming"),
                                           ("lstm", "uniform")])
def test_readout_init_option_and_defaults(arch, default):
    """readout_init: N(0, 2/m) (the LEM code's kaiming_normal_) or torch's U(±1/√m) (the
    coRNN code's nn.Linear); configs without the field (older runs) keep their arch's
    default, and the default draws the same weights as before the option existed."""
    from surrogate.models.registry import build_model, config_from_dict
    from surrogate.models.sequence_models import kaiming_readout

    m = 100
    fields = {"arch": arch, "in_features": 1, "out_features": 200, "hidden": m}
    config = config_from_dict(fields)
    assert config.readout_init == default
    std = {}
    for init in ("kaiming", "uniform"):
        torch.manual_seed(0)
        weight = build_model(config_from_dict({**fields, "readout_init": init})).readout.weight
        std[init] = weight.std().item()
        if init == "uniform":
            assert weight.abs().max() <= m ** -0.5
    assert abs(std["kaiming"] / (2 / m) ** 0.5 - 1) < 0.05
    assert abs(std["uniform"] / (1 / (3 * m)) ** 0.5 - 1) < 0.05
    torch.manual_seed(0)
    built = build_model(config).readout.weight
    torch.manual_seed(0)
    by_hand = build_model(config_from_dict({**fields, "readout_init": "uniform"}))
    if default == "kaiming":
        by_hand = kaiming_readout(by_hand)
    torch.testing.assert_close(built, by_hand.readout.weight, rtol=0, atol=0)
