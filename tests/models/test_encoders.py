"""The sensor encoder: an option of every static architecture (inputs="fields")."""

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.encoders import EncodedInputs, SensorEncoder, core_config
from surrogate.models.registry import (
    architectures_for,
    build_model,
    config_from_dict,
    model_config,
    parameter_floor,
)
from surrogate.runs.load import build_loaded_model
from surrogate.runs.save import plain_state_dict

SENSORS = 10


def fields_config(arch: str = "resnet", **extra):
    fields = {"arch": arch, "in_features": 3 + SENSORS, "out_features": 3, "inputs": "fields",
              "width": 8, "depth": 3, "encoder_width": 6, "code_size": 4, **extra}
    return model_config(**fields)


@pytest.mark.parametrize("arch", architectures_for("pointwise"))
def test_every_static_architecture_takes_an_encoder(arch, single_torch_thread):
    torch.manual_seed(0)
    config = fields_config(arch, tau=0.5) if arch == "frac-dnn" else fields_config(arch)
    model = build_model(config).double()
    assert isinstance(model, EncodedInputs)
    assert type(model.core).__name__ != "EncodedInputs"
    assert model.core.config == core_config(config)
    assert model.core.config.in_features == 3 + 4 and model.core.config.inputs == "pointwise"
    rows = torch.randn(5, 3 + SENSORS, dtype=torch.float64)
    out = model(rows)
    assert out.shape == (5, 3)
    # u(x; s) = core([x, E(s)]) exactly
    expected = model.core(torch.cat([rows[:, :3], model.encoder(rows[:, 3:])], dim=1))
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    assert sum(p.numel() for p in model.parameters()) >= parameter_floor(config)
    steps = config.depth + (config.branch_depth or config.depth if arch == "deeponet" else 0)
    assert model.taus().shape == (steps,) and len(model.layer_biases()) == steps
    assert len(model.layer_weights()) == steps + 1


def test_outputs_depend_on_the_sensors_and_gradients_match_finite_differences():
    torch.manual_seed(1)
    model = build_model(fields_config(activation="tanh")).double()
    rows = torch.randn(4, 3 + SENSORS, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(model, (rows,), eps=1e-6, atol=1e-7)
    other = rows.detach().clone()
    other[:, 3:] += 1.0
    assert (model(rows) - model(other)).abs().max() > 1e-3


def test_state_dict_round_trip_rebuilds_the_same_function():
    torch.manual_seed(2)
    config = fields_config()
    model = build_model(config).double()
    stored = config_from_dict(config.to_dict())
    assert stored == config
    loaded = build_loaded_model(stored, plain_state_dict(model), "model.pt")
    rows = torch.randn(7, 3 + SENSORS, dtype=torch.float64)
    torch.testing.assert_close(loaded(rows), model(rows), rtol=0, atol=0)


def test_pruning_prunes_the_core_behind_the_same_encoder():
    torch.manual_seed(3)
    model = build_model(fields_config(tau=None, depth=4)).double()
    with torch.no_grad():  # τ^[2] -> tau_min: that hidden step does (almost) nothing
        model.core.steps.raw[2] = -40.0
    pruned, removed, config = model.prune(1e-3)
    assert removed == [2]
    assert isinstance(pruned, EncodedInputs) and pruned.encoder is model.encoder
    assert config.depth == 3 and config.inputs == "fields"
    assert config.in_features == 3 + SENSORS
    rows = torch.randn(6, 3 + SENSORS, dtype=torch.float64)
    torch.testing.assert_close(pruned(rows), model(rows), atol=1e-5, rtol=0)


def test_bad_fields_configs_and_inputs_are_input_errors():
    with pytest.raises(InputError, match="sensor value"):
        model_config(arch="resnet", in_features=3, out_features=3, inputs="fields")
    with pytest.raises(InputError, match="inputs"):
        model_config(arch="resnet", in_features=7, out_features=3, inputs="sensors")
    model = build_model(fields_config())
    with pytest.raises(InputError, match="shape"):
        model(torch.randn(2, 5))
    with pytest.raises(InputError, match="fields"):
        EncodedInputs(model_config(arch="resnet", in_features=7, out_features=3),
                      model.core)
    assert SensorEncoder(5, 4, 2, "tanh")(torch.randn(3, 5)).shape == (3, 2)


def test_old_model_sections_read_as_pointwise_inputs():
    old = {"arch": "resnet", "in_features": 7, "out_features": 3, "width": 8, "depth": 2}
    config = config_from_dict(old)
    assert config.inputs == "pointwise"
    assert not isinstance(build_model(config), EncodedInputs)
