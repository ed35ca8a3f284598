"""One implicit residual step (Reshniak & Webster eq. 7) with its solver and exact backward.

For a batch of states ``x`` (N, w), weights ``W`` (w, w), bias ``b`` (w,), step ``h > 0`` and
``θ ∈ (0, 1]`` the layer output ``y`` (N, w) solves

    y = x + (1 − θ) h σ(W x + b) + θ h σ(W y + b).

Forward: every sample at once, from the linearised estimate
``y₀ = x + (I − θ h diag(σ'(W x + b)) W)⁻¹ h σ(W x + b)``, by fixed-point iteration
``y ← c + θ h σ(W y + b)`` with ``c = x + (1 − θ) h σ(W x + b)``; when that contracts slowly
or not at all, damped Newton steps ``y ← y − α A(y)⁻¹ r(y)`` with
``A(y) = I − θ h diag(σ'(W y + b)) W`` on the samples not yet converged (batched solves).
A sample has converged when ``‖r(y)‖∞ <= tol (1 + ‖y‖∞)`` (see :func:`effective_tolerance`).

Backward: no differentiation through the iterations. With ``A = I − θ h ∂F/∂y`` at the
solution and ``λ = A⁻ᵀ ∂L/∂y`` (one batched linear solve per layer), and ``s_x = σ'(W x + b)``,
``s_y = σ'(W y + b)`` (implicit function theorem on ``r(y; x, W, b, h) = 0``):

    ∂L/∂x = λ + (1 − θ) h Wᵀ (s_x ⊙ λ)
    ∂L/∂W = (1 − θ) h Σ_n (s_x ⊙ λ) xᵀ + θ h Σ_n (s_y ⊙ λ) yᵀ
    ∂L/∂b = (1 − θ) h Σ_n s_x ⊙ λ + θ h Σ_n s_y ⊙ λ
    ∂L/∂h = Σ_n λ · ((1 − θ) σ(W x + b) + θ σ(W y + b))

The paper's ∂y/∂γ display keeps only the ``(1 − θ) ∂F(γ, x)/∂γ`` term; the parameters also
enter ``F(γ, y)`` directly, which gives the ``θ`` terms above (its TensorFlow listing, which
lets autograd differentiate ``F(γ, y)`` at the stopped solution, includes them).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from surrogate.core.errors import SolverError
from surrogate.models.activations import Activation

EPS_FLOOR = 32
"""The tolerance is never below EPS_FLOOR · eps(dtype) · (1 + θ h ‖W‖∞), the rounding level of
the residual (float32, θ h ‖W‖∞ = 1: 7.6e-6)."""

SLOW_CONTRACTION = 0.5
"""Fixed-point iteration hands over to Newton once a step reduces the residual by less."""

SOLVE_CHUNK_ENTRIES = 1 << 24
"""Batched solves build at most this many matrix entries at once (64 MiB in float32)."""

MAX_HALVINGS = 30
"""Step halvings of the damped Newton line search."""


class ImplicitSolve(NamedTuple):
    """Solution ``y`` (N, w) of one implicit step and how it was found."""

    y: Tensor
    residual: float
    fixed_point_steps: int
    newton_steps: int


def effective_tolerance(tol: float, dtype: torch.dtype, stiffness: float = 0.0) -> float:
    """max(tol, EPS_FLOOR · eps(dtype) · (1 + stiffness)), stiffness = θ h ‖W‖∞.

    r(y) = y − c − θ h σ(W y + b) cannot be evaluated more accurately than about
    eps · (1 + θ h ‖W‖∞) relative to ‖y‖∞: float32 cannot resolve 1e-6 in a stiff layer.
    """
    return max(float(tol), EPS_FLOOR * torch.finfo(dtype).eps * (1.0 + float(stiffness)))


def _solve_systems(slope: Tensor, weight: Tensor, scale: Tensor, rhs: Tensor, layer: int,
                   what: str, transpose: bool = False) -> Tensor:
    """v (N, w) with A[n] v[n] = rhs[n] (Aᵀ with ``transpose``), A[n] = I − scale diag(slope[n]) W.

    Batched LU solves in chunks of at most SOLVE_CHUNK_ENTRIES matrix entries (memory bound);
    SolverError naming the layer when a matrix is singular.
    """
    width = weight.shape[0]
    eye = torch.eye(width, dtype=weight.dtype, device=weight.device)
    rows = max(1, SOLVE_CHUNK_ENTRIES // (width * width))
    out = torch.empty_like(rhs)
    for start in range(0, rhs.shape[0], rows):
        chunk = slice(start, start + rows)
        matrices = eye - scale * slope[chunk].unsqueeze(2) * weight.unsqueeze(0)
        if transpose:
            matrices = matrices.mT
        try:
            out[chunk] = torch.linalg.solve(matrices, rhs[chunk].unsqueeze(-1)).squeeze(-1)
        except torch.linalg.LinAlgError:
            raise SolverError(f"implicit-resnet layer {layer}: singular {what} matrix "
                              f"I − θ h σ'(W y + b) W; try a smaller step τ or θ") from None
    return out


def _relative_residual(residual: Tensor, y: Tensor) -> Tensor:
    """‖r‖∞ / (1 + ‖y‖∞) per sample, shape (N,); NaN stays NaN."""
    return residual.abs().amax(dim=1) / (1.0 + y.abs().amax(dim=1))


def _residual(y: Tensor, known: Tensor, weight: Tensor, bias: Tensor, scale: Tensor,
              activation: Activation) -> Tensor:
    """r(y) = y − c − θ h σ(W y + b), shape (N, w)."""
    return y - known - scale * activation(torch.addmm(bias, y, weight.t()))


def _damped_newton(y: Tensor, known: Tensor, residual: Tensor, weight: Tensor, bias: Tensor,
                   scale: Tensor, activation: Activation, layer: int) -> Tensor:
    """One Newton step y − α A(y)⁻¹ r(y) per row (rows of the inputs, shape (M, w)).

    α = 1, ½, ¼, … per row until ½‖r‖² decreases by the Armijo factor (1 − 2·10⁻⁴ α).
    """
    slope = activation.derivative(torch.addmm(bias, y, weight.t()))
    direction = _solve_systems(slope, weight, scale, residual, layer, "Newton")
    merit = residual.pow(2).sum(1)
    alpha = torch.ones_like(merit)
    for _ in range(MAX_HALVINGS):
        trial = y - alpha.unsqueeze(1) * direction
        trial_residual = _residual(trial, known, weight, bias, scale, activation)
        worse = ~(trial_residual.pow(2).sum(1) <= (1.0 - 2e-4 * alpha) * merit)
        if not bool(worse.any()):
            break
        alpha = torch.where(worse, 0.5 * alpha, alpha)
    return trial


def solve_implicit_step(x: Tensor, weight: Tensor, bias: Tensor, h: Tensor, theta: float,
                        activation: Activation, tol: float, max_iter: int,
                        layer: int = 1) -> ImplicitSolve:
    """Solve y = x + (1 − θ) h σ(W x + b) + θ h σ(W y + b) (eq. 7) for x (N, w); no autograd.

    Linearised start, then fixed-point iteration while each step shrinks the worst residual
    by SLOW_CONTRACTION, then damped Newton on the rows not yet converged. At most
    ``max_iter`` iterations (both kinds together); SolverError naming ``layer`` and the
    residual otherwise.
    """
    if x.shape[0] == 0:
        return ImplicitSolve(x.detach().clone(), 0.0, 0, 0)
    with torch.no_grad():
        scale = theta * h
        tol = effective_tolerance(tol, x.dtype, scale * weight.abs().sum(1).max())
        args = (weight, bias, scale, activation)
        fx, sx = activation.value_and_derivative(torch.addmm(bias, x, weight.t()))
        step = h * fx
        known = x + (1.0 - theta) * step  # c: the explicit part of eq. 7
        y = x + _solve_systems(sx, weight, scale, step, layer, "linearised")
        residual = _residual(y, known, *args)
        errors = _relative_residual(residual, y)
        newton = False
        fixed_point_steps = newton_steps = 0
        why = ""
        for iteration in range(max_iter + 1):
            worst = float(errors.max())
            if worst <= tol:
                return ImplicitSolve(y, worst, fixed_point_steps, newton_steps)
            if iteration == max_iter or not math.isfinite(worst):
                break
            if newton:
                todo = torch.nonzero(errors > tol).squeeze(1)
                try:
                    update = _damped_newton(y[todo], known[todo], residual[todo], *args, layer)
                except SolverError:
                    why = "singular Newton matrix, "
                    break
                y = y.index_put((todo,), update)
                newton_steps += 1
                residual = _residual(y, known, *args)
                errors = _relative_residual(residual, y)
                continue
            trial = y - residual  # = c + θ h σ(W y + b)
            trial_residual = _residual(trial, known, *args)
            trial_errors = _relative_residual(trial_residual, trial)
            fixed_point_steps += 1
            trial_worst = float(trial_errors.max())
            newton = not trial_worst <= SLOW_CONTRACTION * worst
            if trial_worst < worst:
                y, residual, errors = trial, trial_residual, trial_errors
        steps = fixed_point_steps + newton_steps
        raise SolverError(f"implicit-resnet layer {layer}: nonlinear solve did not converge in "
                          f"{steps} iteration{'' if steps == 1 else 's'} ({why}relative "
                          f"residual {worst:.3e} > tolerance {tol:.1e}); try a smaller step τ, "
                          "--solver-max-iter or --solver-tol")


class ImplicitStep(torch.autograd.Function):
    """y (N, w) of eq. 7 from (x, W, b, h); backward by one transposed solve (first order)."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Tensor, h: Tensor, theta: float,
                activation: Activation, tol: float, max_iter: int, layer: int) -> Tensor:
        y = solve_implicit_step(x, weight, bias, h, theta, activation, tol, max_iter, layer).y
        ctx.save_for_backward(x, y, weight, bias, h)
        ctx.theta, ctx.activation, ctx.layer = theta, activation, layer
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_y: Tensor):
        x, y, weight, bias, h = ctx.saved_tensors
        theta, activation = ctx.theta, ctx.activation
        fx, sx = activation.value_and_derivative(torch.addmm(bias, x, weight.t()))
        fy, sy = activation.value_and_derivative(torch.addmm(bias, y, weight.t()))
        lam = _solve_systems(sy, weight, theta * h, grad_y, ctx.layer, "adjoint", transpose=True)
        gx = (1.0 - theta) * h * (sx * lam)  # ∂L/∂z_x
        gy = theta * h * (sy * lam)  # ∂L/∂z_y
        grad_x = grad_w = grad_b = grad_h = None
        if ctx.needs_input_grad[0]:
            grad_x = lam + gx.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_w = gx.t().mm(x) + gy.t().mm(y)
        if ctx.needs_input_grad[2]:
            grad_b = gx.sum(0) + gy.sum(0)
        if ctx.needs_input_grad[3]:
            grad_h = (lam * ((1.0 - theta) * fx + theta * fy)).sum().reshape(h.shape)
        return grad_x, grad_w, grad_b, grad_h, None, None, None, None, None


def implicit_step(x: Tensor, weight: Tensor, bias: Tensor, h: Tensor, theta: float,
                  activation: Activation, tol: float, max_iter: int, layer: int = 1) -> Tensor:
    """Differentiable y (N, w) of eq. 7; θ = 0 is the explicit ResNet step (no solve)."""
    if theta == 0.0:
        return x + h * activation(torch.nn.functional.linear(x, weight, bias))
    return ImplicitStep.apply(x, weight, bias, h, float(theta), activation, float(tol),
                              int(max_iter), int(layer))


__all__ = ["ImplicitSolve", "ImplicitStep", "solve_implicit_step", "implicit_step",
           "effective_tolerance", "EPS_FLOOR", "SLOW_CONTRACTION", "MAX_HALVINGS",
           "SOLVE_CHUNK_ENTRIES"]
