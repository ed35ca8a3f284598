"""The one place where architecture names map to classes: ``ARCHITECTURES``.

Every ``--arch`` name maps to an :class:`Architecture`: its typed config class (a
:class:`~surrogate.models.config.ModelConfig` subclass for the τ-stepping networks, a
:class:`~surrogate.models.sequence_config.SequenceModelConfig` subclass for ``lem``,
``cornn``, ``lstm``) and its builder, ``"module:name"`` of a callable ``config -> nn.Module``
imported on first use, so that this module (and the command line's choices) stays
torch-free. Adding an architecture: its file, its config class and one line below (or
:func:`register_architecture` from elsewhere); the command line takes its options from the
config's fields.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from surrogate.core.errors import InputError
from surrogate.models.config import ACTIVATION_NAMES, ModelConfig
from surrogate.models.deeponet_config import DeepONetConfig
from surrogate.models.sequence_config import (
    CoRNNConfig,
    LEMConfig,
    LSTMConfig,
    SequenceModelConfig,
)
from surrogate.models.stepping_configs import (
    CkNetConfig,
    DenseNetConfig,
    FractionalDNNConfig,
    ImplicitResNetConfig,
    ODENetConfig,
    ResNetConfig,
)

if TYPE_CHECKING:
    from torch import nn

AnyModelConfig = ModelConfig | SequenceModelConfig


@dataclass(frozen=True)
class Architecture:
    """What an ``--arch`` name stands for: its config class and its builder (``"module:name"``
    imported on first use, or the callable itself)."""

    config: type[ModelConfig] | type[SequenceModelConfig]
    builder: str | Callable[[Any], nn.Module]

    @property
    def kind(self) -> str:
        """Dataset kind the architecture trains on: ``"pointwise"`` or ``"sequence"``."""
        return self.config.kind

    def build(self, config: AnyModelConfig) -> nn.Module:
        """The untrained model (weights from torch's global RNG)."""
        if callable(self.builder):
            return self.builder(config)
        module, name = self.builder.split(":")
        return getattr(importlib.import_module(module), name)(config)


ARCHITECTURES: dict[str, Architecture] = {
    "resnet": Architecture(ResNetConfig, "surrogate.models.resnet:ResNet"),
    "frac-dnn": Architecture(FractionalDNNConfig, "surrogate.models.fractional_dnn:FractionalDNN"),
    "densenet": Architecture(DenseNetConfig, "surrogate.models.densenet:DenseNet"),
    "implicit-resnet": Architecture(ImplicitResNetConfig,
                                    "surrogate.models.implicit_resnet:ImplicitResNet"),
    "ck-net": Architecture(CkNetConfig, "surrogate.models.ck_net:CkNet"),
    "ode-net": Architecture(ODENetConfig, "surrogate.models.ode_net:ODENet"),
    "deeponet": Architecture(DeepONetConfig, "surrogate.models.deeponet:DeepONet"),
    "lem": Architecture(LEMConfig, "surrogate.models.sequence_models:build_lem"),
    "cornn": Architecture(CoRNNConfig, "surrogate.models.sequence_models:build_cornn"),
    "lstm": Architecture(LSTMConfig, "surrogate.models.sequence_models:build_lstm"),
}


def register_architecture(name: str, config: type[ModelConfig] | type[SequenceModelConfig],
                          builder: str | Callable[[Any], nn.Module]) -> Architecture:
    """Add ``name`` to :data:`ARCHITECTURES` (what one line of it does); ValueError when the
    name is taken or ``config`` describes another arch."""
    own = config.__dataclass_fields__["arch"].default
    if name in ARCHITECTURES or own != name:
        raise ValueError(f"cannot register arch {name!r}: " + (
            "the name is taken" if name in ARCHITECTURES else f"{config.__name__} is {own!r}"))
    ARCHITECTURES[name] = Architecture(config, builder)
    return ARCHITECTURES[name]


def architectures_for(kind: str) -> list[str]:
    """Names of the architectures that train on datasets of ``kind``."""
    return sorted(name for name, entry in ARCHITECTURES.items() if entry.kind == kind)


def architecture_names() -> list[str]:
    """Names of the pointwise (τ-stepping) architectures."""
    return architectures_for("pointwise")


def all_architecture_names() -> list[str]:
    """Every name ``--arch`` accepts, pointwise and sequence."""
    return sorted(ARCHITECTURES)


def activation_names() -> list[str]:
    """Names accepted as the ``activation`` of a τ-stepping network."""
    return sorted(ACTIVATION_NAMES)


def architecture_spec(arch: Any) -> Architecture:
    """The :class:`Architecture` of ``arch``; InputError naming every choice otherwise."""
    if not isinstance(arch, str) or arch not in ARCHITECTURES:
        raise InputError(f"unknown arch {arch!r}; choose one of: "
                         f"{', '.join(all_architecture_names())}")
    return ARCHITECTURES[arch]


def model_option_names() -> tuple[str, ...]:
    """Every model field a user may set, over all architectures (in/out come from the data)."""
    names = dict.fromkeys(name for entry in ARCHITECTURES.values()
                          for name in entry.config.field_names())
    return tuple(n for n in names if n not in ("in_features", "out_features"))


def _foreign_defaults(kind: str) -> dict[str, list[Any]]:
    """Field -> the defaults it has in the configs of ``kind``'s architectures."""
    defaults: dict[str, list[Any]] = {}
    for entry in ARCHITECTURES.values():
        if entry.kind == kind:
            for name, f in entry.config.__dataclass_fields__.items():
                defaults.setdefault(name, []).append(f.default)
    return defaults


def config_from_dict(data: Mapping[str, Any]) -> AnyModelConfig:
    """The typed config of a model section, its class picked by ``data["arch"]``.

    Accepts the model sections stored before each architecture had its own config (every
    field of every architecture written out): a field of another architecture of the same
    kind is dropped when it holds that architecture's default (or None), and is an
    InputError otherwise. InputError on an unknown arch or bad values; a mapping without
    ``arch`` is reported as missing it.
    """
    if not isinstance(data, Mapping):
        raise InputError(f"model config must be a mapping, got {type(data).__name__}")
    if "arch" not in data:
        raise InputError("model config is missing: arch")
    entry = architecture_spec(data["arch"])
    own = set(entry.config.field_names())
    defaults = _foreign_defaults(entry.kind)
    kept = {}
    for key, value in data.items():
        if key not in own and key in defaults:
            if value is None or value in defaults[key]:
                continue  # another architecture's field at its default: written by older runs
            able = sorted(n for n, e in ARCHITECTURES.items() if key in e.config.field_names())
            raise InputError(f"{key} is not supported by arch {data['arch']!r}; use one of: "
                             f"{', '.join(able)}")
        kept[key] = value
    return entry.config.from_dict(kept)


def model_config(**fields: Any) -> AnyModelConfig:
    """The config of ``fields["arch"]`` from keyword fields (as :func:`config_from_dict`)."""
    return config_from_dict(fields)


def config_spec(config: Any) -> Architecture:
    """The architecture of a typed config; InputError when ``config`` is not one."""
    entry = ARCHITECTURES.get(getattr(config, "arch", None))
    if entry is None or type(config) is not entry.config:
        raise InputError(f"build_model needs a ModelConfig or SequenceModelConfig, got "
                         f"{type(config).__name__}")
    return entry


def build_model(config: AnyModelConfig) -> nn.Module:
    """The untrained model a config describes (weights from torch's global RNG); a pointwise
    config with ``inputs == "fields"`` gets its architecture behind a sensor encoder
    (:class:`~surrogate.models.encoders.EncodedInputs`)."""
    spec = config_spec(config)
    if getattr(config, "inputs", "pointwise") == "fields":
        from surrogate.models.encoders import EncodedInputs, core_config

        return EncodedInputs(config, spec.build(core_config(config)))
    return spec.build(config)


def parameter_floor(config: AnyModelConfig) -> int:
    """A lower bound of the parameter count of the model ``config`` describes."""
    return config_spec(config).config.parameter_floor(config)


__all__ = ["ARCHITECTURES", "Architecture", "architecture_names",
           "all_architecture_names", "activation_names", "architecture_spec",
           "architectures_for", "model_option_names", "register_architecture",
           "config_from_dict", "model_config", "config_spec",
           "build_model", "parameter_floor"]
