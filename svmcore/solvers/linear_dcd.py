r"""Dual coordinate descent for the L2-regularised linear SVM (liblinear's
``solve_l2r_l1l2_svc``): the solver behind ``svmcore.LinearSVC``.

Minimises the primal

    P(w) = ½‖w‖² + Σ_i C_i ξ(y_i wᵀx_i),   ξ(m) = max(0, 1 − m)  (hinge)  or  max(0, 1 − m)²
                                                                     (squared hinge)

where x_i carries the constant feature ``bias`` (liblinear's intercept_scaling) when an
intercept is fitted, so the intercept bias·w_{d+1} is regularised as liblinear regularises it.
Through its dual

    min_α  ½ αᵀ(Q + D)α − eᵀα   s.t.  0 ≤ α_i ≤ U_i,     Q_ij = y_i y_j x_iᵀx_j,
    hinge:  U_i = C_i, D_ii = 0;     squared hinge:  U_i = ∞, D_ii = 1/(2C_i),

one coordinate at a time in a random order per pass, keeping w = Σ_i y_i α_i x_i:
G = y_i wᵀx_i − 1 + D_ii α_i, α_i ← clip(α_i − G/(Q_ii + D_ii), 0, U_i), w ← w + Δα_i y_i x_i.
Shrinking and the stopping rule are liblinear's: coordinates at a bound whose projected gradient
points outwards past the last pass's extremes are set aside; the run stops when the projected
gradients' spread max PG − min PG ≤ tol on every coordinate (the shrunk ones are brought back
and tested before stopping).

Paper: Hsieh, Chang, Lin, Keerthi & Sundararajan (2008), "A dual coordinate descent method
for large-scale linear SVM", ICML (Algorithm 1, §3.2 shrinking); liblinear's implementation.

Why its own solver: SMO solves the L1-SVM dual with the equality constraint yᵀα = 0 of an
unregularised bias and has no diagonal term; liblinear's model regularises the bias (no
equality constraint) and its default loss, the squared hinge, is the L2-SVM dual with the
diagonal shift 1/(2C_i). SFW solves an L2-SVM dual too, but stochastically, to a duality gap
rather than to liblinear's projected-gradient tolerance. The order of a pass is drawn from a
seeded xorshift generator inside the compiled loop (the same seed, the same passes) instead of
a list of permutations from NumPy, which would take max_iter · n integers.
"""
from __future__ import annotations

import numpy as np

from .._jit import njit

HINGE, SQUARED_HINGE = 0, 1


@njit
def _row_dot(Xd, Xdata, Xind, Xptr, sparse, i, w):
    acc = 0.0
    if sparse:
        for p in range(Xptr[i], Xptr[i + 1]):
            acc += Xdata[p] * w[Xind[p]]
    else:
        for k in range(Xd.shape[1]):
            acc += Xd[i, k] * w[k]
    return acc


@njit
def _row_axpy(Xd, Xdata, Xind, Xptr, sparse, i, a, w):
    if sparse:
        for p in range(Xptr[i], Xptr[i + 1]):
            w[Xind[p]] += a * Xdata[p]
    else:
        for k in range(Xd.shape[1]):
            w[k] += a * Xd[i, k]


@njit
def _dcd(Xd, Xdata, Xind, Xptr, sparse, sqnorm, bias, y, U, Dii, tol, max_iter, seed,
         w, alpha):
    """The passes of coordinate descent; returns (passes, converged). ``w`` has d + 1 entries,
    the last the weight of the constant feature ``bias`` (0: no intercept)."""
    n = y.shape[0]
    d = w.shape[0] - 1
    QD = np.empty(n)
    for i in range(n):
        QD[i] = sqnorm[i] + bias * bias + Dii[i]
    index = np.arange(n)
    active = n
    pg_max_old = np.inf
    pg_min_old = -np.inf
    state = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    passes = 0
    converged = False
    while passes < max_iter:
        passes += 1
        pg_max_new = -np.inf
        pg_min_new = np.inf
        for s in range(active - 1, 0, -1):          # Fisher–Yates on the active part
            state ^= state << np.uint64(13)
            state ^= state >> np.uint64(7)
            state ^= state << np.uint64(17)
            j = np.int64(state % np.uint64(s + 1))
            index[s], index[j] = index[j], index[s]
        s = 0
        while s < active:
            i = index[s]
            yi = y[i]
            G = yi * (_row_dot(Xd, Xdata, Xind, Xptr, sparse, i, w) + bias * w[d]) - 1.0 \
                + Dii[i] * alpha[i]
            PG = 0.0
            if alpha[i] == 0.0:
                if G > pg_max_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if G < 0.0:
                    PG = G
            elif alpha[i] == U[i]:
                if G < pg_min_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if G > 0.0:
                    PG = G
            else:
                PG = G
            if PG > pg_max_new:
                pg_max_new = PG
            if PG < pg_min_new:
                pg_min_new = PG
            if abs(PG) > 1e-12:
                old = alpha[i]
                new = old - G / QD[i]
                if new < 0.0:
                    new = 0.0
                elif new > U[i]:
                    new = U[i]
                alpha[i] = new
                step = (new - old) * yi
                if step != 0.0:
                    _row_axpy(Xd, Xdata, Xind, Xptr, sparse, i, step, w)
                    w[d] += step * bias
            s += 1
        if pg_max_new - pg_min_new <= tol:
            if active == n:
                converged = True
                break
            active = n                              # test every coordinate before stopping
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max_new if pg_max_new > 0.0 else np.inf
        pg_min_old = pg_min_new if pg_min_new < 0.0 else -np.inf
    return passes, converged


def dcd_fit(X, y, C, loss: str = "squared_hinge", bias: float = 1.0, tol: float = 1e-4,
            max_iter: int = 1000, seed: int = 0):
    """Train one binary linear SVM (labels ±1, per-row costs ``C``, an array) by dual
    coordinate descent. ``bias``: the constant feature's value (0 for no intercept). Returns
    (w of length d, intercept = bias·w_{d+1}, α, passes, converged). Rows with C_i = 0 take
    no part (their α stays 0)."""
    from .kernels import as_rows
    R = as_rows(X)
    y = np.ascontiguousarray(y, dtype=np.float64)
    C = np.ascontiguousarray(np.broadcast_to(C, y.shape), dtype=np.float64)
    if loss == "hinge":
        U, Dii = C.copy(), np.zeros_like(C)
    elif loss == "squared_hinge":
        U = np.where(C > 0, np.inf, 0.0)
        with np.errstate(divide="ignore"):
            Dii = np.where(C > 0, 0.5 / np.where(C > 0, C, 1.0), 0.0)
    else:
        raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {loss!r}")
    w = np.zeros(R.d + 1)
    alpha = np.zeros(y.shape[0])
    keep = C > 0
    if not keep.all():                               # weight 0: the row is not in the problem
        sub = R.take(np.flatnonzero(keep))
        a_sub = np.zeros(int(keep.sum()))
        passes, ok = _dcd(*_args(sub), float(bias), y[keep], U[keep], Dii[keep], float(tol),
                          int(max_iter), int(seed), w, a_sub)
        alpha[keep] = a_sub
    else:
        passes, ok = _dcd(*_args(R), float(bias), y, U, Dii, float(tol), int(max_iter),
                          int(seed), w, alpha)
    return w[:-1].copy(), float(bias * w[-1]), alpha, int(passes), bool(ok)


def _args(R):
    return R.dense, R.data, R.indices, R.indptr, R.sparse, R.sqnorm


def primal_objective(X, y, C, w, b, loss: str = "squared_hinge", bias: float = 1.0) -> float:
    """P(w) of liblinear's problem: ½(‖w‖² + (b/bias)²) + Σ C_i ξ(y_i(wᵀx_i + b)) (without
    intercept, bias = 0 and b = 0)."""
    m = y * (np.asarray(X @ w).ravel() + b)
    xi = np.maximum(0.0, 1.0 - m)
    if loss == "squared_hinge":
        xi = xi * xi
    reg = float(w @ w) + ((b / bias) ** 2 if bias else 0.0)
    return 0.5 * reg + float(np.sum(np.broadcast_to(C, y.shape) * xi))
