"""Fixed sensor sets of a family: f and φ at points inside the training domain, u × n on its
boundary; a problem's sensor values q = [f (S_v × 3, row-major), φ (S_v), u × n (S_b × 3)]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from surrogate.core.errors import InputError


@dataclass(frozen=True)
class Sensors:
    """Volume points (S_v, 3) inside the training domain; boundary points and outer unit
    normals (S_b, 3) on its boundary."""

    volume_points: np.ndarray
    boundary_points: np.ndarray
    boundary_normals: np.ndarray


def _halton(n: int, d: int, seed: int) -> np.ndarray:
    """n points of a scrambled Halton sequence in [0, 1)^d (deterministic for ``seed``)."""
    from scipy.stats import qmc

    return qmc.Halton(d=d, scramble=True, seed=np.random.default_rng(seed)).random(n)


def cylinder_sensors(radius: float, n_volume: int, n_boundary: int) -> Sensors:
    """Halton points uniform in {r ≤ radius, 0 ≤ z ≤ 1}; boundary points by area: half on the
    side (n = e_r), a quarter on each of the caps z = 0 (n = −e_z) and z = 1 (n = e_z)."""
    u = _halton(n_volume, 3, 17)
    r, theta = radius * np.sqrt(u[:, 0]), 2 * np.pi * u[:, 1]
    volume = np.column_stack([r * np.cos(theta), r * np.sin(theta), u[:, 2]])
    n_side = (n_boundary + 1) // 2
    n_bottom = (n_boundary - n_side) // 2
    n_top = n_boundary - n_side - n_bottom
    s = _halton(n_side, 2, 18)
    side_theta = 2 * np.pi * s[:, 0]
    side = np.column_stack([radius * np.cos(side_theta), radius * np.sin(side_theta), s[:, 1]])
    side_n = np.column_stack([np.cos(side_theta), np.sin(side_theta), np.zeros(n_side)])
    caps, caps_n = [], []
    for count, z, nz, seed in ((n_bottom, 0.0, -1.0, 19), (n_top, 1.0, 1.0, 20)):
        c = _halton(max(count, 1), 2, seed)[:count]
        rc, tc = radius * np.sqrt(c[:, 0]), 2 * np.pi * c[:, 1]
        caps.append(np.column_stack([rc * np.cos(tc), rc * np.sin(tc), np.full(count, z)]))
        caps_n.append(np.tile([0.0, 0.0, nz], (count, 1)))
    return Sensors(volume, np.concatenate([side, *caps]), np.concatenate([side_n, *caps_n]))


def sensor_layout(family, n_volume: int | None = None, n_boundary: int = 16) -> Sensors:
    """The fixed sensors of ``family`` in its training domain (deterministic); ``n_volume``
    None: the family's own count (``family.volume_sensors``)."""
    from surrogate.fem.domains import Cylinder, get_domain

    if n_volume is None:
        n_volume = family.volume_sensors
    if n_volume < 1 or n_boundary < 1:
        raise InputError(f"need at least one volume and one boundary sensor, got {n_volume} "
                         f"and {n_boundary}")
    domain = get_domain(family.training_domain)
    if not isinstance(domain, Cylinder) or domain.r_inner != 0.0:
        raise InputError(f"sensors are laid out on solid cylinders; {domain.name!r} is not one")
    return cylinder_sensors(domain.r_outer, int(n_volume), int(n_boundary))


def recorded_sensors(run) -> Sensors:
    """The sensor layout a ``fields`` run's ``config.json`` records (``run.dataset["sensors"]``);
    InputError naming the run when it records none."""
    layout = run.dataset.get("sensors") or {}
    try:
        return Sensors(*(np.asarray(layout[k], dtype=float) for k in
                         ("volume_points", "boundary_points", "boundary_normals")))
    except KeyError:
        raise InputError(f"run {run.path}: inputs 'fields' but config.json records no sensor "
                         "layout") from None


def sensor_values(problem, sensors: Sensors) -> np.ndarray:
    """q = [f at the volume points (row-major), φ there, u × n at the boundary points], (q,)."""
    f = np.asarray(problem.f(sensors.volume_points), dtype=np.float64)
    phi = np.asarray(problem.phi(sensors.volume_points), dtype=np.float64)
    t = np.asarray(problem.tangential_data(sensors.boundary_points, sensors.boundary_normals),
                   dtype=np.float64)
    return np.concatenate([f.ravel(), phi, t.ravel()])


def sensor_names(sensors: Sensors) -> tuple[str, ...]:
    """Names of the entries of :func:`sensor_values`: f1_v0 f2_v0 f3_v0 …, phi_v0 …, uxn1_b0 …"""
    nv, nb = len(sensors.volume_points), len(sensors.boundary_points)
    return (*(f"f{c}_v{i}" for i in range(nv) for c in (1, 2, 3)),
            *(f"phi_v{i}" for i in range(nv)),
            *(f"uxn{c}_b{i}" for i in range(nb) for c in (1, 2, 3)))


__all__ = ["Sensors", "sensor_layout", "sensor_values", "sensor_names", "cylinder_sensors",
           "recorded_sensors"]
