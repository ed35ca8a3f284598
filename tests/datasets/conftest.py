"""Fixtures: a small valid dataset written with the public writer."""

import numpy as np
import pytest

from surrogate.datasets import make_splits, write_dataset

IN_NAMES = ("x1", "x2", "x3", "f1", "f2", "f3", "phi")
OUT_NAMES = ("u1", "u2", "u3")


def small_arrays(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 7)), rng.standard_normal((n, 3)), rng


@pytest.fixture
def small_file(tmp_path):
    inputs, targets, rng = small_arrays()
    splits = make_splits(len(inputs), (0.8, 0.1, 0.1), rng)
    path = tmp_path / "small.h5"
    write_dataset(path, inputs=inputs, targets=targets, input_names=IN_NAMES,
                  target_names=OUT_NAMES, splits=splits, problem="maxwell", domain="cube",
                  recipe={"kind": "maxwell", "n": 200}, seed=0,
                  mesh={"points": np.eye(3), "cells": np.array([[0, 1, 2, 0]])},
                  fem={"dofs": np.arange(5.0), "level": 2})
    return path, inputs, targets, splits


class _FakeDomain:
    """Unit cube with the Domain contract's sampling API (test double)."""

    name = "cube"
    volume = 1.0

    def sample(self, n, rng):
        return rng.random((n, 3))


class _FakeProblem:
    """Manufactured problem with the Problem contract's API (test double)."""

    name = "maxwell"
    in_names = IN_NAMES
    out_names = OUT_NAMES
    has_exact = True

    def u(self, x):
        return np.column_stack([np.sin(x[:, 1]), np.cos(x[:, 0]), x[:, 2] ** 2])

    def f(self, x):
        return -self.u(x)

    def phi(self, x):
        return 0.5 * (x[:, 0] ** 2 + x[:, 1] ** 2 + 1)


@pytest.fixture
def fake_fem(monkeypatch):
    """Install stand-ins for surrogate.fem.domains/problems (independent of the FEM streams)."""
    import sys
    import types

    from surrogate.core.errors import InputError

    def get_domain(name):
        if name != "cube":
            raise InputError(f"unknown domain {name!r}; choose one of: cube")
        return _FakeDomain()

    def get_problem(name):
        if name != "maxwell":
            raise InputError(f"unknown problem {name!r}; choose one of: maxwell")
        return _FakeProblem()

    domains = types.ModuleType("surrogate.fem.domains")
    domains.get_domain = get_domain
    problems = types.ModuleType("surrogate.fem.problems")
    problems.get_problem = get_problem
    monkeypatch.setitem(sys.modules, "surrogate.fem.domains", domains)
    monkeypatch.setitem(sys.modules, "surrogate.fem.problems", problems)
    return _FakeProblem()
