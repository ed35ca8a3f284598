"""Cᵏ network (Hauser et al. eqs. 4c, 5, 7, 8): k = 1 is the ResNet, the state-space form is
the k-th order difference equation, gradients match finite differences, and the CLI trains
and evaluates it on Maxwell data."""

import json
from math import comb

import numpy as np
import pytest
import torch
from torch.func import functional_call
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.core.errors import InputError
from surrogate.datasets.toy import band_points
from surrogate.models.ck_net import CkNet, state_space_step
from surrogate.models.networks import SteppingNetwork, spectral_norms
from surrogate.models.registry import ARCHITECTURES, build_model, model_config
from surrogate.models.resnet import ResNet
from surrogate.models.stepping_configs import CkNetConfig


def own_fields(arch, **options):
    """``options`` less the fields ``arch``'s config does not have (shared test settings)."""
    names = ARCHITECTURES[arch].config.field_names()
    return model_config(arch=arch, **{k: v for k, v in options.items() if k in names})


pytestmark = pytest.mark.usefixtures("single_torch_thread")



def _pair(order: int, depth: int = 5, width: int = 4, in_features: int = 3, seed: int = 0,
          activation: str = "tanh") -> tuple[CkNet, CkNetConfig]:
    config = model_config(arch="ck-net", in_features=in_features, out_features=2, width=width,
                         depth=depth, order=order, activation=activation)
    torch.manual_seed(seed)
    model = build_model(config).double()
    with torch.no_grad():  # unequal learned steps, so every τ^[ℓ] is exercised
        model.steps.raw.copy_(torch.randn(depth, dtype=torch.float64) * 0.5 - 1.0)
        for layer in model.layers:
            layer.bias.normal_()
    return model, config


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_order_one_is_exactly_the_resnet(dtype):
    model, config = _pair(order=1, depth=6, activation="smooth-relu")
    resnet = ResNet(own_fields(**{**config.to_dict(), "arch": "resnet"}), model.activation)
    resnet.double()
    resnet.load_state_dict(model.state_dict())  # same parameter names, nothing extra
    model, resnet = model.to(dtype), resnet.to(dtype)
    x = torch.randn(50, 3, dtype=dtype)
    assert torch.equal(model(x), resnet(x))
    assert torch.equal(model.states(x, model.taus()), resnet.hidden(x, resnet.taus())[None])


def test_state_space_step_is_the_block_matrix_of_eq_8():
    k, n, width = 4, 3, 2
    states = torch.randn(k, n, width, dtype=torch.float64)
    forcing = torch.randn(n, width, dtype=torch.float64)
    upper = torch.triu(torch.ones(k, k, dtype=torch.float64))
    expected = torch.einsum("nm,mbw->nbw", upper, states) + forcing  # eq. 8, 𝟙 = identity
    assert torch.allclose(state_space_step(states, forcing), expected, rtol=0, atol=1e-14)


def _difference_form(model: CkNet, x: torch.Tensor) -> list[torch.Tensor]:
    """x^(1) … x^(L) from eq. 4c: Σ_{j=0}^{k} (-1)^j C(k, j) x^(ℓ+1-j) = Δl^k σ(W x^(ℓ) + b)."""
    k, taus = model.order, model.taus()
    first = taus[0] * model.activation(model.layers[0](x))
    history = [first] * k  # x^(2-k) … x^(1): ghosts equal to x^(1) (zero velocity, …)
    for layer, tau in zip(model.layers[1:], taus[1:], strict=True):
        recursion = sum((-1) ** (j + 1) * comb(k, j) * history[-j] for j in range(1, k + 1))
        history.append(recursion + tau**k * model.activation(layer(history[-1])))
    return history


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_state_space_form_equals_the_difference_equation(order):
    """Eq. 7 from q^(1) = (x^(1), 0, …, 0) reproduces eq. 4c; q_n = (δ⁻)^{n-1} x (eq. 5)."""
    model, _ = _pair(order=order, depth=7)
    x = torch.randn(20, 3, dtype=torch.float64)
    with torch.no_grad():
        states = model.states(x, model.taus())
        history = _difference_form(model, x)
    differences = history[-order:]  # x^(L-k+1) … x^(L)
    for n in range(order):  # q_{n+1} = n-th backward difference of x at L
        assert torch.allclose(states[n], differences[-1], rtol=1e-12, atol=1e-12)
        differences = [b - a for a, b in zip(differences[:-1], differences[1:], strict=True)]
    assert float(states[0].abs().max()) > 1e-2  # the identity compares non-trivial values


def test_second_order_net_is_a_second_order_scheme_for_x_double_dot():
    """k = 2, zero weights, bias b: σ(b) is a constant acceleration, x(T) = x(0) + σ(b) t²/2.

    With q_2^(1) = 0 the scheme gives x^(ℓ) = x^(1) + σ(b) τ² (ℓ-1) ℓ / 2 exactly (uniform τ).
    """
    config = model_config(arch="ck-net", in_features=1, out_features=1, width=3, depth=9,
                         tau=0.25, order=2, activation="tanh")
    model = build_model(config).double()
    bias = torch.tensor([0.3, -0.5, 1.0], dtype=torch.float64)
    with torch.no_grad():
        for layer in model.layers[1:]:
            layer.weight.zero_()
            layer.bias.copy_(bias)
    x = torch.linspace(-1, 1, 5, dtype=torch.float64).unsqueeze(1)
    with torch.no_grad():
        q = model.states(x, model.taus())
        start = 0.25 * torch.tanh(model.layers[0](x))
    steps = config.depth - 1
    assert torch.allclose(q[1], steps * 0.25**2 * torch.tanh(bias).expand(5, 3), atol=1e-14)
    expected = start + torch.tanh(bias) * 0.25**2 * steps * (steps + 1) / 2
    assert torch.allclose(q[0], expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("order", [2, 3])
def test_gradients_match_finite_differences(order):
    model, _ = _pair(order=order, depth=4, width=3)
    params = {name: p.detach().clone().requires_grad_(True)
              for name, p in model.named_parameters()}
    names = list(params)
    x = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)

    def output(x, *values):
        return functional_call(model, dict(zip(names, values, strict=True)), (x,))

    assert torch.autograd.gradcheck(output, (x, *params.values()), eps=1e-6, atol=1e-7)
    assert "steps.raw" in names  # the learned Δl per layer is among the checked inputs


def test_learned_steps_enter_as_the_kth_power():
    """∂x^(L)/∂τ^[ℓ] for the last layer is k τ^{k-1} σ(W x^(L-1) + b) (eq. 7)."""
    model, _ = _pair(order=3, depth=4)
    x = torch.randn(5, 3, dtype=torch.float64)
    taus = model.taus().detach().requires_grad_(True)
    hidden = model.hidden(x, taus)
    (grad,) = torch.autograd.grad(hidden.sum(), taus)
    with torch.no_grad():  # the position entering the last layer, from the first 3 layers
        position = _truncated(model, 3).states(x, taus[:3])[0]
        forcing = model.activation(model.layers[3](position))
    expected = (3 * taus[3] ** 2 * forcing).sum()
    assert float(grad[3]) == pytest.approx(float(expected.detach()), rel=1e-12)


def _truncated(model: CkNet, depth: int) -> CkNet:
    config = model_config(**{**model.config.to_dict(), "depth": depth})
    short = CkNet(config, model.activation).double()
    with torch.no_grad():
        for new, old in zip(short.layers, model.layers, strict=False):
            new.load_state_dict(old.state_dict())
    return short


def test_pruning_only_for_order_one():
    model, _ = _pair(order=1, depth=4)
    with torch.no_grad():
        model.steps.raw[2] = -30.0  # τ^[2] = tau_min + 1e-13
    pruned, removed, config = model.prune(2e-6)
    assert removed == [2] and config.depth == 3
    x = torch.randn(4, 3, dtype=torch.float64)
    assert torch.allclose(pruned(x), model(x), atol=1e-5)  # changes by O(τ^[2]) = O(1e-6)
    with pytest.raises(InputError, match="order 1"):
        _pair(order=2)[0].prune(1e-6)


@pytest.fixture(scope="module")
def maxwell_data(tmp_path_factory):
    path = tmp_path_factory.mktemp("ck") / "maxwell.h5"
    result = CliRunner().invoke(app, ["gen-data", "maxwell", "-n", "200", "--seed", "1", "-o",
                                      str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


def test_fit_and_evaluate_on_maxwell_through_the_cli(maxwell_data, tmp_path):
    runner, run = CliRunner(), tmp_path / "ck"
    result = runner.invoke(app, ["fit", str(maxwell_data), "--arch", "ck-net", "--order", "2",
                                 "--depth", "3", "--width", "6", "--epochs", "20", "--lr",
                                 "0.02", "-o", str(run), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert len(metrics["taus"]) == 3
    assert json.loads((run / "config.json").read_text())["model"]["order"] == 2
    result = runner.invoke(app, ["evaluate", str(run), "--levels", "1", "--fem-method", "none",
                                 "--out", str(tmp_path / "eval"), "--quiet"])
    assert result.exit_code == 0, result.output
    payload = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    (record,) = payload["records"]
    error = record["runs"]["ck"]["l2_error"]
    assert 0 < error < float("inf")


# ------------------------------------------- step_lipschitz: bounded steps (Behrmann et al.)


def _bounded(arch: str, order: int, bound: float | None, *, width: int = 4, depth: int = 5,
             seed: int = 0, scale: float = 4.0) -> SteppingNetwork:
    """float64 net with learned, unequal steps and large weights (so the bound binds)."""
    config = own_fields(arch, in_features=1 if width == 1 else 3, out_features=2,
                         width=width, depth=depth, order=order, activation="tanh",
                         step_lipschitz=bound)
    torch.manual_seed(seed)
    model = build_model(config).double()
    with torch.no_grad():
        model.steps.raw.copy_(torch.randn(depth, dtype=torch.float64))  # τ ≈ 0.1 … 3
        for layer in model.layers:
            layer.weight.mul_(scale)
            layer.bias.normal_()
    return model


def _plain_hidden(model: SteppingNetwork, x: torch.Tensor) -> torch.Tensor:
    """The forward as written before step_lipschitz existed: ``layer(y)`` in every layer."""
    taus = model.taus()
    if isinstance(model, CkNet):
        k = model.order
        position = taus[0] * model.activation(model.layers[0](x))
        q = torch.cat([position.unsqueeze(0), position.new_zeros(k - 1, *position.shape)])
        for layer, power in zip(model.layers[1:], taus.pow(k)[1:], strict=True):
            q = state_space_step(q, power * model.activation(layer(q[0])))
        return q[0]
    y = taus[0] * model.activation(model.layers[0](x))
    for k in range(1, len(model.layers)):
        y = y + taus[k] * model.activation(model.layers[k](y))
    return y


@pytest.mark.parametrize("arch, order", [("resnet", 1), ("ck-net", 1), ("ck-net", 2),
                                         ("ck-net", 3)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_without_a_binding_bound_the_output_is_bitwise_unchanged(arch, order, dtype):
    x = torch.randn(30, 3, dtype=torch.float64).to(dtype)
    for bound in (None, 1e30):  # no bound, and one that never binds (scale c / c = 1.0)
        model = _bounded(arch, order, bound).to(dtype)
        with torch.no_grad():
            assert torch.equal(model.hidden(x, model.taus()), _plain_hidden(model, x))
            assert torch.equal(model(x), model.output(_plain_hidden(model, x)))


@pytest.mark.parametrize("order", [1, 2, 3])
def test_effective_weights_satisfy_the_step_bound(order):
    """τ^k ‖W_eff‖₂ <= c; W_eff = W where τ^k ‖W‖₂ <= c already; the direction of W is kept."""
    bound = 0.7
    model = _bounded("ck-net", order, bound, depth=6)
    with torch.no_grad():
        model.layers[2].weight.mul_(1e-3)  # one layer well inside the bound
        taus = model.taus()
        effective = model.effective_weights(taus)
    assert effective[0] is model.layers[0].weight  # the input layer is never rescaled
    binding = 0
    for k in range(1, model.config.depth):
        weight = model.layers[k].weight.detach()
        size = float(taus[k] ** order * torch.linalg.matrix_norm(weight, ord=2))
        step = float(taus[k] ** order * torch.linalg.matrix_norm(effective[k], ord=2))
        assert step <= bound + 1e-6
        if size <= bound:
            assert torch.equal(effective[k], weight)
        else:
            binding += 1
            assert step == pytest.approx(bound, rel=1e-12)
            assert torch.allclose(effective[k] * size / bound, weight, rtol=1e-12, atol=0)
    assert 0 < binding < model.config.depth - 1  # both cases were exercised


@pytest.mark.parametrize("shape", [(3, 1, 1), (3, 1, 5), (3, 5, 1), (3, 4, 6)])
def test_spectral_norms_are_the_largest_singular_values(shape):
    weights = torch.randn(*shape, dtype=torch.float64)
    expected = torch.linalg.svdvals(weights)[:, 0]
    assert torch.allclose(spectral_norms(weights), expected, rtol=1e-13, atol=0)


def test_bounded_width_one_c1_net_is_strictly_monotone_so_at_most_75_percent():
    """With c < 1 each C¹ layer x -> x + τ σ(w_eff x + b) has slope >= 1 - c > 0 (tanh is
    1-Lipschitz), so the network is strictly monotone in its input, for any weights. The
    bands blue | red | blue then cannot be separated: a threshold gets at most 75% right.
    Without the bound the same weights fold the line in some draws."""
    x = torch.linspace(-3.0, 3.0, 401, dtype=torch.float64).unsqueeze(1)
    bands, labels = band_points(400, np.random.default_rng(0))
    bands = torch.as_tensor(bands)
    folded = 0
    for seed in range(20):
        bound = 0.1 + 0.8 * float(torch.rand((), generator=torch.Generator().manual_seed(seed)))
        for arch in ("resnet", "ck-net"):
            model = _bounded(arch, 1, bound, width=1, depth=10, seed=seed, scale=6.0)
            with torch.no_grad():
                w0 = torch.sign(model.layers[0].weight)
                model.layers[0].weight.copy_(w0)  # input layer unsaturated on [-3, 3], so that
                model.layers[0].bias.zero_()  # strict monotonicity is visible in float64
                position = model.hidden(x, model.taus())[:, 0]
                assert bool((torch.sign(w0) * position.diff() > 0).all()), (seed, arch)
                logits = model(bands)
                predicted = (logits[:, 1] > logits[:, 0]).numpy()
                assert (predicted == labels).mean() <= 0.75
                free = model_config(**{**model.config.to_dict(), "step_lipschitz": None})
                unbounded = build_model(free).double()
                unbounded.load_state_dict(model.state_dict())
                steps = unbounded.hidden(x, unbounded.taus())[:, 0].diff() * torch.sign(w0)
                folded += bool((steps < 0).any())
    assert folded > 0  # the property is not vacuous: the bound is what makes it hold


@pytest.mark.parametrize("arch, order", [("resnet", 1), ("ck-net", 2)])
def test_bounded_gradients_match_finite_differences(arch, order):
    """Layers 1, 3 are rescaled (τ^k ‖W‖₂ = 2c), layer 2 is not (c/2): both branches, off the
    kink at τ^k ‖W‖₂ = c; the learned steps τ are among the checked inputs."""
    bound = 0.8
    model = _bounded(arch, order, bound, width=3, depth=4)
    with torch.no_grad():
        taus = model.taus()
        for k, target in ((1, 2.0 * bound), (2, 0.5 * bound), (3, 2.0 * bound)):
            weight = model.layers[k].weight
            weight.mul_(target / (taus[k] ** order * torch.linalg.matrix_norm(weight, ord=2)))
    params = {name: p.detach().clone().requires_grad_(True)
              for name, p in model.named_parameters()}
    names = list(params)
    x = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)

    def output(x, *values):
        return functional_call(model, dict(zip(names, values, strict=True)), (x,))

    assert torch.autograd.gradcheck(output, (x, *params.values()), eps=1e-6, atol=1e-7)


def test_step_lipschitz_survives_pruning():
    model = _bounded("ck-net", 1, 0.5, depth=4, scale=1.0)
    with torch.no_grad():
        model.steps.raw[2] = -30.0
    pruned, removed, config = model.prune(2e-6)
    assert removed == [2] and config.step_lipschitz == 0.5 == pruned.config.step_lipschitz
    x = torch.randn(4, 3, dtype=torch.float64)
    assert torch.allclose(pruned(x), model(x), atol=1e-5)
