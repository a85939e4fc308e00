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
:func:`diabetes` returns it with X and y standardised (mean 0, sd 1) so one ε and γ fit every
set, either all 10 features or one (``feature="bmi"``: a 1-D set whose fitted function can be
drawn).
"""
from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np

__all__ = ["REG_DEFAULTS", "REG_GENERATORS", "REGRESSION_SETS", "RegressionData",
           "check_regression_targets", "diabetes", "heteroscedastic", "line", "make_regression",
           "regression_problem", "sinc", "step", "svr_reference"]

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
    """scikit-learn's diabetes regression data (442 × 10, bundled with scikit-learn), each
    feature and y standardised to mean 0 and sd 1; ``feature`` (e.g. "bmi") keeps that one
    column."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    X, y = data.data, data.target
    if feature is not None:
        names = list(data.feature_names)
        if feature not in names:
            raise ValueError(f"diabetes has no feature {feature!r}; it has {', '.join(names)}")
        X = X[:, [names.index(feature)]]
    return _out((X - X.mean(axis=0)) / X.std(axis=0), (y - y.mean()) / y.std())


#: real regression sets by name: () -> (X, y)
REGRESSION_SETS = {"diabetes (bmi)": lambda: diabetes("bmi"), "diabetes (10 features)": diabetes}


class RegressionData(NamedTuple):
    """A regression problem for the page: a fixed train / test split and what it is."""
    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    description: str


def check_regression_targets(y, name: str = "these data") -> None:
    """ValueError when ``y`` looks like class labels (two or fewer distinct values)."""
    vals = np.unique(np.asarray(y, dtype=np.float64))
    if vals.size <= 2:
        shown = ", ".join(f"{v:g}" for v in vals)
        sets = ", ".join(list(REG_GENERATORS) + list(REGRESSION_SETS))
        raise ValueError(f"{name} is a classification set: its targets take only the values "
                         f"{shown}. Regression fits a real-valued function; choose a "
                         f"regression set ({sets}).")


def regression_problem(name: str, n: int = 200, noise: float | None = None, seed: int = 0,
                       test_fraction: float = 0.3) -> RegressionData:
    """A toy (``n`` points, ``noise``, ``seed``) or real regression set by name, split into
    training and test parts (a ``test_fraction`` of the rows, drawn from
    ``default_rng([seed, 3])``). A classification toy name (moons, …) or labels ±1 raise a
    ValueError that says so."""
    from .toy import TOY_GENERATORS, make_toy

    if name in REG_GENERATORS:
        X, y = make_regression(name, n=n, noise=noise, seed=seed)
        desc = f"{name}: {REG_GENERATORS[name].__doc__.splitlines()[0]}"
    elif name in REGRESSION_SETS:
        X, y = REGRESSION_SETS[name]()
        desc = (f"{name}: scikit-learn's diabetes data, {X.shape[0]} patients × {X.shape[1]} "
                "feature(s), y = disease progression (standardised)")
    elif name in TOY_GENERATORS:
        X, y = make_toy(name, n=n, seed=seed)          # labels ±1: refused just below
        desc = name
    else:
        raise ValueError(f"unknown regression set {name!r}; choose one of "
                         f"{', '.join(list(REG_GENERATORS) + list(REGRESSION_SETS))}")
    check_regression_targets(y, f"{name!r}")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    m = X.shape[0]
    n_test = min(max(1, int(round(test_fraction * m))), m - 2)
    perm = np.random.default_rng([int(seed), 3]).permutation(m)
    te, tr = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    return RegressionData(name, X[tr], y[tr], X[te], y[te], desc)


def svr_reference(data: RegressionData, C: float, gamma: float, epsilon: float) -> dict:
    """Test RMSE of scikit-learn's SVR (rbf, same C, γ, ε) and of the constant predictor (the
    training mean): the two lines a regression run is measured against."""
    from sklearn.svm import SVR

    f = SVR(C=C, gamma=gamma, epsilon=epsilon).fit(data.X_train, data.y_train).predict(
        data.X_test)
    return {"svr": float(np.sqrt(np.mean((f - data.y_test) ** 2))),
            "constant": float(np.sqrt(np.mean((data.y_train.mean() - data.y_test) ** 2)))}
