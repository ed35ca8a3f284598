"""coRNN, the coupled oscillatory RNN (Rusch, thesis ch. 2, eq. 2.3), with a fused rollout.

For steps ``n = 1 … T`` with input ``u_n ∈ R^d`` and states ``y_n, z_n ∈ R^m``::

    y_n = y_{n-1} + Δt z_n,
    z_n = z_{n-1} + Δt σ(W y_{n-1} + 𝒲 z_{n-1} + V u_n + b) − Δt γ y_{n-1} − Δt ε z_n̄,

σ = tanh, n̄ = n ("implicit" damping, solved in closed form:
``z_n = (z_{n-1} + Δt(σ − γ y_{n-1})) / (1 + Δt ε)``) or n̄ = n − 1 ("explicit", eq. 2.45).
Both read ``z_n = α ⊙ z_{n-1} + β ⊙ (σ − γ y_{n-1})`` with α = 1/(1 + Δt ε), β = Δt/(1 + Δt ε)
(implicit) or α = 1 − Δt ε, β = Δt (explicit). ``Δt`` is a scalar or one value per unit.

The rollout is one :class:`torch.autograd.Function` built like LEM's (see
:mod:`surrogate.models.lem`): input projections in one matmul, a graph-free TorchScript forward loop
(one matmul per step with ``[W, 𝒲]`` acting on the stacked state ``[y, z]``) writing states
and activations into preallocated buffers, and a hand-written BPTT loop (one matmul per
step) with bulk weight gradients; per-step slices come from lists of views made once and
fixed scratch buffers. Second derivatives are not supported.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.autograd.function import once_differentiable
from torch.nn import functional as F

from surrogate.core.errors import InputError
from surrogate.models.lem import fuse_loop, initial_state, project_inputs, softplus_inverse

DAMPING = ("implicit", "explicit")


def cornn_forward_loop(proj: Tensor, weight_t: Tensor, alpha: Tensor, beta: Tensor,
                       dt: Tensor, gamma: float, y0: Tensor, z0: Tensor
                       ) -> tuple[Tensor, Tensor]:
    """Eq. 2.3 for all steps, writing into preallocated outputs.

    proj (T, N, m) = V u_n + b of every step, weight_t (2m, m) = [W, 𝒲]ᵀ, alpha, beta, dt
    (m,), y0, z0 (N, m). Returns states (T+1, N, 2m) = [y_n, z_n] for n = 0 … T and the
    activations σ(W y_{n-1} + 𝒲 z_{n-1} + V u_n + b) (T, N, m)."""
    steps = proj.shape[0]
    n_batch = y0.shape[0]
    m = y0.shape[1]
    states = torch.empty((steps + 1, n_batch, 2 * m), dtype=y0.dtype, device=y0.device)
    act = torch.empty((steps, n_batch, m), dtype=y0.dtype, device=y0.device)
    states[0, :, :m] = y0
    states[0, :, m:] = z0
    # per-step views made once (one C++ call each) instead of indexing calls per step
    p_at = proj.unbind(0)
    prev_at = states.unbind(0)
    y_at = states[:, :, :m].unbind(0)
    z_at = states[:, :, m:].unbind(0)
    act_at = act.unbind(0)
    for n in range(steps):
        s = torch.tanh(torch.addmm(p_at[n], prev_at[n], weight_t), out=act_at[n])
        z = torch.addcmul(beta * torch.sub(s, y_at[n], alpha=gamma), alpha, z_at[n],
                          out=z_at[n + 1])
        torch.addcmul(y_at[n], dt, z, out=y_at[n + 1])
    return states, act


def cornn_backward_loop(grad_ys: Tensor, grad_zs: Tensor, has_grad_zs: bool, coef_h: Tensor,
                        alpha: Tensor, gamma_beta: Tensor, dt: Tensor, weight: Tensor,
                        keep_totals: bool) -> tuple[Tensor, Tensor, Tensor]:
    """BPTT of eq. 2.3; coef_h (T, N, m) = β ⊙ (1 − σ²), gamma_beta (m,) = γ β, weight
    (m, 2m) = [W, 𝒲].

    Returns grad_proj (T, N, m), the adjoint of the initial state (N, 2m) = [y₀, z₀], and
    the total adjoints (T, N, 2m) = [∂/∂y_n, ∂/∂z_n] (empty unless ``keep_totals``) for the
    α, β, Δt gradients."""
    steps = grad_ys.shape[0]
    n_batch = grad_ys.shape[1]
    m = grad_ys.shape[2]
    grad_proj = torch.empty_like(grad_ys)
    if keep_totals:
        totals = torch.empty((steps, n_batch, 2 * m), dtype=grad_ys.dtype, device=grad_ys.device)
    else:
        totals = grad_ys.new_empty((0, n_batch, 2 * m))
    # scratch buffers with fixed views, per-step views made once (see cornn_forward_loop)
    direct = torch.empty((n_batch, 2 * m), dtype=grad_ys.dtype, device=grad_ys.device)
    direct_y = direct[:, :m]
    direct_z = direct[:, m:]
    carry = torch.zeros((n_batch, 2 * m), dtype=grad_ys.dtype, device=grad_ys.device)
    carry_y = carry[:, :m]
    carry_z = carry[:, m:]
    g_ys = grad_ys.unbind(0)
    g_zs = grad_zs.unbind(0)
    c_h = coef_h.unbind(0)
    g_p = grad_proj.unbind(0)
    for n in range(steps - 1, -1, -1):
        gy = carry_y + g_ys[n]
        if has_grad_zs:
            gz = torch.addcmul(carry_z + g_zs[n], gy, dt)
        else:
            gz = torch.addcmul(carry_z, gy, dt)
        g_h = torch.mul(gz, c_h[n], out=g_p[n])
        torch.addcmul(gy, gamma_beta, gz, value=-1.0, out=direct_y)
        torch.mul(alpha, gz, out=direct_z)
        torch.addmm(direct, g_h, weight, out=carry)
        if keep_totals:
            totals[n, :, :m] = gy
            totals[n, :, m:] = gz
    return grad_proj, carry, totals


_FORWARD_LOOP, _FORWARD_FUSED = fuse_loop(cornn_forward_loop)
_BACKWARD_LOOP, _BACKWARD_FUSED = fuse_loop(cornn_backward_loop)


def cornn_loops_fused() -> bool:
    """True when both coRNN time loops run as TorchScript (False: the eager fallback)."""
    return _FORWARD_FUSED and _BACKWARD_FUSED


class CoRNNRollout(torch.autograd.Function):
    """Eq. 2.3 over a whole sequence with a hand-written backward pass (BPTT)."""

    @staticmethod
    def forward(ctx, proj: Tensor, y_weight: Tensor, z_weight: Tensor, alpha: Tensor,
                beta: Tensor, dt: Tensor, gamma: float, y0: Tensor, z0: Tensor
                ) -> tuple[Tensor, Tensor]:
        """proj (T, N, m), y_weight = W, z_weight = 𝒲 (m, m), alpha, beta, dt (m,), gamma,
        y0, z0 (N, m) -> ys, zs (T, N, m)."""
        weight = torch.cat([y_weight, z_weight], dim=1)
        states, act = _FORWARD_LOOP(proj, weight.t(), alpha, beta, dt, gamma, y0, z0)
        ctx.gamma = gamma
        ctx.save_for_backward(weight, alpha, beta, dt, states, act)
        m = y0.shape[1]
        return states[1:, :, :m], states[1:, :, m:]

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_ys: Tensor, grad_zs: Tensor):
        weight, alpha, beta, dt, states, act = ctx.saved_tensors
        gamma = ctx.gamma
        m = weight.shape[0]
        keep = any(ctx.needs_input_grad[3:6])
        grad_proj, grad_initial, totals = _BACKWARD_LOOP(
            grad_ys.contiguous(), grad_zs.contiguous(), bool(grad_zs.any()),
            torch.addcmul(beta, beta * act, act, value=-1.0), alpha, gamma * beta, dt, weight,
            keep)
        grad_weight = grad_proj.reshape(-1, m).t().mm(states[:-1].reshape(-1, 2 * m))
        grad_alpha = grad_beta = grad_dt = None
        if keep:
            y_prev = states[:-1, :, :m]
            grad_alpha = (totals[..., m:] * states[:-1, :, m:]).sum((0, 1))
            grad_beta = (totals[..., m:] * torch.sub(act, y_prev, alpha=gamma)).sum((0, 1))
            grad_dt = (totals[..., :m] * states[1:, :, m:]).sum((0, 1))
        return (grad_proj, grad_weight[:, :m], grad_weight[:, m:], grad_alpha, grad_beta,
                grad_dt, None, grad_initial[:, :m], grad_initial[:, m:])


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
        if self.damping == "implicit":
            alpha = 1.0 / (1.0 + dt * self.epsilon)
            return alpha, dt * alpha, dt
        return 1.0 - dt * self.epsilon, dt, dt

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
        proj = project_inputs(u, self.input_weight, self.input_bias)
        alpha, beta, dt = self.coefficients()
        ys, zs = CoRNNRollout.apply(proj, self.y_weight, self.z_weight, alpha, beta, dt,
                                    self.gamma, y0, z0)
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
           "cornn_loops_fused", "DAMPING"]
