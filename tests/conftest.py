"""Shared pytest configuration: deterministic, small thread counts."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "2")
