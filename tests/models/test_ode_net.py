"""ODE network (Ruseckas eqs. 59, 87–90, 109–111): the layer update, zero initialisation, the
power-law (not exponential) decay of signals and gradients with zero weights, the two-step
variant, finite-difference gradients, and the CLI on Maxwell data."""

import json
import math

import numpy as np
import pytest
import torch
from torch.func import functional_call
from typer.testing import CliRunner

from surrogate.cli.app import app
from surrogate.models.ode_net import ODENet, embed
from surrogate.models.registry import build_model, model_config

pytestmark = pytest.mark.usefixtures("single_torch_thread")


def _net(depth: int, width: int = 1, in_features: int = 1, cubic: float = 0.5,
         multistep: bool = False, tau: float | None = 1.0) -> ODENet:
    config = model_config(arch="ode-net", in_features=in_features, out_features=1, width=width,
                         depth=depth, tau=tau, cubic=cubic, multistep=multistep)
    return build_model(config).double()


def _randomise(model: ODENet, seed: int = 0) -> None:
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.3 * torch.randn(p.shape, generator=generator, dtype=p.dtype))


def test_hidden_weights_and_biases_start_at_zero_and_the_signal_passes():
    model = _net(depth=4, width=5, in_features=3)
    assert all(float(t.detach().abs().max()) == 0.0 for t in (*model.layer_weights()[:-1],
                                                     *model.layer_biases()))
    assert float(model.output.weight.detach().abs().max()) > 0.0  # the read-out is not a step
    x = torch.randn(8, 3, dtype=torch.float64)
    assert float(model.hidden(x, model.taus())[:, :3].abs().min()) > 0.0


def test_embedding_is_the_rectangular_identity_of_eq_59():
    u = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(embed(u, 5), torch.tensor([[0.0, 1, 2, 0, 0], [3, 4, 5, 0, 0]]))
    assert torch.equal(embed(u, 2), u[:, :2])


@pytest.mark.parametrize("multistep", [False, True])
def test_layers_are_eqs_109_and_111_with_scaled_parameters(multistep):
    """w̃ = τ W, b̃ = τ b (eq. 110), γ̃ = cubic; eq. 111 from the second step on."""
    model = _net(depth=5, width=4, in_features=3, cubic=0.3, multistep=multistep, tau=None)
    _randomise(model)
    u = torch.randn(7, 3, dtype=torch.float64)
    with torch.no_grad():
        taus = model.taus()
        tilde_w, tilde_b = model.scaled_parameters()
        previous = torch.cat([u, u.new_zeros(7, 1)], dim=1)
        current = previous + u @ tilde_w[0].T + tilde_b[0] - 0.3 * previous**3
        for ell in range(1, 5):
            k = float(model.multistep_k[ell - 1]) if multistep else 0.0
            following = ((1 - k) * current + k * previous + current @ tilde_w[ell].T
                         + tilde_b[ell] - 0.3 * current**3)
            previous, current = current, following
        assert torch.allclose(model.hidden(u, taus), current, rtol=1e-13, atol=1e-13)
    assert float(taus.max() - taus.min()) > 1e-3  # unequal steps: each layer's τ is used
    assert torch.allclose(tilde_w[2], taus[2] * model.layers[2].weight)


def _zero_weight_trajectory(depth: int, cubic: float, start: torch.Tensor, multistep_k=None
                            ) -> tuple[list[torch.Tensor], torch.Tensor]:
    model = _net(depth=depth, cubic=cubic, multistep=multistep_k is not None)
    if multistep_k is not None:
        with torch.no_grad():
            model.multistep_k.fill_(multistep_k)
    u = start.clone().requires_grad_(True)
    return model.trajectory(u, model.taus()), u


def _loglog_slope(layers: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of log|values| against log(layers), and its max residual."""
    a, b = np.polyfit(np.log(layers), np.log(np.abs(values)), 1)
    return a, float(np.abs(np.log(np.abs(values)) - (a * np.log(layers) + b)).max())


@pytest.mark.slow
def test_zero_weights_decay_as_the_power_law_of_eqs_87_88_and_90():
    """w = b = 0: x^(ℓ) ~ (2 γ̃ ℓ)^{-1/2} (eq. 88) and ∂x^(ℓ)/∂x^(0) ~ ℓ^{-3/2} (eq. 90)."""
    cubic, depth = 0.5, 4000
    start = torch.tensor([[0.5], [1.0], [-1.2]], dtype=torch.float64)
    states, u = _zero_weight_trajectory(depth, cubic, start)
    layers = np.arange(1, depth + 1)
    x = torch.cat(states, dim=1).detach().numpy()  # (3, depth): x^(1) … x^(depth)
    tail = layers >= depth // 10
    for row in x:
        slope, misfit = _loglog_slope(layers[tail], row[tail])
        assert slope == pytest.approx(-0.5, abs=0.01)  # eq. 88
        assert misfit < 0.01  # a straight line in log-log: a power law
        # An exponential fits log|x| against ℓ far worse over the same layers.
        coef = np.polyfit(layers[tail], np.log(np.abs(row[tail])), 1)
        exp_misfit = np.abs(np.log(np.abs(row[tail])) - np.polyval(coef, layers[tail])).max()
        assert exp_misfit > 20 * misfit
        # Self-similarity of a power law: x^(2ℓ)/x^(ℓ) -> 2^{-1/2} for every large ℓ.
        for ell in (1000, 2000):
            assert row[2 * ell - 1] / row[ell - 1] == pytest.approx(2**-0.5, rel=5e-3)
        # Amplitude of eq. 88: x² · 2 γ̃ ℓ -> 1, independent of the input.
        assert row[-1] ** 2 * 2 * cubic * depth == pytest.approx(1.0, rel=0.01)
    # Gradients (eq. 90): ∂x^(ℓ)/∂x^(0) = Π (1 - 3 γ̃ x²) ~ ℓ^{-3/2}, by autograd.
    sample = [400, 800, 1600, 3200]
    grads = [torch.autograd.grad(states[ell - 1][1, 0], u, retain_graph=True)[0][1, 0].item()
             for ell in sample]
    slope, misfit = _loglog_slope(np.array(sample), np.array(grads))
    assert slope == pytest.approx(-1.5, abs=0.02) and misfit < 0.02


def test_multistep_with_constant_k_solves_the_slower_ode():
    """Eq. 111 with w = b = 0 and fixed k is consistent with dx/dℓ = -γ̃ x³ / (1 + k)
    (ρ(z) = (z - 1)(z + k), σ(1) = 1): x^(ℓ) ~ ((1 + k) / (2 γ̃ ℓ))^{1/2}; k = 0 is eq. 109."""
    cubic, depth, k = 0.5, 1500, 0.5
    start = torch.tensor([[0.8], [-0.6]], dtype=torch.float64)
    with torch.no_grad():
        two_step, _ = _zero_weight_trajectory(depth, cubic, start, multistep_k=k)
        euler, _ = _zero_weight_trajectory(40, cubic, start)
        same, _ = _zero_weight_trajectory(40, cubic, start, multistep_k=0.0)
    assert torch.equal(torch.cat(euler, 1), torch.cat(same, 1))
    x = torch.cat(two_step, dim=1).numpy()
    layers = np.arange(1, depth + 1)
    for row in x:
        slope, _ = _loglog_slope(layers[150:], row[150:])
        assert slope == pytest.approx(-0.5, abs=0.01)
        assert row[-1] ** 2 * 2 * cubic * depth / (1 + k) == pytest.approx(1.0, rel=0.02)


@pytest.mark.parametrize("multistep", [False, True])
def test_gradients_match_finite_differences(multistep):
    model = _net(depth=4, width=3, in_features=2, cubic=0.2, multistep=multistep, tau=None)
    _randomise(model, seed=1)
    params = {name: p.detach().clone().requires_grad_(True)
              for name, p in model.named_parameters()}
    names = list(params)
    assert ("multistep_k" in names) == multistep and "steps.raw" in names
    x = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)

    def output(x, *values):
        return functional_call(model, dict(zip(names, values, strict=True)), (x,))

    assert torch.autograd.gradcheck(output, (x, *params.values()), eps=1e-6, atol=1e-7)


def test_multistep_coefficients_train_and_round_trip():
    model = _net(depth=3, width=2, in_features=2, multistep=True, cubic=0.1)
    assert tuple(model.multistep_k.shape) == (2,)
    assert float(model.multistep_k.abs().max()) == 0.0  # starts as the Euler network
    copy = _net(depth=3, width=2, in_features=2, multistep=True, cubic=0.1)
    copy.load_state_dict(model.state_dict())
    assert torch.equal(copy.cubic, torch.tensor(0.1, dtype=torch.float64))
    assert not math.isnan(float(copy(torch.ones(1, 2, dtype=torch.float64))))


@pytest.fixture(scope="module")
def maxwell_data(tmp_path_factory):
    path = tmp_path_factory.mktemp("ode") / "maxwell.h5"
    result = CliRunner().invoke(app, ["gen-data", "maxwell", "-n", "200", "--seed", "1", "-o",
                                      str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


def test_fit_and_evaluate_on_maxwell_through_the_cli(maxwell_data, tmp_path):
    runner, run = CliRunner(), tmp_path / "ode"
    result = runner.invoke(app, ["fit", str(maxwell_data), "--arch", "ode-net", "--multistep",
                                 "--cubic", "0.1", "--smoothness", "1", "--depth", "3",
                                 "--width", "8", "--epochs", "20", "--lr", "0.02", "-o",
                                 str(run), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert len(metrics["taus"]) == 3
    config = json.loads((run / "config.json").read_text())
    assert config["model"]["multistep"] is True and config["model"]["cubic"] == 0.1
    result = runner.invoke(app, ["evaluate", str(run), "--levels", "1", "--fem-method", "none",
                                 "--out", str(tmp_path / "eval"), "--quiet"])
    assert result.exit_code == 0, result.output
    payload = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    (record,) = payload["records"]
    assert 0 < record["runs"]["ode"]["l2_error"] < float("inf")
