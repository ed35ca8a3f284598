"""LEM (Rusch thesis eq. 5.3): the fused rollout against the plain per-step loop, gradients
against finite differences, the LSTM special case of §5.1, the hidden-state bound of
Proposition 5.2.1, and input checking."""

import pytest
import torch
from torch.func import functional_call

from surrogate.core.errors import InputError
from surrogate.models import lem
from surrogate.models.lem import LEMCell

f64 = torch.float64


def make_cell(d=3, m=8, seed=0, **kwargs):
    torch.manual_seed(seed)
    return LEMCell(d, m, **kwargs).to(f64)


def sequence(n=4, steps=30, d=3, seed=1, scale=1.0):
    gen = torch.Generator().manual_seed(seed)
    return scale * torch.randn(n, steps, d, generator=gen, dtype=f64)


def all_states(cell, u, y0, z0):
    """ys, zs (N, T, m) of the fused rollout from (y0, z0)."""
    ys, zs = lem.LEMRollout.apply(u.transpose(0, 1), cell.input_weight, cell.input_bias,
                                  cell.gate_weight, cell.z_weight, cell.dt, y0, z0)
    return ys.transpose(0, 1), zs.transpose(0, 1)


def outputs_and_gradients(cell, rollout, u, state, with_z=True):
    """ys, final z, and the gradients of a loss touching every step and z_T."""
    u = u.clone().requires_grad_(True)
    state = tuple(s.clone().requires_grad_(True) for s in state)
    ys, (_, z_last) = rollout(u, state)
    weights = torch.linspace(-1.0, 1.0, ys.numel(), dtype=f64).view_as(ys)
    loss = (ys * weights).sum() + (z_last ** 2).sum() * with_z
    leaves = [u, *state, *cell.parameters()]
    return ys.detach(), z_last.detach(), torch.autograd.grad(loss, leaves)


@pytest.mark.parametrize("learn_dt", [False, True])
def test_fused_rollout_equals_per_step_loop(learn_dt):
    cell = make_cell(dt=0.7, learn_dt=learn_dt)
    u = sequence()
    gen = torch.Generator().manual_seed(5)
    state = (torch.randn(4, 8, generator=gen, dtype=f64), torch.randn(4, 8, generator=gen,
                                                                       dtype=f64))
    fused = outputs_and_gradients(cell, cell.forward, u, state)
    loop = outputs_and_gradients(cell, cell.forward_loop, u, state)
    torch.testing.assert_close(fused[0], loop[0], rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(fused[1], loop[1], rtol=1e-13, atol=1e-13)
    assert len(fused[2]) == len(loop[2]) == 3 + (5 if learn_dt else 4)
    for g_fused, g_loop in zip(fused[2], loop[2], strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("chunk", [1, 7, 30, 64])
def test_backward_chunks_of_any_size_give_the_same_gradients(monkeypatch, chunk):
    """The backward folds its pre-activation gradients into the weights every ``chunk``
    steps (a last, shorter chunk included): the gradients do not depend on it."""
    monkeypatch.setattr(lem, "BACKWARD_CHUNK_BYTES", chunk * 4 * 4 * 8 * 8)  # N 4, 4m 32, f64
    cell = make_cell(dt=0.7, learn_dt=True)
    u = sequence()
    state = (u.new_zeros(4, 8), u.new_zeros(4, 8))
    fused = outputs_and_gradients(cell, cell.forward, u, state)
    loop = outputs_and_gradients(cell, cell.forward_loop, u, state)
    for g_fused, g_loop in zip(fused[2], loop[2], strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


def test_fused_gradients_when_only_the_outputs_are_used():
    """The backward path without a gradient on the final z (the read-out case)."""
    cell = make_cell(dt=0.7, learn_dt=True)
    u = sequence()
    state = (u.new_zeros(4, 8), u.new_zeros(4, 8))
    fused = outputs_and_gradients(cell, cell.forward, u, state, with_z=False)
    loop = outputs_and_gradients(cell, cell.forward_loop, u, state, with_z=False)
    for g_fused, g_loop in zip(fused[2], loop[2], strict=True):
        torch.testing.assert_close(g_fused, g_loop, rtol=1e-11, atol=1e-12)


def test_time_loops_are_torchscript_and_eager_fallback_agrees(monkeypatch):
    assert lem.lem_loops_fused()
    cell = make_cell(dt=0.5, learn_dt=True)
    u = sequence(steps=12)
    state = (u.new_zeros(4, 8), u.new_zeros(4, 8))
    scripted = outputs_and_gradients(cell, cell.forward, u, state)
    monkeypatch.setattr(lem, "_FORWARD_LOOP", lem.lem_forward_loop)
    monkeypatch.setattr(lem, "_BACKWARD_LOOP", lem.lem_backward_loop)
    eager = outputs_and_gradients(cell, cell.forward, u, state)
    torch.testing.assert_close(scripted[0], eager[0], rtol=0, atol=1e-15)
    for g_scripted, g_eager in zip(scripted[2], eager[2], strict=True):
        torch.testing.assert_close(g_scripted, g_eager, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("learn_dt", [False, True])
def test_gradients_match_finite_differences(learn_dt):
    cell = make_cell(d=2, m=3, dt=0.8, learn_dt=learn_dt)
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


def test_forced_gates_give_torch_lstm():
    """§5.1: with Δt = 1, the output gate Δt̄_n ≡ 1 and W_y = I, V_y = 0, b_y = 0, LEM is the
    LSTM (5.6) with c_n = z_n, h_n = y_n, i_n = Δt_n, f_n = 1 − Δt_n, o_n = 1."""
    d, m, steps = 3, 5, 40
    cell = make_cell(d=d, m=m, dt=1.0)
    with torch.no_grad():
        cell.gate_weight[m:2 * m].zero_()
        cell.input_weight[m:2 * m].zero_()
        cell.input_bias[m:2 * m] = 50.0  # σ̂(50) == 1.0 in float64: the forced gate Δt̄_n = 1
        cell.z_weight.copy_(torch.eye(m, dtype=f64))
        cell.input_weight[3 * m:].zero_()
        cell.input_bias[3 * m:].zero_()
    w1, _, wz = cell.gate_weight.detach().split(m)
    v1, _, vz, _ = cell.input_weight.detach().split(m)
    b1, _, bz, _ = cell.input_bias.detach().split(m)
    lstm = torch.nn.LSTM(d, m, batch_first=True).to(f64)
    with torch.no_grad():  # torch's gate order: input, forget, cell, output
        lstm.weight_hh_l0.copy_(torch.cat([w1, -w1, wz, torch.zeros(m, m, dtype=f64)]))
        lstm.weight_ih_l0.copy_(torch.cat([v1, -v1, vz, torch.zeros(m, d, dtype=f64)]))
        lstm.bias_ih_l0.copy_(torch.cat([b1, -b1, bz, torch.full((m,), 50.0, dtype=f64)]))
        lstm.bias_hh_l0.zero_()
    u = sequence(n=6, steps=steps, d=d)
    h_lstm, (_, c_lstm) = lstm(u)
    ys, (_, z_last) = cell(u)
    torch.testing.assert_close(ys, h_lstm, rtol=0, atol=1e-14)
    torch.testing.assert_close(z_last, c_lstm[0], rtol=0, atol=1e-14)
    assert ys.abs().max() > 0.3  # a real, non-trivial trajectory


@pytest.mark.parametrize("dt, learn_dt", [(1.0, False), (0.3, False), (0.9, True)])
def test_hidden_states_bounded_as_in_proposition_5_2_1(dt, learn_dt):
    """|z_n| ≤ max(|z_0|, 1) and |y_n| ≤ max(|y_0|, 1) entrywise for Δt ≤ 1 (proof of
    Prop. 5.2.1, eq. 5.10); from zero initial states the states stay in [-1, 1]."""
    d, m = 3, 16
    cell = make_cell(d=d, m=m, dt=dt, learn_dt=learn_dt)
    with torch.no_grad():
        for weight in (cell.input_weight, cell.input_bias, cell.gate_weight, cell.z_weight):
            weight.mul_(8.0)  # large weights: saturated gates, the worst case
        if learn_dt:
            cell.dt_raw.uniform_(-3.0, 0.5)  # per-unit Δt = softplus(ρ) in (0.05, 0.98)
    assert cell.dt.max() <= 1.0
    u = sequence(n=16, steps=300, d=d, scale=5.0)
    gen = torch.Generator().manual_seed(9)
    y0 = 4.0 * torch.randn(16, m, generator=gen, dtype=f64)
    z0 = 4.0 * torch.randn(16, m, generator=gen, dtype=f64)
    with torch.no_grad():
        ys, zs = all_states(cell, u, y0, z0)
        ys_zero, zs_zero = all_states(cell, u, 0 * y0, 0 * z0)
    y_bound = torch.clamp(y0.abs(), min=1.0).unsqueeze(1)
    z_bound = torch.clamp(z0.abs(), min=1.0).unsqueeze(1)
    assert (ys.abs() <= y_bound).all()
    assert (zs.abs() <= z_bound).all()
    assert ys_zero.abs().max() <= 1.0 and zs_zero.abs().max() <= 1.0
    assert ys_zero.abs().max() > 0.9  # the bound is reached closely, not vacuous


def test_state_follows_input_dtype():
    torch.manual_seed(0)
    cell = LEMCell(2, 4)
    ys, (y_last, z_last) = cell(torch.randn(3, 5, 2))
    assert ys.dtype == y_last.dtype == z_last.dtype == torch.float32
    ys64, _ = cell.to(f64)(torch.randn(3, 5, 2, dtype=f64))
    assert ys64.dtype == f64 and ys64.shape == (3, 5, 4)


@pytest.mark.parametrize("bad, match", [
    (torch.zeros(3, 2), r"shape \(N, T, 2\)"),
    (torch.zeros(3, 5, 4), r"shape \(N, T, 2\)"),
    (torch.zeros(3, 0, 2), r"N, T >= 1"),
    (torch.zeros(3, 5, 2, dtype=torch.int64), "floating-point"),
    (torch.zeros(3, 5, 2, dtype=f64), "model is torch.float32"),
    ([[0.0, 1.0]], "torch.Tensor"),
])
def test_bad_inputs_raise_input_error(bad, match):
    cell = LEMCell(2, 4)
    with pytest.raises(InputError, match=match):
        cell(bad)


def test_bad_state_raises_input_error():
    cell = LEMCell(2, 4)
    u = torch.zeros(3, 5, 2)
    with pytest.raises(InputError, match=r"y0 must have shape \(3, 4\)"):
        cell(u, (torch.zeros(3, 5), torch.zeros(3, 4)))
    with pytest.raises(InputError, match="pair"):
        cell(u, torch.zeros(3, 4))
    with pytest.raises(InputError, match="dt must be > 0"):
        LEMCell(2, 4, dt=0.0)


def authors_style_rollout(u, weights, b_in, b_hid, b_tz, dt):
    """Eq. 5.3 with the authors' three affine maps, each with its own bias (inp2hid (4m),
    hid2hid (3m), transform_z (m)), written out per step; u (N, T, d) -> ys (N, T, m)."""
    w_in, w_gate, w_z = weights
    m = w_z.shape[0]
    y = u.new_zeros(u.shape[0], m)
    z = u.new_zeros(u.shape[0], m)
    ys = []
    for n in range(u.shape[1]):
        i = u[:, n] @ w_in.t() + b_in
        h = y @ w_gate.t() + b_hid
        dt_n = dt * torch.sigmoid(i[:, :m] + h[:, :m])
        dt_bar = dt * torch.sigmoid(i[:, m:2 * m] + h[:, m:2 * m])
        z = (1 - dt_n) * z + dt_n * torch.tanh(i[:, 2 * m:3 * m] + h[:, 2 * m:])
        y = (1 - dt_bar) * y + dt_bar * torch.tanh(z @ w_z.t() + b_tz + i[:, 3 * m:])
        ys.append(y)
    return torch.stack(ys, dim=1)


def test_split_bias_is_the_authors_parameterisation():
    """split_bias: output and gradients of the authors' three-bias cell, both bias halves get
    the gradient a single bias would, and one Adam step moves their sum twice as far."""
    m = 8
    cell = make_cell(m=m, dt=0.7, split_bias=True)
    single = make_cell(m=m, dt=0.7)
    with torch.no_grad():
        single.input_bias.copy_(cell.input_bias + cell.recurrent_bias)
        for name in ("input_weight", "gate_weight", "z_weight"):
            getattr(single, name).copy_(getattr(cell, name))
    u = sequence()
    weights = torch.linspace(-1.0, 1.0, 4 * 30 * m, dtype=f64).view(4, 30, m)
    ys = cell(u)[0]
    reference = authors_style_rollout(u, (cell.input_weight, cell.gate_weight, cell.z_weight),
                                      cell.input_bias, cell.recurrent_bias[:3 * m],
                                      cell.recurrent_bias[3 * m:], 0.7)
    torch.testing.assert_close(ys, reference, rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(ys, single(u)[0], rtol=1e-13, atol=1e-13)
    g_in, g_rec = torch.autograd.grad((ys * weights).sum(), [cell.input_bias,
                                                             cell.recurrent_bias])
    (g_single,) = torch.autograd.grad((single(u)[0] * weights).sum(), [single.input_bias])
    torch.testing.assert_close(g_in, g_single, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(g_rec, g_single, rtol=1e-12, atol=1e-14)
    before = (cell.bias.detach().clone(), single.input_bias.detach().clone())
    for model in (cell, single):
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
        (model(u)[0] * weights).sum().backward()
        optimiser.step()
    step_split = cell.bias.detach() - before[0]
    step_single = single.input_bias.detach() - before[1]
    torch.testing.assert_close(step_split, 2 * step_single, rtol=1e-9, atol=1e-15)
    assert step_single.abs().min() > 0.9e-3  # Adam's first step: lr per coordinate


def test_split_bias_default_off_keeps_the_state_dict_and_initialisation():
    """Runs saved before the option load unchanged: no new key, the same initial values."""
    plain = make_cell()
    assert not plain.split_bias and "recurrent_bias" not in plain.state_dict()
    assert sorted(plain.state_dict()) == ["gate_weight", "input_bias", "input_weight",
                                          "z_weight"]
    split = make_cell(split_bias=True)
    for name, value in plain.state_dict().items():
        torch.testing.assert_close(split.state_dict()[name], value, rtol=0, atol=0)
    bound = 1.0 / 8 ** 0.5
    assert split.recurrent_bias.abs().max() <= bound
    assert "split_bias=True" in repr(split)


def test_split_bias_config_builds_and_old_configs_load():
    from surrogate.models.registry import build_model, config_from_dict

    old = config_from_dict({"arch": "lem", "in_features": 1, "out_features": 1, "hidden": 16})
    assert old.split_bias is False
    torch.manual_seed(0)
    model = build_model(config_from_dict({**old.to_dict(), "split_bias": True}))
    count = sum(p.numel() for p in model.parameters())
    torch.manual_seed(0)
    base = build_model(old)
    assert count - sum(p.numel() for p in base.parameters()) == 4 * 16
    assert count == 1233  # the authors' LEM on FitzHugh-Nagumo (16 units): 1,233 parameters
    model.load_state_dict(model.state_dict())
    with pytest.raises(RuntimeError, match="recurrent_bias"):
        base.load_state_dict(model.state_dict())
