"""The one place where names map to classes: architectures and activations.

Every ``--arch`` name maps to an :class:`ArchitectureSpec`: the typed config class it is
described by (``ModelConfig`` for the τ-stepping networks, ``SequenceModelConfig`` for
``lem``, ``cornn``, ``lstm``), the builder of the untrained model and the dataset ``kind``
it trains on. Loading a run or a checkpoint picks the config class from the stored ``arch``
through :func:`config_from_dict`; :func:`build_model` builds any registered config.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from torch import nn

from surrogate.core.errors import InputError
from surrogate.models.activations import ReLU, SmoothReLU, Softplus, Tanh
from surrogate.models.ck_net import CkNet
from surrogate.models.config import ModelConfig
from surrogate.models.densenet import DenseNet
from surrogate.models.fractional_dnn import FractionalDNN
from surrogate.models.implicit_resnet import ImplicitResNet
from surrogate.models.networks import SteppingNetwork
from surrogate.models.ode_net import ODENet
from surrogate.models.resnet import ResNet
from surrogate.models.sequence_config import SEQUENCE_ARCHS, SequenceModelConfig
from surrogate.models.sequence_models import build_sequence_model

ARCHITECTURES: dict[str, type[SteppingNetwork]] = {
    "resnet": ResNet,
    "frac-dnn": FractionalDNN,
    "densenet": DenseNet,
    "implicit-resnet": ImplicitResNet,
    "ck-net": CkNet,
    "ode-net": ODENet,
}

ACTIVATIONS = {
    "smooth-relu": SmoothReLU,
    "relu": ReLU,
    "tanh": Tanh,
    "softplus": Softplus,
}


def architecture_names() -> list[str]:
    """Names accepted as ``ModelConfig.arch`` (the pointwise architectures)."""
    return sorted(ARCHITECTURES)


def sequence_architecture_names() -> list[str]:
    """Names accepted as ``SequenceModelConfig.arch`` (the sequence architectures)."""
    return sorted(SEQUENCE_ARCHS)


def all_architecture_names() -> list[str]:
    """Every name ``--arch`` accepts, pointwise and sequence."""
    return sorted(SPECS)


def activation_names() -> list[str]:
    """Names accepted as ``ModelConfig.activation``."""
    return sorted(ACTIVATIONS)


def _build_stepping_network(config: ModelConfig) -> SteppingNetwork:
    return ARCHITECTURES[config.arch](config, ACTIVATIONS[config.activation]())


def _stepping_parameter_floor(c: ModelConfig) -> int:
    """Parameters every τ-stepping network has: ``depth`` affine maps and a linear output."""
    return (c.width * (c.in_features + 1) + (c.depth - 1) * c.width * (c.width + 1)
            + c.width * c.out_features)


def _sequence_parameter_floor(c: SequenceModelConfig) -> int:
    """Parameters every sequence model has: input (m×d), recurrent (m×m), read-out (k×m)."""
    return c.hidden * (c.in_features + c.hidden + c.out_features)


@dataclass(frozen=True)
class ArchitectureSpec:
    """What an ``--arch`` name stands for.

    Attributes
    ----------
    kind
        Dataset kind the architecture trains on: ``"pointwise"`` or ``"sequence"``.
    config
        The typed config class (``ModelConfig`` or ``SequenceModelConfig``).
    build
        ``config -> nn.Module``: the untrained model (weights from torch's global RNG).
    parameter_floor
        ``config -> int``: a lower bound of the parameter count (checked against a stored
        state before a possibly huge model is built).
    """

    kind: str
    config: type
    build: Callable[[Any], nn.Module]
    parameter_floor: Callable[[Any], int]


POINTWISE = ArchitectureSpec("pointwise", ModelConfig, _build_stepping_network,
                             _stepping_parameter_floor)
SEQUENCE = ArchitectureSpec("sequence", SequenceModelConfig, build_sequence_model,
                            _sequence_parameter_floor)
SPECS: dict[str, ArchitectureSpec] = {**{name: POINTWISE for name in ARCHITECTURES},
                                      **{name: SEQUENCE for name in SEQUENCE_ARCHS}}


def architectures_for(kind: str) -> list[str]:
    """Names of the architectures that train on datasets of ``kind``."""
    return sorted(name for name, spec in SPECS.items() if spec.kind == kind)


def architecture_spec(arch: Any) -> ArchitectureSpec:
    """The :class:`ArchitectureSpec` of ``arch``; InputError naming every choice otherwise."""
    if not isinstance(arch, str) or arch not in SPECS:
        raise InputError(f"unknown arch {arch!r}; choose one of: "
                         f"{', '.join(all_architecture_names())}")
    return SPECS[arch]


def config_from_dict(data: Mapping[str, Any]) -> ModelConfig | SequenceModelConfig:
    """The typed config of a stored model section, its class picked by ``data["arch"]``.

    InputError on an unknown arch, unknown keys or bad values (a mapping without ``arch``
    is reported as missing it).
    """
    if not isinstance(data, Mapping):
        raise InputError(f"model config must be a mapping, got {type(data).__name__}")
    if "arch" not in data:
        return ModelConfig.from_dict(data)  # reports the missing keys
    return architecture_spec(data["arch"]).config.from_dict(data)


def config_spec(config: Any) -> ArchitectureSpec:
    """The spec of a typed config; InputError when ``config`` is not one."""
    spec = SPECS.get(getattr(config, "arch", None))
    if spec is None or not isinstance(config, spec.config):
        raise InputError(f"build_model needs a ModelConfig or SequenceModelConfig, got "
                         f"{type(config).__name__}")
    return spec


def build_model(config: ModelConfig | SequenceModelConfig) -> nn.Module:
    """The untrained model a config describes (weights from torch's global RNG)."""
    return config_spec(config).build(config)


def parameter_floor(config: ModelConfig | SequenceModelConfig) -> int:
    """A lower bound of the parameter count of the model ``config`` describes."""
    return config_spec(config).parameter_floor(config)


__all__ = ["ARCHITECTURES", "ACTIVATIONS", "SPECS", "ArchitectureSpec", "architecture_names",
           "sequence_architecture_names", "all_architecture_names", "activation_names",
           "architecture_spec", "architectures_for", "config_from_dict", "build_model",
           "parameter_floor"]
