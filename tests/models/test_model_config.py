"""ModelConfig validation, JSON round trip and the registry."""

import json
import math

import pytest
import torch

from surrogate.core.errors import InputError
from surrogate.models.registry import (
    ARCHITECTURES,
    activation_names,
    architecture_names,
    build_model,
    config_from_dict,
    model_config,
)


def test_round_trip_through_json():
    config = model_config(arch="frac-dnn", in_features=7, out_features=3, width=50, depth=6,
                         tau=0.5, gamma=0.3, activation="tanh", time_horizon=3)
    again = config_from_dict(json.loads(json.dumps(config.to_dict())))
    assert again == config
    assert again.time_horizon == 3.0 and isinstance(again.time_horizon, float)


@pytest.mark.parametrize("changes", [
    {"gamma": 0.0}, {"gamma": 1.0}, {"gamma": 1.5}, {"gamma": math.nan}, {"width": 0},
    {"depth": 0}, {"width": 2.0}, {"width": True}, {"arch": "resnett"},
    {"activation": "gelu"}, {"tau": 0.0}, {"tau": -1.0}, {"tau_init": 0.0},
    {"tau_min": -1e-3}, {"tau_min": 0.0}, {"time_horizon": -1.0},
    {"horizon_mode": "exact"}, {"horizon_mode": "sometimes"},
    {"horizon_mode": "exact", "time_horizon": 1.0, "tau": 0.5},
    {"horizon_mode": "exact", "time_horizon": 1e-7},
])
def test_bad_values_raise_input_error(changes):
    data = {"arch": "frac-dnn", "in_features": 7, "out_features": 3, **changes}
    with pytest.raises(InputError):
        config_from_dict(data)


def test_unknown_and_missing_keys():
    with pytest.raises(InputError, match="unknown model config key"):
        config_from_dict({"arch": "resnet", "in_features": 1, "out_features": 1, "wdth": 5})
    with pytest.raises(InputError, match="missing"):
        config_from_dict({"arch": "resnet", "in_features": 1})
    with pytest.raises(InputError, match="choose one of"):
        model_config(arch="cnn", in_features=1, out_features=1)


def test_tau_min_zero_allowed_where_no_division():
    assert model_config(arch="resnet", in_features=1, out_features=1, tau_min=0.0).tau_min == 0.0
    assert model_config(arch="frac-dnn", in_features=1, out_features=1, tau=0.2, tau_min=0.0)


def test_registry_names_and_depth_meaning():
    assert architecture_names() == ["ck-net", "densenet", "frac-dnn", "implicit-resnet",
                                    "ode-net", "resnet"]
    assert "smooth-relu" in activation_names()
    # "2 layers x 50 nodes" of the paper (Table 1: steps tau^[0], tau^[1]) is depth=2, width=50.
    for arch in architecture_names():
        model = build_model(model_config(arch=arch, in_features=7, out_features=3,
                                        width=50, depth=2))
        assert model.taus().shape == (2,)
        assert [tuple(w.shape) for w in model.layer_weights()] == [(50, 7), (50, 50), (3, 50)]
        assert [tuple(b.shape) for b in model.layer_biases()] == [(50,), (50,)]
        assert model(torch.zeros(4, 7)).shape == (4, 3)


def test_build_model_rejects_non_config_and_bad_input_shape():
    with pytest.raises(InputError):
        build_model({"arch": "resnet"})
    model = build_model(model_config(arch="resnet", in_features=7, out_features=3, width=4))
    with pytest.raises(InputError, match=r"\(N, 7\)"):
        model(torch.zeros(4, 6))


@pytest.mark.parametrize("value, message", [
    (0.0, "step_lipschitz must be > 0"), (-0.5, "step_lipschitz must be > 0"),
    (math.inf, "step_lipschitz must be finite"), ("0.9", "step_lipschitz must be a number"),
    (True, "step_lipschitz must be a number"),
])
def test_step_lipschitz_bad_values_are_one_line(value, message):
    with pytest.raises(InputError, match=message) as error:
        model_config(arch="resnet", in_features=2, out_features=1, step_lipschitz=value)
    assert "\n" not in str(error.value)


def test_step_lipschitz_round_trips_and_is_refused_by_other_architectures():
    config = model_config(arch="ck-net", in_features=1, out_features=2, step_lipschitz=1)
    again = config_from_dict(json.loads(json.dumps(config.to_dict())))
    assert again == config and again.step_lipschitz == 1.0
    assert model_config(arch="resnet", in_features=1, out_features=1).step_lipschitz is None
    supported = sorted(n for n in architecture_names()
                       if "step_lipschitz" in ARCHITECTURES[n].config.field_names())
    assert supported == ["ck-net", "resnet"]
    for arch in sorted(set(architecture_names()) - set(supported)):
        with pytest.raises(InputError, match=f"not supported by arch '{arch}'"):
            model_config(arch=arch, in_features=1, out_features=1, step_lipschitz=0.5)
