"""Toy datasets of the paper experiments: ``sine`` (regression), spirals, bands, circles.

- ``sine``: Reshniak & Webster, Example 1: f(x) = sin(2πx) e^{-x²/2}, x ∈ [-1, 1].
- ``spirals``: Reshniak & Webster, Example 2 (the swiss roll of Haber & Ruthotto): two arms
  r = s and r = s + 0.2 at angle 4πs, s ∈ [0, 1]; every other point is validation.
- ``bands``: Hauser et al. §4.1: 1-D points, blue | red | blue, half of them red.
- ``circles``: Ruseckas §6: two concentric circles, the outer twice the inner radius, with
  Gaussian noise σ = 0.2.

All arrays are drawn from ``numpy.random.SeedSequence(seed).spawn(3)``: one Generator per
split (train, val, test), used first for the points and then for the noise, so the training
points do not change with ``n_val``/``n_test``.
"""

from __future__ import annotations

import numpy as np

from surrogate.datasets.format import SPLIT_NAMES
from surrogate.datasets.generator_output import GeneratedData, ProgressCallback
from surrogate.datasets.recipes import TOY_DEFAULTS, ToyRecipe

TOY_NAMES = tuple(TOY_DEFAULTS)
CLASSES = {"sine": 0, "spirals": 2, "bands": 2, "circles": 2}
SPIRAL_OFFSET = 0.2  # radius offset of the second arm (Haber & Ruthotto's swiss roll)
SPIRAL_TURNS = 2.0  # each arm winds through 2 turns: angle 4πs, s ∈ [0, 1]
BAND_INTERVALS = ((-1.0, -0.6), (-0.4, 0.4), (0.6, 1.0))  # blue | red | blue
CIRCLE_RADII = (1.0, 2.0)  # inner (class 0), outer = 2 × inner (class 1)


def sine_function(x: np.ndarray) -> np.ndarray:
    """f(x) = sin(2πx) exp(-x²/2), elementwise (Reshniak & Webster, Example 1)."""
    return np.sin(2.0 * np.pi * x) * np.exp(-0.5 * x**2)


def one_hot(labels: np.ndarray, classes: int) -> np.ndarray:
    """One-hot float64 rows (N, classes) of integer ``labels`` (N,)."""
    return np.eye(classes)[np.asarray(labels, dtype=np.int64)]


def sine_split(n: int, rng: np.random.Generator, grid: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    """Points x (n, 1) uniform in [-1, 1] (or an evenly spaced grid) and f(x) (n, 1)."""
    x = np.linspace(-1.0, 1.0, n) if grid else rng.uniform(-1.0, 1.0, n)
    x = x.reshape(-1, 1)
    return x, sine_function(x)


def spiral_points(s: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Points (N, 2) at arm parameter s ∈ [0, 1]: r = s + 0.2·label, angle 4πs."""
    angle = 2.0 * np.pi * SPIRAL_TURNS * s
    radius = s + SPIRAL_OFFSET * labels
    return np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])


def spiral_arms(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Both arms at m evenly spaced s ∈ [0, 1]: points (2m, 2), labels (2m,) (arm 0 first)."""
    s = np.tile(np.linspace(0.0, 1.0, m), 2)
    labels = np.repeat(np.arange(2), m)
    return spiral_points(s, labels), labels


def spiral_random(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n points (n, 2) at uniform random s on alternating arms; labels (n,)."""
    labels = np.arange(n) % 2
    return spiral_points(rng.uniform(0.0, 1.0, n), labels), labels


def band_points(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """1-D points (n, 1): quarters blue-left, red, red, blue-right (labels 0 blue, 1 red)."""
    quarter = np.arange(n) % 4
    region = np.array([0, 1, 1, 2])[quarter]
    low, high = np.array(BAND_INTERVALS).T
    x = low[region] + (high[region] - low[region]) * rng.uniform(0.0, 1.0, n)
    return x.reshape(-1, 1), (region == 1).astype(np.int64)


def circle_points(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n points (n, 2) on alternating circles (label 0 inner, 1 outer), uniform angle."""
    labels = np.arange(n) % 2
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    radius = np.asarray(CIRCLE_RADII)[labels]
    return np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]), labels


def _split_arrays(recipe: ToyRecipe) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(inputs, labels-or-values) per split, noise added; spirals' val interleaves train."""
    rngs = dict(zip(SPLIT_NAMES, (np.random.default_rng(s) for s in
                                  np.random.SeedSequence(recipe.seed).spawn(3)), strict=True))
    sizes = {"train": recipe.n_train, "val": recipe.n_val, "test": recipe.n_test}
    arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if recipe.name == "spirals":
        points, labels = spiral_arms(recipe.n_train)  # 2m points, even rows train, odd val
        for offset, name in enumerate(("train", "val")):
            arrays[name] = points[offset::2], labels[offset::2]
        if recipe.n_val == 0:
            arrays["val"] = points[:0], labels[:0]
        arrays["test"] = spiral_random(recipe.n_test, rngs["test"])
    else:
        draw = {"sine": lambda n, rng, name: sine_split(n, rng, grid=name == "test"),
                "bands": lambda n, rng, name: band_points(n, rng),
                "circles": lambda n, rng, name: circle_points(n, rng)}[recipe.name]
        arrays = {name: draw(sizes[name], rngs[name], name) for name in SPLIT_NAMES}
    if recipe.noise == 0:
        return arrays
    noisy = {}
    for name, (x, y) in arrays.items():
        xi = rngs[name].standard_normal(y.shape if recipe.name == "sine" else x.shape)
        noisy[name] = (x, y + recipe.noise * xi) if recipe.name == "sine" else (
            x + recipe.noise * xi, y)
    return noisy


def generate_toy(recipe: ToyRecipe, on_progress: ProgressCallback | None = None
                 ) -> GeneratedData:
    """Sample toy dataset ``recipe.name``; rows are train, then val, then test.

    Noise σ: ``sine`` adds σ·ξ to the targets; the others add σ·ξ to each coordinate of
    the inputs (labels are those of the noiseless point). Classification targets are
    one-hot (N, K) named ``class0..`` and the file gets the root attribute ``classes`` = K.
    """

    progress = on_progress or (lambda done, total, description: None)
    progress(0, 2, f"sampling {recipe.name}")
    arrays = _split_arrays(recipe)
    classes = CLASSES[recipe.name]
    inputs = np.concatenate([arrays[name][0] for name in SPLIT_NAMES]).astype(np.float64)
    values = np.concatenate([arrays[name][1] for name in SPLIT_NAMES])
    targets = values.astype(np.float64) if classes == 0 else one_hot(values, classes)
    bounds = np.cumsum([0, *(len(arrays[name][0]) for name in SPLIT_NAMES)])
    splits = {name: np.arange(bounds[i], bounds[i + 1], dtype=np.int64)
              for i, name in enumerate(SPLIT_NAMES)}
    dim = inputs.shape[1]
    progress(1, 2, "writing")
    return GeneratedData(
        inputs=inputs, targets=targets,
        input_names=("x",) if dim == 1 else tuple(f"x{i + 1}" for i in range(dim)),
        target_names=("y",) if classes == 0 else tuple(f"class{k}" for k in range(classes)),
        splits=splits, problem=recipe.name, domain="interval" if dim == 1 else "plane",
        recipe=recipe.to_dict(), seed=recipe.seed, dtype=recipe.dtype,
        attrs={} if classes == 0 else {"classes": classes},
    )


__all__ = ["generate_toy", "sine_function", "one_hot", "spiral_arms", "spiral_points",
           "band_points", "circle_points", "TOY_NAMES", "CLASSES", "CIRCLE_RADII",
           "BAND_INTERVALS"]
