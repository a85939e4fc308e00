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


def pegasos_kernel_batch_reference(K, y, lam, idx, k=1, project=True, evals=None):
    """Kernelized Pegasos (paper Sec. 4 with mini-batches of k and the projection of Sec. 2),
    pegasos schedule η_t = 1/(λt), no bias, on a dense β with w = Σ_j β_j y_j φ(x_j).

    ``evals`` (a list) receives the kernel values the kernelized form needs, cumulated after
    each iteration: a margin ⟨w, φ(x_i)⟩ costs one value per support vector (every x_j that was
    a violator before; none while there is none); with the projection, ‖w‖² is kept exactly by
    adding, for the r-th violator of the batch (r = 0, 1, …), its kernel values with the r
    earlier violators of the batch and its own k(x_i, x_i): r + 1 values. Returns β."""
    n = K.shape[0]
    beta = np.zeros(n)
    member = np.zeros(n, dtype=bool)
    count = 0
    for t in range(1, len(idx) // k + 1):
        eta = 1.0 / (lam * t)
        batch = idx[(t - 1) * k:t * k]
        f = []
        for i in batch:
            count += int(member.sum())
            f.append((beta * y) @ K[:, i])
        viol = [i for i, fi in zip(batch, f) if y[i] * fi < 1.0]
        beta = (1.0 - eta * lam) * beta
        for r, i in enumerate(viol):
            if project:
                count += r + 1
            beta[i] += eta / k
            member[i] = True
        if project:
            wsq = (beta * y) @ K @ (beta * y)
            if wsq * lam > 1.0:
                beta = beta / np.sqrt(lam * wsq)
        if evals is not None:
            evals.append(count)
    return beta


# ============================================================================ SMO (tests/solvers/test_smo.py)
# Begin SMO section: a slow NumPy version of SMO with WSS 2, written from Fan, Chen & Lin (2005),
# Sec. 3 (sets I_up / I_low, the second-order choice of j) and the two-variable subproblem solved
# as a step along (y_i, −y_j) clipped to the box; full Q matrix, no cache.


def _smo_sets(y, a, C):
    up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
    low = ((y > 0) & (a > 0)) | ((y < 0) & (a < C))
    return up, low


def _last_argmax(v, mask):
    idx = np.flatnonzero(mask)
    vals = v[idx]
    return int(idx[np.flatnonzero(vals == vals.max())[-1]])


def smo_wss2_select(Q, QD, y, C, a, G, tol=1e-3, tau=1e-12, i=None):
    """WSS 2 at (α, G). Returns (i, j, crit) with crit = (−y G, the second-order scores of
    every candidate j, +inf elsewhere) for tie checks, or None when m(α) − M(α) ≤ tol.
    Ties go to the last index (LIBSVM's ``>=`` / ``<=`` scans). ``i`` forces the first index."""
    v = -y * G
    up, low = _smo_sets(y, a, C)
    if not up.any() or not low.any():
        return None
    if i is None:
        i = _last_argmax(v, up)
    m, M = v[i], v[low].min()
    if m - M <= tol:
        return None
    cand = low & (v < m)
    if not cand.any():
        return None
    bt = m - v                                                  # b_it = −y_i G_i + y_t G_t
    at = QD[i] + QD - 2.0 * y[i] * y * np.asarray(Q[i], dtype=float)   # K_ii + K_tt − 2 K_it
    at = np.where(at > 0, at, tau)
    score = np.full(len(y), np.inf)
    score[cand] = -bt[cand] ** 2 / at[cand]
    j = _last_argmax(-score, cand)
    return i, j, (v, score)


def smo_pair_update(Q, QD, y, C, a, G, i, j, tau=1e-12):
    """Minimise f exactly along α_i += y_i s, α_j −= y_j s within the box. Returns new (α, G)."""
    a = a.copy()
    v = -y * G
    bij = v[i] - v[j]
    aij = QD[i] + QD[j] - 2.0 * y[i] * y[j] * float(Q[i][j])
    s = bij / (aij if aij > 0 else tau)
    lo_i, hi_i = sorted(((0 - a[i]) * y[i], (C - a[i]) * y[i]))
    lo_j, hi_j = sorted(((a[j] - 0) * y[j], (a[j] - C) * y[j]))
    s = min(max(s, lo_i, lo_j), hi_i, hi_j)
    ai = min(max(a[i] + y[i] * s, 0.0), C)
    aj = min(max(a[j] - y[j] * s, 0.0), C)
    dai, daj = ai - a[i], aj - a[j]
    a[i], a[j] = ai, aj
    G = G + (np.asarray(Q[i], dtype=float) * dai + np.asarray(Q[j], dtype=float) * daj)
    return a, G


def smo_kkt_bias(y, C, a, G):
    """b = −mean(y G) over free α, else minus the midpoint of the bounds (LIBSVM calculate_rho)."""
    yG = y * G
    free = (a > 0) & (a < C)
    if free.any():
        return float(-yG[free].mean())
    ub = np.min(yG[((a >= C) & (y < 0)) | ((a <= 0) & (y > 0))], initial=np.inf)
    lb = np.max(yG[((a >= C) & (y > 0)) | ((a <= 0) & (y < 0))], initial=-np.inf)
    return float(-0.5 * (ub + lb))


def smo_wss2_reference(K, y, C, tol=1e-3, max_iter=100_000, tau=1e-12, q_dtype=np.float64):
    """SMO on min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 with Q = yyᵀ∘K, from α = 0.
    ``q_dtype=np.float32`` stores Q as LIBSVM does (Qfloat). Returns (α, G, b, pairs)."""
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    Q = (np.outer(y, y) * K).astype(q_dtype)
    QD = np.diag(K).astype(float)
    a = np.zeros(n)
    G = -np.ones(n)
    pairs = []
    for _ in range(max_iter):
        sel = smo_wss2_select(Q, QD, y, C, a, G, tol, tau)
        if sel is None:
            break
        i, j, _ = sel
        a, G = smo_pair_update(Q, QD, y, C, a, G, i, j, tau)
        pairs.append((i, j))
    return a, G, smo_kkt_bias(y, C, a, G), pairs


class ShrinkingSMOReference:
    """SMO with WSS 2 and LIBSVM's shrinking (``Solver::Solve`` with ``shrinking = 1``), written
    from LIBSVM's svm.cpp in its own style: shrunk variables are physically swapped behind the
    active part — y, α, G, Ḡ, the diagonal and the rows and columns of Q (``swap``) — so the scans
    run over positions 0..active−1, ties going to the last position. Every min(n, 1000)
    iterations (``counter``) ``do_shrinking``: m, M over the active part; the first time
    m − M ≤ 10·tol the gradient is rebuilt from Ḡ (``reconstruct``) and every variable is active
    again; then bounded α whose −y_t G_t lies beyond the violation leave. When the active part is
    optimal: rebuild, all active, test again. Positions are mapped back by ``perm``."""

    def __init__(self, K, y, C, tol=1e-3, tau=1e-12, QD=None):
        self.y = np.asarray(y, dtype=float).copy()
        n = self.n = self.y.shape[0]
        self.Q = np.outer(self.y, self.y) * np.asarray(K, dtype=float)
        self.QD = (np.diag(np.asarray(K, dtype=float)) if QD is None
                   else np.asarray(QD, dtype=float)).copy()
        self.C, self.tol, self.tau = C, tol, tau
        self.perm = np.arange(n)
        self.a, self.G, self.Gbar = np.zeros(n), -np.ones(n), np.zeros(n)
        self.active, self.unshrink, self.counter = n, False, min(n, 1000) + 1

    def swap(self, i, j):
        for arr in (self.y, self.a, self.G, self.Gbar, self.QD, self.perm):
            arr[[i, j]] = arr[[j, i]]
        self.Q[[i, j], :] = self.Q[[j, i], :]
        self.Q[:, [i, j]] = self.Q[:, [j, i]]

    def reconstruct(self):
        act, a = self.active, self.a
        if act < self.n:
            free = np.flatnonzero((a[:act] > 0) & (a[:act] < self.C))
            self.G[act:] = self.Gbar[act:] - 1.0 + self.Q[act:][:, free] @ a[free]
        self.active = self.n

    def be_shrunk(self, t, g1, g2):
        a, y, G = self.a, self.y, self.G
        if a[t] >= self.C:
            return -G[t] > (g1 if y[t] > 0 else g2)
        if a[t] <= 0:
            return G[t] > (g2 if y[t] > 0 else g1)
        return False

    def do_shrinking(self):
        act = self.active
        v = -self.y[:act] * self.G[:act]
        up, low = _smo_sets(self.y[:act], self.a[:act], self.C)
        g1 = v[up].max() if up.any() else -np.inf          # LIBSVM's Gmax1 = m
        g2 = -v[low].min() if low.any() else -np.inf       # LIBSVM's Gmax2 = −M
        if not self.unshrink and g1 + g2 <= 10 * self.tol:
            self.unshrink = True
            self.reconstruct()
        act = self.active
        i = 0
        while i < act:
            if self.be_shrunk(i, g1, g2):
                act -= 1
                while act > i:
                    if not self.be_shrunk(act, g1, g2):
                        self.swap(i, act)
                        break
                    act -= 1
            i += 1
        self.active = act

    def select(self, i=None):
        """WSS 2 over the active part (positions); as ``smo_wss2_select``."""
        act = self.active
        return smo_wss2_select(self.Q[:act, :act], self.QD[:act], self.y[:act], self.C,
                               self.a[:act], self.G[:act], self.tol, self.tau, i=i)

    def step(self, pick=None):
        """One pass of the Solve loop. Returns the pair (positions) or None when optimal;
        ``pick(sel)`` may replace the chosen pair (for tie checks in a lockstep test)."""
        self.counter -= 1
        if self.counter == 0:
            self.counter = min(self.n, 1000)
            self.do_shrinking()
        sel = self.select()
        if sel is None:
            self.reconstruct()
            sel = self.select()
            if sel is None:
                return None
            self.counter = 1
        i, j = sel[:2] if pick is None else pick(sel)
        act, a, C = self.active, self.a, self.C
        a_new, _ = smo_pair_update(self.Q[:act, :act], self.QD[:act], self.y[:act], C, a[:act],
                                   self.G[:act], i, j, self.tau)
        dai, daj = a_new[i] - a[i], a_new[j] - a[j]
        for t in (i, j):
            was_up, now_up = a[t] >= C, a_new[t] >= C
            if was_up != now_up:
                self.Gbar += (-C if was_up else C) * self.Q[t]
        self.G[:act] += self.Q[i, :act] * dai + self.Q[j, :act] * daj
        a[i], a[j] = a_new[i], a_new[j]
        return i, j

    def in_caller_order(self, arr):
        out = np.empty_like(arr)
        out[self.perm] = arr
        return out


def smo_shrinking_reference(K, y, C, tol=1e-3, max_iter=100_000, tau=1e-12, QD=None):
    """Run ``ShrinkingSMOReference`` to the end. Returns (α, G, b, pairs) in the caller's index
    order, G rebuilt everywhere."""
    r = ShrinkingSMOReference(K, y, C, tol, tau, QD)
    pairs = []
    for _ in range(max_iter):
        ij = r.step()
        if ij is None:
            break
        pairs.append((int(r.perm[ij[0]]), int(r.perm[ij[1]])))
    r.reconstruct()
    a, G, y = (r.in_caller_order(v) for v in (r.a, r.G, r.y))
    return a, G, smo_kkt_bias(y, C, a, G), pairs


# End SMO section


# ============================================================================ Online kernel (tests/solvers/test_online_kernel.py)
# Begin online-kernel section: NORMA (List 1), Pegaz (List 2) and OL SVM (Lists 3a / 3b) of
# Kecman & Melki (2016), transcribed line by line on a full Gram matrix K. ``order`` is the
# sequence of visited indices (the paper's shuffled dataset walked in order, cycled or reshuffled
# per epoch — the caller builds it), ``eta(t)`` the step size (default: the paper's C·√(2/t)).
# ``cached=False`` computes the violator quantity as the listings 1–2 write it, y_i k(x_i,:)·α;
# ``cached=True`` keeps the output vector o = Kα over all training points (List 3). ``rule`` is
# the margin test: "<=" (Lists 1–2) or "<" (List 3). The bias (eqs. 6–7) enters the margin as
# o_i + b and is updated by b += η y_i under the same test. ``avg_start`` (1-based) averages
# the iterates α_t for t ≥ avg_start. Every function returns (α, b, margins) where margins[t-1]
# is the viol value seen at iteration t.


def _kecman(C):
    return lambda t: C * np.sqrt(2.0 / t)


def _viol_test(v, rule):
    return v <= 1.0 if rule == "<=" else v < 1.0


def _count_literal(stats, coef):
    """Literal form: one kernel value per non-zero coefficient of the current model."""
    if stats is not None:
        stats["literal_evals"] = stats.get("literal_evals", 0) + int(np.count_nonzero(coef))


def _count_column(stats, changed, n):
    """Cached form: one kernel column (n values) per step whose coefficient change is non-zero."""
    if stats is not None:
        stats["cached_evals"] = stats.get("cached_evals", 0) + (n if changed else 0)


class _Avg:
    def __init__(self, n, start):
        self.start, self.S, self.Sb, self.m = start, np.zeros(n), 0.0, 0

    def add(self, t, alpha, b):
        if self.start is not None and t >= self.start:
            self.S += alpha
            self.Sb += b
            self.m += 1

    def result(self, alpha, b):
        return (self.S / self.m, self.Sb / self.m) if self.m else (alpha, b)


def norma_reference(K, y, C, order, eta=None, cached=False, rule="<=", fit_intercept=False,
                    avg_start=None, update="set", stats=None):
    """List 1 (NORMA). α_i = η y_i *sets* the coefficient of the current example on a violation;
    every other coefficient is multiplied by (1 − η/C); α_i itself is left unchanged when x_i
    is not a violator. ``update="add"`` is Kivinen, Smola & Williamson (2004): all coefficients
    shrink, then α_i += η y_i on a violation."""
    n = len(y)
    eta = _kecman(C) if eta is None else eta
    alpha, b, o = np.zeros(n), 0.0, np.zeros(n)
    I = np.arange(n)
    avg, margins = _Avg(n, avg_start), []
    for t, i in enumerate(order, start=1):
        e = eta(t)
        viol = y[i] * ((o[i] if cached else K[i, :] @ alpha) + b)
        margins.append(viol)
        _count_literal(stats, alpha)
        old = alpha.copy()
        if update == "set":
            I_noti = I != i
            alpha[I_noti] = (1.0 - e / C) * alpha[I_noti]
            if _viol_test(viol, rule):
                alpha[i] = e * y[i]
        else:
            alpha = (1.0 - e / C) * alpha
            if _viol_test(viol, rule):
                alpha[i] = alpha[i] + e * y[i]
        if _viol_test(viol, rule) and fit_intercept:
            b += e * y[i]
        # o = Kα: the shrink scales o, the change of α_i against the shrunk model adds a column
        col = alpha[i] - (1.0 - e / C) * old[i]
        if cached:
            o = (1.0 - e / C) * o + col * K[:, i]
        _count_column(stats, col != 0.0, n)
        avg.add(t, alpha, b)
    return (*avg.result(alpha, b), np.array(margins))


def pegaz_reference(K, y, C, order, eta=None, cached=False, rule="<=", fit_intercept=False,
                    avg_start=None, stats=None):
    """List 2 (Pegaz): α = η β before the margin, β_i += y_i on a violation, α = η β at the end.
    The iterate after step t (averaged, and returned at the end) is η_t β_t."""
    n = len(y)
    eta = _kecman(C) if eta is None else eta
    beta, b, g = np.zeros(n), 0.0, np.zeros(n)          # g = Kβ (the cached form)
    avg, margins = _Avg(n, avg_start), []
    e = 1.0
    for t, i in enumerate(order, start=1):
        e = eta(t)
        alpha = e * beta
        viol = y[i] * ((e * g[i] if cached else K[i, :] @ alpha) + b)
        margins.append(viol)
        _count_literal(stats, beta)
        _count_column(stats, _viol_test(viol, rule), n)
        if _viol_test(viol, rule):
            beta[i] = beta[i] + y[i]
            if cached:
                g = g + y[i] * K[:, i]
            if fit_intercept:
                b += e * y[i]
        avg.add(t, e * beta, b)
    alpha = e * beta if len(order) else beta
    return (*avg.result(alpha, b), np.array(margins))


def olsvm_reference(K, y, C, order, variant="hinge", eta=None, cached=True, rule="<",
                    fit_intercept=False, avg_start=None, stats=None):
    """List 3b (variant="hinge") or List 3a (variant="regularized"), with the output vector o
    (cached=True, the listings) or with the margin recomputed as K[i]·α (cached=False). In 3a the
    second test (viol > 1) is read as an ``elseif``: it shrinks α_i when x_i is outside the
    margin; viol == 1 exactly changes nothing."""
    n = len(y)
    eta = _kecman(C) if eta is None else eta
    alpha, b, o = np.zeros(n), 0.0, np.zeros(n)
    avg, margins = _Avg(n, avg_start), []
    for t, i in enumerate(order, start=1):
        e = eta(t)
        viol = y[i] * ((o[i] if cached else K[i, :] @ alpha) + b)
        margins.append(viol)
        _count_literal(stats, alpha)
        old = alpha[i]
        if variant == "hinge":
            if _viol_test(viol, rule):
                o = o + e * y[i] * K[:, i]
                alpha[i] = alpha[i] + e * y[i]
                if fit_intercept:
                    b += e * y[i]
        else:
            if _viol_test(viol, rule):
                o = o + e * (y[i] - alpha[i] / C) * K[:, i]
                alpha[i] = (1.0 - e / C) * alpha[i] + e * y[i]
                if fit_intercept:
                    b += e * y[i]
            elif viol > 1.0:
                o = o - e * alpha[i] * K[:, i] / C
                alpha[i] = (1.0 - e / C) * alpha[i]
        _count_column(stats, alpha[i] != old, n)
        avg.add(t, alpha, b)
    return (*avg.result(alpha, b), np.array(margins))


def nobias_svm_optimum(K, y, C, sweeps=4000, tol=1e-12):
    """The minimiser of ½‖o‖² + C Σ max(0, 1 − y_i o(x_i)) with o = Σ α_j k(·, x_j) and no bias,
    by exact coordinate ascent on its dual max Σa − ½aᵀQa, 0 ≤ a ≤ C (Q = yyᵀ∘K; no equality
    constraint without a bias). Returns the expansion coefficients α = y∘a."""
    n = len(y)
    Q = np.outer(y, y) * K
    a = np.zeros(n)
    for _ in range(sweeps):
        change = 0.0
        for i in range(n):
            new = min(max(a[i] - (Q[i] @ a - 1.0) / Q[i, i], 0.0), C)
            change = max(change, abs(new - a[i]))
            a[i] = new
        if change < tol:
            break
    return y * a
# End online-kernel section


# ============================================================================ SFW / MSFW (tests/solvers/test_frank_wolfe.py)
# Begin SFW section: Ouyang & Gray (2010), Algorithms 1-4, on a dense A = K∘yyᵀ + yyᵀ + I/(2C) and
# a dense α (no scaling trick, g over S by the listing's update rules, q by eq. 3.10).


def sfw_reference(K, y, C, p0, stream, away=False, evals=None):
    """SFW (away=False) or MSFW (away=True) fed ``stream`` after α = e(p0).

    Returns (α, g, q, S, log) where g holds the maintained gradient for the indices in S (in the
    order they joined) and log is one (vertex, kind, λ, −q) tuple per iteration.

    ``evals`` (a list) receives the kernel values the paper's algorithm needs, cumulated after
    each iteration (its first entry: A_p0p0 at the start): g_k of a sample not in S is a row of
    |S| kernel values (eq. 3.8), a sample that joins adds its K_kk, and the step needs the
    vertex's row against S (|S| values) unless the vertex is the sample that just joined (its
    row was computed for g_k).
    """
    count = [1]
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    A = np.outer(y, y) * (K + 1.0) + np.eye(n) / (2.0 * C)
    alpha = np.zeros(n)
    alpha[p0] = 1.0
    S = [p0]
    g = {p0: -2.0 * A[p0, p0]}
    q = A[p0, p0]
    log = []
    if evals is not None:
        evals.append(count[0])
    for k in stream:
        k = int(k)
        added = False
        if k not in g:
            gk = -2.0 * A[k] @ alpha                      # eq. 3.8 with α_k = 0
            count[0] += len(S)
            if gk >= max(g[p] for p in S):
                S.append(k)
                g[k] = gk
                added = True
                count[0] += 1
        pt = k if added else max(S, key=lambda p: (g[p], -S.index(p)))
        kind = "toward"
        if away:
            supp = [p for p in S if alpha[p] > 0]
            pa = min(supp, key=lambda p: (g[p], S.index(p)))
            ag = -2.0 * q                                  # αᵀ∇f = −2αᵀAα
            dt = g[pt] - ag                                # d_tᵀ∇f, d_t = e(p_t) − α
            da = ag - g[pa]                                # d_aᵀ∇f, d_a = α − e(p_a)
            if alpha[pa] < 1.0 and not dt >= da:
                kind = "away"
        if kind == "toward":
            p = pt
            lam = 1.0 - (g[p] / 2 + A[p, p]) / (q + g[p] + A[p, p])
            lam = min(max(lam, 0.0), 1.0)
            q = (1 - lam) ** 2 * q - lam * (1 - lam) * g[p] + lam ** 2 * A[p, p]
            for m in S:
                g[m] = (1 - lam) * g[m] - 2 * lam * A[m, p]
            e = np.zeros(n)
            e[p] = 1.0
            alpha = (1 - lam) * alpha + lam * e
        else:
            p = pa
            lmax = alpha[p] / (1 - alpha[p])
            lam = (g[p] / 2 + A[p, p]) / (q + g[p] + A[p, p]) - 1.0
            lam = min(max(lam, 0.0), lmax)
            q = (1 + lam) ** 2 * q + lam * (1 + lam) * g[p] + lam ** 2 * A[p, p]
            for m in S:
                g[m] = (1 + lam) * g[m] + 2 * lam * A[m, p]
            e = np.zeros(n)
            e[p] = 1.0
            alpha = (1 + lam) * alpha - lam * e
            if lam == lmax:
                alpha[p] = 0.0
        if not (added and p == k):
            count[0] += len(S)
        if evals is not None:
            evals.append(count[0])
        log.append((p, kind, lam, -q))
    return alpha, np.array([g[p] for p in S]), q, S, log


def simplex_qp_optimum(A):
    """min αᵀAα over the unit simplex (A symmetric positive definite), solved independently:
    Clarabel's interior point method, then the support it finds is polished exactly (the KKT
    system A_SS α_S = μ·1, 1ᵀα_S = 1) and the KKT conditions are checked on all coordinates.
    Returns (α*, αᵀAα at α*)."""
    import clarabel
    import scipy.sparse as sp

    n = A.shape[0]
    P = sp.csc_matrix(np.triu(2.0 * A))
    Acon = sp.csc_matrix(np.vstack([np.ones((1, n)), -np.eye(n)]))
    b = np.concatenate([[1.0], np.zeros(n)])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-12
    sol = clarabel.DefaultSolver(P, np.zeros(n), Acon, b,
                                 [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(n)], st).solve()
    a = np.maximum(np.array(sol.x), 0.0)
    supp = np.flatnonzero(a > 1e-9 * a.max())
    for _ in range(20):                       # active-set polish: drop negatives, add violators
        m = supp.size
        M = np.zeros((m + 1, m + 1))
        M[:m, :m] = A[np.ix_(supp, supp)]
        M[:m, m] = -1.0
        M[m, :m] = 1.0
        rhs = np.zeros(m + 1)
        rhs[m] = 1.0
        z = np.linalg.solve(M, rhs)
        if np.any(z[:m] < 0):
            supp = supp[z[:m] >= 0]
            continue
        a = np.zeros(n)
        a[supp] = z[:m]
        grad = A @ a                              # KKT: (Aα)_i ≥ μ everywhere, = μ on the support
        viol = np.flatnonzero(grad < z[m] * (1 - 1e-12))
        if viol.size == 0:
            break
        supp = np.union1d(supp, viol[np.argmin(grad[viol])])
    grad = A @ a
    mu = a @ grad
    assert np.all(grad >= mu * (1 - 1e-9)) and abs(a.sum() - 1) < 1e-12 and a.min() >= 0
    return a, float(a @ A @ a)
# End SFW section


# ============================================================================ ASSET (tests/solvers/test_asset.py)
# Begin ASSET section: Lee & Wright (ICPRAM 2012). Nyström features from the exact kernel matrix
# (eq. 6-7), random Fourier features (eq. 8) and Algorithm 1 line by line on a dense V.


def nystroem_reference(K_full, S, eig_threshold):
    """V = Ψ*_·S Q D^{-1/2} (eq. 7) from the full kernel matrix and the landmark indices S,
    eigenvalues below ``eig_threshold`` dropped. Returns (V, D kept, Q kept)."""
    S = np.asarray(S)
    W = K_full[np.ix_(S, S)]
    D, Q = np.linalg.eigh(W)
    keep = D >= eig_threshold
    D, Q = D[keep], Q[:, keep]
    return K_full[:, S] @ Q @ np.diag(1.0 / np.sqrt(D)), D, Q


def rff_reference(X, nu, omega):
    """φ(t) = √(2/d) [cos(ν_kᵀ t + ω_k)]_k (eq. 8) for every row t of X (ν: n_features×d)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    d = nu.shape[1]
    out = np.empty((X.shape[0], d))
    for i in range(X.shape[0]):
        for k in range(d):
            out[i, k] = np.sqrt(2.0 / d) * np.cos(X[i] @ nu[:, k] + omega[k])
    return out


def asset_reference(V, y, lam, idx, dg_idx, *, loss="hinge", eps=0.0, fit_intercept=True,
                    star=False, avg_start=None, gamma_bound=None, bias_bound=None,
                    travelled=False):
    """Algorithm 1 (ASSET) or ASSET* on the feature matrix V (rows V_i·), line by line.

    ``travelled``: D_X of the step is r̄_j = max(1e-4·D_X, ‖(γ_i, b_i)‖ for i < j), at most
    D_X (ASSET: η_j = r̄_j/(D_G√j); ASSET*: η_j = min(1/(λj), r̄_j/(D_G√j))).

    ``idx``: ξ_1..ξ_N; ``dg_idx``: the M samples of the D_G estimate. ``gamma_bound`` Γ
    defaults to the paper's bound (1/√λ; regression √(2(‖y‖∞−ε)/λ)); ``bias_bound`` B is
    required when the bias is learnt. ``avg_start`` = N̄ (1-based), None = no averaging.
    Returns (γ, b, D_G, D_X).
    """
    V = np.asarray(V, dtype=float)
    y = np.asarray(y, dtype=float)
    d = V.shape[1]
    fit_b = fit_intercept and not star
    if gamma_bound is None:
        if loss == "hinge":
            gamma_bound = 1.0 / np.sqrt(lam)
        else:
            gamma_bound = np.sqrt(max(0.0, 2.0 * (np.max(np.abs(y)) - eps) / lam))
    B = bias_bound if fit_b else 0.0
    DX = np.sqrt(gamma_bound ** 2 + B ** 2)

    def dsub(i, g, b):                      # Table 1: d_j, the loss subgradient in f
        f = V[i] @ g + b
        if loss == "hinge":
            return -y[i] if y[i] * f < 1.0 else 0.0
        if y[i] > f + eps:
            return -1.0
        if y[i] < f - eps:
            return 1.0
        return 0.0

    # D_G² = (1/M) Σ d_l² (‖V_l‖² + 1) at (γ_0, b_0) = (0, 0); "+1" only with a bias
    g0 = np.zeros(d)
    one = 1.0 if fit_b else 0.0
    terms = [dsub(i, g0, 0.0) ** 2 * (V[i] @ V[i] + one) for i in dg_idx]
    DG2 = np.mean(terms)
    if DG2 == 0.0:
        DG2 = np.mean([V[i] @ V[i] + one for i in dg_idx])
    DG = np.sqrt(DG2)

    g, b = np.zeros(d), 0.0                 # line 1
    g_avg, b_avg, eta_sum = np.zeros(d), 0.0, 0.0
    rbar = 1e-4 * DX
    for j in range(1, len(idx) + 1):        # line 2
        eta = 1.0 / (lam * j) if star else DX / (DG * np.sqrt(j))   # line 3
        if travelled:
            eta = min(eta, min(rbar, DX) / (DG * np.sqrt(j)))
        i = idx[j - 1]                      # line 4
        dj = dsub(i, g, b)                  # lines 5-6
        G_g = lam * g + dj * V[i]
        G_b = dj
        g = g - eta * G_g                   # line 7, then Π_X
        nrm = np.linalg.norm(g)
        if nrm > gamma_bound:
            g = g * (gamma_bound / nrm)
        if fit_b:
            b = float(np.clip(b - eta * G_b, -B, B))
        rbar = max(rbar, np.sqrt(g @ g + b * b))
        if avg_start is not None and not star and j >= avg_start:   # lines 8-9
            g_avg = eta_sum / (eta_sum + eta) * g_avg + eta / (eta_sum + eta) * g
            b_avg = eta_sum / (eta_sum + eta) * b_avg + eta / (eta_sum + eta) * b
            eta_sum += eta
    if eta_sum > 0:
        return g_avg, b_avg, DG, DX
    return g, b, DG, DX
# End ASSET section


# ============================================================================ CPSP (tests/solvers/test_cutting_plane.py)
# Begin CPSP section: Yu & Joachims (2008), Algorithms 2 and 3 for the binary L1-SVM without bias
# (k + 1 with fit_intercept), on a dense kernel matrix: every cut is a coefficient vector gc over the
# n points (g = Σ_i gc_i φ(x_i)), every inner product is read off K; no A store, no caches.


def cut_dual_bruteforce(G, c, Cp):
    """argmax_{α ≥ 0, Σα ≤ Cp} −½αᵀGα + cᵀα by enumerating the active sets (T ≤ ~10).

    For every support F and both states of the sum constraint, solve the stationarity system on F
    (least squares, so a singular G is fine); keep the feasible points, return the best one."""
    from itertools import combinations

    T = len(c)
    best, best_val = np.zeros(T), 0.0
    for k in range(1, T + 1):
        for F in combinations(range(T), k):
            F = list(F)
            GF, cF = G[np.ix_(F, F)], c[F]
            cands = [np.linalg.lstsq(GF, cF, rcond=None)[0]]          # Σα < Cp: G_FF α = c_F
            M = np.zeros((k + 1, k + 1))                               # Σα = Cp: G_FF α + μ1 = c_F
            M[:k, :k], M[:k, k], M[k, :k] = GF, 1.0, 1.0
            z = np.linalg.lstsq(M, np.concatenate([cF, [Cp]]), rcond=None)[0]
            cands.append(z[:k])
            for aF in cands:
                if aF.min() < -1e-12 or aF.sum() > Cp * (1 + 1e-12):
                    continue
                a = np.zeros(T)
                a[F] = np.maximum(aF, 0.0)
                val = -0.5 * a @ G @ a + c @ a
                if val > best_val + 1e-15:
                    best, best_val = a, val
    return best, best_val


def _prune(idle, alpha, Cp, max_inactive, zero=1e-8):
    idle = [(i + 1) if a <= zero * Cp else 0 for i, a in zip(idle, alpha)]
    keep = [t for t in range(len(idle)) if not (max_inactive > 0 and idle[t] >= max_inactive
                                                and t != len(idle) - 1)]
    return idle, keep


def cpsp_linear_reference(K, y, C, r, eps, seed, qp, max_iter=1000, add_one=0.0,
                          max_inactive=20, max_draws=100, evals=None):
    """Algorithm 3 (linear-time sampled cuts). Returns (β, t, converged, log) with
    w = Σ_i β_i φ(x_i) and log one (c, sorted distinct sampled points, α) per iteration.
    ``evals`` (a list) receives the kernel values needed, cumulated after each iteration: a cut
    needs ⟨g, φ(x_i)⟩ for all n points, n kernel values per distinct sampled point (the margins
    of the next iteration are read off these stored products; ⟨g, g_u⟩ too)."""
    count = 0
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    Kp = K + add_one
    Cp = C * n
    rng = np.random.default_rng(seed)
    cs, gcs, idle, alpha = [], [], [], np.zeros(0)
    beta = np.zeros(n)
    log = []
    for t in range(max_iter + 1):
        f = Kp @ beta                                            # ⟨w, φ(x_i)⟩
        m = y * f
        I = np.flatnonzero(m < 1)
        exact = I.size / n + (-(1.0 / n) * y[I]) @ f[I]          # c′ + ⟨w, g′⟩
        xi = max([0.0] + [ct + beta @ Kp @ gc for ct, gc in zip(cs, gcs)])
        if exact <= xi + eps:
            return beta, t, True, log
        if t == max_iter:
            break
        for draw in range(max_draws + 1):
            if draw == max_draws:
                S = np.full(r, I[np.argmin(m[I])])
            else:
                S = I[rng.integers(0, I.size, r)]
            gc = np.zeros(n)
            np.add.at(gc, S, -I.size / (n * r) * y[S])
            if draw == max_draws or I.size / n + beta @ Kp @ gc > xi + eps:
                break
        cs.append(I.size / n)
        gcs.append(gc)
        idle.append(0)
        Gm = np.array([[a @ Kp @ b for b in gcs] for a in gcs])
        alpha = qp(Gm, np.array(cs), Cp)
        idle, keep = _prune(idle, alpha, Cp, max_inactive)
        cs, gcs, idle, alpha = ([cs[k] for k in keep], [gcs[k] for k in keep],
                                [idle[k] for k in keep], alpha[keep])
        beta = -sum(a * gc for a, gc in zip(alpha, gcs))
        log.append((cs[-1], np.flatnonzero(gcs[-1]), alpha.copy()))
        count += n * np.unique(S).size
        if evals is not None:
            evals.append(count)
    return beta, max_iter, False, log


def cpsp_constant_reference(K, y, C, r, eps, seed, qp, max_iter=1000, add_one=0.0,
                            max_inactive=20, patience=4, evals=None):
    """Algorithm 2 (constant-time sampled cuts) with the paper's p-consecutive stopping rule.
    Returns (β, t, converged, log) as :func:`cpsp_linear_reference`. ``evals`` (a list)
    receives the kernel values needed, cumulated after each iteration: the margins of the
    distinct sampled points need their kernel values against U, the distinct points of the
    active cuts (none while there is no cut), and a cut that is added needs ⟨g, g⟩, the kernel
    values among its distinct points; its ⟨g, g_u⟩ come from the margins' block."""
    count = 0
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    Kp = K + add_one
    Cp = C * n
    rng = np.random.default_rng(seed)
    cs, gcs, idle, alpha = [], [], [], np.zeros(0)
    beta = np.zeros(n)
    log = []
    streak = 0
    for t in range(1, max_iter + 1):
        S = rng.integers(0, n, r)
        m = y[S] * (Kp[S] @ beta)
        U = np.unique(np.concatenate([np.flatnonzero(g) for g in gcs] + [np.zeros(0, int)]))
        count += np.unique(S).size * U.size
        c = np.mean(m < 1)
        gc = np.zeros(n)
        np.add.at(gc, S[m < 1], -(1.0 / r) * y[S[m < 1]])
        xi = max([0.0] + [ct + beta @ Kp @ g for ct, g in zip(cs, gcs)])
        if c + beta @ Kp @ gc <= xi + eps:
            if evals is not None:
                evals.append(count)
            streak += 1
            if streak >= patience:
                return beta, t, True, log
            continue
        count += np.unique(S[m < 1]).size ** 2
        if evals is not None:
            evals.append(count)
        streak = 0
        cs.append(c)
        gcs.append(gc)
        idle.append(0)
        Gm = np.array([[a @ Kp @ b for b in gcs] for a in gcs])
        alpha = qp(Gm, np.array(cs), Cp)
        idle, keep = _prune(idle, alpha, Cp, max_inactive)
        cs, gcs, idle, alpha = ([cs[k] for k in keep], [gcs[k] for k in keep],
                                [idle[k] for k in keep], alpha[keep])
        beta = -sum(a * g for a, g in zip(alpha, gcs))
        log.append((cs[-1], np.flatnonzero(gcs[-1]), alpha.copy()))
    return beta, max_iter, False, log
# End CPSP section


# ============================================================================ step-through records
# Begin step-through section (tests/solvers/test_step_through.py): the quantities a StepThroughRecord names,
# written from the papers on dense arrays, independent of the solvers' code.


def pegasos_subgradient(X, y, w, b, lam, batch):
    """Pegasos eq. 3 on the mini-batch A_t = ``batch`` (k indices, repeats count):
    ∇_t = λ w − (1/k) Σ_{i∈A_t⁺} y_i x_i with A_t⁺ = {i ∈ A_t : y_i (⟨w, x_i⟩ + b) < 1}.
    Returns (∇_t, the violators in batch order)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    batch = np.asarray(batch, dtype=int)
    viol = [i for i in batch if y[i] * (X[i] @ w + b) < 1.0]
    grad = lam * np.asarray(w, dtype=float).copy()
    for i in viol:
        grad -= y[i] * X[i] / len(batch)
    return grad, viol


def pegasos_kernel_subgradient(K, y, beta, b, lam, batch):
    """The same sub-gradient for w = Σ_j β_j y_j φ(x_j), as coefficients c over the training
    points (∇_t = Σ_j c_j φ(x_j)): c = λ β∘y − (1/k) Σ_{i∈A_t⁺} y_i e_i, A_t⁺ by
    f(x_i) = Σ_j β_j y_j K_ji + b. Returns (c, the violators)."""
    batch = np.asarray(batch, dtype=int)
    f = (np.asarray(beta) * y) @ K[:, batch] + b
    viol = [i for i, fi in zip(batch, f) if y[i] * fi < 1.0]
    c = lam * np.asarray(beta, dtype=float) * y
    for i in viol:
        c[i] -= y[i] / len(batch)
    return c, viol


def wss2_max_gain(Q, QD, y, C, a, G, tol=1e-3, tau=1e-12):
    """WSS 2 (Fan, Chen & Lin 2005) at (α, G): the pair (i, j) and its second-order gain
    b_ij²/(2 a_ij), the largest over every admissible j (from :func:`smo_wss2_select`, whose
    score is −b²/a). None when m(α) − M(α) ≤ tol."""
    sel = smo_wss2_select(Q, QD, y, C, a, G, tol, tau)
    if sel is None:
        return None
    i, j, (_, score) = sel
    gains = -score[np.isfinite(score)] / 2.0
    return i, j, float(gains.max())


def fw_line_search(A, alpha, p, away=False):
    """The exact line-search step of f(α) = −αᵀAα along d = e_p − α (TOWARD) or d = α − e_p
    (AWAY), clamped to the feasible range [0, 1] or [0, α_p/(1 − α_p)]:
    λ = −dᵀAα / dᵀAd (the maximiser of the concave quadratic f(α + λd))."""
    e = np.zeros(len(alpha))
    e[p] = 1.0
    d = (alpha - e) if away else (e - alpha)
    dAd = float(d @ A @ d)
    lam = -float(d @ A @ alpha) / dAd if dAd > 0 else 0.0
    hi = alpha[p] / (1.0 - alpha[p]) if away else 1.0
    return min(max(lam, 0.0), hi)
# End step-through section


# ============================================================================ level lines


def zero_contour_reference(z, xs, ys, level: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The level line ``z = level`` by marching squares: ``(x, y)`` float arrays of segments
    separated by NaN (plotly draws them as one broken line). Saddle cells are resolved by the
    cell's mean value. Empty arrays when the level is not crossed."""
    z = np.asarray(z, dtype=np.float64) - level
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    pos = z > 0.0
    # crossings on horizontal edges (j, i)-(j, i+1) and vertical edges (j, i)-(j+1, i)
    zh_a, zh_b = z[:, :-1], z[:, 1:]
    h = pos[:, :-1] != pos[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        th = np.where(h, zh_a / (zh_a - zh_b), 0.0)
    hx = xs[:-1][None, :] + th * np.diff(xs)[None, :]
    hy = np.broadcast_to(ys[:, None], hx.shape)
    zv_a, zv_b = z[:-1, :], z[1:, :]
    v = pos[:-1, :] != pos[1:, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        tv = np.where(v, zv_a / (zv_a - zv_b), 0.0)
    vy = ys[:-1][:, None] + tv * np.diff(ys)[:, None]
    vx = np.broadcast_to(xs[None, :], vy.shape)
    # per cell (j, i): edges B = h[j, i], T = h[j+1, i], L = v[j, i], R = v[j, i+1]
    E = {"B": (h[:-1, :], hx[:-1, :], hy[:-1, :]), "T": (h[1:, :], hx[1:, :], hy[1:, :]),
         "L": (v[:, :-1], vx[:, :-1], vy[:, :-1]), "R": (v[:, 1:], vx[:, 1:], vy[:, 1:])}
    count = E["B"][0].astype(int) + E["T"][0] + E["L"][0] + E["R"][0]
    segs = []
    two = count == 2
    order = ("B", "R", "T", "L")
    for a_i in range(4):
        for b_i in range(a_i + 1, 4):
            a, b = order[a_i], order[b_i]
            m = two & E[a][0] & E[b][0]
            if m.any():
                segs.append((E[a][1][m], E[a][2][m], E[b][1][m], E[b][2][m]))
    saddle = count == 4
    if saddle.any():
        centre = 0.25 * (z[:-1, :-1] + z[:-1, 1:] + z[1:, :-1] + z[1:, 1:])
        bl_pos = pos[:-1, :-1]
        joined = (centre > 0.0) == bl_pos       # BL and TR connected through the centre
        for m, pairs in ((saddle & joined, (("B", "R"), ("T", "L"))),
                         (saddle & ~joined, (("B", "L"), ("T", "R")))):
            if m.any():
                for a, b in pairs:
                    segs.append((E[a][1][m], E[a][2][m], E[b][1][m], E[b][2][m]))
    if not segs:
        return np.empty(0), np.empty(0)
    x1 = np.concatenate([s[0] for s in segs])
    y1 = np.concatenate([s[1] for s in segs])
    x2 = np.concatenate([s[2] for s in segs])
    y2 = np.concatenate([s[3] for s in segs])
    nan = np.full_like(x1, np.nan)
    return np.column_stack([x1, x2, nan]).ravel(), np.column_stack([y1, y2, nan]).ravel()
