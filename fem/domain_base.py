"""The Domain interface (membership, uniform sampling, meshes by level) and its input checks.

Built-in shapes (``fem/domains.py``) and mesh files (``fem/file_domain.py``) implement it; the
point locator imports ``as_points`` from here, so a file domain can use the locator without
an import cycle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from skfem import MeshTet

from surrogate.core.errors import InputError
from surrogate.fem import meshes


def as_points(points: np.ndarray, name: str = "points") -> np.ndarray:
    """Return ``points`` as a finite float64 array of shape (N, 3), else raise InputError."""
    arr = np.asarray(points, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise InputError(f"{name} must have shape (N, 3), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} must be finite (found NaN or inf)")
    return arr


def check_count(n: int) -> int:
    """Return ``n`` as an int if it is an integer >= 0, else raise InputError."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"number of samples must be an integer >= 0, got {n!r}")
    return int(n)


class Domain(ABC):
    """A region of R³ with volume, bounding box (3, 2), sampler and meshes by level."""

    name: str
    volume: float
    bounds: np.ndarray
    _coarse_size: float = 0.5  # nominal spacing h at level 1
    min_level: int = 1  # the coarsest level the builder makes (0 for boxes: one cell)

    @property
    def stem(self) -> str:
        """A file-name-safe label of the domain (VTK file names): the name itself here."""
        return self.name

    @abstractmethod
    def contains(self, points: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        """Boolean (N,): which points (N, 3) lie in the closed domain grown by ``tol``."""

    @abstractmethod
    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n points (n, 3), uniform in volume."""

    @abstractmethod
    def _mesh(self, level: int) -> MeshTet:
        """Tetrahedral mesh at a checked level."""

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n points (n, 3) drawn uniformly (with respect to volume) from the domain."""
        if not isinstance(rng, np.random.Generator):
            raise InputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return self._sample(check_count(n), rng)

    def mesh(self, level: int) -> MeshTet:
        """Conforming, positively oriented tetrahedral mesh at refinement ``level`` >=
        ``min_level``."""
        return self._mesh(meshes.check_level(level, self.min_level))

    def mesh_size(self, level: int) -> float:
        """Nominal spacing h of ``mesh(level)``: halves per level."""
        return self._coarse_size * 2.0 ** (1 - meshes.check_level(level, self.min_level))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


__all__ = ["Domain", "as_points", "check_count"]
