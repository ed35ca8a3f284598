"""The training loop behind ``surrogate fit``: J_λ minimisation with checkpoints and resume.

Objective (§2, §5): ``J_λ = 1/(2N) Σ_i ‖y^[L](û_i) − Ŝ_i‖² + penalties`` on inputs and
targets standardised with the training split's statistics, the penalties being eq. 2.4
(λ₁), the τ term (λ₂), bias ordering eq. 2.5 (β) and the soft time horizon. The loop uses
only the generic model interface (``taus``, ``layer_weights``, ``layer_biases``,
``prune``, ``config``), never the architecture's name.

Sequence datasets (kind ``sequence``) train through the same loop and run directory with
the sequence architectures of the registry (``lem``, ``cornn``, ``lstm``); what differs —
read-out targets, per-channel normalisation, no τ-layer penalties, Δt columns, per-sequence
metrics — is decided by the dataset's kind and lives in :mod:`surrogate.training.sequence`.

Resume is exact: a checkpoint holds the model, optimiser and scheduler states, the
shuffling generator, the epoch, the history and the early-stopping state, so an
interrupted run continued with ``resume=True`` produces the same history as one that
never stopped (same machine, same thread count).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from surrogate.core.errors import DataFormatError, InputError, SolverError
from surrogate.core.interrupts import held_signals
from surrogate.core.metrics import relative_l2_error
from surrogate.core.output_paths import check_output_folder
from surrogate.models.config import ModelConfig
from surrogate.models.normalisation import Normalisation
from surrogate.models.registry import (
    architecture_spec,
    architectures_for,
    build_model,
    config_from_dict,
)
from surrogate.models.sequence_config import SequenceModelConfig
from surrogate.runs.store import (
    CHECKPOINT_FILE,
    CONFIG_FILE,
    HISTORY_FILE,
    METADATA_FILE,
    METRICS_FILE,
    MODEL_FILE,
    Run,
    build_loaded_model,
    dataset_info,
    load_checkpoint,
    plain_state_dict,
    predict_array,
    save_checkpoint,
    save_run,
)
from surrogate.training.config import TrainConfig
from surrogate.training.ddp import autocast, train_epoch_ddp
from surrogate.training.distributed import DistributedContext, any_rank, current_context
from surrogate.training.penalties import regularisation
from surrogate.training.sequence import (
    check_readout,
    check_sequence_training,
    default_readout,
    readout_targets,
    sequence_columns,
    sequence_metrics,
)

ProgressCallback = Callable[[int, int, str], None]
EpochCallback = Callable[[dict[str, Any]], None]
SPLITS = ("train", "val", "test")
# Fields of TrainConfig that a resumed run may change (they do not alter the trajectory
# before the new settings take effect).
RESUMABLE_CHANGES = ("epochs", "device", "checkpoint_every", "patience")
RUN_FILES = (MODEL_FILE, CONFIG_FILE, METADATA_FILE, HISTORY_FILE, METRICS_FILE)


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM turned into KeyboardInterrupt) during training: ``checkpoint`` (or
    None) holds the state after ``epoch``; ``fit(..., resume=True)`` continues from it."""

    def __init__(self, epoch: int, checkpoint: Path | None) -> None:
        super().__init__(f"training interrupted after epoch {epoch}")
        self.epoch = epoch
        self.checkpoint = checkpoint


# ------------------------------------------------------------------------------ small helpers


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` or ``auto`` (cuda when available) -> torch.device."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError("device 'cuda' requested but torch sees no CUDA device; use "
                         "--device cpu or auto")
    if name not in ("cpu", "cuda"):
        raise InputError(f"unknown device {name!r}; choose one of: cpu, cuda, auto")
    return torch.device(name)


def torch_dtype(name: str) -> torch.dtype:
    """``float32`` | ``float64`` -> torch dtype."""
    return {"float32": torch.float32, "float64": torch.float64}[name]


def seed_streams(seed: int) -> tuple[int, int]:
    """(model initialisation seed, batch shuffling seed) from ``SeedSequence(seed)``."""
    children = np.random.SeedSequence(seed).spawn(2)
    return tuple(int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in children)


ModelOptions = ModelConfig | SequenceModelConfig | Mapping[str, Any]


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
    kind = getattr(dataset, "kind", "pointwise")
    if spec.kind != kind:
        raise InputError(f"arch {options['arch']!r} trains on {spec.kind} datasets but "
                         f"{dataset.path} is a {kind} dataset; choose one of: "
                         f"{', '.join(architectures_for(kind))}")
    for key, size in (("in_features", d_in), ("out_features", d_out)):
        if options.get(key, size) != size:
            raise InputError(f"model {key}={options[key]} does not match the dataset's "
                             f"{size} columns")
        options[key] = size
    if kind == "sequence":
        options.setdefault("readout", default_readout(dataset))
    config = spec.config.from_dict(options)
    if kind == "sequence":
        check_readout(config.readout, dataset)
    return config


def build_initial_model(config: ModelConfig | SequenceModelConfig, seed: int) -> nn.Module:
    """The untrained network, initialised from ``seed`` without touching torch's global RNG."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build_model(config)


def make_optimizer(params, config: TrainConfig) -> torch.optim.Optimizer:
    """Adam, SGD (steepest descent, optional momentum) or L-BFGS (strong Wolfe line search,
    up to 20 iterations per step, i.e. per batch and epoch)."""
    params = list(params)
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr)
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr, momentum=config.momentum)
    return torch.optim.LBFGS(params, lr=config.lr, max_iter=20,
                             history_size=config.lbfgs_history, line_search_fn="strong_wolfe")


class _CosineFactor:
    """lr(e)/lr = r + (1 − r)(1 + cos(π min(e, E)/E))/2 with r = lr_min/lr (closed form)."""

    def __init__(self, epochs: int, ratio: float) -> None:
        self.epochs, self.ratio = epochs, ratio

    def __call__(self, epoch: int) -> float:
        progress = min(epoch, self.epochs) / self.epochs
        return self.ratio + (1.0 - self.ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def make_scheduler(optimizer: torch.optim.Optimizer, config: TrainConfig):
    """The per-epoch LR schedule (None for ``"none"``)."""
    sched = torch.optim.lr_scheduler
    if config.schedule == "cosine":
        return sched.LambdaLR(optimizer, _CosineFactor(config.epochs, config.lr_min / config.lr))
    if config.schedule == "step":
        return sched.StepLR(optimizer, step_size=config.step_every, gamma=config.step_factor)
    if config.schedule == "plateau":
        return sched.ReduceLROnPlateau(optimizer, factor=config.step_factor,
                                       patience=config.step_every, min_lr=config.lr_min)
    return None


def data_loss(prediction: Tensor, target: Tensor) -> Tensor:
    """J = 1/(2N) Σ_i ‖prediction_i − target_i‖² (the paper's mean squared error, §2.2).

    Rows (N, k); sequences (N, T, k) give J = 1/(2NT) Σ_{i,n} ‖ŷ_{i,n} − y_{i,n}‖², the
    mean over sequences and steps."""
    return 0.5 * (prediction - target).pow(2).sum(dim=-1).mean()


def layer_gradient_squares(model: nn.Module) -> Tensor:
    """Squared gradient norms per layer: hidden layers 0 … depth−1 (W and b), the output
    layer, then all remaining parameters (the steps); shape (depth + 2,)."""
    weights, biases = model.layer_weights(), model.layer_biases()

    def sq(tensors) -> Tensor:
        grads = [t.grad for t in tensors if t.grad is not None]
        if not grads:
            return weights[0].new_zeros(())
        return sum(g.pow(2).sum() for g in grads)

    layered = {id(t) for t in (*weights, *biases)}
    others = [p for p in model.parameters() if id(p) not in layered]
    parts = [sq((w, b)) for w, b in zip(weights[:-1], biases, strict=True)]
    return torch.stack([*parts, sq(weights[-1:]), sq(others)])


def total_gradient_square(model: nn.Module) -> Tensor:
    """‖∂J/∂θ‖² over all parameters (the global norm² before clipping), shape (1,)."""
    grads = [p.grad.pow(2).sum() for p in model.parameters() if p.grad is not None]
    reference = next(model.parameters())
    return torch.stack(grads).sum().reshape(1) if grads else reference.new_zeros(1)


def _split_arrays(dataset: Any, name: str, model_config: Any) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets) of split ``name`` as the model sees them (a sequence read-out
    "last" trains on the last step of the targets)."""
    inputs, targets = dataset.split(name)
    if getattr(dataset, "kind", "pointwise") == "sequence":
        targets = readout_targets(targets, model_config.readout)
    return inputs, targets


def _split_tensors(dataset: Any, normalisation: Normalisation, name: str, device, dtype,
                   model_config: Any) -> tuple[Tensor, Tensor]:
    inputs, targets = _split_arrays(dataset, name, model_config)
    x = torch.as_tensor(normalisation.normalise_inputs(inputs), dtype=dtype, device=device)
    y = torch.as_tensor(normalisation.normalise_targets(targets), dtype=dtype, device=device)
    return x, y


def _format_taus(taus: list[float], limit: int = 6) -> str:
    shown = " ".join(f"{t:.3g}" for t in taus[:limit])
    return f"[{shown}{' …' if len(taus) > limit else ''}]"


def _steps_text(record: Mapping[str, Any]) -> str:
    """The progress line's step sizes: τ of the layers, or the learned Δt range."""
    taus = [v for k, v in record.items() if k.startswith("tau_")]
    if taus:
        return f"  τ {_format_taus(taus)}"
    if "dt_mean" in record:
        return f"  Δt {record['dt_min']:.3g}…{record['dt_max']:.3g}"
    return ""


# ------------------------------------------------------------------------------ training state


@dataclass
class TrainingState:
    """Everything that evolves during training (what a checkpoint stores)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: Any
    generator: torch.Generator
    epoch: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    layer_ids: list[int] = field(default_factory=list)
    prune_events: list[dict[str, Any]] = field(default_factory=list)
    best_val: float = math.inf
    best_epoch: int = 0
    best_state: dict[str, Tensor] | None = None
    bad_epochs: int = 0
    stop_reason: str | None = None
    train_seconds: float = 0.0
    kind: str = "pointwise"


def new_state(model: nn.Module, config: TrainConfig, shuffle_seed: int,
              kind: str = "pointwise") -> TrainingState:
    """Fresh optimiser, schedule and shuffling generator for ``model`` on ``kind`` data
    (sequence models have no τ-layers: no layer ids)."""
    optimizer = make_optimizer(model.parameters(), config)
    generator = torch.Generator().manual_seed(shuffle_seed)
    layer_ids = list(range(model.config.depth)) if kind == "pointwise" else []
    return TrainingState(model=model, optimizer=optimizer,
                         scheduler=make_scheduler(optimizer, config), generator=generator,
                         layer_ids=layer_ids, kind=kind)


def checkpoint_payload(state: TrainingState, config: TrainConfig,
                       normalisation: Normalisation, dataset: Mapping[str, Any]) -> dict:
    """The checkpoint of ``state`` (plain containers and tensors: weights_only-loadable)."""
    return {
        "epoch": state.epoch,
        "model_config": state.model.config.to_dict(),
        "model": plain_state_dict(state.model),
        "optimizer": state.optimizer.state_dict(),
        "scheduler": None if state.scheduler is None else state.scheduler.state_dict(),
        "generator": state.generator.get_state(),
        "history": [dict(row) for row in state.history],
        "layer_ids": list(state.layer_ids),
        "prune_events": [dict(e) for e in state.prune_events],
        "best": {"val": state.best_val, "epoch": state.best_epoch, "state": state.best_state,
                 "bad_epochs": state.bad_epochs},
        "stop_reason": state.stop_reason,
        "train_seconds": state.train_seconds,
        "train_config": config.to_dict(),
        "normalisation": normalisation.to_dict(),
        "dataset": dict(dataset),
    }


def restore_state(payload: Mapping[str, Any], config: TrainConfig, device, dtype,
                  source: Path, kind: str = "pointwise") -> TrainingState:
    """Rebuild the TrainingState a checkpoint describes (model, optimiser, schedule, RNG)."""
    try:
        model_config = config_from_dict(payload["model_config"])
        model = build_loaded_model(model_config, payload["model"], source).to(device, dtype)
        model.train()
        state = new_state(model, config, 0, kind)
        state.optimizer.load_state_dict(payload["optimizer"])
        if state.scheduler is not None and payload["scheduler"] is not None:
            state.scheduler.load_state_dict(payload["scheduler"])
        state.generator.set_state(payload["generator"])
        best = payload["best"]
        state.epoch = int(payload["epoch"])
        state.history = [dict(row) for row in payload["history"]]
        state.layer_ids = [int(i) for i in payload["layer_ids"]]
        state.prune_events = [dict(e) for e in payload["prune_events"]]
        state.best_val, state.best_epoch = float(best["val"]), int(best["epoch"])
        state.best_state = best["state"]
        state.bad_epochs = int(best["bad_epochs"])
        state.stop_reason = payload["stop_reason"]
        state.train_seconds = float(payload["train_seconds"])
    except (KeyError, TypeError, ValueError, RuntimeError, InputError) as exc:
        raise DataFormatError(f"{source}: incomplete or inconsistent checkpoint "
                              f"({type(exc).__name__}: {exc})") from None
    return state


# --------------------------------------------------------------------------------- one epoch


def train_epoch(state: TrainingState, config: TrainConfig, x: Tensor, y: Tensor
                ) -> tuple[float, float, list[float]]:
    """One pass over the training split; returns (data loss J, penalty, grad norms).

    Batches are rows, or whole sequences of a sequence dataset, shuffled by the run's
    generator. J is averaged over the batches (weighted by batch size) at the parameters each
    batch saw; grad norms (per layer; one global norm for sequence models) are
    root-mean-square over the batches. Penalties are evaluated only when one is set.
    """
    model, optimizer = state.model, state.optimizer
    n = x.shape[0]
    full = config.batch_size is None or config.batch_size >= n
    if full:
        batches = [None]
    else:
        order = torch.randperm(n, generator=state.generator).to(x.device)
        batches = list(torch.split(order, config.batch_size))
    penalty_args = {"lambda1": config.lambda1, "lambda2": config.lambda2, "beta": config.beta,
                    "horizon_weight": config.horizon_weight, "smoothness": config.smoothness}
    penalised = any(penalty_args.values())
    gradient_squares = (layer_gradient_squares if state.kind == "pointwise"
                        else total_gradient_square)
    data_sum = x.new_zeros(())
    penalty_sum = x.new_zeros(())
    grad_sq_sum = None
    for index in batches:
        xb, yb = (x, y) if index is None else (x[index], y[index])
        seen: dict[str, Tensor] = {}

        def closure(xb=xb, yb=yb, seen=seen) -> Tensor:
            optimizer.zero_grad(set_to_none=True)
            with autocast(config, xb.device):
                prediction = model(xb)
            data = data_loss(prediction.to(yb.dtype), yb)
            penalty = (regularisation(model, **penalty_args) if penalised
                       else data.new_zeros(()))
            total = data + penalty
            total.backward()
            if not seen:
                seen["data"], seen["penalty"] = data.detach(), penalty.detach()
                seen["grad_sq"] = gradient_squares(model).detach()
            return total

        if config.optimizer == "lbfgs":
            optimizer.step(closure)
        else:
            closure()
            if config.grad_clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
        weight = xb.shape[0] / n
        data_sum = data_sum + weight * seen["data"]
        penalty_sum = penalty_sum + weight * seen["penalty"]
        grad_sq_sum = seen["grad_sq"] if grad_sq_sum is None else grad_sq_sum + seen["grad_sq"]
    grad_norms = (grad_sq_sum / len(batches)).sqrt().tolist()
    return float(data_sum), float(penalty_sum), grad_norms


def evaluate_loss(model: nn.Module, x: Tensor, y: Tensor, batch_size: int = 65536) -> float | None:
    """J on a split without gradients (None for an empty split); ``batch_size`` counts rows,
    i.e. time steps of sequences (N, T, d), which go whole into a batch."""
    if x.shape[0] == 0:
        return None
    rows = max(1, batch_size // math.prod(x.shape[1:-1]))
    with torch.no_grad():
        total = sum(float(data_loss(model(x[i:i + rows]), y[i:i + rows]))
                    * min(rows, x.shape[0] - i) for i in range(0, x.shape[0], rows))
    return total / x.shape[0]


def _epoch_record(state: TrainingState, train_loss: float, penalty: float, val_loss: float | None,
                  grad_norms: list[float], lr: float, seconds: float) -> dict[str, Any]:
    """One history row: losses, lr, time, then the columns of the model's kind."""
    record: dict[str, Any] = {"epoch": state.epoch, "train_loss": train_loss,
                              "penalty": penalty, "objective": train_loss + penalty,
                              "val_loss": val_loss, "lr": lr, "seconds": seconds}
    if state.kind == "sequence":
        record.update(sequence_columns(state.model, grad_norms))
    else:
        record.update(_layer_columns(state, grad_norms))
    return record


def _layer_columns(state: TrainingState, grad_norms: list[float]) -> dict[str, Any]:
    """Depth, τ and gradient columns, named by the layer's original index."""
    with torch.no_grad():
        taus = [float(t) for t in state.model.taus().detach().cpu()]
    record: dict[str, Any] = {"depth": len(taus)}
    for layer, tau in zip(state.layer_ids, taus, strict=True):
        record[f"tau_{layer}"] = tau
    for layer, norm in zip(state.layer_ids, grad_norms[:-2], strict=True):
        record[f"grad_norm_{layer}"] = norm
    record["grad_norm_output"] = grad_norms[-2]
    record["grad_norm_steps"] = grad_norms[-1]
    return record


def _prune_in_training(state: TrainingState, config: TrainConfig) -> dict[str, Any] | None:
    """Delete hidden layers with τ < prune_tol (model.prune); rebuild the optimiser, keep the
    schedule's position and the current lr. Returns the logged event or None."""
    with torch.no_grad():
        taus = [float(t) for t in state.model.taus().cpu()]
    new_model, removed, new_config = state.model.prune(config.prune_tol)
    if not removed:
        return None
    event = {"epoch": state.epoch, "removed_layers": [state.layer_ids[k] for k in removed],
             "removed_taus": [taus[k] for k in removed], "depth_before": len(taus),
             "depth_after": new_config.depth}
    state.layer_ids = [i for k, i in enumerate(state.layer_ids) if k not in removed]
    lrs = [group["lr"] for group in state.optimizer.param_groups]
    new_model.train()
    state.model = new_model
    state.optimizer = make_optimizer(new_model.parameters(), config)
    old_scheduler, state.scheduler = state.scheduler, make_scheduler(state.optimizer, config)
    if old_scheduler is not None:
        state.scheduler.load_state_dict(old_scheduler.state_dict())
    for group, lr in zip(state.optimizer.param_groups, lrs, strict=True):
        group["lr"] = lr
    state.best_val, state.best_state, state.bad_epochs = math.inf, None, 0
    state.prune_events.append(event)
    return event


# --------------------------------------------------------------------------------------- fit


def _load_data(data: Any) -> Any:
    from surrogate.datasets import read_dataset

    dataset = data if hasattr(data, "splits") and hasattr(data, "inputs") else read_dataset(data)
    if len(dataset.splits.get("train", ())) == 0:
        raise InputError(f"{dataset.path}: the train split is empty")
    for label in ("inputs", "targets"):
        if not np.isfinite(getattr(dataset, label)).all():
            raise InputError(f"{dataset.path}: {label} contain non-finite values")
    return dataset


def _prepare_run_dir(out_dir: Path, resume: bool, overwrite: bool, remove: bool = True) -> None:
    """Check ``out_dir``; without ``resume`` remove an old run's files (only when ``remove``:
    of the data-parallel processes, rank 0 alone touches the run directory)."""
    known = (*RUN_FILES, CHECKPOINT_FILE)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"output {out_dir} exists and is not a directory")
    check_output_folder(out_dir, what="run directory")
    if resume:
        if not (out_dir / CHECKPOINT_FILE).is_file():
            raise DataFormatError(f"{out_dir / CHECKPOINT_FILE}: no checkpoint to resume from")
        return
    present = [name for name in known if (out_dir / name).exists()]
    if present and not overwrite:
        raise InputError(f"{out_dir} already holds a run ({', '.join(present)}); use --resume "
                         "to continue it or --overwrite to replace it")
    with held_signals():  # the old run goes as a whole or not at all
        for name in present if remove else ():
            (out_dir / name).unlink()


def run_files_complete(out_dir: Path) -> bool:
    """True when ``out_dir`` holds every file of a finished run (each written atomically)."""
    return all((out_dir / name).is_file() for name in RUN_FILES)


def _kept_checkpoint(path: Path, last_saved: int | None) -> str:
    """Which checkpoint survives a failed epoch, as the end of a one-line message."""
    if last_saved is None:
        return "no checkpoint had been written yet"
    return f"kept the last good checkpoint {path} (epoch {last_saved})"


def _last_good_epoch(state: TrainingState) -> str:
    """'last good epoch E: train loss …, val loss …' (or 'no earlier epoch')."""
    last = state.history[-1] if state.history else None
    if last is None:
        return "no earlier epoch"
    val = last.get("val_loss")
    return (f"last good epoch {last['epoch']}: train loss {last['train_loss']:.3e}"
            + ("" if val is None else f", val loss {val:.3e}"))


def _divergence_message(state: TrainingState, what: str, lr: float, kept: str) -> str:
    """One line: which value became non-finite in which epoch, and the last good epoch."""
    return (f"{what} not finite at epoch {state.epoch} ({_last_good_epoch(state)}; lr {lr:g}): "
            f"training diverged, try a smaller --lr or --grad-clip; {kept}")


def _solve_failure_message(state: TrainingState, error: SolverError, lr: float,
                           kept: str) -> str:
    """One line: the implicit solve that failed in which epoch, and the last good epoch."""
    reason = " ".join(str(error).split())
    return (f"implicit solve failed at epoch {state.epoch} ({_last_good_epoch(state)}; "
            f"lr {lr:g}): {reason}; {kept}")


def _resume_config(stored: Mapping[str, Any], given: TrainConfig | Mapping | None
                   ) -> TrainConfig:
    """The stored TrainConfig with the allowed changes of ``given`` applied."""
    config = TrainConfig.from_dict(stored)
    if given is None:
        return config
    given = given if isinstance(given, TrainConfig) else TrainConfig.from_dict(
        {**config.to_dict(), **dict(given)})
    stored = config.to_dict()  # fields added since the checkpoint was written: defaults
    changed = {k: v for k, v in given.to_dict().items() if stored.get(k) != v}
    frozen = sorted(set(changed) - set(RESUMABLE_CHANGES))
    if frozen:
        detail = ", ".join(f"{k} (stored {stored.get(k)!r}, given {changed[k]!r})"
                           for k in frozen)
        raise InputError(f"--resume continues the stored configuration; it may change only "
                         f"{', '.join(RESUMABLE_CHANGES)}, not {detail}")
    return replace(config, **{k: changed[k] for k in changed})


def _processes_config(config: TrainConfig, context: DistributedContext | None,
                      resume: bool) -> TrainConfig:
    """``config`` with ``nproc`` = the processes training; InputError when that cannot be."""
    world = 1 if context is None else context.world_size
    if context is not None and config.prune_every is not None:
        raise InputError("--prune-every changes the network while it trains; prune with one "
                         "process, not with --nproc/torchrun")
    if config.nproc == world:
        return config
    if resume:
        raise InputError(f"this run trained with {config.nproc} process(es); resume it with as "
                         f"many (--nproc {config.nproc}), not {world}")
    if config.nproc != 1:
        raise InputError(f"nproc {config.nproc} given but {world} process(es) were launched")
    return replace(config, nproc=world)


def _data_parallel(model: nn.Module, context: DistributedContext | None,
                   device: torch.device) -> nn.Module | None:
    """``DistributedDataParallel(model)`` when training data-parallel (else None)."""
    if context is None:
        return None
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda"
                                   else None)


def fit(data: Any, model: ModelOptions | None = None,
        train: TrainConfig | Mapping[str, Any] | None = None,
        out_dir: str | os.PathLike = "runs/run", *, resume: bool = False,
        overwrite: bool = False, on_progress: ProgressCallback | None = None,
        on_epoch: EpochCallback | None = None) -> Run:
    """Train a surrogate on a dataset file (or Dataset) and write the run directory.

    ``model``: a ModelConfig or SequenceModelConfig or its fields (in/out sizes come from the
    dataset; the arch must train on the dataset's kind, see :func:`model_config_for`);
    ``train``: a TrainConfig or its fields (for sequence archs without τ-layer penalties or
    pruning, :func:`surrogate.training.sequence.check_sequence_training`). With ``resume=True``
    both are read from ``out_dir/checkpoint.pt`` (``train`` may change only
    ``RESUMABLE_CHANGES``); a run whose training had finished but whose run files were cut
    off is completed by ``resume``.
    InputError before any work when ``out_dir`` cannot be written. SolverError in the epoch
    where a loss or a parameter becomes non-finite or an implicit layer's solve fails, naming
    the last good epoch (the last checkpoint is kept). An interrupt signal with a Python
    handler (Ctrl-C; SIGTERM in the command line) is held until the epoch ends, a second one
    acts at once; then TrainingInterrupted (a KeyboardInterrupt) is raised after
    checkpointing. The run files are written together: an interrupt never leaves some of them.

    Data-parallel: inside an initialised process group of W >= 2 processes (torchrun,
    ``surrogate fit --nproc W``, :mod:`surrogate.training.distributed`) every process calls ``fit``; the
    model trains under ``DistributedDataParallel`` on a ``DistributedSampler`` shard
    (:mod:`surrogate.training.ddp`), rank 0 alone reports progress, checkpoints and writes the
    run (plain state_dicts, loadable without DDP); ``nproc`` = W is recorded and a resume needs
    the same W. ``bf16`` runs the forward passes under bfloat16 autocast.
    """
    start = time.perf_counter()
    out_dir = Path(out_dir)
    context = current_context()  # data-parallel when a process group of >= 2 is initialised
    main = context is None or context.is_main
    _prepare_run_dir(out_dir, resume, overwrite, remove=main)
    dataset = _load_data(data)
    kind = getattr(dataset, "kind", "pointwise")
    info = dataset_info(dataset)
    checkpoint_path = out_dir / CHECKPOINT_FILE
    if resume:
        payload = load_checkpoint(checkpoint_path)
        if payload.get("dataset", {}).get("content_hash") != dataset.content_hash:
            raise InputError(f"{dataset.path} is not the dataset this run was trained on "
                             f"(hash {dataset.content_hash[:19]}…, run "
                             f"{str(payload.get('dataset', {}).get('content_hash'))[:19]}…)")
        config = _resume_config(payload.get("train_config", {}), train)
        normalisation = Normalisation.from_dict(payload["normalisation"])
    else:
        config = train if isinstance(train, TrainConfig) else TrainConfig.from_dict(train or {})
        model_config = model_config_for(dataset, model or {})
        if kind == "sequence":
            check_sequence_training(config, model_config.arch)
        normalisation = Normalisation.fit(*_split_arrays(dataset, "train", model_config))
    config = _processes_config(config, context, resume)
    device, dtype = resolve_device(config.device), torch_dtype(config.dtype)
    if context is not None and device.type == "cuda":
        if context.local_rank >= torch.cuda.device_count():
            raise InputError(f"process {context.rank} has no GPU of its own (local rank "
                             f"{context.local_rank}, {torch.cuda.device_count()} visible); use "
                             "fewer processes per node or --device cpu")
        device = torch.device("cuda", context.local_rank)
    if resume:
        state = restore_state(payload, config, device, dtype, checkpoint_path, kind)
        finished = state.epoch >= config.epochs or state.stop_reason == "early-stopping"
        if run_files_complete(out_dir) or not finished:
            if state.stop_reason == "early-stopping" and state.epoch < config.epochs:
                raise InputError(f"{out_dir} stopped early at epoch {state.epoch} (no val "
                                 "improvement); raise --patience to continue it")
            if state.epoch >= config.epochs:
                raise InputError(f"{out_dir} already ran all {config.epochs} epochs; pass a "
                                 "larger --epochs to continue it")
            state.stop_reason = None
        # else: training had finished but the run files were cut off: only write them
    else:
        init_seed, shuffle_seed = seed_streams(config.seed)
        net = build_initial_model(model_config, init_seed).to(device, dtype)
        if config.prune_every is not None:
            net.prune(0.0)  # fails now (InputError) for architectures that cannot be pruned
        state = new_state(net, config, shuffle_seed, kind)

    x_train, y_train = _split_tensors(dataset, normalisation, "train", device, dtype,
                                      state.model.config)
    x_val, y_val = _split_tensors(dataset, normalisation, "val", device, dtype,
                                  state.model.config)
    ddp_model = _data_parallel(state.model, context, device)
    shuffle_seed = seed_streams(config.seed)[1]
    progress = (on_progress if main else None) or (lambda done, total, description: None)
    on_epoch = on_epoch if main else None
    last_saved: int | None = int(payload["epoch"]) if resume else None
    at_boundary = True
    try:
        # an interrupt signal waits for the end of the epoch (a second one stops at once)
        with held_signals(python_handlers_only=True, second_passes=True) as interrupt:
            while state.epoch < config.epochs and state.stop_reason is None:
                at_boundary = False
                tic = time.perf_counter()
                state.epoch += 1
                state.model.train()
                lr = state.optimizer.param_groups[0]["lr"]
                try:
                    if ddp_model is None:
                        train_loss, penalty, grad_norms = train_epoch(state, config, x_train,
                                                                      y_train)
                    else:
                        train_loss, penalty, grad_norms = train_epoch_ddp(
                            state, ddp_model, config, x_train, y_train, context, shuffle_seed)
                    val_loss = evaluate_loss(state.model, x_val, y_val)
                except SolverError as exc:  # an implicit layer's solve failed in this epoch
                    raise SolverError(_solve_failure_message(
                        state, exc, lr, _kept_checkpoint(checkpoint_path, last_saved))) from None
                bad = [f"{name} loss is" for name, v in (("training", train_loss),
                                                          ("penalty", penalty),
                                                          ("validation", val_loss))
                       if v is not None and not math.isfinite(v)]
                if not bad and not all(bool(torch.isfinite(p).all())
                                       for p in state.model.parameters()):
                    bad = ["a parameter is"]
                if bad:
                    kept = _kept_checkpoint(checkpoint_path, last_saved)
                    raise SolverError(_divergence_message(state, bad[0], lr, kept))
                monitored = val_loss if val_loss is not None else train_loss + penalty
                if state.scheduler is not None:
                    if isinstance(state.scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                        state.scheduler.step(monitored)
                    else:
                        state.scheduler.step()
                if config.patience is not None:
                    if monitored < state.best_val:
                        state.best_val, state.best_epoch, state.bad_epochs = (
                            monitored, state.epoch, 0)
                        state.best_state = plain_state_dict(state.model)
                    else:
                        state.bad_epochs += 1
                        if state.bad_epochs >= config.patience:
                            state.stop_reason = "early-stopping"
                seconds = time.perf_counter() - tic
                state.train_seconds += seconds
                record = _epoch_record(state, train_loss, penalty, val_loss, grad_norms, lr,
                                       seconds)
                state.history.append(record)
                if config.prune_every is not None and state.epoch % config.prune_every == 0:
                    _prune_in_training(state, config)
                at_boundary = True
                val_text = "n/a" if val_loss is None else f"{val_loss:.3e}"
                progress(state.epoch, config.epochs,
                         f"epoch {state.epoch}/{config.epochs}  train {train_loss:.3e}  "
                         f"val {val_text}{_steps_text(record)}")
                if on_epoch is not None:
                    on_epoch(record)
                if context is not None and any_rank(interrupt.pending, device) \
                        and not interrupt.pending:
                    raise KeyboardInterrupt  # another process was interrupted: stop together
                interrupt.deliver()  # raises KeyboardInterrupt if a signal came
                if state.epoch % config.checkpoint_every == 0:
                    if main:
                        save_checkpoint(checkpoint_path,
                                        checkpoint_payload(state, config, normalisation, info))
                    last_saved = state.epoch
        if state.stop_reason is None:
            state.stop_reason = "completed"
        with held_signals():
            if main:
                save_checkpoint(checkpoint_path, checkpoint_payload(state, config,
                                                                    normalisation, info))
            last_saved = state.epoch
        if state.best_state is not None:
            state.model.load_state_dict(state.best_state)
        state.model.eval()
        extra = {"layer_ids": state.layer_ids, "pruning": state.prune_events}
        metrics: dict[str, Any] = {}
        if main:  # rank 0 alone evaluates and writes the run
            metrics = run_metrics(state, dataset, normalisation, config)
            metrics["fit_seconds"] = time.perf_counter() - start
            with held_signals() as late:  # the run files appear together
                save_run(out_dir, model=state.model, train_config=config,
                         normalisation=normalisation, dataset=info, history=state.history,
                         metrics=metrics, extra=extra)
                late.received.clear()  # the run is complete: nothing left to interrupt
    except KeyboardInterrupt:
        if at_boundary and last_saved != state.epoch:
            if main:
                with held_signals():
                    save_checkpoint(checkpoint_path, checkpoint_payload(state, config,
                                                                        normalisation, info))
            last_saved = state.epoch
        raise TrainingInterrupted(last_saved or 0,
                                  checkpoint_path if last_saved is not None else None) from None
    return Run(path=out_dir, model=state.model, model_config=state.model.config,
               train_config=config.to_dict(), normalisation=normalisation, dataset=info,
               history=list(state.history), metrics=metrics, extra=extra)


def split_errors(model: nn.Module, dataset: Any, normalisation: Normalisation
                 ) -> dict[str, float | None]:
    """Relative L² error ‖u_NN − u‖/‖u‖ per split in physical units (None for empty splits)."""
    errors: dict[str, float | None] = {}
    for name in SPLITS:
        if name not in dataset.splits or len(dataset.splits[name]) == 0:
            errors[name] = None
            continue
        inputs, targets = dataset.split(name)
        errors[name] = relative_l2_error(predict_array(model, normalisation, inputs), targets)
    return errors


def dataset_classes(dataset: Any) -> int | None:
    """K of a classification dataset (root attribute ``classes`` = number of target columns).

    None for regression datasets (no ``classes``, or a value that is not that column count).
    """
    classes = getattr(dataset, "attrs", {}).get("classes")
    if isinstance(classes, bool) or not isinstance(classes, int | np.integer):
        return None
    return int(classes) if int(classes) == dataset.targets.shape[-1] else None


def split_accuracies(model: nn.Module, dataset: Any, normalisation: Normalisation
                     ) -> dict[str, float | None]:
    """Fraction of rows whose argmax prediction (physical units) is the argmax target.

    One value per split; None for empty splits.
    """
    accuracies: dict[str, float | None] = {}
    for name in SPLITS:
        if name not in dataset.splits or len(dataset.splits[name]) == 0:
            accuracies[name] = None
            continue
        inputs, targets = dataset.split(name)
        predicted = predict_array(model, normalisation, inputs).argmax(axis=1)
        accuracies[name] = float(np.mean(predicted == np.asarray(targets).argmax(axis=1)))
    return accuracies


def run_metrics(state: TrainingState, dataset: Any, normalisation: Normalisation,
                config: TrainConfig) -> dict[str, Any]:
    """metrics.json of a finished run: errors per split, τ, sizes, timings, stop reason.

    ``accuracy`` is ``{"train", "val", "test"}`` (:func:`split_accuracies`) for classification
    datasets (root attribute ``classes``) and None for regression datasets. Sequence runs
    report per-sequence errors instead of τ (:func:`surrogate.training.sequence.sequence_metrics`).
    """
    if state.kind == "sequence":
        errors_part = sequence_metrics(state.model, dataset, normalisation)
    else:
        errors_part = _layer_metrics(state, dataset, normalisation)
    return {**errors_part, **_training_metrics(state, config)}


def _layer_metrics(state: TrainingState, dataset: Any, normalisation: Normalisation
                   ) -> dict[str, Any]:
    """Errors, accuracy, τ and layers of a pointwise run."""
    errors = split_errors(state.model, dataset, normalisation)
    accuracy = (split_accuracies(state.model, dataset, normalisation)
                if dataset_classes(dataset) is not None else None)
    with torch.no_grad():
        taus = [float(t) for t in state.model.taus().cpu()]
    return {
        "relative_l2_error": errors,
        **{f"{name}_relative_l2_error": value for name, value in errors.items()},
        "accuracy": accuracy,
        "taus": taus,
        "layer_ids": list(state.layer_ids),
        "depth": state.model.config.depth,
    }


def _training_metrics(state: TrainingState, config: TrainConfig) -> dict[str, Any]:
    """Sizes, timings, stopping and the machine of any run."""
    last = state.history[-1] if state.history else {}
    return {
        "parameter_count": int(sum(p.numel() for p in state.model.parameters())),
        "wall_time_s": state.train_seconds,
        "epochs_run": state.epoch,
        "stop_reason": state.stop_reason,
        "best_epoch": state.best_epoch if state.best_state is not None else state.epoch,
        "final_train_loss": last.get("train_loss"),
        "final_val_loss": last.get("val_loss"),
        "pruning": list(state.prune_events),
        "device": str(next(state.model.parameters()).device),
        "dtype": config.dtype,
        "num_threads": torch.get_num_threads(),
    }


__all__ = ["fit", "TrainingInterrupted", "TrainingState", "train_epoch", "evaluate_loss",
           "data_loss", "make_optimizer", "make_scheduler", "model_config_for", "resolve_device",
           "seed_streams", "split_errors", "split_accuracies", "dataset_classes",
           "build_initial_model", "layer_gradient_squares", "total_gradient_square",
           "RESUMABLE_CHANGES"]
