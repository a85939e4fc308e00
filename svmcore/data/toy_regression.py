"""Regression data for the regression page, tests and the regression benchmark.

Toy generators ``f(n=200, noise=<default>, seed=0) -> (X, y)`` with ``X`` float64, C-contiguous,
shape ``(n, 1)`` (x uniform on [-3, 3], in random order) and real targets ``y`` (float64):

=================  ==============================================  ==============
name               y                                               default noise
=================  ==============================================  ==============
sinc               sin(πx)/(πx) + noise·N(0, 1)                    0.1
line               0.4·x + 0.2 + noise·N(0, 1)                     0.2
step               −0.5 for x < 0, +0.5 for x ≥ 0, + noise·N(0,1)  0.1
heteroscedastic    0.5·sin(x) + noise·(0.1 + |x|/3)·N(0, 1)        0.3
=================  ==============================================  ==============

``sinc(n, noise, seed, dim=2)`` is the product sinc Π_k sinc(x_k) on [-3, 3]^dim (the 2-D
benchmark set). Randomness comes only from ``numpy.random.default_rng(seed)``: the same
arguments give bit-identical output.

Real data: the catalog (``svmcore.data.catalog``, /work/shared/data) holds only classification
sets, so the real regression set is scikit-learn's bundled diabetes data (Efron et al. 2004:
442 patients, 10 standardised features, y = disease progression after one year):
:func:`diabetes` returns it with y standardised (mean 0, sd 1) so one ε fits every set, either
all 10 features or one (``feature="bmi"``: a 1-D set whose fitted function can be drawn).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["REG_DEFAULTS", "REG_GENERATORS", "REGRESSION_SETS", "diabetes", "heteroscedastic",
           "line", "make_regression", "sinc", "step"]

_LO, _HI = -3.0, 3.0


def _check(n, noise, seed, dim=1):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not (
            math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number in [0, inf), got {noise!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
        raise ValueError(f"dim must be an integer >= 1, got {dim!r}")
    rng = np.random.default_rng(seed)
    X = np.ascontiguousarray(rng.uniform(_LO, _HI, size=(int(n), int(dim))))
    return rng, X


def _out(X, y):
    return np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)


def sinc(n: int = 200, noise: float = 0.1, seed: int = 0, dim: int = 1):
    """y = Π_k sin(πx_k)/(πx_k) + noise·N(0, 1), x uniform on [-3, 3]^dim."""
    rng, X = _check(n, noise, seed, dim)
    return _out(X, np.prod(np.sinc(X), axis=1) + noise * rng.normal(size=X.shape[0]))


def line(n: int = 200, noise: float = 0.2, seed: int = 0):
    """y = 0.4·x + 0.2 + noise·N(0, 1)."""
    rng, X = _check(n, noise, seed)
    return _out(X, 0.4 * X[:, 0] + 0.2 + noise * rng.normal(size=X.shape[0]))


def step(n: int = 200, noise: float = 0.1, seed: int = 0):
    """y = ±0.5 (the sign of x; +0.5 at x = 0) + noise·N(0, 1)."""
    rng, X = _check(n, noise, seed)
    return _out(X, np.where(X[:, 0] >= 0, 0.5, -0.5) + noise * rng.normal(size=X.shape[0]))


def heteroscedastic(n: int = 200, noise: float = 0.3, seed: int = 0):
    """y = 0.5·sin(x) + noise·(0.1 + |x|/3)·N(0, 1): the noise grows away from x = 0."""
    rng, X = _check(n, noise, seed)
    x = X[:, 0]
    return _out(X, 0.5 * np.sin(x) + noise * (0.1 + np.abs(x) / 3.0) * rng.normal(size=x.size))


REG_GENERATORS = {"sinc": sinc, "line": line, "step": step, "heteroscedastic": heteroscedastic}
REG_DEFAULTS = {"sinc": 0.1, "line": 0.2, "step": 0.1, "heteroscedastic": 0.3}


def make_regression(name: str, n: int = 200, noise: float | None = None, seed: int = 0):
    """A toy regression set by name (see the module docstring); ``noise=None`` = its default."""
    if name not in REG_GENERATORS:
        raise ValueError(f"unknown regression toy {name!r}; choose one of "
                         f"{', '.join(REG_GENERATORS)}")
    return REG_GENERATORS[name](n=n, noise=REG_DEFAULTS[name] if noise is None else noise,
                                seed=seed)


def diabetes(feature: str | None = None):
    """scikit-learn's diabetes regression data (442 × 10, bundled with scikit-learn), y
    standardised to mean 0 and sd 1; ``feature`` (e.g. "bmi") keeps that one column."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    X, y = data.data, data.target
    if feature is not None:
        names = list(data.feature_names)
        if feature not in names:
            raise ValueError(f"diabetes has no feature {feature!r}; it has {', '.join(names)}")
        X = X[:, [names.index(feature)]]
    return _out(X, (y - y.mean()) / y.std())


#: real regression sets by name: () -> (X, y)
REGRESSION_SETS = {"diabetes (bmi)": lambda: diabetes("bmi"), "diabetes (10 features)": diabetes}
