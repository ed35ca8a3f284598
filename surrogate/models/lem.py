"""LEM, the long expressive memory cell (Rusch, thesis ch. 5, eq. 5.3), with a fused rollout.

For steps ``n = 1 … T`` with input ``u_n ∈ R^d`` and states ``y_n, z_n ∈ R^m``::

    Δt_n  = Δt σ̂(W₁ y_{n-1} + V₁ u_n + b₁),   Δt̄_n = Δt σ̂(W₂ y_{n-1} + V₂ u_n + b₂),
    z_n   = (1 − Δt_n) ⊙ z_{n-1} + Δt_n ⊙ σ(W_z y_{n-1} + V_z u_n + b_z),
    y_n   = (1 − Δt̄_n) ⊙ y_{n-1} + Δt̄_n ⊙ σ(W_y z_n + V_y u_n + b_y),

σ = tanh, σ̂ the sigmoid, ``Δt`` a scalar or one positive value per unit.

The rollout is one :class:`torch.autograd.Function`. Its forward time loop (TorchScript,
eager fallback) keeps no autograd graph: per step one small matmul projects the input,
``[V u_n + b]`` (N, 4m), one gives the three gate pre-activations from y_{n-1}, one the
output pre-activation from z_n; states, gate sigmoids and activations go into preallocated
buffers (what the backward needs). The backward is one hand-written BPTT loop that forms
each step's coefficients from those buffers in (N, 2m) scratch space (no (T, N, ·)
temporaries) with two small matmuls per step; it folds the pre-activation gradients into
the weight gradients every :data:`BACKWARD_CHUNK_BYTES` (4 MiB) with one matmul per weight
(for ``[V | b]``: ``([u, 1]ᵀ g)ᵀ``, BLAS' fast shape for small d): no (T, N, 4m) gradient,
whose first-touch page faults cost more than the arithmetic at 128 units. Both loops reach
per-step slices through lists of views made once (``unbind``) and scratch buffers with fixed
views, so a step costs its arithmetic only (about ten kernel calls). No second derivatives.
The hidden-state bound of Prop. 5.2.1 needs ``Δt ≤ 1`` (a learned ``Δt`` is not capped).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import torch
from torch import Tensor, nn
from torch.autograd.function import once_differentiable
from torch.nn import functional as F

from surrogate.core.errors import InputError


def fuse_loop(function: Callable) -> tuple[Callable, bool]:
    """``(torch.jit.script(function), True)``, or ``(function, False)`` where scripting fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.jit.script(function), True
    except Exception:  # TorchScript missing, deprecated away, or no source: run eagerly
        return function, False


def softplus_inverse(value: float) -> float:
    """``ρ`` with ``softplus(ρ) = value`` (value > 0), stable for small and large values."""
    return value + math.log(-math.expm1(-value))


def lem_forward_loop(u: Tensor, input_weight_t: Tensor, input_bias: Tensor,
                     gate_weight_t: Tensor, z_weight_t: Tensor, dt2: Tensor, y0: Tensor,
                     z0: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Eq. 5.3 for all steps, writing into preallocated outputs.

    u (T, N, d) time first (any strides), input_weight_t (d, 4m) = [V₁; V₂; V_z; V_y]ᵀ,
    input_bias (4m,), gate_weight_t (m, 3m) = [W₁; W₂; W_z]ᵀ, z_weight_t (m, m) = W_yᵀ,
    dt2 (2m,) = [Δt, Δt], y0, z0 (N, m). The input projection [V₁u+b₁, V₂u+b₂, V_z u+b_z,
    V_y u+b_y] of step n is formed in an (N, 4m) scratch buffer (no (T, N, 4m) tensor).
    Returns states (T+1, N, 2m) = [z_n, y_n] for n = 0 … T, the gate sigmoids
    (T, N, 2m) = [σ̂(A_{n-1}), σ̂(B_{n-1})] and the activations (T, N, 2m) =
    [σ(C_{n-1}), σ(D_n)] (what the backward pass needs)."""
    steps = u.shape[0]
    n_batch = y0.shape[0]
    m = y0.shape[1]
    dtype = y0.dtype
    device = y0.device
    states = torch.empty((steps + 1, n_batch, 2 * m), dtype=dtype, device=device)
    sig = torch.empty((steps, n_batch, 2 * m), dtype=dtype, device=device)
    act = torch.empty_like(sig)
    states[0, :, :m] = z0
    states[0, :, m:] = y0
    # per-step views made once (one C++ call each) instead of ~30 indexing calls per step
    u_at = u.unbind(0)
    z_at = states[:, :, :m].unbind(0)
    y_at = states[:, :, m:].unbind(0)
    sig_at = sig.unbind(0)
    act_z = act[:, :, :m].unbind(0)
    act_y = act[:, :, m:].unbind(0)
    # scratch buffers with fixed views
    proj = torch.empty((n_batch, 4 * m), dtype=dtype, device=device)
    proj_gate = proj[:, :3 * m]
    proj_y = proj[:, 3 * m:]
    h = torch.empty((n_batch, 3 * m), dtype=dtype, device=device)
    h_gate = h[:, :2 * m]
    h_z = h[:, 2 * m:]
    gates = torch.empty((n_batch, 2 * m), dtype=dtype, device=device)
    gate_z = gates[:, :m]
    gate_y = gates[:, m:]
    for n in range(steps):
        torch.addmm(input_bias, u_at[n], input_weight_t, out=proj)
        torch.addmm(proj_gate, y_at[n], gate_weight_t, out=h)
        torch.mul(torch.sigmoid(h_gate, out=sig_at[n]), dt2, out=gates)
        tz = torch.tanh(h_z, out=act_z[n])
        z_new = torch.lerp(z_at[n], tz, gate_z, out=z_at[n + 1])
        ty = torch.tanh(torch.addmm(proj_y, z_new, z_weight_t), out=act_y[n])
        torch.lerp(y_at[n], ty, gate_y, out=y_at[n + 1])
    return states, sig, act


def lem_backward_loop(grad_ys: Tensor, grad_zs: Tensor, has_grad_zs: bool, states: Tensor,
                      sig: Tensor, act: Tensor, dt2: Tensor, gate_weight: Tensor,
                      z_weight: Tensor, input_weight: Tensor, u_ones: Tensor, need_grad_u: bool,
                      keep_dt: bool, chunk: int) -> list[Tensor]:
    """BPTT of eq. 5.3 from the forward loop's buffers (see :func:`lem_forward_loop`).

    grad_ys, grad_zs (T, N, m) any strides (grad_zs unused unless ``has_grad_zs``);
    input_weight (4m, d); u_ones (T·N, d + 1) = [u, 1] time-major. Every step first forms
    the coefficients of its linearised update in (N, 2m) scratch buffers: gates
    [Δt_n, Δt̄_n] = dt2 ⊙ σ̂, ``coef_act`` = gates ⊙ (1 − σ²) = [Δt_n σ'(C), Δt̄_n σ'(D)],
    ``coef_gate`` = (σ − [z_{n-1}, y_{n-1}]) ⊙ gates ⊙ (1 − σ̂) = [(σ(C) − z_{n-1}) Δt σ̂'(A),
    (σ(D) − y_{n-1}) Δt σ̂'(B)], and writes the gradient g_n (N, 4m) of its pre-activations
    [A, B, C, D] into a buffer of ``chunk`` steps; each full chunk is folded into the weight
    gradients at once (W₁₂z += g[:, :3m]ᵀ y_{n-1}, W_y += g[:, 3m:]ᵀ z_n, [V | b] +=
    ([u, 1]ᵀ g)ᵀ), so no (T, N, 4m) tensor is allocated and the chunk stays in cache.
    Returns [[u, 1]ᵀ g (d + 1, 4m), grad gate_weight (3m, m), grad z_weight (m, m), grad u
    (T·N, d) (empty unless ``need_grad_u``), the adjoint of the initial state (N, 2m) =
    [z₀, y₀], the gradient (2m,) with respect to dt2 (empty unless
    ``keep_dt``)]."""
    steps = grad_ys.shape[0]
    n_batch = grad_ys.shape[1]
    m = grad_ys.shape[2]
    d = u_ones.shape[1] - 1
    dtype = grad_ys.dtype
    device = grad_ys.device
    width = min(chunk, steps)
    grad_chunk = torch.empty((width, n_batch, 4 * m), dtype=dtype, device=device)
    # per-step views made once (see lem_forward_loop); chunk slot j holds step lo + j
    g_ab = grad_chunk[:, :, :2 * m].unbind(0)
    g_abc = grad_chunk[:, :, :3 * m].unbind(0)
    g_c = grad_chunk[:, :, 2 * m:3 * m].unbind(0)
    g_d = grad_chunk[:, :, 3 * m:].unbind(0)
    sig_at = sig.unbind(0)
    act_at = act.unbind(0)
    prev_at = states.unbind(0)
    g_ys = grad_ys.unbind(0)
    g_zs = grad_zs.unbind(0)
    y_prev = states[:-1, :, m:]
    z_new = states[1:, :, :m]
    grad_input = torch.zeros((d + 1, 4 * m), dtype=dtype, device=device)
    grad_gate = torch.zeros((3 * m, m), dtype=dtype, device=device)
    grad_z = torch.zeros((m, m), dtype=dtype, device=device)
    if need_grad_u:
        grad_u = torch.empty((steps * n_batch, d), dtype=dtype, device=device)
    else:
        grad_u = grad_chunk.new_empty((0, d))
    # (N, 2m) scratch buffers with fixed views
    gates = torch.empty((n_batch, 2 * m), dtype=dtype, device=device)
    coef_act = torch.empty_like(gates)
    coef_act_z = coef_act[:, :m]
    coef_act_y = coef_act[:, m:]
    coef_gate = torch.empty_like(gates)
    tmp = torch.empty_like(gates)
    adj = torch.empty_like(gates)  # [∂/∂z_n, ∂/∂y_n] in total
    adj_z = adj[:, :m]
    adj_y = adj[:, m:]
    carry = torch.zeros_like(gates)  # what step n+1 passes back to [z_n, y_n]
    carry_z = carry[:, :m]
    carry_y = carry[:, m:]
    if keep_dt:
        dt_acc = torch.zeros_like(gates)
    else:
        dt_acc = gates.new_empty((0, 2 * m))
    hi = steps
    while hi > 0:
        lo = max(0, hi - width)
        for n in range(hi - 1, lo - 1, -1):
            j = n - lo
            s = sig_at[n]
            a = act_at[n]
            torch.mul(s, dt2, out=gates)
            torch.mul(a, a, out=tmp)
            torch.addcmul(gates, gates, tmp, value=-1.0, out=coef_act)
            torch.sub(a, prev_at[n], out=tmp)
            torch.addcmul(gates, gates, s, value=-1.0, out=coef_gate).mul_(tmp)
            torch.add(carry_y, g_ys[n], out=adj_y)
            g_dn = torch.mul(adj_y, coef_act_y, out=g_d[j])
            if has_grad_zs:
                torch.add(carry_z, g_zs[n], out=adj_z).addmm_(g_dn, z_weight)
            else:
                torch.addmm(carry_z, g_dn, z_weight, out=adj_z)
            torch.mul(adj, coef_gate, out=g_ab[j])
            torch.mul(adj_z, coef_act_z, out=g_c[j])
            if keep_dt:
                dt_acc.addcmul_(adj, tmp.mul_(s))
            torch.addcmul(adj, adj, gates, value=-1.0, out=carry)
            carry_y.addmm_(g_abc[j], gate_weight)
        rows = (hi - lo) * n_batch
        flat = grad_chunk[:hi - lo].view(rows, 4 * m)
        grad_gate.addmm_(flat[:, :3 * m].t(), y_prev[lo:hi].reshape(rows, m))
        grad_z.addmm_(flat[:, 3 * m:].t(), z_new[lo:hi].reshape(rows, m))
        grad_input.addmm_(u_ones[lo * n_batch:hi * n_batch].t(), flat)
        if need_grad_u:
            torch.mm(flat, input_weight, out=grad_u[lo * n_batch:hi * n_batch])
        hi = lo
    return [grad_input, grad_gate, grad_z, grad_u, carry, dt_acc.sum(0)]


BACKWARD_CHUNK_BYTES = 1 << 22
"""Size of the pre-activation gradients the backward folds at once (:func:`lem_backward_loop`)."""

_FORWARD_LOOP, _FORWARD_FUSED = fuse_loop(lem_forward_loop)
_BACKWARD_LOOP, _BACKWARD_FUSED = fuse_loop(lem_backward_loop)


def lem_loops_fused() -> bool:
    """True when both LEM time loops run as TorchScript (False: the eager fallback)."""
    return _FORWARD_FUSED and _BACKWARD_FUSED


class LEMRollout(torch.autograd.Function):
    """Eq. 5.3 over a whole sequence with a hand-written backward pass (BPTT)."""

    @staticmethod
    def forward(ctx, u: Tensor, input_weight: Tensor, input_bias: Tensor, gate_weight: Tensor,
                z_weight: Tensor, dt: Tensor, y0: Tensor, z0: Tensor) -> tuple[Tensor, Tensor]:
        """u (T, N, d) time first, input_weight (4m, d), input_bias (4m,), gate_weight
        (3m, m), z_weight (m, m), dt (m,), y0, z0 (N, m) -> ys, zs (T, N, m)."""
        ctx.set_materialize_grads(False)  # an unused output (zs, usually) sends None
        dt2 = torch.cat([dt, dt])
        states, sig, act = _FORWARD_LOOP(u, input_weight.t(), input_bias, gate_weight.t(),
                                         z_weight.t(), dt2, y0, z0)
        ctx.save_for_backward(u, input_weight, gate_weight, z_weight, dt2, states, sig, act)
        m = y0.shape[1]
        return states[1:, :, m:], states[1:, :, :m]

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_ys: Tensor | None, grad_zs: Tensor | None):
        u, input_weight, gate_weight, z_weight, dt2, states, sig, act = ctx.saved_tensors
        m = gate_weight.shape[1]
        if grad_ys is None:
            grad_ys = states.new_zeros(states.shape[0] - 1, states.shape[1], m)
        has_grad_zs = grad_zs is not None
        keep = bool(ctx.needs_input_grad[5])
        d = u.shape[2]
        u_ones = torch.cat([u.reshape(-1, d), u.new_ones(u.shape[0] * u.shape[1], 1)], dim=1)
        chunk = max(1, BACKWARD_CHUNK_BYTES // (u.shape[1] * 4 * m * u.element_size()))
        grad_input, grad_gate_weight, grad_z_weight, grad_u, grad_initial, grad_dt2 = \
            _BACKWARD_LOOP(grad_ys, grad_zs if has_grad_zs else grad_ys, has_grad_zs, states,
                           sig, act, dt2, gate_weight, z_weight, input_weight, u_ones,
                           bool(ctx.needs_input_grad[0]), keep, chunk)
        grad_u = grad_u.view(u.shape) if ctx.needs_input_grad[0] else None
        grad_dt = grad_dt2[:m] + grad_dt2[m:] if keep else None
        return (grad_u, grad_input[:d].t(), grad_input[d], grad_gate_weight, grad_z_weight,
                grad_dt, grad_initial[:, m:], grad_initial[:, :m])


class LEMCell(nn.Module):
    """LEM (eq. 5.3) with ``m`` units: one-step :meth:`step` and fused :meth:`forward`.

    Parameters: ``input_weight`` (4m, d) = [V₁; V₂; V_z; V_y], ``input_bias`` (4m,) =
    [b₁; b₂; b_z; b_y], ``gate_weight`` (3m, m) = [W₁; W₂; W_z], ``z_weight`` (m, m) = W_y,
    all initialised U(−1/√m, 1/√m). ``Δt`` is fixed, or with ``learn_dt`` one
    ``Δt_i = softplus(ρ_i) > 0`` per unit (parameter ``dt_raw`` = ρ).

    ``split_bias`` adds ``recurrent_bias`` (4m,), also U(−1/√m, 1/√m): every pre-activation
    then has the bias ``input_bias + recurrent_bias``, as in the authors' code
    (github.com/tk-rusch/LEM, ``network.py``), whose input map ``inp2hid`` and recurrent
    maps ``hid2hid`` (A, B, C) and ``transform_z`` (D) each carry a bias. The sum starts
    from the sum of two uniforms (triangular on ±2/√m), and as both parts receive the same
    gradient, Adam moves the sum twice as far per step as a single bias.
    """

    def __init__(self, in_features: int, hidden: int, dt: float = 1.0,
                 learn_dt: bool = False, split_bias: bool = False) -> None:
        super().__init__()
        if dt <= 0.0:
            raise InputError(f"LEM dt must be > 0, got {dt!r}")
        self.in_features = in_features
        self.hidden = hidden
        self.input_weight = nn.Parameter(torch.empty(4 * hidden, in_features))
        self.input_bias = nn.Parameter(torch.empty(4 * hidden))
        self.gate_weight = nn.Parameter(torch.empty(3 * hidden, hidden))
        self.z_weight = nn.Parameter(torch.empty(hidden, hidden))
        self.split_bias = split_bias
        if split_bias:
            self.recurrent_bias = nn.Parameter(torch.empty(4 * hidden))
        self.fixed_dt = None if learn_dt else float(dt)
        if learn_dt:
            self.dt_raw = nn.Parameter(torch.full((hidden,), softplus_inverse(dt)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """U(−1/√m, 1/√m) for every weight and bias (the thesis' initialisation)."""
        bound = 1.0 / math.sqrt(self.hidden)
        for weight in (self.input_weight, self.input_bias, self.gate_weight, self.z_weight):
            nn.init.uniform_(weight, -bound, bound)
        if self.split_bias:
            nn.init.uniform_(self.recurrent_bias, -bound, bound)

    @property
    def bias(self) -> Tensor:
        """The bias (4m,) of the pre-activations [A, B, C, D]: ``input_bias``, plus
        ``recurrent_bias`` with ``split_bias``."""
        if self.split_bias:
            return self.input_bias + self.recurrent_bias
        return self.input_bias

    @property
    def dt(self) -> Tensor:
        """Per-unit step Δt (m,): softplus(ρ) when learned, else the fixed value in the
        parameters' dtype (kept as a Python float so that float64 models hold it exactly)."""
        if self.fixed_dt is None:
            return F.softplus(self.dt_raw)
        return self.input_weight.new_full((self.hidden,), self.fixed_dt)

    def extra_repr(self) -> str:
        dt = "learned" if self.fixed_dt is None else self.fixed_dt
        split = ", split_bias=True" if self.split_bias else ""
        return f"in_features={self.in_features}, hidden={self.hidden}, dt={dt}{split}"

    def step(self, u: Tensor, y: Tensor, z: Tensor) -> tuple[Tensor, Tensor]:
        """One step of eq. 5.3 written out plainly: u (N, d), y, z (N, m) -> y_n, z_n."""
        m = self.hidden
        pre = F.linear(u, self.input_weight, self.bias)
        rec = F.linear(y, self.gate_weight)
        dt_n = self.dt * torch.sigmoid(rec[:, :m] + pre[:, :m])
        dt_bar = self.dt * torch.sigmoid(rec[:, m:2 * m] + pre[:, m:2 * m])
        z_new = (1.0 - dt_n) * z + dt_n * torch.tanh(rec[:, 2 * m:] + pre[:, 2 * m:3 * m])
        y_new = (1.0 - dt_bar) * y + dt_bar * torch.tanh(F.linear(z_new, self.z_weight)
                                                         + pre[:, 3 * m:])
        return y_new, z_new

    def forward(self, u: Tensor, state: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Fused rollout: u (N, T, d), state (y₀, z₀) each (N, m) or zeros ->
        ys (N, T, m) and the final (y_T, z_T)."""
        y0, z0 = initial_state(u, self.hidden, self.input_weight, state)
        ys, zs = LEMRollout.apply(u.transpose(0, 1), self.input_weight, self.bias,
                                  self.gate_weight, self.z_weight, self.dt, y0, z0)
        return ys.transpose(0, 1), (ys[-1], zs[-1])

    def forward_loop(self, u: Tensor, state: tuple[Tensor, Tensor] | None = None
                     ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Reference rollout, a plain Python loop over :meth:`step` (same result as forward)."""
        y, z = initial_state(u, self.hidden, self.input_weight, state)
        ys = []
        for n in range(u.shape[1]):
            y, z = self.step(u[:, n], y, z)
            ys.append(y)
        return torch.stack(ys, dim=1), (y, z)


def initial_state(u: Tensor, hidden: int, weight: Tensor,
                  state: tuple[Tensor, Tensor] | None) -> tuple[Tensor, Tensor]:
    """Checked (y₀, z₀), each (N, m) with u's device and dtype; zeros when state is None.

    ``weight`` (any parameter of the cell, shape (·, d)) fixes the expected input width and
    the dtype/device the input must share with the model."""
    check_sequence_input(u, weight.shape[-1])
    if u.dtype != weight.dtype or u.device != weight.device:
        raise InputError(f"sequence input is {u.dtype} on {u.device} but the model is "
                         f"{weight.dtype} on {weight.device}; move one with .to()")
    shape = (u.shape[0], hidden)
    if state is None:
        return u.new_zeros(shape), u.new_zeros(shape)
    if not isinstance(state, (tuple, list)) or len(state) != 2:
        raise InputError("state must be a pair (y0, z0) of tensors shaped (N, hidden)")
    for name, tensor in zip(("y0", "z0"), state, strict=True):
        if not isinstance(tensor, Tensor) or tuple(tensor.shape) != shape:
            got = tuple(tensor.shape) if isinstance(tensor, Tensor) else type(tensor).__name__
            raise InputError(f"{name} must have shape {shape} (N, hidden), got {got}")
        if tensor.dtype != u.dtype or tensor.device != u.device:
            raise InputError(f"{name} must have the input's dtype {u.dtype} and device "
                             f"{u.device}, got {tensor.dtype} on {tensor.device}")
    return state[0], state[1]


def check_sequence_input(u: Tensor, in_features: int) -> None:
    """InputError unless u is a floating tensor shaped (N, T, in_features), N, T >= 1."""
    if not isinstance(u, Tensor):
        raise InputError(f"sequence input must be a torch.Tensor, got {type(u).__name__}")
    if u.dim() != 3 or u.shape[2] != in_features or u.shape[0] < 1 or u.shape[1] < 1:
        raise InputError(f"sequence input must have shape (N, T, {in_features}) with N, T >= 1 "
                         f"(batch first), got {tuple(u.shape)}")
    if not u.is_floating_point():
        raise InputError(f"sequence input must be a floating-point tensor, got {u.dtype}")


__all__ = ["LEMCell", "LEMRollout", "lem_forward_loop", "lem_backward_loop", "lem_loops_fused",
           "fuse_loop", "softplus_inverse", "initial_state", "check_sequence_input"]
