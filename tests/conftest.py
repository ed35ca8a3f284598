"""Shared pytest configuration: deterministic, small thread counts."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "2")

import pytest  # noqa: E402  (after the environment is set)


@pytest.fixture
def single_torch_thread():
    """Tiny problems: one intra-op thread is fastest (and immune to a loaded machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
