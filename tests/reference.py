"""Slow, obviously-correct NumPy versions of the solvers, to compare the compiled code against.

Each reference follows its paper line by line on a dense w (no scaling tricks, no caches), and
takes the sample indices from outside so it sees exactly the stream the solver saw.
"""
from __future__ import annotations

import numpy as np

# ============================================================================ Pegasos


def pegasos_linear_reference(X, y, lam, idx, k=1, project=True, fit_intercept=False,
                             eta=None, avg_start=None):
    """Pegasos (Shalev-Shwartz et al. 2007, Sec. 2) on dense w.

    ``idx`` holds T·k sample indices (T iterations of k). ``eta(t)`` defaults to 1/(λt).
    ``avg_start`` (1-based) averages the iterates w_t for t ≥ avg_start. Returns (w, b).
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    d = X.shape[1]
    w = np.zeros(d)
    b = 0.0
    T = len(idx) // k
    S, Sb, m = np.zeros(d), 0.0, 0
    for t in range(1, T + 1):
        e = 1.0 / (lam * t) if eta is None else eta(t)
        batch = idx[(t - 1) * k:t * k]
        viol = [i for i in batch if y[i] * (X[i] @ w + b) < 1.0]
        w = (1.0 - e * lam) * w
        for i in viol:
            w = w + (e / k) * y[i] * X[i]
            if fit_intercept:
                b += (e / k) * y[i]
        if project:
            nw = np.linalg.norm(w)
            if nw > 1.0 / np.sqrt(lam):
                w = w / (np.sqrt(lam) * nw)
        if avg_start is not None and t >= avg_start:
            S += w
            Sb += b
            m += 1
    if m:
        return S / m, Sb / m
    return w, b


def pegasos_kernel_reference(K, y, lam, idx):
    """Kernelized Pegasos with α counts (paper Sec. 4), pegasos schedule, k = 1, no projection.

    Iterate t uses w_t = 1/(λ (t−1)) Σ_j α_j y_j φ(x_j) (the linear recursion; see the solver's
    docstring). Returns β with w = Σ_j β_j y_j φ(x_j) after the last iteration, and the counts α.
    """
    n = K.shape[0]
    alpha = np.zeros(n)
    T = len(idx)
    for t in range(1, T + 1):
        i = idx[t - 1]
        f = 0.0 if t == 1 else (alpha * y) @ K[:, i] / (lam * (t - 1))
        if y[i] * f < 1.0:
            alpha[i] += 1.0
    return alpha / (lam * T), alpha


# ============================================================================ SMO (tests/test_smo.py)
# Begin SMO section: a slow NumPy version of SMO with WSS 2, written from Fan, Chen & Lin (2005),
# Sec. 3 (sets I_up / I_low, the second-order choice of j) and the two-variable subproblem solved
# as a step along (y_i, −y_j) clipped to the box; full Q matrix, no cache.


def smo_wss2_reference(K, y, C, tol=1e-3, max_iter=100_000, tau=1e-12, q_dtype=np.float64):
    """SMO on min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 with Q = yyᵀ∘K. Ties are broken towards the
    last index (LIBSVM's ``>=`` / ``<=`` scans). ``q_dtype=np.float32`` stores Q as LIBSVM does.
    Returns (α, G, b, pairs) with pairs the list of working pairs (i, j), b from the KKT rule
    (mean over free α, else midpoint of the bounds)."""
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    Q = (np.outer(y, y) * K).astype(q_dtype)
    QD = np.diag(K).astype(float)
    a = np.zeros(n)
    G = -np.ones(n)
    pairs = []

    def last_argmax(v, mask):
        idx = np.flatnonzero(mask)
        vals = v[idx]
        return idx[np.flatnonzero(vals == vals.max())[-1]]

    for _ in range(max_iter):
        v = -y * G
        up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
        low = ((y > 0) & (a > 0)) | ((y < 0) & (a < C))
        if not up.any() or not low.any():
            break
        i = last_argmax(v, up)
        m, M = v[i], v[low].min()
        if m - M <= tol:
            break
        cand = low & (v < m)
        if not cand.any():
            break
        bt = m - v                                     # b_it = −y_i G_i + y_t G_t
        at = QD[i] + QD - 2.0 * y[i] * y * Q[i].astype(float)    # K_ii + K_tt − 2 K_it
        at = np.where(at > 0, at, tau)
        score = np.full(n, np.inf)
        score[cand] = -bt[cand] ** 2 / at[cand]
        j = last_argmax(-score, cand)
        # step s along α_i += y_i s, α_j −= y_j s, clipped to keep both in [0, C]
        s = bt[j] / at[j]
        lo_i, hi_i = sorted(((0 - a[i]) * y[i], (C - a[i]) * y[i]))
        lo_j, hi_j = sorted(((a[j] - 0) * y[j], (a[j] - C) * y[j]))
        s = min(max(s, lo_i, lo_j), hi_i, hi_j)
        ai, aj = a[i] + y[i] * s, a[j] - y[j] * s
        ai, aj = min(max(ai, 0.0), C), min(max(aj, 0.0), C)
        dai, daj = ai - a[i], aj - a[j]
        a[i], a[j] = ai, aj
        G = G + Q[i].astype(float) * dai + Q[j].astype(float) * daj
        pairs.append((int(i), int(j)))
    yG = y * G
    free = (a > 0) & (a < C)
    if free.any():
        b = -yG[free].mean()
    else:
        ub = np.min(yG[((a >= C) & (y < 0)) | ((a <= 0) & (y > 0))], initial=np.inf)
        lb = np.max(yG[((a >= C) & (y > 0)) | ((a <= 0) & (y < 0))], initial=-np.inf)
        b = -0.5 * (ub + lb)
    return a, G, b, pairs
# End SMO section
