"""The dataset ``fit`` trains on, its model config and its splits as normalised tensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from surrogate.core.errors import InputError
from surrogate.models.config import ModelConfig
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import (
    architecture_spec,
    architectures_for,
    build_model,
    config_from_dict,
)
from surrogate.models.sequence_config import SequenceModelConfig
from surrogate.training.dataset_kind_rules import dataset_kind, kind_rules
from surrogate.training.family_inputs import training_dataset

ModelOptions = ModelConfig | SequenceModelConfig | Mapping[str, Any]


def load_training_data(data: Any) -> Any:
    """The Dataset ``data`` is or names; InputError for an empty train split or non-finite
    values."""
    from surrogate.datasets.reader import read_dataset

    dataset = data if hasattr(data, "splits") and hasattr(data, "inputs") else read_dataset(data)
    if len(dataset.splits.get("train", ())) == 0:
        raise InputError(f"{dataset.path}: the train split is empty")
    for label in ("inputs", "targets"):
        if not np.isfinite(getattr(dataset, label)).all():
            raise InputError(f"{dataset.path}: {label} contain non-finite values")
    return dataset


def network_dataset(dataset: Any, options: ModelOptions | None) -> Any:
    """``dataset`` with the rows of the model's ``inputs`` kind (pointwise by default; see
    :func:`surrogate.training.family_inputs.training_dataset`)."""
    if options is None:
        return dataset
    options = options.to_dict() if hasattr(options, "to_dict") else options
    return training_dataset(dataset, options.get("inputs") or "pointwise")


def model_config_for(dataset: Any, options: ModelOptions) -> ModelConfig | SequenceModelConfig:
    """The typed config of ``options`` for ``dataset``: the class the registry gives ``arch``
    (default ``resnet``), in/out sizes from the dataset's columns and, on sequence data,
    ``readout`` defaulting to ``"last"`` when the targets hold one time step.

    InputError when the architecture does not train on the dataset's kind.
    """
    d_in, d_out = int(dataset.inputs.shape[-1]), int(dataset.targets.shape[-1])
    options = dict(options.to_dict() if hasattr(options, "to_dict") else options)
    options.setdefault("arch", "resnet")
    spec = architecture_spec(options["arch"])
    kind = dataset_kind(dataset)
    if spec.kind != kind:
        raise InputError(f"arch {options['arch']!r} trains on {spec.kind} datasets but "
                         f"{dataset.path} is a {kind} dataset; choose one of: "
                         f"{', '.join(architectures_for(kind))}")
    for key, size in (("in_features", d_in), ("out_features", d_out)):
        if options.get(key, size) != size:
            raise InputError(f"model {key}={options[key]} does not match the dataset's "
                             f"{size} columns")
        options[key] = size
    rules = kind_rules(kind)
    config = config_from_dict(rules.model_options(options, dataset))
    rules.check_model(config, dataset)
    return config


def build_initial_model(config: ModelConfig | SequenceModelConfig, seed: int) -> nn.Module:
    """The untrained network, initialised from ``seed`` without touching torch's global RNG."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build_model(config)


def split_arrays(dataset: Any, name: str, model_config: Any) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets) of split ``name`` as the model sees them (a sequence read-out
    "last" trains on the last step of the targets)."""
    inputs, targets = dataset.split(name)
    return inputs, kind_rules(dataset_kind(dataset)).targets(targets, model_config)


def split_tensors(dataset: Any, normalisation: Normalisation, name: str, device: torch.device,
                  dtype: torch.dtype, model_config: Any) -> tuple[Tensor, Tensor]:
    """:func:`split_arrays` normalised, as tensors on ``device``."""
    inputs, targets = split_arrays(dataset, name, model_config)
    x = torch.as_tensor(normalisation.normalise_inputs(inputs), dtype=dtype, device=device)
    y = torch.as_tensor(normalisation.normalise_targets(targets), dtype=dtype, device=device)
    return x, y


__all__ = ["ModelOptions", "load_training_data", "network_dataset", "model_config_for",
           "build_initial_model", "split_arrays", "split_tensors"]
