"""TrainConfig: the typed, JSON/TOML-safe description of one training run (no torch here)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from surrogate.core.errors import InputError
from surrogate.core.typed_config import TypedConfig, setting
from surrogate.models.registry import model_option_names
from surrogate.training.prune_options import prune_tol_field

OPTIMIZERS = ("adam", "sgd", "lbfgs")
SCHEDULES = ("cosine", "step", "plateau", "none")
DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("float32", "float64")

OPTIMISER, PENALTIES, RUN, DISTRIBUTED = "Optimiser", "Penalties", "Run control", "Distributed"


@dataclass(frozen=True)
class TrainConfig(TypedConfig):
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
    head_solve_epochs, head_solve_rows
        Hybrid least-squares/gradient training (Cyr et al. 2020): after each of the last N
        epochs, the model's linear head (the separable model's branch read-out and β) is
        set to the minimiser of the data loss on ``head_solve_rows`` sampled training rows
        (:mod:`surrogate.training.head_solve`; 0: never). Such an epoch logs its train loss
        from before the solve, its val loss from after it.
    threads
        CPU threads of the training steps (``None``: one for a mini-batch whose widest layer
        has fewer than 2**19 outputs, else torch's count; :mod:`surrogate.training.threads`).
    """

    config_name: ClassVar[str] = "training config"

    optimizer: str = setting("adam", doc="Optimiser (sgd = steepest descent).", panel=OPTIMISER,
                             choices=OPTIMIZERS)
    lr: float = setting(1e-2, doc="Learning rate.", panel=OPTIMISER, gt=0.0)
    lr_min: float = setting(0.0, doc="Final lr of the cosine schedule, floor of plateau.",
                            panel=OPTIMISER, ge=0.0)
    momentum: float = setting(0.0, doc="SGD momentum.", panel=OPTIMISER, ge=0.0, lt=1.0)
    schedule: str = setting("cosine", doc="LR schedule per epoch.", panel=OPTIMISER,
                            choices=SCHEDULES)
    step_every: int = setting(100, doc="Epochs between lr steps (step, plateau).",
                              panel=OPTIMISER, ge=1)
    step_factor: float = setting(0.5, doc="lr factor of the step and plateau schedules.",
                                 panel=OPTIMISER, gt=0.0, lt=1.0)
    epochs: int = setting(4000, doc="Maximum epochs.", panel=OPTIMISER, ge=1)
    batch_size: int | None = setting(None, doc="Mini-batch size (rows; whole sequences on "
                                     "sequence data); 0 = full batch.", panel=OPTIMISER, ge=1,
                                     shown="full batch")
    seed: int = setting(0, doc="Seed of initialisation and shuffling.", panel=RUN, ge=0)
    lambda1: float = setting(0.0, doc="λ₁: weight/bias penalty (eq. 2.4).", panel=PENALTIES,
                             ge=0.0)
    lambda2: float = setting(0.0, doc="λ₂: τ penalty.", panel=PENALTIES, ge=0.0)
    beta: float = setting(0.0, doc="β: bias ordering penalty (eq. 2.5).", panel=PENALTIES,
                          ge=0.0)
    horizon_weight: float = setting(0.0, doc="Weight of the soft time horizon (Σ τ − T)².",
                                    panel=PENALTIES, ge=0.0)
    smoothness: float = setting(0.0, doc="Weight of the penalty on consecutive layers' weight "
                                "differences.", panel=PENALTIES, ge=0.0)
    patience: int | None = setting(None, doc="Early stopping after this many epochs without val "
                                   "improvement.", panel=RUN, ge=1)
    checkpoint_every: int = setting(100, doc="Checkpoint every N epochs.", panel=RUN, ge=1)
    device: str = setting("cpu", doc="cpu, cuda or auto.", panel=RUN, choices=DEVICES)
    dtype: str = setting("float32", doc="Float type.", panel=RUN, choices=DTYPES)
    prune_every: int | None = setting(None, doc="Prune layers with τ < --prune-tol every K "
                                      "epochs.", panel=PENALTIES, ge=1)
    prune_tol: float = prune_tol_field(panel=PENALTIES)
    grad_clip: float | None = setting(None, doc="Clip the gradient norm.", panel=OPTIMISER,
                                      gt=0.0)
    lbfgs_history: int = setting(20, doc="History size of L-BFGS.", panel=OPTIMISER, ge=1)
    nproc: int = setting(1, doc="Train data-parallel on N processes of this machine "
                         "(DistributedDataParallel: gloo on CPU, nccl on CUDA, one GPU each); the "
                         "shortcut of torchrun --nproc-per-node N -m surrogate fit ....",
                         panel=DISTRIBUTED, ge=1)
    bf16: bool = setting(False, doc="Forward passes under bfloat16 autocast (needs --dtype "
                         "float32).", panel=RUN)
    head_solve_epochs: int = setting(0, doc="Solve the linear head (separable model: branch "
                                     "read-out and β) by least squares after each of the last "
                                     "N epochs; 0: never.", panel=OPTIMISER, ge=0)
    head_solve_rows: int = setting(131072, doc="Training rows sampled for each least-squares "
                                   "head solve.", panel=OPTIMISER, ge=1)
    threads: int | None = setting(None, doc="CPU threads of the training steps; default: 1 "
                                  "when a mini-batch's widest layer has < 2^19 outputs (rows × "
                                  "width), else torch's count (OMP_NUM_THREADS).", panel=RUN,
                                  ge=1, shown="by step size")

    def check(self) -> None:
        """Cross-field checks: lr_min <= lr, bf16 only with float32, head solves in one
        process."""
        if self.lr_min > self.lr:
            raise InputError(f"lr_min must not exceed lr = {self.lr}, got {self.lr_min!r}")
        if self.bf16 and self.dtype != "float32":
            raise InputError("bf16 autocast needs dtype float32 (it leaves float64 alone)")
        if self.head_solve_epochs and self.nproc > 1:
            raise InputError("head_solve_epochs trains in one process (nproc 1)")

    def to_toml(self) -> str:
        """TOML text of the config (``None`` fields are left out: they are the defaults)."""
        return "".join(f"{key} = {_toml_value(value)}\n"
                       for key, value in self.to_dict().items() if value is not None)

    @classmethod
    def from_toml(cls, text: str, table: str | None = "train") -> TrainConfig:
        """Inverse of :meth:`to_toml` (a flat table, or a ``[train]`` table)."""
        return super().from_toml(text, table)


def _toml_value(value: Any) -> str:
    """One scalar as TOML (str, bool, int, float; floats keep their exact repr)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


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
    model_keys = model_option_names()
    model = dict(data.pop("model", {}) or {})
    train = dict(data.pop("train", {}) or {})
    train_keys = set(TrainConfig.field_names())
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


__all__ = ["TrainConfig", "OPTIMIZERS", "SCHEDULES", "DEVICES", "DTYPES", "parse_tau",
           "split_run_config"]
