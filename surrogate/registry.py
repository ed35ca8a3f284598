"""The one place where names map to classes: architectures and activations."""

from __future__ import annotations

from surrogate.activations import ReLU, SmoothReLU, Softplus, Tanh
from surrogate.ck_net import CkNet
from surrogate.config import ModelConfig
from surrogate.densenet import DenseNet
from surrogate.errors import InputError
from surrogate.fractional_dnn import FractionalDNN
from surrogate.implicit_resnet import ImplicitResNet
from surrogate.networks import SteppingNetwork
from surrogate.ode_net import ODENet
from surrogate.resnet import ResNet

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
    """Names accepted as ``ModelConfig.arch`` (and ``--arch``)."""
    return sorted(ARCHITECTURES)


def activation_names() -> list[str]:
    """Names accepted as ``ModelConfig.activation``."""
    return sorted(ACTIVATIONS)


def build_model(config: ModelConfig) -> SteppingNetwork:
    """The untrained network a config describes (weights from torch's global RNG)."""
    if not isinstance(config, ModelConfig):
        raise InputError(f"build_model needs a ModelConfig, got {type(config).__name__}")
    return ARCHITECTURES[config.arch](config, ACTIVATIONS[config.activation]())


__all__ = ["ARCHITECTURES", "ACTIVATIONS", "architecture_names", "activation_names",
           "build_model"]
