"""Probabilities for SVM decision values, as LIBSVM (and so scikit-learn's SVC) computes them.

Binary: Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A·f + B)), fitted by maximum likelihood to
out-of-fold decision values with the regularised targets of Lin, Lin & Weng (2007), "A note on
Platt's probabilistic outputs for support vector machines": t₊ = (N₊ + 1)/(N₊ + 2) for the
positives, t₋ = 1/(N₋ + 2) for the negatives. The fit is a two-parameter smooth convex problem;
``scipy.optimize.minimize`` (BFGS with the analytic gradient) solves it. scikit-learn's own
sigmoid fit is private (``sklearn.calibration._sigmoid_calibration``) and uses plain 0/1 targets
unless told otherwise, and CalibratedClassifierCV would refit the whole estimator per fold
rather than each binary problem, so the method is written out here.

Several classes: one-vs-one pairs are combined by pairwise coupling (Wu, Lin & Weng 2004,
method 2, LIBSVM's ``multiclass_probability``): p minimises Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)²
subject to Σ p = 1, solved here exactly from its KKT system rather than by LIBSVM's iteration;
one-vs-rest sigmoids are normalised to sum to 1.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

#: LIBSVM clips pairwise probabilities to [ε, 1 − ε] before coupling
_R_MIN = 1e-7


def platt_fit(f, y, sample_weight=None) -> tuple[float, float]:
    """(A, B) of the sigmoid 1/(1 + exp(A f + B)) for decision values f and labels y = ±1."""
    f = np.asarray(f, dtype=np.float64)
    pos = np.asarray(y) > 0
    w = np.ones(f.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    n_pos, n_neg = float(w[pos].sum()), float(w[~pos].sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(ab):
        z = ab[0] * f + ab[1]
        # −t log p − (1 − t) log(1 − p) with p = σ(−z), in the overflow-free form
        val = np.dot(w, t * np.logaddexp(0.0, z) + (1.0 - t) * np.logaddexp(0.0, -z))
        g = w * (expit(z) - (1.0 - t))
        return val, np.array([np.dot(g, f), g.sum()])

    start = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    res = minimize(loss, start, jac=True, method="BFGS", options={"gtol": 1e-10})
    return float(res.x[0]), float(res.x[1])


def platt_proba(f, A: float, B: float) -> np.ndarray:
    """P(y = +1 | f) under the sigmoid (A, B)."""
    return expit(-(A * np.asarray(f, dtype=np.float64) + B))


def couple_pairs(r: np.ndarray, k: int) -> np.ndarray:
    """Class probabilities (n, k) from pairwise ones r (n, k(k−1)/2): column m, for the pair
    (i, j), i < j, in order (0,1), (0,2), …, holds P(class i | class i or j)."""
    n = r.shape[0]
    R = np.zeros((n, k, k))                  # R[:, i, j] = P(i | i or j)
    m = 0
    for i in range(k):
        for j in range(i + 1, k):
            rij = np.clip(r[:, m], _R_MIN, 1.0 - _R_MIN)
            R[:, i, j], R[:, j, i] = rij, 1.0 - rij
            m += 1
    # Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt r_tj (LIBSVM); minimise pᵀQp with Σ p = 1
    Rt = np.transpose(R, (0, 2, 1))
    Q = -Rt * R
    idx = np.arange(k)
    Q[:, idx, idx] = (Rt ** 2).sum(axis=2) - (Rt[:, idx, idx] ** 2)
    M = np.zeros((n, k + 1, k + 1))
    M[:, :k, :k] = Q
    M[:, :k, k] = M[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    p = np.linalg.solve(M, rhs)[:, :k, 0]
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)


def normalise_ovr(p: np.ndarray) -> np.ndarray:
    """One-vs-rest sigmoids (n, k) normalised to sum to 1 (uniform where all are 0)."""
    s = p.sum(axis=1, keepdims=True)
    k = p.shape[1]
    return np.divide(p, s, out=np.full_like(p, 1.0 / k), where=s > 0)
