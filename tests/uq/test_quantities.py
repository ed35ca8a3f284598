"""Quantities of interest: parsing, the energy by quadrature, probe components."""

import numpy as np
import pytest

from surrogate.core.errors import InputError
from surrogate.fem.families import get_family
from surrogate.uq import ExactQuantities, parse_quantities, quantity_points
from surrogate.uq.quantities import parse_quantity


def test_parsing_names_and_errors():
    energy, probe = parse_quantities(["energy", "probe:0.5,0.25,0.5", "energy"])
    assert energy.names == ("energy",)
    assert probe.names == tuple(f"probe:0.5,0.25,0.5:{c}" for c in ("u1", "u2", "u3"))
    assert parse_quantities(None) == (energy,)
    for bad in ("energie", "probe:1,2", "probe:a,b,c", "probe:1,2,nan"):
        with pytest.raises(InputError, match="unknown quantity"):
            parse_quantity(bad)


def test_energy_and_probes_of_the_closed_form():
    family = get_family("radial")
    quantities = parse_quantities(["probe:0.5,0.25,0.5", "energy"])
    points = quantity_points(quantities, "cube", 2, 4)
    mu = family.sample(3, 4)
    values = ExactQuantities(family, points)(mu)
    assert values.shape == (3, 4) and points.names[3] == "energy"
    # the energy ∫|u|² over the cube: the degree-4 rule on level 2 against level 3
    fine = quantity_points(quantities[1:], "cube", 3, 4)
    for row, m in zip(values, mu, strict=True):
        u = family.problem(m).u
        np.testing.assert_allclose(row[:3], u(np.array([[0.5, 0.25, 0.5]]))[0], rtol=1e-13)
        reference = fine.weights @ np.einsum("ij,ij->i", u(fine.quadrature), u(fine.quadrature))
        assert row[3] == pytest.approx(reference, rel=1e-4)


def test_a_probe_outside_the_domain_is_a_one_line_error():
    with pytest.raises(InputError, match="outside the cube"):
        quantity_points(parse_quantities(["probe:2,0,0"]), "cube", 1, 2)
