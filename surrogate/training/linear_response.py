"""The linear-response bank of a model that asks for one (``--linear-response K``).

A :class:`~surrogate.models.linear_response.LinearResponseResidual` learns the residual to the
linear response of its data's system; before its first epoch the bank (FEM ramp responses on
a grid of the parameter, :mod:`surrogate.datasets.sequence.linear_response_bank`) and the run's
normalisation are copied into its buffers. The bank's FEM runs happen inside ``fit``, so their
seconds are part of the run's ``train_seconds`` (the one-off of the break-even N*).
"""

from __future__ import annotations

from typing import Any

from torch import nn

from surrogate.models.normalisation import Normalisation


def prepare_linear_response(model: nn.Module, dataset: Any,
                            normalisation: Normalisation) -> float | None:
    """Compute the dataset's bank into ``model`` when it has one to fill; its seconds, else
    None."""
    set_bank = getattr(model, "set_bank", None)
    if set_bank is None:
        return None
    from surrogate.datasets.sequence.linear_response_bank import response_bank

    config = model.config
    bank = response_bank(dataset.recipe, config.linear_response, config.response_steps)
    set_bank(bank.grid, bank.ramp, normalisation)
    return bank.seconds


__all__ = ["prepare_linear_response"]
