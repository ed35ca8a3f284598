"""coRNN, the coupled oscillatory RNN (Rusch, thesis ch. 2, eq. 2.3), with a fused rollout.

For steps ``n = 1 … T`` with input ``u_n ∈ R^d`` and states ``y_n, z_n ∈ R^m``::

    y_n = y_{n-1} + Δt z_n,
    z_n = z_{n-1} + Δt σ(W y_{n-1} + 𝒲 z_{n-1} + V u_n + b) − Δt γ y_{n-1} − Δt ε z_n̄,

σ = tanh, n̄ = n ("implicit" damping, solved in closed form:
``z_n = (z_{n-1} + Δt(σ − γ y_{n-1})) / (1 + Δt ε)``) or n̄ = n − 1 ("explicit", eq. 2.45).
Both read ``z_n = α ⊙ z_{n-1} + β ⊙ (σ − γ y_{n-1})`` with α = 1/(1 + Δt ε), β = Δt/(1 + Δt ε)
(implicit) or α = 1 − Δt ε, β = Δt (explicit). ``Δt`` is a scalar or one value per unit.

The rollout is one :class:`torch.autograd.Function` built like LEM's (see
:mod:`surrogate.models.lem`): a graph-free TorchScript forward loop with one matmul per step,
``b + [y_{n-1}, z_{n-1}, u_n] [W, 𝒲, V]ᵀ`` (the authors' single affine map), whose operand
rows live in one buffer that also keeps the states, and a hand-written BPTT loop (one matmul
per step) that forms each step's pre-activation gradient from the stored activations in
place; the weight gradient is one matmul over all steps afterwards. Besides the states,
activations and pre-activation gradients no (T, N, ·) tensor is made (no separate input
projection, no materialised gradient of an unused output, no copy of a strided one):
fresh 16–33 MB buffers pay their first-touch page faults on every call. Per-step slices
come from lists of views made once and fixed scratch buffers. Second derivatives are not
supported.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.autograd.function import once_differentiable
from torch.nn import functional as F

from surrogate.core.errors import InputError
from surrogate.models.lem import fuse_loop, initial_state, softplus_inverse

DAMPING = ("implicit", "explicit")


def cornn_forward_loop(u: Tensor, weight_t: Tensor, bias: Tensor, alpha: Tensor, beta: Tensor,
                       dt: Tensor, gamma: float, y0: Tensor, z0: Tensor
                       ) -> tuple[Tensor, Tensor]:
    """Eq. 2.3 for all steps, writing into preallocated outputs.

    u (T, N, d) time first (any strides), weight_t (2m + d, m) = [W, 𝒲, V]ᵀ, bias b (m,),
    alpha, beta, dt (m,), y0, z0 (N, m). Row n of the returned ``rows`` (T+1, N, 2m + d) is
    [y_n, z_n, u_{n+1}] (n = 0 … T; the last row's u part is zero), so one matmul per step,
    ``b + rows[n] [W, 𝒲, V]ᵀ``, gives the pre-activation of step n + 1 (the authors' single
    affine map of [u, z, y]). Also returns the activations σ(W y_{n-1} + 𝒲 z_{n-1} + V u_n +
    b) (T, N, m)."""
    steps = u.shape[0]
    n_batch = y0.shape[0]
    m = y0.shape[1]
    rows = torch.empty((steps + 1, n_batch, weight_t.shape[0]), dtype=y0.dtype,
                       device=y0.device)
    act = torch.empty((steps, n_batch, m), dtype=y0.dtype, device=y0.device)
    rows[0, :, :m] = y0
    rows[0, :, m:2 * m] = z0
    rows[:-1, :, 2 * m:] = u
    rows[-1, :, 2 * m:] = 0.0
    # per-step views made once (one C++ call each) instead of indexing calls per step
    row_at = rows.unbind(0)
    y_at = rows[:, :, :m].unbind(0)
    z_at = rows[:, :, m:2 * m].unbind(0)
    act_at = act.unbind(0)
    tmp = torch.empty((n_batch, m), dtype=y0.dtype, device=y0.device)
    for n in range(steps):
        s = torch.tanh(torch.addmm(bias, row_at[n], weight_t, out=act_at[n]), out=act_at[n])
        torch.sub(s, y_at[n], alpha=gamma, out=tmp).mul_(beta)
        z = torch.addcmul(tmp, alpha, z_at[n], out=z_at[n + 1])
        torch.addcmul(y_at[n], dt, z, out=y_at[n + 1])
    return rows, act


def cornn_backward_loop(grad_ys: Tensor, grad_zs: Tensor, has_grad_zs: bool, act: Tensor,
                        alpha: Tensor, beta: Tensor, gamma_beta: Tensor, dt: Tensor,
                        weight: Tensor, keep_totals: bool) -> tuple[Tensor, Tensor, Tensor]:
    """BPTT of eq. 2.3 from the forward loop's activations; grad_ys, grad_zs (T, N, m) any
    strides (grad_zs unused unless ``has_grad_zs``), gamma_beta (m,) = γ β, weight (m, 2m)
    = [W, 𝒲] (any strides).

    Every step forms the gradient of its pre-activation, g_n = ∂/∂z_n ⊙ β ⊙ (1 − σ²), in
    place in the returned grad_pre (T, N, m). Also returns the adjoint of the initial
    state (N, 2m) = [y₀, z₀] and the total adjoints (T, N, 2m) = [∂/∂y_n, ∂/∂z_n] (empty
    unless ``keep_totals``) for the α, β, Δt gradients."""
    steps = act.shape[0]
    n_batch = act.shape[1]
    m = act.shape[2]
    grad_pre = torch.empty_like(act)
    if keep_totals:
        totals = torch.empty((steps, n_batch, 2 * m), dtype=act.dtype, device=act.device)
    else:
        totals = act.new_empty((0, n_batch, 2 * m))
    # scratch buffers with fixed views, per-step views made once (see cornn_forward_loop)
    carry = torch.zeros((n_batch, 2 * m), dtype=act.dtype, device=act.device)
    carry_y = carry[:, :m]
    carry_z = carry[:, m:]
    gy = torch.empty((n_batch, m), dtype=act.dtype, device=act.device)
    gz = torch.empty_like(gy)
    square = torch.empty_like(gy)
    g_ys = grad_ys.unbind(0)
    g_zs = grad_zs.unbind(0)
    act_at = act.unbind(0)
    g_p = grad_pre.unbind(0)
    for n in range(steps - 1, -1, -1):
        torch.add(carry_y, g_ys[n], out=gy)
        if has_grad_zs:
            torch.add(carry_z, g_zs[n], out=gz).addcmul_(gy, dt)
        else:
            torch.addcmul(carry_z, gy, dt, out=gz)
        a = act_at[n]
        g_h = g_p[n]
        torch.mul(gz, beta, out=g_h)
        g_h.addcmul_(g_h, torch.mul(a, a, out=square), value=-1.0)
        torch.addcmul(gy, gamma_beta, gz, value=-1.0, out=carry_y)
        torch.mul(alpha, gz, out=carry_z)
        carry.addmm_(g_h, weight)
        if keep_totals:
            totals[n, :, :m] = gy
            totals[n, :, m:] = gz
    return grad_pre, carry, totals
_FORWARD_LOOP, _FORWARD_FUSED = fuse_loop(cornn_forward_loop)
_BACKWARD_LOOP, _BACKWARD_FUSED = fuse_loop(cornn_backward_loop)


def cornn_loops_fused() -> bool:
    """True when both coRNN time loops run as TorchScript (False: the eager fallback)."""
    return _FORWARD_FUSED and _BACKWARD_FUSED


class CoRNNRollout(torch.autograd.Function):
    """Eq. 2.3 over a whole sequence with a hand-written backward pass (BPTT)."""

    @staticmethod
    def forward(ctx, u: Tensor, weight: Tensor, bias: Tensor, alpha: Tensor, beta: Tensor,
                dt: Tensor, gamma: float, y0: Tensor, z0: Tensor) -> tuple[Tensor, Tensor]:
        """u (T, N, d) time first, weight (m, 2m + d) = [W, 𝒲, V], bias b (m,), alpha, beta,
        dt (m,), gamma, y0, z0 (N, m) -> ys, zs (T, N, m)."""
        ctx.set_materialize_grads(False)  # an unused output (zs, usually) sends None
        rows, act = _FORWARD_LOOP(u, weight.t(), bias, alpha, beta, dt, gamma, y0, z0)
        ctx.gamma = gamma
        ctx.save_for_backward(weight, alpha, beta, dt, rows, act)
        m = y0.shape[1]
        return rows[1:, :, :m], rows[1:, :, m:2 * m]

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_ys: Tensor | None, grad_zs: Tensor | None):
        weight, alpha, beta, dt, rows, act = ctx.saved_tensors
        gamma = ctx.gamma
        steps, n_batch, m = act.shape
        if grad_ys is None:
            grad_ys = act.new_zeros(steps, n_batch, m)
        has_grad_zs = grad_zs is not None
        keep = any(ctx.needs_input_grad[3:6])
        grad_pre, grad_initial, totals = _BACKWARD_LOOP(
            grad_ys, grad_zs if has_grad_zs else grad_ys, has_grad_zs, act, alpha, beta,
            gamma * beta, dt, weight[:, :2 * m], keep)
        flat = grad_pre.view(steps * n_batch, m)
        grad_weight = flat.t().mm(rows[:-1].reshape(steps * n_batch, -1))
        grad_u = None
        if ctx.needs_input_grad[0]:
            grad_u = flat.mm(weight[:, 2 * m:]).view(steps, n_batch, -1)
        grad_alpha = grad_beta = grad_dt = None
        if keep:
            y_prev = rows[:-1, :, :m]
            grad_alpha = (totals[..., m:] * rows[:-1, :, m:2 * m]).sum((0, 1))
            grad_beta = (totals[..., m:] * torch.sub(act, y_prev, alpha=gamma)).sum((0, 1))
            grad_dt = (totals[..., :m] * rows[1:, :, m:2 * m]).sum((0, 1))
        return (grad_u, grad_weight, flat.sum(0), grad_alpha, grad_beta, grad_dt, None,
                grad_initial[:, :m], grad_initial[:, m:])


def damping_coefficients(dt: float | Tensor, epsilon: float, damping: str
                         ) -> tuple[float | Tensor, float | Tensor]:
    """(α, β) of ``z_n = α z_{n-1} + β (σ − γ y_{n-1})`` for a Δt (float or tensor):
    1/(1 + Δt ε), Δt/(1 + Δt ε) ("implicit") or 1 − Δt ε, Δt ("explicit", eq. 2.45)."""
    if damping == "implicit":
        alpha = 1.0 / (1.0 + dt * epsilon)
        return alpha, dt * alpha
    if damping == "explicit":
        return 1.0 - dt * epsilon, dt
    raise InputError(f"unknown damping {damping!r}; choose one of: {', '.join(DAMPING)}")


def forcing_response(dt: float, gamma: float, epsilon: float, steps: int,
                     damping: str = "implicit") -> Tensor:
    """∂y_T/∂σ_n, n = 1 … T, of eq. 2.3's linear part (W = 𝒲 = 0): how much of a unit
    forcing at step n reaches the last state (float64, (T,)).

    Adjoint of ``z_n = α z_{n-1} + β (σ_n − γ y_{n-1})``, ``y_n = y_{n-1} + Δt z_n``: with
    (λ_y, λ_z) = ∂y_T/∂(y_n, z_n) after step n, ∂y_T/∂σ_n = β (λ_z + Δt λ_y), and one step
    back λ_y ← λ_y − γ β (λ_z + Δt λ_y), λ_z ← α (λ_z + Δt λ_y). Whether a task's early
    inputs can be learnt at all: the adding problem needs both halves to reach y_T."""
    alpha, beta = damping_coefficients(dt, epsilon, damping)
    response = []
    grad_y, grad_z = 1.0, 0.0
    for _ in range(steps):  # a scalar recursion backwards in time, nothing to vectorise
        total_z = grad_z + dt * grad_y
        response.append(beta * total_z)
        grad_y, grad_z = grad_y - gamma * beta * total_z, alpha * total_z
    return torch.tensor(response[::-1], dtype=torch.float64)


class CoRNNCell(nn.Module):
    """coRNN (eq. 2.3) with ``m`` units: one-step :meth:`step` and fused :meth:`forward`.

    Parameters: ``input_weight`` V (m, d), ``input_bias`` b (m,), ``y_weight`` W (m, m),
    ``z_weight`` 𝒲 (m, m), initialised U(−1/√(d+2m), 1/√(d+2m)) (the thesis' U(−1/√n_in,
    1/√n_in) of the affine map of [u, y, z]). ``γ``, ``ε`` are fixed floats (exact in any
    dtype; they live in the model's config); ``Δt`` is fixed, or with ``learn_dt`` one
    ``Δt_i = softplus(ρ_i) > 0`` per unit (parameter ``dt_raw`` = ρ).
    """

    def __init__(self, in_features: int, hidden: int, dt: float = 0.042, gamma: float = 2.7,
                 epsilon: float = 4.7, damping: str = "implicit", learn_dt: bool = False) -> None:
        super().__init__()
        if damping not in DAMPING:
            raise InputError(f"unknown damping {damping!r}; choose one of: {', '.join(DAMPING)}")
        for name, value in (("dt", dt), ("gamma", gamma), ("epsilon", epsilon)):
            if not value > 0.0:
                raise InputError(f"coRNN {name} must be > 0, got {value!r}")
        self.in_features = in_features
        self.hidden = hidden
        self.damping = damping
        self.input_weight = nn.Parameter(torch.empty(hidden, in_features))
        self.input_bias = nn.Parameter(torch.empty(hidden))
        self.y_weight = nn.Parameter(torch.empty(hidden, hidden))
        self.z_weight = nn.Parameter(torch.empty(hidden, hidden))
        self.gamma = float(gamma)
        self.epsilon = float(epsilon)
        self.fixed_dt = None if learn_dt else float(dt)
        if learn_dt:
            self.dt_raw = nn.Parameter(torch.full((hidden,), softplus_inverse(dt)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """U(−1/√(d+2m), 1/√(d+2m)) for every weight and bias."""
        bound = 1.0 / math.sqrt(self.in_features + 2 * self.hidden)
        for weight in (self.input_weight, self.input_bias, self.y_weight, self.z_weight):
            nn.init.uniform_(weight, -bound, bound)

    @property
    def dt(self) -> Tensor:
        """Per-unit step Δt (m,): softplus(ρ) when learned, else the fixed value in the
        parameters' dtype (kept as a Python float so that float64 models hold it exactly)."""
        if self.fixed_dt is None:
            return F.softplus(self.dt_raw)
        return self.input_weight.new_full((self.hidden,), self.fixed_dt)

    def extra_repr(self) -> str:
        dt = "learned" if self.fixed_dt is None else self.fixed_dt
        return (f"in_features={self.in_features}, hidden={self.hidden}, dt={dt}, "
                f"gamma={self.gamma}, epsilon={self.epsilon}, damping={self.damping}")

    def coefficients(self) -> tuple[Tensor, Tensor, Tensor]:
        """(α, β, Δt), each (m,), of ``z_n = α z_{n-1} + β (σ − γ y_{n-1})``."""
        dt = self.dt
        return (*damping_coefficients(dt, self.epsilon, self.damping), dt)

    def step(self, u: Tensor, y: Tensor, z: Tensor) -> tuple[Tensor, Tensor]:
        """One step of eq. 2.3 written out plainly: u (N, d), y, z (N, m) -> y_n, z_n."""
        dt = self.dt
        force = torch.tanh(F.linear(y, self.y_weight) + F.linear(z, self.z_weight)
                           + F.linear(u, self.input_weight, self.input_bias))
        if self.damping == "implicit":
            z_new = (z + dt * force - dt * self.gamma * y) / (1.0 + dt * self.epsilon)
        else:
            z_new = z + dt * force - dt * self.gamma * y - dt * self.epsilon * z
        return y + dt * z_new, z_new

    def forward(self, u: Tensor, state: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Fused rollout: u (N, T, d), state (y₀, z₀) each (N, m) or zeros ->
        ys (N, T, m) and the final (y_T, z_T)."""
        y0, z0 = initial_state(u, self.hidden, self.input_weight, state)
        weight = torch.cat([self.y_weight, self.z_weight, self.input_weight], dim=1)
        alpha, beta, dt = self.coefficients()
        ys, zs = CoRNNRollout.apply(u.transpose(0, 1), weight, self.input_bias, alpha, beta,
                                    dt, self.gamma, y0, z0)
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


__all__ = ["CoRNNCell", "CoRNNRollout", "cornn_forward_loop", "cornn_backward_loop",
           "cornn_loops_fused", "damping_coefficients", "forcing_response", "DAMPING"]
