"""The run directory's layout: format names, versions and file names (torch-free).

A run directory holds

- ``model.pt``: a plain ``state_dict`` (str -> Tensor), loadable with
  ``torch.load(..., weights_only=True)``;
- ``config.json``: ``model`` (ModelConfig or SequenceModelConfig, picked by its ``arch``
  through :func:`surrogate.models.registry.config_from_dict`), ``train`` (TrainConfig),
  ``normalisation`` (per-column mean/std of the training split; per channel over all time
  steps for sequence data), ``dataset`` (path, content hash, kind, problem, domain,
  input/target names, recipe) and ``extra`` (e.g. pruning provenance);
- ``metadata.json``: package/torch/numpy/python versions, dataset hash, creation time;
- ``history.csv``: one row per epoch (losses, every τ, gradient norms, lr, seconds);
- ``metrics.json``: relative L² errors per split in physical units, τ, sizes, timings;
- ``checkpoint.pt`` (training only): everything needed to resume exactly.

Every file is written atomically (temporary name in the same folder, then ``os.replace``).
"""

from __future__ import annotations

RUN_FORMAT = "surrogate-run"
RUN_VERSION = 1
CHECKPOINT_FORMAT = "surrogate-checkpoint"
CHECKPOINT_VERSION = 1
MODEL_FILE, CONFIG_FILE, METADATA_FILE = "model.pt", "config.json", "metadata.json"
HISTORY_FILE, METRICS_FILE, CHECKPOINT_FILE = "history.csv", "metrics.json", "checkpoint.pt"
CONFIG_SECTIONS = ("model", "train", "normalisation", "dataset")
"""Sections every ``config.json`` has, each a JSON object (``extra`` is optional)."""

__all__ = ["RUN_FORMAT", "RUN_VERSION", "CHECKPOINT_FORMAT", "CHECKPOINT_VERSION", "MODEL_FILE",
           "CONFIG_FILE", "METADATA_FILE", "HISTORY_FILE", "METRICS_FILE", "CHECKPOINT_FILE",
           "CONFIG_SECTIONS"]
