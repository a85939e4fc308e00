"""Leaf helpers of SMO's compiled core (:mod:`svmcore.solvers.smo`): whole kernel rows from a
transposed copy of X, the LRU list's two moves, LIBSVM's ``be_shrunk``, the m(α) scan alone and
fused with the gradient update, membership of I_up / I_low as signs, the combination of the
scans' running maxima, the analytic pair step, the NumPy forms of the bias and the maximal
violation, and the algorithm's listing for the step-through.

The compiled functions take SMO's bundles as documented there:
``data = (code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, allidx, XT)``.
"""
from __future__ import annotations

import math
import mmap

import numpy as np

from .._jit import njit
from .base import Line, Listing
from .kernels import dense_features, exp_into, finish_kernel, kernel_row, rbf_args

# integer state slots (int64 array ``ic``) of the compiled core
IC_T, IC_KEVALS, IC_CONV, IC_PI, IC_PJ, IC_HITS, IC_MISSES = 0, 1, 2, 3, 4, 5, 6
IC_ASIZE, IC_COUNTER, IC_UNSHRUNK, IC_GEN = 7, 8, 9, 10      # shrinking: active size, countdown, …
IC_NK, IC_NEXT = 11, 12       # ε-SVR: n points behind the 2n variables (0: C-SVC), next row buffer
N_IC = 13


@njit
def full_row(data, i, out, arg, scratch):
    """out[t] = K(x_i, x_t) at every t from the transposed copy XT (d × n; row f holds feature f
    of every example): Σ over x_i's nonzero features f of x_if · XT[f, :], each a contiguous
    loop over the n examples that LLVM vectorises, then the kernel's finish over the row (RBF:
    :func:`exp_into`). The same products as the pairwise inner products, summed in ascending
    feature order; the rows of X are read once, not n times through an index. Returns n."""
    code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, allidx, XT = data
    if sparse:
        lo = Xptr[i]
        m = Xptr[i + 1] - lo
        return row_from_features(code, kp, Xsq, XT, i, Xind[lo:lo + m], Xdata[lo:lo + m], m,
                                 out, arg, scratch)
    fi = np.empty(Xd.shape[1], dtype=np.int32)
    fv = np.empty(Xd.shape[1])
    m = dense_features(Xd, i, fi, fv)
    return row_from_features(code, kp, Xsq, XT, i, fi, fv, m, out, arg, scratch)


@njit
def row_from_features(code, kp, Xsq, XT, i, fi, fv, m, out, arg, scratch):
    """:func:`full_row` from x_i's m nonzero features (indices fi, values fv), plain arrays
    only. Returns n."""
    n = out.shape[0]
    for k in range(n):
        out[k] = 0.0
    # four features a pass (a quarter of the passes over ``out``), added in the same order
    p = 0
    while p + 4 <= m:
        a0, a1, a2, a3 = fv[p], fv[p + 1], fv[p + 2], fv[p + 3]
        c0, c1, c2, c3 = XT[fi[p]], XT[fi[p + 1]], XT[fi[p + 2]], XT[fi[p + 3]]
        for k in range(n):
            out[k] = (((out[k] + a0 * c0[k]) + a1 * c1[k]) + a2 * c2[k]) + a3 * c3[k]
        p += 4
    while p < m:
        a = fv[p]
        col = XT[fi[p]]
        for k in range(n):
            out[k] += a * col[k]
        p += 1
    if code == 1:
        rbf_args(Xsq[i], Xsq, out, kp[0], arg, n)
        exp_into(arg, out, scratch, n)
    else:
        sa = Xsq[i]
        for k in range(n):
            out[k] = finish_kernel(code, kp, out[k], sa, Xsq[k])
    return n


#: WSS 2's and the pair step's safeguard for a non-positive curvature a_ij (LIBSVM's TAU)
TAU = 1e-12

#: "no index yet", typed int64 from the start: with the literal -1 numba's type inference
#: first compiles the functions reading it for a Literal[int](-1) index (~4 s more of compilation)
LRU_NONE = np.int64(-1)


@njit
def lru_unlink(s, prev, nxt):
    p = prev[s]
    q = nxt[s]
    nxt[p] = q
    prev[q] = p


@njit
def lru_push_front(s, head, prev, nxt):
    """Insert slot s right after the sentinel ``head`` (most recently used)."""
    q = nxt[head]
    nxt[head] = s
    prev[s] = head
    nxt[s] = q
    prev[q] = s


@njit
def be_shrunk(t, alpha, G, y, C, Gmax1, Gmax2):
    """LIBSVM ``be_shrunk``: a bounded α_t whose gradient keeps it at its bound even against the
    current maximal violation."""
    if alpha[t] >= C[t]:
        if y[t] > 0.0:
            return -G[t] > Gmax1
        return -G[t] > Gmax2
    if alpha[t] <= 0.0:
        if y[t] > 0.0:
            return G[t] > Gmax2
        return G[t] > Gmax1
    return False


@njit(inline="always")
def _keep_max(v, g, kg, k):
    """One lane of a running maximum: (v, k) if v ≥ g (ties to the later position k), else
    (g, kg); a NaN v never wins. Selects, not branches, so the lanes stay branch-free."""
    b = v >= g
    return (v if b else g), (k if b else kg)


@njit
def scan_up(data, rc, G, asize):
    """m(α) = max −y_t G_t over I_up in the active set and its position in ``active`` (−1 if
    I_up is empty there): four running maxima over the positions k ≡ 0, 1, 2, 3 (mod 4), so
    that no compare waits for the previous one, then the largest value, ties to the larger
    position: the serial scan's answer, exactly (:func:`update_scan` fuses it with the
    gradient update)."""
    active = rc[9]
    up = rc[10][0]
    g0 = g1 = g2 = g3 = -np.inf
    k0 = k1 = k2 = k3 = LRU_NONE                 # not the literal -1: see LRU_NONE
    k = 0
    while k + 4 <= asize:
        t0 = np.uint64(active[k])
        t1 = np.uint64(active[k + 1])
        t2 = np.uint64(active[k + 2])
        t3 = np.uint64(active[k + 3])
        v0 = up[t0] * G[t0]                   # −y_t G_t, NaN outside I_up
        v1 = up[t1] * G[t1]
        v2 = up[t2] * G[t2]
        v3 = up[t3] * G[t3]
        g0, k0 = _keep_max(v0, g0, k0, k)
        g1, k1 = _keep_max(v1, g1, k1, k + 1)
        g2, k2 = _keep_max(v2, g2, k2, k + 2)
        g3, k3 = _keep_max(v3, g3, k3, k + 3)
        k += 4
    while k < asize:                          # the tail: later positions than lane 0's
        t0 = np.uint64(active[k])
        v0 = up[t0] * G[t0]
        g0, k0 = _keep_max(v0, g0, k0, k)
        k += 1
    return _lane_max(g0, k0, g1, k1, g2, k2, g3, k3)


@njit
def update_scan(Qi, Qj, dai, daj, data, rc, G, asize):
    """G ← G + Q_i Δα_i + Q_j Δα_j over the active set, and in the same pass the next
    iteration's m(α) and its position, exactly as :func:`scan_up` finds them from the new G
    (the same lanes, the same ties): one pass over the active set instead of two."""
    active = rc[9]
    up = rc[10][0]
    g0 = g1 = g2 = g3 = -np.inf
    k0 = k1 = k2 = k3 = LRU_NONE
    k = 0
    while k + 4 <= asize:
        t0 = np.uint64(active[k])             # unsigned: no wrap-around test per load
        t1 = np.uint64(active[k + 1])
        t2 = np.uint64(active[k + 2])
        t3 = np.uint64(active[k + 3])
        G0 = G[t0] + (Qi[t0] * dai + Qj[t0] * daj)
        G1 = G[t1] + (Qi[t1] * dai + Qj[t1] * daj)
        G2 = G[t2] + (Qi[t2] * dai + Qj[t2] * daj)
        G3 = G[t3] + (Qi[t3] * dai + Qj[t3] * daj)
        G[t0] = G0
        G[t1] = G1
        G[t2] = G2
        G[t3] = G3
        v0 = up[t0] * G0
        v1 = up[t1] * G1
        v2 = up[t2] * G2
        v3 = up[t3] * G3
        g0, k0 = _keep_max(v0, g0, k0, k)
        g1, k1 = _keep_max(v1, g1, k1, k + 1)
        g2, k2 = _keep_max(v2, g2, k2, k + 2)
        g3, k3 = _keep_max(v3, g3, k3, k + 3)
        k += 4
    while k < asize:
        t0 = np.uint64(active[k])
        G0 = G[t0] + (Qi[t0] * dai + Qj[t0] * daj)
        G[t0] = G0
        v0 = up[t0] * G0
        g0, k0 = _keep_max(v0, g0, k0, k)
        k += 1
    return _lane_max(g0, k0, g1, k1, g2, k2, g3, k3)


#: the transposed copy is kept up to this size (covtype's 435,759 × 54: 188 MB); past it rows are
#: computed pairwise. A fixed bound, not a share of cache_mb: the result must not depend on the
#: cache size (the two ways sum the same products, but in a different order)
TRANSPOSED_MAX = 256 * 2**20


def zeros_small_pages(shape, dtype) -> np.ndarray:
    """Zeros whose pages the OS maps in 4 KB pages as they are first written (anonymous mmap
    memory). For the kernel-row cache and its marks, which fill one row at a time and may never
    fill: NumPy's allocator advises the OS to back arrays of ≥ 4 MB with huge pages, and where
    free memory is fragmented, compacting it for them at first touch costs up to several times
    the 4 KB pages' cost (docs/solvers/smo.md)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if nbytes < 4 << 20:
        return np.zeros(shape, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, nbytes), dtype=dtype).reshape(shape)


def transposed_bytes(n: int, d: int) -> int:
    """Bytes of the transposed copy XT that :func:`full_row` reads (d × n float64), or 0 when it
    is past :data:`TRANSPOSED_MAX` (then rows are computed pairwise)."""
    b = 8 * n * d
    return b if b <= TRANSPOSED_MAX else 0


@njit
def set_status(t, alpha, C, y, off):
    """off[0, t] = −y_t if t ∈ I_up else NaN, off[1, t] = y_t if t ∈ I_low else NaN: the scans
    multiply G_t by them instead of testing y_t and α_t (a NaN product loses every compare, so
    t is never picked; kept in step with every change of α)."""
    at = alpha[t]
    yt = y[t]
    up = (at < C[t]) if yt > 0.0 else (at > 0.0)
    low = (at > 0.0) if yt > 0.0 else (at < C[t])
    off[0, t] = -yt if up else np.nan
    off[1, t] = yt if low else np.nan


@njit
def set_all_status(alpha, C, y, off):
    for t in range(alpha.shape[0]):
        set_status(t, alpha, C, y, off)


@njit(inline="always")
def _lane_max(g0, k0, g1, k1, g2, k2, g3, k3):
    """The largest of four (value, position) maxima, ties to the larger position."""
    g, kk = g0, k0
    if g1 > g or (g1 == g and k1 > kk):
        g, kk = g1, k1
    if g2 > g or (g2 == g and k2 > kk):
        g, kk = g2, k2
    if g3 > g or (g3 == g and k3 > kk):
        g, kk = g3, k3
    return g, kk



@njit(inline="always")
def pair_step(yi, yj, ai, aj, Ci, Cj, Gi, Gj, QDi, QDj, Qij):
    """LIBSVM ``Solver::Solve``'s analytic two-variable step: the minimiser of the dual along
    y_i α_i + y_j α_j = const, clipped to the box [0, C_i] × [0, C_j] (C_i = C·w_i, LIBSVM's
    ``get_C``; Qij = Q_ij as the float32 row holds it). Returns the new (α_i, α_j)."""
    if yi != yj:
        quad = QDi + QDj + 2.0 * Qij
        if quad <= 0.0:
            quad = TAU
        delta = (-Gi - Gj) / quad
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0.0:
            if aj < 0.0:
                aj = 0.0
                ai = diff
        else:
            if ai < 0.0:
                ai = 0.0
                aj = -diff
        if diff > Ci - Cj:
            if ai > Ci:
                ai = Ci
                aj = Ci - diff
        else:
            if aj > Cj:
                aj = Cj
                ai = Cj + diff
    else:
        quad = QDi + QDj - 2.0 * Qij
        if quad <= 0.0:
            quad = TAU
        delta = (Gi - Gj) / quad
        s = ai + aj
        ai -= delta
        aj += delta
        if s > Ci:
            if ai > Ci:
                ai = Ci
                aj = s - Ci
        else:
            if aj < 0.0:
                aj = 0.0
                ai = s
        if s > Cj:
            if aj > Cj:
                aj = Cj
                ai = s - Cj
        else:
            if ai < 0.0:
                ai = 0.0
                aj = s
    return ai, aj


@njit
def shrink_maxima(y, alpha, C, G, active, asize):
    """LIBSVM ``do_shrinking``'s maxima over the active set: (max −y_t G_t over I_up,
    max y_t G_t over I_low)."""
    Gmax1 = -np.inf
    Gmax2 = -np.inf
    for k in range(asize):
        t = active[k]
        if y[t] > 0.0:
            if alpha[t] < C[t]:
                if -G[t] >= Gmax1:
                    Gmax1 = -G[t]
            if alpha[t] > 0.0:
                if G[t] >= Gmax2:
                    Gmax2 = G[t]
        else:
            if alpha[t] < C[t]:
                if -G[t] >= Gmax2:
                    Gmax2 = -G[t]
            if alpha[t] > 0.0:
                if G[t] >= Gmax1:
                    Gmax1 = G[t]
    return Gmax1, Gmax2


@njit
def swap_shrunk(y, alpha, C, G, active, asize, Gmax1, Gmax2):
    """Every α that ``be_shrunk`` swapped behind the active part (LIBSVM's order of swaps);
    returns the new active size."""
    k = 0
    while k < asize:
        if be_shrunk(active[k], alpha, G, y, C, Gmax1, Gmax2):
            asize -= 1
            while asize > k:
                if not be_shrunk(active[asize], alpha, G, y, C, Gmax1, Gmax2):
                    tmp = active[k]
                    active[k] = active[asize]
                    active[asize] = tmp
                    break
                asize -= 1
        k += 1
    return asize


# ----------------------------------------------------------------- small problems: dense Q
#: up to this many dual variables (and while the nv × nv float32 matrix fits in cache_mb), Q is
#: one dense matrix whose rows are computed whole on first use, and :func:`small_chunk` runs
#: the iterations on it: no LRU list, no partial rows, no bundles unpacked per row. On a tiny
#: problem (iris, n = 100) those fixed costs per iteration were several times the scans' work.
SMALL_MAX = 2048


@njit
def _small_fill(i, Q, have, data, rc, ic):
    """Compute row i of the dense Q whole, as the row cache computes a whole row (from XT when
    it exists, else pairwise), rounded to float32 once. ε-SVR: the kernel row of point
    r = i mod n gives the rows of α_r and α*_r at once."""
    code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, allidx, XT = data
    n = Xsq.shape[0]
    nk = ic[IC_NK]
    rowbuf = rc[11]
    r = i if (nk == 0 or i < nk) else i - nk
    if XT.shape[1] == n:
        ic[IC_KEVALS] += full_row(data, r, rowbuf, rc[7], rc[8].view(np.float64))
    else:
        ic[IC_KEVALS] += kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, r,
                                  Xd, Xdata, Xind, Xptr, Xsq, rc[13], rowbuf)
    ic[IC_MISSES] += 1
    if nk == 0:
        yi = y[i]
        for k in range(n):
            Q[i, k] = rowbuf[k] * (yi * y[k])
        have[i] = True
        return
    for k in range(n):
        v = np.float32(rowbuf[k])
        Q[r, k] = v
        Q[r, k + n] = -v
        Q[r + n, k] = -v
        Q[r + n, k + n] = v
    have[r] = True
    have[r + n] = True


@njit
def _small_fill_dense(i, Q, have, code, kp, Xd, Xsq, XT, y, rowbuf, arg, scratch, fi, fv, ic):
    """:func:`_small_fill` for C-SVC on dense rows with XT (the usual small problem), from plain
    arrays and buffers the chunk keeps (``fi``, ``fv``: d long): the same row, with no
    allocation and no bundle handed over per row (numba reference-counts every array of a
    bundle at each call: more than the row's arithmetic on a tiny problem)."""
    m = dense_features(Xd, i, fi, fv)
    ic[IC_KEVALS] += row_from_features(code, kp, Xsq, XT, i, fi, fv, m, rowbuf, arg, scratch)
    ic[IC_MISSES] += 1
    yi = y[i]
    for k in range(Xsq.shape[0]):
        Q[i, k] = rowbuf[k] * (yi * y[k])
    have[i] = True


# The loop of small_chunk calls only functions of plain arrays and scalars, indexes Q by
# (row, column) and makes no array views: numba reference-counts every array a tuple or an
# inlined helper hands over and every view, with an atomic add each (perf: two thirds of a
# tiny problem's time). The bundles reach only _small_fill and the rare reconstruction.

@njit
def _small_pick_i(active, up, G, asize):
    """m(α) = max −y_t G_t over I_up and its position (serial: ties to the later position, as
    the lanes of :func:`scan_up`), or position −1."""
    Gmax = -np.inf
    ki = LRU_NONE
    for k in range(asize):
        t = active[k]
        v = up[t] * G[t]
        if v >= Gmax:
            Gmax = v
            ki = k
    return Gmax, ki


@njit
def _small_pick_j(Q, ii, y, active, low, G, QD, asize, Gmax, tol):
    """WSS 2's j for i = ii, as :func:`svmcore.solvers.smo._select` scores it (candidates in position order,
    ties to the later one), or −1 when m(α) − M(α) ≤ tol or no candidate exists."""
    Gmax2 = -np.inf
    kj = LRU_NONE
    obj_min = np.inf
    yi2 = 2.0 * y[ii]
    QDi = QD[ii]
    for k in range(asize):
        t = active[k]
        lt = low[t]
        yg = lt * G[t]
        Gmax2 = yg if yg >= Gmax2 else Gmax2
        gd = Gmax + yg
        if gd > 0.0:
            quad = QDi + QD[t] - (yi2 * lt) * Q[ii, t]
            quad = quad if quad > 0.0 else TAU
            od = -(gd * gd) / quad
            if od <= obj_min:
                obj_min = od
                kj = k
    if Gmax + Gmax2 <= tol or kj < 0:
        return LRU_NONE
    return active[kj]


@njit
def _small_gbar(v, a_old, a_new, Q, C, Gbar):
    """Ḡ follows a change of α_v's upper-bound status (row v of Q is present)."""
    Cv = C[v]
    was_up = a_old >= Cv
    if was_up == (a_new >= Cv):
        return
    sign = -Cv if was_up else Cv
    for k in range(Gbar.shape[0]):
        Gbar[k] += sign * Q[v, k]


@njit
def _small_update(Q, ii, jj, dai, daj, active, G, asize):
    """G ← G + Q_i Δα_i + Q_j Δα_j over the active set (the same sums as update_scan)."""
    for k in range(asize):
        t = active[k]
        G[t] = G[t] + (Q[ii, t] * dai + Q[jj, t] * daj)


@njit
def _small_reconstruct(Q, have, data, rc, C, alpha, G, Gbar, ic):
    """:func:`svmcore.solvers.smo._reconstruct_gradient` on the dense Q (the same sums in the same order)."""
    active = rc[9]
    p = rc[15]
    n = alpha.shape[0]
    asize = ic[IC_ASIZE]
    if asize == n:
        return
    for k in range(asize, n):
        t = active[k]
        G[t] = Gbar[t] + p[t]
    nr_free = 0
    for k in range(asize):
        t = active[k]
        if 0.0 < alpha[t] < C[t]:
            nr_free += 1
    if nr_free * n > 2 * asize * (n - asize):
        for k in range(asize, n):
            t = active[k]
            _small_row(t, Q, have, data, rc, ic)
            acc = 0.0
            for kk in range(asize):
                j = active[kk]
                if 0.0 < alpha[j] < C[j]:
                    acc += alpha[j] * Q[t, j]
            G[t] += acc
    else:
        for kk in range(asize):
            j = active[kk]
            aj = alpha[j]
            if 0.0 < aj < C[j]:
                _small_row(j, Q, have, data, rc, ic)
                for k in range(asize, n):
                    t = active[k]
                    G[t] += aj * Q[j, t]
    ic[IC_ASIZE] = n
    ic[IC_GEN] += 1


@njit(inline="always")
def _small_row(i, Q, have, data, rc, ic):
    if have[i]:
        ic[IC_HITS] += 1
    else:
        _small_fill(i, Q, have, data, rc, ic)


@njit
def small_chunk(Q, have, data, rc, C, tol, n_steps, shrinking, alpha, G, Gbar, QD, ic):
    """:func:`svmcore.solvers.smo._smo_chunk` on the dense Q: the same iterations (pairs, steps, shrinking,
    reconstruction, stopping test), with each row read straight from Q."""
    y = data[8]
    active = rc[9]
    off = rc[10]
    up = off[0]
    low = off[1]
    n = alpha.shape[0]
    # C-SVC on dense rows with XT: rows filled from plain arrays (_small_fill_dense)
    code, kp, Xd, Xsq, XT = data[0], data[1], data[2], data[6], data[10]
    plain = ic[IC_NK] == 0 and not data[7] and XT.shape[1] == Xsq.shape[0]
    rowbuf, arg, scratch = rc[11], rc[7], rc[8].view(np.float64)
    fi = np.empty(Xd.shape[1], dtype=np.int32)
    fv = np.empty(Xd.shape[1])
    done = 0
    while done < n_steps:
        if ic[IC_CONV]:
            break
        if shrinking:
            ic[IC_COUNTER] -= 1
            if ic[IC_COUNTER] == 0:
                ic[IC_COUNTER] = min(n, 1000)
                Gmax1, Gmax2 = shrink_maxima(y, alpha, C, G, active, ic[IC_ASIZE])
                if ic[IC_UNSHRUNK] == 0 and Gmax1 + Gmax2 <= 10.0 * tol:
                    ic[IC_UNSHRUNK] = 1
                    _small_reconstruct(Q, have, data, rc, C, alpha, G, Gbar, ic)
                ic[IC_ASIZE] = swap_shrunk(y, alpha, C, G, active, ic[IC_ASIZE], Gmax1, Gmax2)
        ii = LRU_NONE
        jj = LRU_NONE
        for attempt in range(2):       # the second after rebuilding the shrunk gradient
            if attempt == 1:
                if ic[IC_ASIZE] == n:
                    break
                _small_reconstruct(Q, have, data, rc, C, alpha, G, Gbar, ic)
                ic[IC_COUNTER] = 1          # shrink again at the next iteration
            asize = ic[IC_ASIZE]
            Gmax, ki = _small_pick_i(active, up, G, asize)
            if ki < 0 or Gmax == -np.inf:
                continue
            ii = active[ki]
            if have[ii]:
                ic[IC_HITS] += 1
            elif plain:
                _small_fill_dense(ii, Q, have, code, kp, Xd, Xsq, XT, y, rowbuf, arg, scratch,
                                  fi, fv, ic)
            else:
                _small_fill(ii, Q, have, data, rc, ic)
            jj = _small_pick_j(Q, ii, y, active, low, G, QD, asize, Gmax, tol)
            if jj >= 0:
                break
        if jj < 0:
            ic[IC_CONV] = 1
            break
        if have[jj]:
            ic[IC_HITS] += 1
        elif plain:
            _small_fill_dense(jj, Q, have, code, kp, Xd, Xsq, XT, y, rowbuf, arg, scratch,
                              fi, fv, ic)
        else:
            _small_fill(jj, Q, have, data, rc, ic)
        ai_old = alpha[ii]
        aj_old = alpha[jj]
        ai, aj = pair_step(y[ii], y[jj], ai_old, aj_old, C[ii], C[jj], G[ii], G[jj],
                            QD[ii], QD[jj], Q[ii, jj])
        alpha[ii] = ai
        alpha[jj] = aj
        set_status(ii, alpha, C, y, off)
        set_status(jj, alpha, C, y, off)
        _small_update(Q, ii, jj, ai - ai_old, aj - aj_old, active, G, ic[IC_ASIZE])
        if shrinking:
            _small_gbar(ii, ai_old, ai, Q, C, Gbar)
            _small_gbar(jj, aj_old, aj, Q, C, Gbar)
        ic[IC_T] += 1
        ic[IC_PI] = ii
        ic[IC_PJ] = jj
        done += 1
    return done


def kkt_bias(alpha, G, y, C) -> float:
    """b = −ρ with ρ from LIBSVM's ``calculate_rho``: mean of y_i G_i over free α_i, else the
    midpoint of [lb, ub] given by the bounded ones."""
    yG = y * G
    upper = alpha >= C
    lower = alpha <= 0.0
    free = ~(upper | lower)
    n_free = int(np.count_nonzero(free))
    if n_free:
        # the mean as ndarray.mean takes it (np.add.reduce, then one division), without its
        # Python-level argument handling: the bias is read once per binary problem
        return -(float(np.add.reduce(yG[free])) / n_free)
    ub_mask = (upper & (y < 0)) | (lower & (y > 0))
    lb_mask = (upper & (y > 0)) | (lower & (y < 0))
    ub = float(yG[ub_mask].min()) if ub_mask.any() else math.inf
    lb = float(yG[lb_mask].max()) if lb_mask.any() else -math.inf
    if math.isinf(ub) and math.isinf(lb):
        return 0.0
    if math.isinf(ub):
        return -lb
    if math.isinf(lb):
        return -ub
    return -0.5 * (ub + lb)


def max_violation(alpha, G, y, C) -> float:
    """m(α) − M(α) with m = max_{I_up} −y_t G_t, M = min_{I_low} −y_t G_t (0 if a set is empty)."""
    v = -y * G
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0.0))
    low = ((y > 0) & (alpha > 0.0)) | ((y < 0) & (alpha < C))
    if not up.any() or not low.any():
        return 0.0
    return float(v[up].max() - v[low].min())


# --------------------------------------------------------------------------- pseudocode

SMO_LISTING = Listing(
    "SMO with second-order working-set selection: Fan, Chen & Lin (2005), WSS 2, as in "
    "LIBSVM's Solver::Solve; the two-variable step of Platt (1998)", (
        Line("input", "INPUT: K, y, C, tol;   α = 0,   G = ∇f(α) = Qα − e = −e",
             "f(α) = ½αᵀQα − eᵀα (Q_ij = y_i y_j K_ij) is the dual, minimised over 0 ≤ α ≤ C, "
             "yᵀα = 0. Keeping its gradient G makes choosing a pair O(n)."),
        Line("loop", "LOOP  (t = 1, 2, …):", "Each iteration changes exactly two α: the fewest "
             "that can move while yᵀα = 0 stays true.", ("t",)),
        Line("shrink", "  every min(n, 1000) iterations: set aside the bounded α_t that "
             "stay bounded (shrinking)", "LIBSVM's heuristic: variables that will not move "
             "are left out of the scans until the end.", ("active",), when="shrinking"),
        Line("sets", "  I_up = {t : y_t = +1, α_t < C  or  y_t = −1, α_t > 0},   "
             "I_low = {t : y_t = +1, α_t > 0  or  y_t = −1, α_t < C}",
             "The indices whose y_t α_t can still go up / down inside the box: a step moves "
             "one index of each set, so yᵀα = 0 stays true.", ("n_up", "n_low")),
        Line("pick_i", "  i = argmax_{t ∈ I_up} −y_t G_t,   m(α) = −y_i G_i",
             "The first index: the steepest feasible ascent of −f among the up-movers "
             "(first-order information).", ("i", "G_i", "m")),
        Line("stop", "  IF m(α) − M(α) ≤ tol,   M(α) = min_{t ∈ I_low} −y_t G_t:   STOP",
             "m(α) ≤ M(α) is exactly the KKT condition of the dual: when the maximal "
             "violating pair violates it by at most tol, α is optimal within tol.",
             ("M", "gap", "tol")),
        Line("unshrink", "    (shrunk variables: rebuild G on them, test again on all n)",
             "The stopping test must hold on the whole problem, not only the active part.",
             when="shrinking"),
        Line("pick_j", "  j = argmin_{t ∈ I_low, −y_t G_t < m(α)}  −b_it²/a_it,   "
             "b_it = m(α) + y_t G_t,  a_it = K_ii + K_tt − 2K_it  (τ if ≤ 0)",
             "WSS 2: among the partners that violate with i, pick the one whose pair step "
             "decreases f the most, b²/(2a) (second-order information).",
             ("j", "G_j", "b_ij", "a_ij", "gain")),
        Line("step", "  α_i ← α_i + y_i b_ij/a_ij,   α_j ← α_j − y_j b_ij/a_ij",
             "The exact minimiser of f along the direction that keeps yᵀα constant.",
             ("step",)),
        Line("clip", "  clip (α_i, α_j) to [0, C]² along y_i α_i + y_j α_j = const",
             "If the minimiser leaves the box, the step stops at the box edge: one α "
             "becomes 0 or C.", ("clipped",)),
        Line("grad", "  G ← G + Q_{:,i} Δα_i + Q_{:,j} Δα_j",
             "Only two columns of Q (two kernel rows, often cached) update the whole "
             "gradient.", ("dalpha_i", "dalpha_j", "decrease")),
        Line("bias", "b = −mean_{0 < α_t < C} y_t G_t   (LIBSVM's −ρ)",
             "At the optimum every free α_t satisfies y_t f(x_t) = 1, which fixes b.",
             ("b",)),
        Line("output", "OUTPUT: f(x) = Σ_t y_t α_t K(x_t, x) + b",
             "The support vectors are the points with α_t > 0."),
    ), symbols={"m": "m(α)", "M": "M(α)", "gap": "m(α) − M(α)", "G_i": "G_i", "G_j": "G_j",
                "b_ij": "b_ij", "a_ij": "a_ij", "gain": "b_ij²/(2a_ij)",
                "step": "b_ij/a_ij", "dalpha_i": "Δα_i", "dalpha_j": "Δα_j",
                "decrease": "f(α) − f(α_new)", "n_up": "|I_up|", "n_low": "|I_low|",
                "active": "active variables"})
