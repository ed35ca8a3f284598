"""TrainConfig: the typed, JSON/TOML-safe description of one training run (no torch here)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from surrogate.core.errors import DataFormatError, InputError

OPTIMIZERS = ("adam", "sgd", "lbfgs")
SCHEDULES = ("cosine", "step", "plateau", "none")
DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("float32", "float64")

_INT_FIELDS = {"epochs": 1, "seed": 0, "checkpoint_every": 1, "lbfgs_history": 1,
               "step_every": 1, "batch_size": 1, "patience": 1, "prune_every": 1, "nproc": 1}
_OPTIONAL_INT = ("batch_size", "patience", "prune_every")
_FLOAT_FIELDS = {"lr": 0.0, "lr_min": 0.0, "momentum": 0.0, "step_factor": 0.0,
                 "lambda1": 0.0, "lambda2": 0.0, "beta": 0.0, "horizon_weight": 0.0,
                 "prune_tol": 0.0, "grad_clip": 0.0, "smoothness": 0.0}
_OPTIONAL_FLOAT = ("grad_clip",)
_CHOICES = {"optimizer": OPTIMIZERS, "schedule": SCHEDULES, "device": DEVICES, "dtype": DTYPES}


@dataclass(frozen=True)
class TrainConfig:
    """How to train: optimiser, schedule, batches, penalties (eqs. 2.4, 2.5), stopping, pruning.

    The objective is ``J_λ = 1/(2N) Σ ‖y^[L] - S‖² + penalties`` on normalised targets (§2, §5).

    Attributes
    ----------
    optimizer
        ``"adam"``, ``"sgd"`` (the paper's steepest descent; ``momentum`` optional) or
        ``"lbfgs"`` (strong-Wolfe line search, up to 20 iterations per epoch and batch; best
        with full batches, e.g. ``lr=1``, ``schedule="none"``, ~50 epochs).
    lr, lr_min
        Initial learning rate and the floor of the cosine schedule.
    schedule
        ``"cosine"`` (lr -> lr_min over ``epochs``), ``"step"`` (× ``step_factor`` every
        ``step_every`` epochs), ``"plateau"`` (× ``step_factor`` after ``step_every`` epochs
        without val improvement) or ``"none"``.
    epochs
        Maximum number of epochs (passes over the training split).
    batch_size
        Mini-batch size; ``None`` trains full batch (one step per epoch).
    seed
        Drives model initialisation and batch shuffling (torch generators seeded from
        ``numpy.random.SeedSequence(seed)``).
    lambda1, lambda2, beta, horizon_weight
        Penalty weights: weights/biases (eq. 2.4), steps τ (§5), bias ordering (eq. 2.5,
        Moreau–Yosida β), soft time horizon Σ τ = T.
    smoothness
        Weight of the smoothness penalty on consecutive hidden layers' weights and biases
        (Ruseckas §7: ``smoothness/2 Σ_ℓ ‖W^[ℓ+1] − W^[ℓ]‖² + ‖b^[ℓ+1] − b^[ℓ]‖²``).
    patience
        Early stopping: stop after this many epochs without a better val loss (``None``:
        never); the best-val weights are kept.
    checkpoint_every
        Write ``checkpoint.pt`` every N epochs (and on Ctrl-C).
    device, dtype
        ``cpu`` | ``cuda`` | ``auto``; ``float32`` | ``float64``.
    prune_every, prune_tol
        Adaptive pruning: every K epochs delete hidden layers with τ < prune_tol
        (``prune_every=None``: never).
    grad_clip
        Clip the global gradient norm to this value (``None``: no clipping).
    nproc
        Data-parallel processes (``DistributedDataParallel``; set from the torchrun launch,
        :mod:`surrogate.training.distributed`). A run resumes with the same number.
    bf16
        Forward passes under bfloat16 autocast (needs ``dtype="float32"``).
    """

    optimizer: str = "adam"
    lr: float = 1e-2
    lr_min: float = 0.0
    momentum: float = 0.0
    schedule: str = "cosine"
    step_every: int = 100
    step_factor: float = 0.5
    epochs: int = 4000
    batch_size: int | None = None
    seed: int = 0
    lambda1: float = 0.0
    lambda2: float = 0.0
    beta: float = 0.0
    horizon_weight: float = 0.0
    smoothness: float = 0.0
    patience: int | None = None
    checkpoint_every: int = 100
    device: str = "cpu"
    dtype: str = "float32"
    prune_every: int | None = None
    prune_tol: float = 0.05
    grad_clip: float | None = None
    lbfgs_history: int = 20
    nproc: int = 1
    bf16: bool = False

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise InputError(f"unknown {name} {value!r}; choose one of: {', '.join(choices)}")
        for name, minimum in _INT_FIELDS.items():
            value = getattr(self, name)
            if value is None and name in _OPTIONAL_INT:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
        for name, minimum in _FLOAT_FIELDS.items():
            value = getattr(self, name)
            if value is None and name in _OPTIONAL_FLOAT:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < minimum:
                raise InputError(f"{name} must be a finite number >= {minimum:g}, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.lr <= 0.0:
            raise InputError(f"lr must be > 0, got {self.lr!r}")
        if self.lr_min > self.lr:
            raise InputError(f"lr_min must not exceed lr = {self.lr}, got {self.lr_min!r}")
        if not 0.0 < self.step_factor < 1.0:
            raise InputError(f"step_factor must lie in (0, 1), got {self.step_factor!r}")
        if self.momentum >= 1.0:
            raise InputError(f"momentum must lie in [0, 1), got {self.momentum!r}")
        if self.grad_clip is not None and self.grad_clip <= 0.0:
            raise InputError(f"grad_clip must be > 0, got {self.grad_clip!r}")
        if not isinstance(self.bf16, bool):
            raise InputError(f"bf16 must be true or false, got {self.bf16!r}")
        if self.bf16 and self.dtype != "float32":
            raise InputError("bf16 autocast needs dtype float32 (it leaves float64 alone)")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainConfig:
        """Build a config from a mapping of (some) fields; InputError on unknown keys/values."""
        if not isinstance(data, Mapping):
            raise InputError(f"training config must be a mapping, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"unknown training config key(s): {', '.join(map(str, unknown))}; "
                             f"valid keys: {', '.join(sorted(known))}")
        return cls(**dict(data))

    def to_toml(self) -> str:
        """TOML text of the config (``None`` fields are left out: they are the defaults)."""
        return "".join(f"{key} = {_toml_value(value)}\n"
                       for key, value in self.to_dict().items() if value is not None)

    @classmethod
    def from_toml(cls, text: str) -> TrainConfig:
        """Inverse of :meth:`to_toml` (a flat table, or a ``[train]`` table)."""
        data = parse_toml(text, "training config")
        return cls.from_dict(data.get("train", data))


def _toml_value(value: Any) -> str:
    """One scalar as TOML (str, bool, int, float; floats keep their exact repr)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


def parse_toml(text: str, what: str) -> dict[str, Any]:
    """TOML text -> dict; InputError naming ``what`` on a syntax error."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{what}: not valid TOML: {exc}") from None


def read_toml(path: str | os.PathLike) -> dict[str, Any]:
    """Read a TOML file into a dict; DataFormatError when missing or unreadable."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise DataFormatError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise DataFormatError(f"config file {path} cannot be read: {exc}") from None
    return parse_toml(text, str(path))


# ModelConfig fields a user sets (in/out features come from the dataset).
MODEL_OPTION_KEYS = ("arch", "width", "depth", "tau", "tau_init", "tau_min", "gamma",
                     "activation", "time_horizon", "horizon_mode", "theta", "solver_tol",
                     "solver_max_iter", "order", "cubic", "multistep", "step_lipschitz",
                     "skew_weights")


# SequenceModelConfig fields a user sets (lem, cornn, lstm); arch and gamma are shared above.
SEQUENCE_OPTION_KEYS = ("hidden", "dt", "learn_dt", "damping", "readout", "epsilon")


def parse_tau(value: Any) -> float | None:
    """``"learned"`` (or None) -> None (one learned step per layer); a number > 0 -> fixed τ."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "learned"):
        return None
    try:
        tau = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        tau = float("nan")
    if not (math.isfinite(tau) and tau > 0.0):
        raise InputError(f"tau must be 'learned' or a number > 0, got {value!r}")
    return tau


def split_run_config(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ``fit`` config file -> (model options, training options).

    Accepts ``[model]`` and ``[train]`` tables, or one flat table whose keys are sorted into
    the two by name; InputError on a key that belongs to neither.
    """
    data = dict(data)
    model_keys = (*MODEL_OPTION_KEYS, *SEQUENCE_OPTION_KEYS)
    model = dict(data.pop("model", {}) or {})
    train = dict(data.pop("train", {}) or {})
    train_keys = {f.name for f in fields(TrainConfig)}
    for key, value in data.items():
        if key in model_keys:
            model[key] = value
        elif key in train_keys:
            train[key] = value
        else:
            raise InputError(f"unknown config key {key!r}; model keys: "
                             f"{', '.join(model_keys)}; training keys: "
                             f"{', '.join(sorted(train_keys))}")
    unknown = sorted(set(model) - set(model_keys))
    if unknown:
        raise InputError(f"unknown [model] key(s): {', '.join(unknown)}; valid keys: "
                         f"{', '.join(model_keys)}")
    if "tau" in model:
        model["tau"] = parse_tau(model["tau"])
    return model, train


__all__ = ["TrainConfig", "OPTIMIZERS", "SCHEDULES", "DEVICES", "DTYPES", "MODEL_OPTION_KEYS",
           "SEQUENCE_OPTION_KEYS",
           "read_toml", "parse_toml", "parse_tau", "split_run_config"]
