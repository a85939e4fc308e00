"""Two-dimensional toy problems for the live pages and for tests.

Every generator has the signature ``f(n=200, noise=<default>, imbalance=0.5, seed=0)`` and returns
``(X, y)``: ``X`` float64, C-contiguous, shape ``(n, 2)``; ``y`` float64 in ``{-1.0, +1.0}``.

* ``imbalance`` is the fraction of positive points: exactly ``n_pos = round(n * imbalance)``
  points (Python's ``round``, clipped to ``[1, n - 1]`` so both classes exist) get ``+1``.
  Each class is drawn from its own class-conditional distribution, so changing ``imbalance``
  changes the class proportions, not the shapes.
* ``noise`` is a standard deviation in plotting units (see each generator); ``noise=0`` gives the
  clean shape.
* Randomness comes only from ``numpy.random.default_rng(seed)``: the same arguments give
  bit-identical output. Rows are shuffled (with the same generator) so that the classes are
  interleaved, which matters for online solvers that take points in order. The exception is
  ``drift``, a stream: its rows are in time order (the labels are still interleaved).
* At the default noise the data lie in about ``[-1.5, 1.5]^2`` so one plotting field fits all.
"""

from __future__ import annotations

import math
import numbers
from typing import Callable

import numpy as np

__all__ = [
    "TOY_DEFAULTS",
    "TOY_GENERATORS",
    "TOY_NOISE_RANGE",
    "TOY_PROBES",
    "DRIFT_PERIOD",
    "checkerboard",
    "circles",
    "drift",
    "drift_angle",
    "drift_probe",
    "gaussians",
    "make_toy",
    "moons",
    "spirals",
    "xor",
]


def _check_args(n, noise, imbalance, seed) -> tuple[int, int]:
    """Validate the common arguments; return ``(n_pos, n_neg)``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not (
        math.isfinite(noise) and noise >= 0
    ):
        raise ValueError(f"noise must be a finite number in [0, inf), got {noise!r}")
    if isinstance(imbalance, bool) or not isinstance(imbalance, numbers.Real) or not (
        0.0 < imbalance < 1.0
    ):
        raise ValueError(f"imbalance must be a number in the open interval (0, 1), got {imbalance!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    n = int(n)
    n_pos = min(max(round(n * float(imbalance)), 1), n - 1)
    return n_pos, n - n_pos


def _assemble(rng: np.random.Generator, X_pos: np.ndarray, X_neg: np.ndarray):
    """Stack the two classes, shuffle rows, return canonical ``(X, y)``."""
    X = np.concatenate([X_pos, X_neg]).astype(np.float64)
    y = np.concatenate([np.ones(len(X_pos)), -np.ones(len(X_neg))])
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order]), np.ascontiguousarray(y[order])


def _jitter(rng: np.random.Generator, X: np.ndarray, noise: float) -> np.ndarray:
    """Add isotropic Gaussian noise of standard deviation ``noise``."""
    return X + noise * rng.standard_normal(X.shape) if noise > 0 else X


def gaussians(n: int = 200, noise: float = 0.35, imbalance: float = 0.5, seed: int = 0):
    """Two isotropic Gaussian blobs: +1 around (0.5, 0.5), -1 around (-0.5, -0.5).

    ``noise`` is the standard deviation of each blob (``noise=0`` puts every point of a class on
    its centre). At the default 0.35 the classes overlap slightly (Bayes error about 2%).
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)
    X_pos = _jitter(rng, np.full((n_pos, 2), 0.5), noise)
    X_neg = _jitter(rng, np.full((n_neg, 2), -0.5), noise)
    return _assemble(rng, X_pos, X_neg)


def moons(n: int = 200, noise: float = 0.1, imbalance: float = 0.5, seed: int = 0):
    """Two interleaving half circles (as scikit-learn ``make_moons``), centred on the origin.

    -1: upper moon ``(cos t, sin t)``; +1: lower moon ``(1 - cos t, 0.5 - sin t)``, ``t`` uniform
    on [0, pi]; both shifted by (-0.5, -0.25) so x spans [-1.5, 1.5]. ``noise`` is Gaussian jitter.
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)
    t_neg = rng.uniform(0.0, np.pi, n_neg)
    t_pos = rng.uniform(0.0, np.pi, n_pos)
    X_neg = np.column_stack([np.cos(t_neg), np.sin(t_neg)])
    X_pos = np.column_stack([1.0 - np.cos(t_pos), 0.5 - np.sin(t_pos)])
    shift = np.array([-0.5, -0.25])
    X_pos = _jitter(rng, X_pos + shift, noise)
    X_neg = _jitter(rng, X_neg + shift, noise)
    return _assemble(rng, X_pos, X_neg)


def circles(n: int = 200, noise: float = 0.08, imbalance: float = 0.5, seed: int = 0):
    """Two concentric circles: +1 on radius 0.5, -1 on radius 1; uniform angles, Gaussian jitter."""
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)

    def ring(m: int, radius: float) -> np.ndarray:
        a = rng.uniform(0.0, 2.0 * np.pi, m)
        return radius * np.column_stack([np.cos(a), np.sin(a)])

    X_pos = ring(n_pos, 0.5)
    X_neg = ring(n_neg, 1.0)
    return _assemble(rng, _jitter(rng, X_pos, noise), _jitter(rng, X_neg, noise))


def xor(n: int = 200, noise: float = 0.05, imbalance: float = 0.5, seed: int = 0):
    """XOR of the signs: uniform on [-1, 1]^2, +1 in quadrants I and III, -1 in II and IV.

    Each class is uniform on its two quadrants (so the labels are exact for ``noise=0``); positions
    are then jittered by Gaussian noise, which moves points near the axes across the boundary.
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)

    def quadrants(m: int, same_sign: bool) -> np.ndarray:
        u = rng.uniform(0.0, 1.0, (m, 2))
        s = rng.choice(np.array([-1.0, 1.0]), m)
        return np.column_stack([s * u[:, 0], (s if same_sign else -s) * u[:, 1]])

    X_pos = quadrants(n_pos, True)
    X_neg = quadrants(n_neg, False)
    return _assemble(rng, _jitter(rng, X_pos, noise), _jitter(rng, X_neg, noise))


def checkerboard(n: int = 200, noise: float = 0.0, imbalance: float = 0.5, seed: int = 0):
    """Uniform points on [-1, 1]^2 labelled by a 4x4 checkerboard of 0.5-wide cells.

    Cell ``(i, j)`` (``i, j = 0..3`` from the lower left) is +1 when ``i + j`` is even. Each class
    is uniform on its 8 cells, i.e. the uniform-points-on-a-chess-board set of the OL SVM paper
    (Kecman & Melki 2016) at ``noise=0`` (default). ``noise > 0`` jitters positions after labelling
    (like the noisy "Checkers" of Yu & Joachims 2008, who used sigma = 0.02).
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)
    ii, jj = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    cells = np.column_stack([ii.ravel(), jj.ravel()])
    pos_cells = cells[(cells.sum(axis=1) % 2) == 0]
    neg_cells = cells[(cells.sum(axis=1) % 2) == 1]

    def sample(m: int, which: np.ndarray) -> np.ndarray:
        c = which[rng.integers(0, len(which), m)]
        return -1.0 + 0.5 * (c + rng.uniform(0.0, 1.0, (m, 2)))

    X_pos = sample(n_pos, pos_cells)
    X_neg = sample(n_neg, neg_cells)
    return _assemble(rng, _jitter(rng, X_pos, noise), _jitter(rng, X_neg, noise))


def spirals(n: int = 200, noise: float = 0.05, imbalance: float = 0.5, seed: int = 0):
    """Two interleaved Archimedean spirals (1.25 turns each), +1 and its point reflection -1.

    A point at angle ``t`` in [pi/2, 3 pi] lies at radius ``1.3 t / (3 pi)``; ``t`` is drawn with
    density proportional to ``t`` so points are spread evenly along the arc. The arms are about
    0.43 apart; ``noise`` is Gaussian jitter.
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)
    t0, t1 = 0.5 * np.pi, 3.0 * np.pi

    def arm(m: int, sign: float) -> np.ndarray:
        t = np.sqrt(rng.uniform(t0**2, t1**2, m))
        r = 1.3 * t / t1
        return sign * np.column_stack([r * np.cos(t), r * np.sin(t)])

    X_pos = arm(n_pos, 1.0)
    X_neg = arm(n_neg, -1.0)
    return _assemble(rng, _jitter(rng, X_pos, noise), _jitter(rng, X_neg, noise))


#: points per turn of the drifting gaussians (about: a stream makes whole turns, see drift_angle)
DRIFT_PERIOD = 400
#: distance of each drifting class centre from the origin: at angle 45° the centres are those of
#: ``gaussians``, (±0.5, ±0.5)
DRIFT_RADIUS = math.sqrt(0.5)


def drift_angle(i, n: int) -> np.ndarray:
    """The angle of the class +1 centre at time ``i`` (an index 0..n−1 of a stream of ``n``
    points, or an array of them): θ_i = 2π·turns·i/n with ``turns = max(1, round(n /
    DRIFT_PERIOD))``, so a stream makes whole turns and cycling it (row t mod n) never jumps."""
    turns = max(1, round(int(n) / DRIFT_PERIOD))
    return 2.0 * np.pi * turns * np.asarray(i, dtype=np.float64) / int(n)


def _drift_points(rng, theta, y, noise):
    centre = DRIFT_RADIUS * np.column_stack([np.cos(theta), np.sin(theta)])
    return np.ascontiguousarray(y[:, None] * centre + noise * rng.standard_normal((len(y), 2)))


def drift(n: int = 200, noise: float = 0.35, imbalance: float = 0.5, seed: int = 0):
    """Two gaussians whose centres rotate about the origin: a stream with concept drift.

    Row i (time order, NOT shuffled) has the label y_i (a seeded permutation of the labels, so
    the classes are interleaved) and lies around y_i·r·(cos θ_i, sin θ_i), r = √0.5, θ_i =
    :func:`drift_angle`; ``noise`` is each blob's standard deviation (at 0.35, as ``gaussians``,
    about 2 % Bayes error at any one moment). Taken all at once the classes cover each other
    (every angle holds both): only a learner that follows the stream can separate them.
    """
    n_pos, n_neg = _check_args(n, noise, imbalance, seed)
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.ones(n_pos), -np.ones(n_neg)])[rng.permutation(n_pos + n_neg)]
    X = _drift_points(rng, drift_angle(np.arange(n_pos + n_neg), n_pos + n_neg), y, noise)
    return X, np.ascontiguousarray(y)


def drift_probe(i: int, n: int = 200, noise: float = 0.35, imbalance: float = 0.5,
                seed: int = 0, m: int = 200):
    """``m`` fresh points of ``drift(n, noise, imbalance, seed)``'s concept at time ``i``: the
    blobs at angle θ_i, points that the stream never holds (drawn from ``default_rng([seed,
    1])``, the same offsets at every i, so that a curve of the error on them moves only with
    the model and the angle)."""
    n_pos, n_neg = _check_args(m, noise, imbalance, seed)
    rng = np.random.default_rng([seed, 1])
    y = np.concatenate([np.ones(n_pos), -np.ones(n_neg)])[rng.permutation(m)]
    X = _drift_points(rng, np.full(m, float(drift_angle(i % int(n), n))), y, noise)
    return X, np.ascontiguousarray(y)


#: name -> generator
TOY_GENERATORS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "gaussians": gaussians,
    "moons": moons,
    "circles": circles,
    "xor": xor,
    "checkerboard": checkerboard,
    "spirals": spirals,
    "drift": drift,
}

#: name -> default ``noise`` of the generator (for UI widgets)
TOY_DEFAULTS: dict[str, float] = {
    name: f.__defaults__[1] for name, f in TOY_GENERATORS.items()  # type: ignore[index]
}

#: name -> suggested (min, max) of a noise slider; larger values are accepted but blur the shape
TOY_NOISE_RANGE: dict[str, tuple[float, float]] = {
    "gaussians": (0.0, 1.0),
    "moons": (0.0, 0.5),
    "circles": (0.0, 0.3),
    "xor": (0.0, 0.5),
    "checkerboard": (0.0, 0.2),
    "spirals": (0.0, 0.3),
    "drift": (0.0, 1.0),
}

#: toy problems whose rows are a stream in time order, with fresh points of the concept at
#: each time (the Playground's stream mode measures the test error on them)
TOY_PROBES: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {"drift": drift_probe}


def make_toy(name: str, **kw):
    """Call the toy generator ``name`` with keyword arguments ``n, noise, imbalance, seed``."""
    try:
        f = TOY_GENERATORS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown toy dataset {name!r}; valid names: {', '.join(TOY_GENERATORS)}"
        ) from None
    return f(**kw)
