"""SequenceModelConfig validation and round trip; build_sequence_model for lem, cornn and
lstm: read-out at every or the last step, dtype/device following the input, learned
per-unit Δt, checkpoint round trip, bad inputs."""

import io

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.cornn import CoRNNCell
from surrogate.models.lem import LEMCell
from surrogate.models.registry import build_model, config_from_dict, model_config
from surrogate.models.sequence_config import CoRNNConfig
from surrogate.models.sequence_models import SequenceModel

f64 = torch.float64
ARCHS = ["lem", "cornn", "lstm"]


def build(arch, seed=0, **kwargs):
    options = {"in_features": 3, "out_features": 2, "hidden": 5, **kwargs}
    torch.manual_seed(seed)
    return build_model(model_config(arch=arch, **options))


def test_config_round_trip_and_defaults():
    config = model_config(arch="cornn", in_features=3, out_features=2, damping="explicit",
                                 learn_dt=True, readout="last")
    assert config.dt == CoRNNConfig.default_dt == 0.042
    assert config_from_dict(config.to_dict()) == config
    assert model_config(arch="lem", in_features=1, out_features=1).dt == 1.0
    assert model_config(arch="lem", in_features=1, out_features=1, dt=2).dt == 2.0


@pytest.mark.parametrize("changes, match", [
    ({"arch": "gru"}, "unknown arch 'gru'; choose one of: .*cornn.*lem, lstm"),
    ({"hidden": 0}, "hidden must be an integer >= 1"),
    ({"in_features": 2.5}, "in_features must be an integer, got 2.5"),
    ({"dt": -0.1}, "dt must be > 0"),
    ({"gamma": float("nan")}, "gamma must be finite"),
    ({"epsilon": "big"}, "epsilon must be a number"),
    ({"damping": "semi"}, "unknown damping 'semi'; choose one of: implicit, explicit"),
    ({"readout": "first"}, "unknown readout 'first'; choose one of: sequence, last"),
    ({"learn_dt": 1}, "learn_dt must be true or false"),
    ({"arch": "lstm", "learn_dt": True}, "learn_dt applies to arch 'lem' and 'cornn' only"),
])
def test_config_rejects_bad_values_in_one_line(changes, match):
    options = {"arch": "cornn", "in_features": 3, "out_features": 2, **changes}
    with pytest.raises(InputError, match=match) as info:
        model_config(**options)
    assert "\n" not in str(info.value)


def test_config_from_dict_rejects_unknown_and_missing_keys():
    with pytest.raises(InputError, match="unknown sequence model config key"):
        config_from_dict({"arch": "lem", "in_features": 1, "out_features": 1,
                                       "width": 3})
    with pytest.raises(InputError, match="missing: out_features"):
        config_from_dict({"arch": "lem", "in_features": 1})
    with pytest.raises(InputError, match="needs a ModelConfig or SequenceModelConfig"):
        build_model({"arch": "lem"})


@pytest.mark.parametrize("arch", ARCHS)
def test_readout_every_step_and_last_step(arch):
    model = build(arch).to(f64)
    u = torch.randn(4, 7, 3, dtype=f64)
    out = model(u)
    assert out.shape == (4, 7, 2) and out.dtype == f64
    states = model.core(u)[0]
    torch.testing.assert_close(out, states @ model.readout.weight.T + model.readout.bias,
                               rtol=1e-14, atol=1e-14)
    last = build(arch, readout="last").to(f64)
    out_last = last(u)
    assert out_last.shape == (4, 2)
    torch.testing.assert_close(out_last, last.readout(last.core(u)[0][:, -1]), rtol=0, atol=0)


@pytest.mark.parametrize("arch, core", [("lem", LEMCell), ("cornn", CoRNNCell),
                                        ("lstm", torch.nn.LSTM)])
def test_registry_builds_the_named_core(arch, core):
    model = build(arch)
    assert isinstance(model, SequenceModel) and isinstance(model.core, core)
    assert model.core.hidden_size == 5 if arch == "lstm" else model.core.hidden == 5


def test_cornn_config_reaches_the_cell():
    model = build("cornn", dt=0.1, gamma=1.5, epsilon=0.7, damping="explicit")
    assert model.core.damping == "explicit"
    assert model.core.gamma == 1.5 and model.core.epsilon == 0.7
    torch.testing.assert_close(model.core.dt, torch.full((5,), 0.1))
    assert model.to(f64).core.dt[0].item() == 0.1  # exact in float64, not a rounded float32


@pytest.mark.parametrize("arch", ["lem", "cornn"])
def test_learned_dt_is_positive_per_unit_and_trained(arch):
    model = build(arch, dt=0.3, learn_dt=True)
    torch.testing.assert_close(model.core.dt, torch.full((5,), 0.3))
    with torch.no_grad():
        model.core.dt_raw.copy_(torch.tensor([-40.0, -5.0, 0.0, 3.0, 30.0]))
    assert (model.core.dt > 0).all()
    model(torch.randn(2, 6, 3)).square().sum().backward()
    assert model.core.dt_raw.grad.shape == (5,)
    assert model.core.dt_raw.grad.abs().sum() > 0


@pytest.mark.parametrize("arch", ARCHS)
def test_float32_model_and_checkpoint_round_trip(arch):
    model = build(arch, learn_dt=arch != "lstm")
    u = torch.randn(2, 6, 3)
    out = model(u)
    assert out.dtype == torch.float32
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    other = build(arch, seed=1, learn_dt=arch != "lstm")
    other.load_state_dict(torch.load(buffer, weights_only=True))
    torch.testing.assert_close(other(u), out, rtol=0, atol=0)


@pytest.mark.parametrize("arch", ARCHS)
def test_bad_inputs_raise_input_error(arch):
    model = build(arch)
    with pytest.raises(InputError, match=r"shape \(N, T, 3\)"):
        model(torch.zeros(4, 3))
    with pytest.raises(InputError, match=r"shape \(N, T, 3\)"):
        model(torch.zeros(4, 7, 2))
    with pytest.raises(InputError, match="model is torch.float32"):
        model(torch.zeros(4, 7, 3, dtype=f64))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("arch", ["lem", "cornn"])
def test_cuda_matches_cpu(arch):
    model = build(arch, learn_dt=True).to(f64)
    u = torch.randn(3, 50, 3, dtype=f64)
    out_cpu = model(u)
    out_cpu.square().sum().backward()
    grads_cpu = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model = model.cuda()
    out_gpu = model(u.cuda())
    assert out_gpu.device.type == "cuda"
    out_gpu.square().sum().backward()
    torch.testing.assert_close(out_gpu.cpu(), out_cpu, rtol=1e-12, atol=1e-12)
    for p, g in zip(model.parameters(), grads_cpu, strict=True):
        torch.testing.assert_close(p.grad.cpu(), g, rtol=1e-10, atol=1e-12)
