"""The contract evaluation reads from a family's members: :class:`FamilyProblem`."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from surrogate.evaluation.family.fem import interface_distance
from surrogate.fem.families import family_names, get_family
from surrogate.fem.families.family import FamilyProblem, SphericalInterface


@pytest.mark.parametrize("name", family_names())
def test_every_member_is_a_family_problem(name):
    family = get_family(name)
    problem = family.problem(family.box.mean(axis=1))
    assert isinstance(problem, FamilyProblem)
    np.testing.assert_array_equal(problem.params, family.box.mean(axis=1))
    points = np.array([[0.1, 0.2, 0.5], [-0.2, 0.1, 0.3]])
    assert problem.inputs(points).shape == (2, 7)


def test_only_the_inclusion_has_a_spherical_interface():
    kinds = {name: isinstance(get_family(name).problem(get_family(name).box.mean(axis=1)),
                              SphericalInterface) for name in family_names()}
    assert kinds == {"radial": False, "inclusion": True}


def test_interface_distance_of_an_inclusion_member():
    family = get_family("inclusion")
    mu = family.box.mean(axis=1)  # centre (0, 0, 0.5), radius mean of its range
    problem = family.problem(mu)
    centre, radius = problem.centre, problem.radius
    points = centre[None, :] + np.array([[0.0, 0.0, 0.0], [radius, 0.0, 0.0],
                                         [0.0, 0.5 * radius, 0.0], [0.0, 0.0, 2.0 * radius]])
    np.testing.assert_allclose(interface_distance(problem, points),
                               [radius, 0.0, 0.5 * radius, radius], atol=1e-15)
    radial = get_family("radial")
    assert interface_distance(radial.problem(radial.box.mean(axis=1)), points) is None
    assert interface_distance(SimpleNamespace(centre=centre), points) is None  # no radius
