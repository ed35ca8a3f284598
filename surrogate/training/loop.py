"""The training loop behind ``surrogate fit``: J_λ minimisation with checkpoints and resume.

Objective (§2, §5): ``J_λ = 1/(2N) Σ_i ‖y^[L](û_i) − Ŝ_i‖² + penalties`` on inputs and
targets standardised with the training split's statistics, the penalties being eq. 2.4
(λ₁), the τ term (λ₂), bias ordering eq. 2.5 (β) and the soft time horizon. The loop uses
only the generic model interface (``taus``, ``layer_weights``, ``layer_biases``,
``prune``, ``config``), never the architecture's name.

Sequence datasets (kind ``sequence``) train through the same loop and run directory with
the sequence architectures of the registry (``lem``, ``cornn``, ``lstm``); what differs —
read-out targets, per-channel normalisation, no τ-layer penalties, Δt columns, per-sequence
metrics — is decided by the dataset's kind (:mod:`surrogate.training.dataset_kind_rules`).

Resume is exact: a checkpoint holds the model, optimiser and scheduler states, the
shuffling generator, the epoch, the history and the early-stopping state, and, for an
interrupt between two mini-batches, the position within the epoch (the generator state that
drew its batch order, the batches taken, the running sums), so an interrupted run continued
with ``resume=True`` produces the same history and weights as one that never stopped (same
machine, same thread count).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from surrogate.core.errors import SolverError
from surrogate.core.interrupts import HeldSignals, held_signals
from surrogate.models.config import ModelConfig
from surrogate.models.normalisation import Normalisation
from surrogate.runs.checkpoints import load_checkpoint, save_checkpoint
from surrogate.runs.layout import CHECKPOINT_FILE
from surrogate.runs.run import Run
from surrogate.runs.save import dataset_info, save_run
from surrogate.training.config import TrainConfig
from surrogate.training.data import (
    ModelOptions,
    build_initial_model,
    load_training_data,
    model_config_for,
    network_dataset,
    split_arrays,
    split_tensors,
)
from surrogate.training.dataset_kind_rules import dataset_kind, kind_rules
from surrogate.training.ddp import DataParallel
from surrogate.training.device import process_device, seed_streams, torch_dtype
from surrogate.training.distributed import DistributedContext, current_context
from surrogate.training.epoch import (
    EpochStopped,
    Reduction,
    SingleProcess,
    evaluate_loss,
    train_epoch,
)
from surrogate.training.failures import check_finite, kept_checkpoint, solve_failure_message
from surrogate.training.family_inputs import family_record
from surrogate.training.family_recipe import with_recipe_defaults
from surrogate.training.head_solve import (
    head_sample,
    head_solve_due,
    linear_head,
    solve_linear_head,
)
from surrogate.training.history import epoch_record, progress_line
from surrogate.training.linear_response import prepare_linear_response
from surrogate.training.metrics import run_metrics
from surrogate.training.optimiser import step_scheduler
from surrogate.training.pruning import prune_in_training
from surrogate.training.resume import (
    check_same_dataset,
    processes_config,
    reopen,
    resume_config,
)
from surrogate.training.run_dir import prepare_run_dir, run_files_complete
from surrogate.training.state import (
    TrainingState,
    checkpoint_payload,
    new_state,
    restore_state,
    track_best,
)
from surrogate.training.threads import training_threads

ProgressCallback = Callable[[int, int, str], None]
EpochCallback = Callable[[dict[str, Any]], None]


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM turned into KeyboardInterrupt) during training: ``checkpoint`` (or
    None) holds the state after ``epoch`` whole epochs and ``batches`` mini-batches of the
    next; ``fit(..., resume=True)`` continues from it."""

    def __init__(self, epoch: int, checkpoint: Path | None, batches: int = 0) -> None:
        within = f" and mini-batch {batches} of epoch {epoch + 1}" if batches else ""
        super().__init__(f"training interrupted after epoch {epoch}{within}")
        self.epoch = epoch
        self.batches = batches
        self.checkpoint = checkpoint


@dataclass
class Training:
    """A run being trained: its state, configuration, data and where its checkpoint goes."""

    state: TrainingState
    config: TrainConfig
    normalisation: Normalisation
    dataset: Any
    info: dict[str, Any]
    checkpoint: Path
    device: torch.device
    main: bool
    last_saved: int | None = None
    at_boundary: bool = True
    earlier_seconds: float = 0.0
    defaults_applied: dict[str, Any] | None = None

    def save_checkpoint(self) -> None:
        """Write the checkpoint (rank 0 only) and remember its epoch."""
        if self.main:
            save_checkpoint(self.checkpoint, {
                **checkpoint_payload(self.state, self.config, self.normalisation, self.info),
                "defaults_applied": self.defaults_applied})
        self.last_saved = self.state.epoch

    def kept(self) -> str:
        """Which checkpoint survives a failure now (:func:`kept_checkpoint`)."""
        return kept_checkpoint(self.checkpoint, self.last_saved)


def _begin(dataset: Any, model: ModelOptions | None, train: TrainConfig | Mapping | None,
           out_dir: Path, resume: bool, context: DistributedContext | None) -> Training:
    """The configuration and state to train from: a checkpoint's, or fresh ones."""
    kind = dataset_kind(dataset)
    checkpoint = out_dir / CHECKPOINT_FILE
    if resume:
        payload = load_checkpoint(checkpoint)
        dataset = network_dataset(dataset, payload.get("model_config"))
        check_same_dataset(payload, dataset)
        config = resume_config(payload.get("train_config", {}), train)
        normalisation = Normalisation.from_dict(payload["normalisation"])
        applied = payload.get("defaults_applied")
    else:
        model, train, applied = with_recipe_defaults(dataset, model, train)
        config = train if isinstance(train, TrainConfig) else TrainConfig.from_dict(train or {})
        dataset = network_dataset(dataset, model or {})
        model_config = model_config_for(dataset, model or {})
        kind_rules(kind).check_training(config, model_config.arch)
        normalisation = Normalisation.fit(*split_arrays(dataset, "train", model_config))
    config = processes_config(config, context, resume)
    device, dtype = process_device(config.device, context), torch_dtype(config.dtype)
    if resume:
        state = restore_state(payload, config, device, dtype, checkpoint, kind)
        reopen(state, config, out_dir, run_files_complete(out_dir))
    else:
        state = _fresh_state(model_config, config, device, dtype, kind)
        prepare_linear_response(state.model, dataset, normalisation)
    return Training(state=state, config=config, normalisation=normalisation, dataset=dataset,
                    info={**dataset_info(dataset), **family_record(dataset)},
                    checkpoint=checkpoint, device=device,
                    main=context is None or context.is_main,
                    last_saved=int(payload["epoch"]) if resume else None,
                    earlier_seconds=state.train_seconds + (
                        state.partial.seconds if state.partial is not None else 0.0),
                    defaults_applied=applied)


def _fresh_state(model_config: ModelConfig | Any, config: TrainConfig, device: torch.device,
                 dtype: torch.dtype, kind: str) -> TrainingState:
    """The untrained network of ``config.seed`` and a new optimiser, schedule, generator."""
    init_seed, shuffle_seed = seed_streams(config.seed)
    net = build_initial_model(model_config, init_seed).to(device, dtype)
    if config.prune_every is not None:
        net.prune(0.0)  # fails now (InputError) for architectures that cannot be pruned
    if config.head_solve_epochs:
        linear_head(net)  # fails now (InputError) for a model without a linear head
    return new_state(net, config, shuffle_seed, kind)


def _one_epoch(run: Training, reduction: Reduction, train: tuple[Tensor, Tensor],
               val: tuple[Tensor, Tensor]) -> dict[str, Any]:
    """Train one epoch, check it, step the schedule, track the best; its history row."""
    state, config = run.state, run.config
    tic = time.perf_counter()
    earlier = state.partial.seconds if state.partial is not None else 0.0
    state.epoch += 1
    state.model.train()
    lr = state.optimizer.param_groups[0]["lr"]
    try:
        train_loss, penalty, grad_norms = train_epoch(state, config, *train, reduction)
        if head_solve_due(state.epoch, config.head_solve_epochs, config.epochs):
            _solve_head(state, config, train)
        val_loss = evaluate_loss(state.model, *val)
    except SolverError as exc:  # an implicit layer's solve failed in this epoch
        raise SolverError(solve_failure_message(state, exc, lr, run.kept())) from None
    except EpochStopped:  # between two mini-batches: state.partial holds the epoch so far
        state.epoch -= 1
        state.partial.seconds = earlier + time.perf_counter() - tic
        raise
    check_finite(state, train_loss, penalty, val_loss, lr, run.kept())
    monitored = val_loss if val_loss is not None else train_loss + penalty
    step_scheduler(state.scheduler, monitored)
    track_best(state, config.patience, monitored)
    seconds = earlier + time.perf_counter() - tic
    state.train_seconds += seconds
    record = epoch_record(state, train_loss, penalty, val_loss, grad_norms, lr, seconds)
    state.history.append(record)
    if config.prune_every is not None and state.epoch % config.prune_every == 0:
        prune_in_training(state, config)
    return record


def _solve_head(state: TrainingState, config: TrainConfig, train: tuple[Tensor, Tensor]
                ) -> None:
    """The hybrid step: the linear head set to its least-squares minimiser on a sample of
    ``config.head_solve_rows`` training rows (:mod:`surrogate.training.head_solve`)."""
    x, y = train
    index = head_sample(x.shape[0], config.head_solve_rows, config.seed, state.epoch, x.device)
    if index is not None:
        x, y = x.index_select(0, index), y.index_select(0, index)
    solve_linear_head(state.model, x, y)


def _split(run: Training, name: str) -> tuple[Tensor, Tensor]:
    """Split ``name`` as the model trains on it (normalised tensors on the run's device)."""
    return split_tensors(run.dataset, run.normalisation, name, run.device,
                         torch_dtype(run.config.dtype), run.state.model.config)


def _train_epochs(run: Training, reduction: Reduction, train: tuple[Tensor, Tensor],
                  val: tuple[Tensor, Tensor], progress: ProgressCallback,
                  on_epoch: EpochCallback | None, interrupt: HeldSignals) -> None:
    """Epochs until the last one or early stopping. A held interrupt stops the epoch after
    its current mini-batch (``reduction.stop_requested``; data-parallel processes wait for
    the epoch's end and stop together); a second one stops at once."""
    state, config = run.state, run.config
    while state.epoch < config.epochs and state.stop_reason is None:
        run.at_boundary = False
        try:
            record = _one_epoch(run, reduction, train, val)
        except EpochStopped:
            run.at_boundary = True  # a whole mini-batch done: the state can be checkpointed
            interrupt.deliver()  # raises KeyboardInterrupt (the usual handler)
            continue  # a handler that did not raise: the epoch goes on from state.partial
        run.at_boundary = True
        progress(state.epoch, config.epochs, progress_line(record, config.epochs))
        if on_epoch is not None:
            on_epoch(record)
        if reduction.anyone(interrupt.pending) and not interrupt.pending:
            raise KeyboardInterrupt  # another process was interrupted: stop together
        interrupt.deliver()  # raises KeyboardInterrupt if a signal came
        if state.epoch % config.checkpoint_every == 0:
            run.save_checkpoint()


def _finish(run: Training, start: float, out_dir: Path) -> tuple[dict[str, Any], dict]:
    """Checkpoint the end, restore the best weights, write the run; (metrics, extra)."""
    state = run.state
    if state.stop_reason is None:
        state.stop_reason = "completed"
    with held_signals():
        run.save_checkpoint()
    if state.best_state is not None:
        state.model.load_state_dict(state.best_state)
    state.model.eval()
    extra = {"layer_ids": state.layer_ids, "pruning": state.prune_events}
    if run.defaults_applied is not None:
        extra["defaults_applied"] = run.defaults_applied
    metrics: dict[str, Any] = {}
    if run.main:  # rank 0 alone evaluates and writes the run
        metrics = run_metrics(state, run.dataset, run.normalisation, run.config)
        metrics["fit_seconds"] = time.perf_counter() - start  # this call
        # the one-off cost of break-even N*: the training time of the earlier calls (the
        # checkpoint's cumulative epoch seconds) and the whole of this call
        metrics["train_seconds"] = run.earlier_seconds + metrics["fit_seconds"]
        with held_signals() as late:  # the run files appear together
            save_run(out_dir, model=state.model, train_config=run.config,
                     normalisation=run.normalisation, dataset=run.info, history=state.history,
                     metrics=metrics, extra=extra)
            late.received.clear()  # the run is complete: nothing left to interrupt
    return metrics, extra


def _stop(run: Training) -> TrainingInterrupted:
    """Checkpoint an interrupted run at an epoch or mini-batch boundary; the exception."""
    partial = run.state.partial
    if run.at_boundary and (run.last_saved != run.state.epoch or partial is not None):
        with held_signals():
            run.save_checkpoint()
        if partial is not None:
            return TrainingInterrupted(run.state.epoch, run.checkpoint, partial.batches)
    saved = run.last_saved
    return TrainingInterrupted(saved or 0, run.checkpoint if saved is not None else None)


def fit(data: Any, model: ModelOptions | None = None,
        train: TrainConfig | Mapping[str, Any] | None = None,
        out_dir: str | os.PathLike = "runs/run", *, resume: bool = False,
        overwrite: bool = False, on_progress: ProgressCallback | None = None,
        on_epoch: EpochCallback | None = None) -> Run:
    """Train a surrogate on a dataset file (or Dataset) and write the run directory.

    ``model``: a ModelConfig or SequenceModelConfig or its fields (in/out sizes come from the
    dataset; the arch must train on the dataset's kind, see
    :func:`surrogate.training.data.model_config_for`); ``train``: a TrainConfig or its fields
    (for sequence archs without τ-layer penalties or pruning,
    :func:`surrogate.training.sequence.check_sequence_training`). On a problem-family
    dataset the options not given take the family recipe's values
    (:mod:`surrogate.training.family_recipe`; recorded in ``config.json`` under
    ``extra.defaults_applied``). With ``resume=True``
    both are read from ``out_dir/checkpoint.pt`` (``train`` may change only
    ``RESUMABLE_CHANGES``); a run whose training had finished but whose run files were cut
    off is completed by ``resume``.
    InputError before any work when ``out_dir`` cannot be written. SolverError in the epoch
    where a loss or a parameter becomes non-finite or an implicit layer's solve fails, naming
    the last good epoch (the last checkpoint is kept). An interrupt signal with a Python
    handler (Ctrl-C; SIGTERM in the command line) is held until the current mini-batch ends
    (the epoch's end under data parallelism), a second one acts at once; then
    TrainingInterrupted (a KeyboardInterrupt) is raised after checkpointing, the checkpoint
    recording the position within the epoch. The run files are written together: an
    interrupt never leaves some of them.

    Data-parallel: inside an initialised process group of W >= 2 processes (torchrun,
    ``surrogate fit --nproc W``, :mod:`surrogate.training.distributed`) every process calls
    ``fit``; the model trains under ``DistributedDataParallel`` on a ``DistributedSampler``
    shard (:mod:`surrogate.training.ddp`), rank 0 alone reports progress, checkpoints and
    writes the run (plain state_dicts, loadable without DDP); ``nproc`` = W is recorded and a
    resume needs the same W. ``bf16`` runs the forward passes under bfloat16 autocast.
    """
    start = time.perf_counter()
    out_dir = Path(out_dir)
    context = current_context()  # data-parallel when a process group of >= 2 is initialised
    main = context is None or context.is_main
    prepare_run_dir(out_dir, resume, overwrite, remove=main)
    dataset = load_training_data(data)
    run = _begin(dataset, model, train, out_dir, resume, context)
    train_split, val_split = _split(run, "train"), _split(run, "val")
    shuffle_seed = seed_streams(run.config.seed)[1]
    progress = (on_progress if main else None) or (lambda done, total, description: None)
    threads = training_threads(train_split[0].shape[0], run.config.batch_size, run.state.model,
                               run.device, data_parallel=context is not None,
                               threads=run.config.threads)
    try:
        with threads:  # surrogate.training.threads: one thread for small steps
            with held_signals(python_handlers_only=True, second_passes=True) as interrupt:
                reduction = (SingleProcess(stop=lambda: interrupt.pending) if context is None
                             else DataParallel(run.state.model, context, run.device,
                                               shuffle_seed))
                _train_epochs(run, reduction, train_split, val_split, progress,
                              on_epoch if main else None, interrupt)
            metrics, extra = _finish(run, start, out_dir)
    except KeyboardInterrupt:
        raise _stop(run) from None
    state = run.state
    return Run(path=out_dir, model=state.model, model_config=state.model.config,
               train_config=run.config.to_dict(), normalisation=run.normalisation,
               dataset=run.info, history=list(state.history), metrics=metrics, extra=extra)


__all__ = ["fit", "TrainingInterrupted", "Training"]
