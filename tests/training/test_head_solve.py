"""Hybrid least-squares/gradient training: the head solve is the exact minimiser over the head,
and training without it is plain training."""

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.registry import build_model, model_config
from surrogate.training import head_solve
from surrogate.training.config import TrainConfig
from surrogate.training.epoch import data_loss
from surrogate.training.head_solve import head_sample, head_solve_due, solve_linear_head
from surrogate.training.loop import fit

from .conftest import gen_data

pytestmark = pytest.mark.usefixtures("single_torch_thread")


@pytest.fixture(scope="module")
def family_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("radial") / "radial.h5"
    gen_data(path, "maxwell-family", "--family", "radial", "--problems", "10", "--points", "60",
             "--n-volume", "4", "--n-boundary", "2", "--seed", "1")
    return path


def separable(quadratic=True):
    torch.manual_seed(7)
    return build_model(model_config(arch="deeponet", in_features=3 + 4, out_features=3,
                                    width=6, depth=2, basis=4, branch_width=5, branch_depth=2,
                                    activation="silu", quadratic_output=quadratic)).double()


def head_parameters(model):
    """W, W_q (with the quadratic output) and β of a separable model."""
    quadratic = [model.branch.quadratic_output.weight] if model.config.quadratic_output else []
    return [model.branch.output.weight, *quadratic, model.output_bias]


def problem_rows(problems=12, rows=600, seed=8):
    g = torch.Generator().manual_seed(seed)
    mu = torch.randn(problems, 4, generator=g, dtype=torch.float64)
    x = torch.randn(rows, 3, generator=g, dtype=torch.float64)
    return torch.cat([x, mu[torch.randint(problems, (rows,), generator=g)]], 1)


def head_gradient(model, x, y):
    return torch.autograd.grad(data_loss(model(x), y), head_parameters(model))


def test_the_solve_leaves_no_gradient_on_the_head_and_minimises_the_loss(monkeypatch):
    model = separable()
    x = problem_rows()
    y = torch.sin(x[:, :3] * x[:, 3:6]) + x[:, 6:7]  # not representable: a real residual
    before = head_gradient(model, x, y)
    loss_before = float(data_loss(model(x), y).detach())
    monkeypatch.setattr(head_solve, "HEAD_RIDGE", 0.0)  # the plain normal equations
    theta = solve_linear_head(model, x, y)
    after = head_gradient(model, x, y)
    for g0, g1 in zip(before, after, strict=True):
        assert float(g1.norm()) <= 1e-9 * float(g0.norm())
    with torch.no_grad():
        loss = float(data_loss(model(x), y))
        assert loss < loss_before
        head = model.linear_head()  # any other head is worse: J(θ + δ) − J(θ) = ½ ‖Φδ‖²/N
        for k in range(5):
            delta = torch.randn(theta.shape, generator=torch.Generator().manual_seed(k),
                                dtype=theta.dtype)
            head.assign(theta + 1e-3 * delta)
            assert float(data_loss(model(x), y)) > loss
        head.assign(theta)
    # the same θ as a dense least-squares solve with the explicit features
    with torch.no_grad():
        g = model.linear_head().branch_features(x[:, 3:])
        t = model.trunk_features(x[:, :3])
        phi = torch.cat([(g[:, :, None] * t[:, None, :]).reshape(x.shape[0], -1),
                         torch.ones(x.shape[0], 1, dtype=x.dtype)], 1)
        dense = torch.linalg.lstsq(phi, y).solution
    torch.testing.assert_close(phi @ theta, phi @ dense, rtol=1e-7, atol=1e-9)


def test_the_default_ridge_solves_the_ridge_problem_exactly():
    """With ε > 0 the solve minimises J + ε ‖θ‖² / (2N): ∂J/∂θ = −(ε/N) θ, to round-off."""
    model = separable()
    x = problem_rows()
    y = torch.cos(x[:, :3] + x[:, 3:6])
    gram, _ = model.linear_head().normal_equations(x, y)
    epsilon = head_solve.HEAD_RIDGE * float(gram.diagonal().mean())
    theta = solve_linear_head(model, x, y)
    grads = head_gradient(model, x, y)  # (n p, width) blocks of W, W_q and β (n,)
    expected = -epsilon / x.shape[0] * theta
    w = torch.cat(grads[:2], 1).reshape(3, 4, -1).permute(2, 1, 0).reshape(-1, 3)
    torch.testing.assert_close(torch.cat([w, grads[2][None]]), expected, rtol=1e-5,
                               atol=1e-6 * float(expected.abs().max()))


def test_fewer_rows_than_features_still_give_a_minimiser():
    model = separable(quadratic=False)
    x = problem_rows(problems=2, rows=9)  # 5·4 + 1 = 21 unknowns, 9 rows: singular ΦᵀΦ
    y = torch.randn(9, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    solve_linear_head(model, x, y)
    params = [model.branch.output.weight, model.output_bias]
    for g in torch.autograd.grad(data_loss(model(x), y), params):
        assert float(g.norm()) < 1e-6


def test_when_the_head_is_solved_and_which_rows():
    assert [e for e in range(1, 11) if head_solve_due(e, 3, 10)] == [8, 9, 10]
    assert [e for e in range(1, 9) if head_solve_due(e, 1, 8)] == [8]
    assert [e for e in range(1, 3) if head_solve_due(e, 5, 2)] == [1, 2]
    assert not any(head_solve_due(e, 0, 5) for e in range(1, 6))
    assert head_sample(100, 100, 0, 1, "cpu") is None
    a, b = head_sample(100, 30, 0, 2, "cpu"), head_sample(100, 30, 0, 2, "cpu")
    assert torch.equal(a, b) and a.unique().numel() == 30 and int(a.max()) < 100
    assert not torch.equal(a, head_sample(100, 30, 0, 3, "cpu"))


TRAIN = {"epochs": 3, "batch_size": 64, "lr": 3e-3}
MODEL = {"arch": "deeponet", "width": 8, "depth": 2, "basis": 4, "branch_depth": 1}


def test_off_is_plain_training_and_on_solves_only_when_due(family_file, tmp_path):
    plain = fit(family_file, MODEL, {**TRAIN, "head_solve_epochs": 0}, tmp_path / "plain")
    typed = fit(family_file, MODEL, TrainConfig.from_dict(plain.train_config), tmp_path / "typed")
    for a, b in zip(plain.model.state_dict().values(), typed.model.state_dict().values(),
                    strict=True):
        assert torch.equal(a, b)
    on = fit(family_file, MODEL, {**TRAIN, "head_solve_epochs": 1}, tmp_path / "on")
    # epochs before the solve (after the last, the 3rd) are plain training, bit for bit
    assert [r["train_loss"] for r in on.history] == [r["train_loss"] for r in plain.history]
    assert [r["val_loss"] for r in on.history[:2]] == [r["val_loss"] for r in plain.history[:2]]
    assert on.history[2]["val_loss"] != plain.history[2]["val_loss"]
    assert on.train_config["head_solve_epochs"] == 1
    assert plain.train_config["head_solve_epochs"] == 0
    # after the last epoch's solve (every row: fewer than head_solve_rows) the head is optimal
    from surrogate.training.data import load_training_data, network_dataset, split_tensors

    dataset = network_dataset(load_training_data(family_file), {"inputs": "params"})
    x, y = split_tensors(dataset, on.normalisation, "train", torch.device("cpu"),
                         torch.float64, on.model_config)
    model, plain_model = on.model.double(), plain.model.double()
    loss, plain_loss = data_loss(model(x), y), data_loss(plain_model(x), y)
    grads = torch.autograd.grad(loss, head_parameters(model))
    plain_grads = torch.autograd.grad(plain_loss, head_parameters(plain_model))
    for g, g0 in zip(grads, plain_grads, strict=True):
        assert float(g.norm()) < 1e-3 * float(g0.norm())  # float32 weights: not 1e-8
    assert float(loss.detach()) < float(plain_loss.detach())


def test_a_model_without_a_head_or_data_parallel_is_refused(family_file, tmp_path):
    with pytest.raises(InputError, match="no linear head") as error:
        fit(family_file, {"inputs": "params", "width": 4, "depth": 1},
            {"epochs": 1, "head_solve_epochs": 1}, tmp_path / "resnet")
    assert "\n" not in str(error.value)
    assert not (tmp_path / "resnet" / "model.pt").exists()
    with pytest.raises(InputError, match="no linear head"):  # a ResNet behind the encoder
        fit(family_file, {"inputs": "fields", "width": 4, "depth": 1, "code_size": 3,
                          "encoder_width": 4}, {"epochs": 1, "head_solve_epochs": 1},
            tmp_path / "fields")
    with pytest.raises(InputError, match="one process"):
        TrainConfig(head_solve_epochs=1, nproc=2)


def test_sensor_inputs_solve_the_core_head_on_encoded_rows(family_file, tmp_path):
    """inputs "fields": the separable core behind the sensor encoder has the same head."""
    from surrogate.training.data import load_training_data, network_dataset, split_tensors

    fields = {**MODEL, "inputs": "fields", "code_size": 3, "encoder_width": 4}
    plain = fit(family_file, fields, {**TRAIN, "head_solve_epochs": 0}, tmp_path / "plain")
    run = fit(family_file, fields, {**TRAIN, "head_solve_epochs": 1}, tmp_path / "on")
    dataset = network_dataset(load_training_data(family_file), {"inputs": "fields"})
    x, y = split_tensors(dataset, run.normalisation, "train", torch.device("cpu"),
                         torch.float64, run.model_config)
    for model in (run.model.double(), plain.model.double()):
        with torch.no_grad():
            encoded = torch.cat([x[:, :3], model.encoder(x[:, 3:])], 1)
        for a, b in zip(model.linear_head().normal_equations(x, y),
                        model.core.linear_head().normal_equations(encoded, y), strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=0)
    core, plain_core = run.model.core, plain.model.core
    grads = torch.autograd.grad(data_loss(run.model(x), y), head_parameters(core))
    plain_grads = torch.autograd.grad(data_loss(plain.model(x), y), head_parameters(plain_core))
    for g, g0 in zip(grads, plain_grads, strict=True):
        assert float(g.norm()) < 1e-3 * float(g0.norm())
