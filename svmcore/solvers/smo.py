r"""SMO with second-order working-set selection (LIBSVM's solver for C-SVC).

Minimises the L1-SVM dual in the C-form

    min_α  f(α) = ½ αᵀQα − eᵀα     s.t.  0 ≤ α_i ≤ C,  yᵀα = 0,     Q_ij = y_i y_j K(x_i, x_j),

keeping the gradient G = ∇f(α) = Qα − e up to date. One iteration (Fan, Chen & Lin 2005, WSS 2;
LIBSVM ``Solver::select_working_set`` and ``Solver::Solve``):

    I_up  = {t : y_t = +1, α_t < C  or  y_t = −1, α_t > 0},
    I_low = {t : y_t = +1, α_t > 0  or  y_t = −1, α_t < C},
    i = argmax_{t ∈ I_up} −y_t G_t                                   (m(α) = that maximum)
    j = argmin_{t ∈ I_low, −y_t G_t < m(α)}  −b_it² / a_it,         (M(α) = min_{I_low} −y_t G_t)
        b_it = −y_i G_i + y_t G_t > 0,  a_it = K_ii + K_tt − 2 K_it  (τ = 1e-12 if a_it ≤ 0)
    (α_i, α_j) ← clip to the box of (α_i + y_i b_ij / a_ij, α_j − y_j b_ij / a_ij) along yᵀα = const
    G ← G + Q_{:,i} Δα_i + Q_{:,j} Δα_j

and stops when m(α) − M(α) ≤ tol (LIBSVM's ``eps``, 1e-3). The bias is taken from the KKT
conditions as LIBSVM's ``calculate_rho`` does: b = −mean(y_i G_i) over the free α_i
(0 < α_i < C), or, if none is free, minus the midpoint of the interval the bounded ones allow.
The model is f(x) = Σ_i y_i α_i K(x_i, x) + b. As in LIBSVM, shrinking is on by default and the
cached rows of Q are float32 (Qfloat); G, Ḡ and α are float64.

Papers: Fan, Chen & Lin (2005), "Working set selection using second order information for training
support vector machines", JMLR 6; Platt (1998), "Sequential minimal optimization" (the two-variable
analytic step); Chang & Lin, LIBSVM (the clipping, the τ safeguard and the bias rule used here).

Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/smo.md``.
One file past 700 lines: the compiled core (the @njit chunk function and the helpers it
inlines) is one piece whose state layout the class, the step-through and the tests share.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import njit
from .kernels import (POINT_KERNELS, as_rows, expansion, kernel_diagonal, kernel_row, rows_args)
from .smo_parts import (IC_ASIZE, IC_CONV, IC_COUNTER, IC_GEN, IC_HITS, IC_KEVALS, IC_MISSES,  # noqa: F401
                        IC_NEXT, N_IC, IC_NK, LRU_NONE, IC_PI, IC_PJ, IC_T, IC_UNSHRUNK, SMALL_MAX,
                        SMO_LISTING, TAU, TRANSPOSED_MAX, be_shrunk, full_row,
                        lru_push_front, lru_unlink, pair_step, scan_up, set_all_status,
                        set_status, shrink_maxima, small_chunk, swap_shrunk, update_scan,
                        kkt_bias, max_violation, transposed_bytes, zeros_small_pages)
from .objectives import error_rate, lam_from_C, primal_objective
from .base import (C_SPEC, COEF0_SPEC, DEGREE_SPEC, GAMMA_SPEC, KERNEL_SPEC, Listing,
                   ParamSpec, Snapshot, Solver, StepThroughRecord, join_state, state_changes, state_part)

#: labels of the snapshot's dual curve and gap (a feasible α: D(α) ≤ P* ≤ P(w, b) for any b)
DUAL_NAME = "dual L1-SVM D(α), λ-form (a lower bound on the optimum)"
GAP_NAME = "duality gap P − D (≥ P − P*)"

# integer state slots (int64 array `ic`): see smo_parts

# _get_row's ``full`` flag as NumPy booleans, not the literals True / False: numba compiles a
# function once per literal argument value it is called with (Literal[bool](True) and
# Literal[bool](False) were two specialisations of _get_row)
_FULL, _ACTIVE = np.bool_(True), np.bool_(False)      # (likewise smo_parts.LRU_NONE)

# the row cache's index arrays and marks of a small problem (the dense Q needs none): empty,
# so one pair of objects serves every solver (writeable like the others: numba types a
# read-only array apart, and the bundles would get a second signature)
_NO_SLOTS = np.zeros(0, dtype=np.int64)
_NO_MARKS = np.zeros((0, 0), dtype=np.bool_)


# --------------------------------------------------------------------------- compiled core


# The compiled functions below share two bundles (plain tuples, so numba specialises once):
#   data  = (code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, allidx, XT) — read only
#           (XT: the d × n transposed copy, or 0 × 0 when rows are computed pairwise)
#   rc    = (cache, slot_of, row_of, prev, nxt, row_state, valid, work, idxbuf, active, off,
#            rowbuf, ones, points, qbuf, p)
#           (cache: float32 rows of Q, LIBSVM's Qfloat; rowbuf: one float64 row; p: the linear
#           term of the dual, −e for C-SVC; ones, points, qbuf: ε-SVR's, see _q_row)
# and the integer state ``ic``. The variables t (alpha, G, y, active, …) are the n points for
# C-SVC; for ε-SVR they are 2n (ic[IC_NK] = n), and the cache holds kernel rows of the n points.


@njit
def _get_row(i, full, data, rc, ic):
    """The cache slot holding row i of Q, computing the kernel values it lacks.

    ``full``: the row is needed at every index (G_bar updates); otherwise at the active indices
    ``active[:active_size]`` only (LIBSVM's ``get_Q(i, active_size)``). ``row_state[s]`` is −1
    for a complete row, g ≥ 0 for a row that covered the active set of generation g (within a
    generation the active set only shrinks, so it still covers it: a hit without a look), −2
    otherwise. Without shrinking every row is computed whole (the active set is everything).
    With shrinking ``valid[s, t]`` marks the entries a partial row holds (a complete one needs
    no marks, so their memory is only touched for partial rows), so a row is only ever
    completed, never recomputed (LIBSVM extends a cached row by its missing part likewise)."""
    slot_of = rc[1]
    prev = rc[3]
    nxt = rc[4]
    head = rc[0].shape[0]                 # sentinel index of the LRU ring
    s = slot_of[i]
    st = -2
    if s >= 0:
        st = rc[5][s]
        if st == -1 or (st == ic[IC_GEN] and not full):
            ic[IC_HITS] += 1
            lru_unlink(s, prev, nxt)
            lru_push_front(s, head, prev, nxt)
            return s
    else:
        s = prev[head]                    # least recently used slot
        row_of = rc[2]
        old = row_of[s]
        if old >= 0:
            slot_of[old] = -1
        row_of[s] = i
        slot_of[i] = s
    _fill_row(i, full, s, st, data, rc, ic)
    lru_unlink(s, prev, nxt)
    lru_push_front(s, head, prev, nxt)
    return s


@njit
def _fill_row(i, full, s, st, data, rc, ic):
    """The kernel values slot s lacks for row i (``st``: its row_state, −2 for a fresh slot);
    :func:`_get_row` once the row is not a hit. Only the hit path stays in _get_row: unpacking
    the bundles costs a reference count per array, more than a hit's work on a small problem."""
    code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, allidx, XT = data
    cache, valid, work, idxbuf, active, rowbuf = rc[0], rc[6], rc[7], rc[8], rc[9], rc[11]
    n = y.shape[0]
    asize = ic[IC_ASIZE]
    gen = ic[IC_GEN]
    row = cache[s]
    yi = y[i]
    whole = full or asize == n
    by_columns = XT.shape[1] == n
    if st == -2 and by_columns and (4 if sparse else 3) * asize >= n:
        whole = True      # a whole row costs less than a third of it pairwise (CSR: a quarter)
    if st == -2 and whole:                # nothing usable held: the whole row at once
        if by_columns:
            ic[IC_KEVALS] += full_row(data, i, rowbuf, work, idxbuf.view(np.float64))
        else:
            ic[IC_KEVALS] += kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                                      Xd, Xdata, Xind, Xptr, Xsq, allidx, rowbuf)
        for k in range(n):
            row[k] = rowbuf[k] * (yi * y[k])          # rounded to float32 once, as LIBSVM
        m = n
    else:                                 # only the entries this slot lacks
        if st == -2:
            valid[s, :] = False           # a fresh slot holds nothing (not kept for whole rows)
        m = 0
        top = n if whole else asize
        for k in range(top):
            t = allidx[k] if whole else active[k]
            if not valid[s, t]:
                idxbuf[m] = t
                m += 1
        if m > 0:
            idx = idxbuf[:m]
            ic[IC_KEVALS] += kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                                      Xd, Xdata, Xind, Xptr, Xsq, idx, work)
            for k in range(m):
                t = idx[k]
                row[t] = work[k] * (yi * y[t])
                valid[s, t] = True
    rc[5][s] = -1 if whole else gen
    if m > 0:
        ic[IC_MISSES] += 1
    else:
        ic[IC_HITS] += 1


@njit
def _q_row(i, full, data, rc, ic):
    """Row i of the dual's Q (float32) at the active indices, or at every index if ``full``.

    C-SVC: the cache slot's row (:func:`_get_row`). ε-SVR (LIBSVM's ``SVR_Q``): variable t < n
    is α_t, t ≥ n is α*_{t−n}, with y_t = +1 / −1; Q̃_it = y_i y_t K(x_{i mod n}, x_{t mod n}),
    built from the cached kernel row of point i mod n (a whole row, y = 1: the kernel values
    rounded to float32 once) into one of two buffers, used in turn (a step holds two rows)."""
    nk = ic[IC_NK]
    if nk == 0:
        return rc[0][_get_row(i, full, data, rc, ic)]
    r = i if i < nk else i - nk
    kdata = (data[0], data[1], data[2], data[3], data[4], data[5], data[6], data[7], rc[12],
             rc[13], data[10])
    K = rc[0][_get_row(r, _FULL, kdata, rc, ic)]
    b = ic[IC_NEXT]
    ic[IC_NEXT] = 1 - b
    buf = rc[14][b]
    y = data[8]
    yi = y[i]
    active = rc[9]
    nv = y.shape[0]
    top = nv if full else ic[IC_ASIZE]
    for k in range(top):
        t = k if full else active[k]
        v = K[t if t < nk else t - nk]
        buf[t] = v if y[t] == yi else -v
    return buf


@njit
def _reconstruct_gradient(data, rc, C, alpha, G, Gbar, ic):
    """LIBSVM ``reconstruct_gradient``: G_t = Ḡ_t + p_t + Σ_{free j} α_j Q_tj at every inactive t,
    from rows of the inactive t over the active set or from full rows of the free j, whichever
    takes fewer rows. Then every variable is active again (a new generation of the cache)."""
    y = data[8]
    active = rc[9]
    p = rc[15]
    n = y.shape[0]
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
            Qt = _q_row(t, _ACTIVE, data, rc, ic)
            acc = 0.0
            for kk in range(asize):
                j = active[kk]
                if 0.0 < alpha[j] < C[j]:
                    acc += alpha[j] * Qt[j]
            G[t] += acc
    else:
        for kk in range(asize):
            j = active[kk]
            aj = alpha[j]
            if 0.0 < aj < C[j]:
                Qj = _q_row(j, _FULL, data, rc, ic)
                for k in range(asize, n):
                    t = active[k]
                    G[t] += aj * Qj[t]
    ic[IC_ASIZE] = n
    ic[IC_GEN] += 1


@njit
def _do_shrinking(data, rc, C, tol, alpha, G, Gbar, ic):
    """LIBSVM ``do_shrinking``: the maximal violation over the active set; once it is ≤ 10·tol
    the gradient is rebuilt and every variable comes back (once per run, LIBSVM's ``unshrink``);
    then every bounded α that ``be_shrunk`` is swapped behind the active part."""
    y = data[8]
    active = rc[9]
    Gmax1, Gmax2 = shrink_maxima(y, alpha, C, G, active, ic[IC_ASIZE])
    if ic[IC_UNSHRUNK] == 0 and Gmax1 + Gmax2 <= 10.0 * tol:
        ic[IC_UNSHRUNK] = 1
        _reconstruct_gradient(data, rc, C, alpha, G, Gbar, ic)
    ic[IC_ASIZE] = swap_shrunk(y, alpha, C, G, active, ic[IC_ASIZE], Gmax1, Gmax2)


@njit(inline="always")
def _gain(gd, quad, obj_min, kj, k):
    """WSS 2's score −b²/a of the candidate at position k (b = ``gd`` > 0, a = ``quad``, τ if
    a ≤ 0) against the best so far (``obj_min`` at ``kj``): ties go to the later position."""
    quad = quad if quad > 0.0 else TAU
    od = -(gd * gd) / quad
    if od <= obj_min:
        return od, k
    return obj_min, kj


@njit
def _select(data, rc, C, tol, alpha, G, QD, ic, Gmax, ki):
    """WSS 2 over the active set, given m(α) = Gmax at position ki of ``active`` (from
    :func:`scan_up` or :func:`update_scan`). Returns (i, j, row i of Q), or i = −1 when
    the maximal violating pair gap there is ≤ tol (or no pair exists).

    The scans keep positions in ``active`` (ties go to the last one, as LIBSVM's ``>=``) and
    read the arrays through unsigned indices (an active index is never negative, and a signed
    one costs a wrap-around test per load); G_t is multiplied by a sign that is NaN outside
    I_up / I_low (``set_status``: y_t is not read) and the running maxima are conditional
    selects, not branches (they
    depend on y_t, α_t and G_t, which a branch predictor cannot guess). A candidate's score is
    LIBSVM's arithmetic: y_t = ±1 only flips signs, exactly."""
    y = data[8]
    active = rc[9]
    asize = ic[IC_ASIZE]
    low = rc[10][1]
    if ki < 0 or Gmax == -np.inf:
        return -1, -1, rc[14][0]
    ii = active[ki]
    if ic[IC_NK] == 0:          # C-SVC: the cache slot itself (no further call with the bundles)
        Qi = rc[0][_get_row(ii, _ACTIVE, data, rc, ic)]
    else:
        Qi = _q_row(ii, _ACTIVE, data, rc, ic)
    # ---- select j: second-order gain over I_low, M(α) = min −y_t G_t (as four maxima of
    # y_t G_t, like m(α)); the candidates with b_it > 0 are few and scored in position order
    h0 = h1 = h2 = h3 = -np.inf
    kj = LRU_NONE
    obj_min = np.inf
    yi2 = 2.0 * y[ii]
    QDi = QD[ii]
    k = 0
    while k + 4 <= asize:
        t0 = np.uint64(active[k])
        t1 = np.uint64(active[k + 1])
        t2 = np.uint64(active[k + 2])
        t3 = np.uint64(active[k + 3])
        l0 = low[t0]                          # y_t in I_low, NaN outside
        l1 = low[t1]
        l2 = low[t2]
        l3 = low[t3]
        yg0 = l0 * G[t0]
        yg1 = l1 * G[t1]
        yg2 = l2 * G[t2]
        yg3 = l3 * G[t3]
        h0 = yg0 if yg0 >= h0 else h0
        h1 = yg1 if yg1 >= h1 else h1
        h2 = yg2 if yg2 >= h2 else h2
        h3 = yg3 if yg3 >= h3 else h3
        gd0 = Gmax + yg0
        gd1 = Gmax + yg1
        gd2 = Gmax + yg2
        gd3 = Gmax + yg3
        if (gd0 > 0.0) | (gd1 > 0.0) | (gd2 > 0.0) | (gd3 > 0.0):   # few: scored in order
            if gd0 > 0.0:
                obj_min, kj = _gain(gd0, QDi + QD[t0] - (yi2 * l0) * Qi[t0], obj_min, kj, k)
            if gd1 > 0.0:
                obj_min, kj = _gain(gd1, QDi + QD[t1] - (yi2 * l1) * Qi[t1], obj_min, kj, k + 1)
            if gd2 > 0.0:
                obj_min, kj = _gain(gd2, QDi + QD[t2] - (yi2 * l2) * Qi[t2], obj_min, kj, k + 2)
            if gd3 > 0.0:
                obj_min, kj = _gain(gd3, QDi + QD[t3] - (yi2 * l3) * Qi[t3], obj_min, kj, k + 3)
        k += 4
    while k < asize:
        t0 = np.uint64(active[k])
        l0 = low[t0]
        yg0 = l0 * G[t0]
        h0 = yg0 if yg0 >= h0 else h0
        gd0 = Gmax + yg0
        if gd0 > 0.0:
            obj_min, kj = _gain(gd0, QDi + QD[t0] - (yi2 * l0) * Qi[t0], obj_min, kj, k)
        k += 1
    Gmax2 = max(max(h0, h1), max(h2, h3))
    if Gmax + Gmax2 <= tol or kj < 0:
        return -1, -1, Qi
    return ii, active[kj], Qi


@njit
def _update_gbar(v, a_old, a_new, data, rc, C, Gbar, ic):
    """Ḡ = C Σ_{α_t = C} Q_:t (LIBSVM's G_bar) follows a change of α_v's upper-bound status."""
    Cv = C[v]
    was_up = a_old >= Cv
    if was_up == (a_new >= Cv):
        return
    if ic[IC_NK] == 0:
        Qv = rc[0][_get_row(v, _FULL, data, rc, ic)]
    else:
        Qv = _q_row(v, _FULL, data, rc, ic)
    sign = -Cv if was_up else Cv
    for k in range(Gbar.shape[0]):
        Gbar[k] += sign * Qv[k]


@njit
def _smo_chunk(data, rc, C, tol, n_steps, shrinking, alpha, G, Gbar, QD, ic):
    """Up to n_steps SMO iterations (WSS 2 + analytic pair update); returns the iterations done.
    Sets ic[IC_CONV] when the maximal violating pair gap m − M is ≤ tol on the whole set.

    With ``shrinking`` this is LIBSVM's ``Solver::Solve`` loop: every min(n, 1000) iterations
    ``_do_shrinking``; when the active set is optimal, the gradient is rebuilt, every variable
    is active again and the test is repeated (and shrinking follows at the next iteration)."""
    y = data[8]
    n = alpha.shape[0]
    done = 0
    fresh = False                 # (Gmax, ki): m(α) of the current G, from the last update
    Gmax = -np.inf
    ki = LRU_NONE
    while done < n_steps:
        if ic[IC_CONV]:
            break
        if shrinking:
            ic[IC_COUNTER] -= 1
            if ic[IC_COUNTER] == 0:
                ic[IC_COUNTER] = min(n, 1000)
                _do_shrinking(data, rc, C, tol, alpha, G, Gbar, ic)
                fresh = False     # the active set and its order changed
        if not fresh:
            Gmax, ki = scan_up(data, rc, G, ic[IC_ASIZE])
        ii, jj, Qi = _select(data, rc, C, tol, alpha, G, QD, ic, Gmax, ki)
        if ii < 0:
            if ic[IC_ASIZE] == n:
                ic[IC_CONV] = 1
                break
            _reconstruct_gradient(data, rc, C, alpha, G, Gbar, ic)
            Gmax, ki = scan_up(data, rc, G, ic[IC_ASIZE])
            ii, jj, Qi = _select(data, rc, C, tol, alpha, G, QD, ic, Gmax, ki)
            if ii < 0:
                ic[IC_CONV] = 1
                break
            ic[IC_COUNTER] = 1              # shrink again at the next iteration
        # LRU with ≥ 2 slots: row ii (most recent) is not evicted (ε-SVR: the other buffer)
        if ic[IC_NK] == 0:
            Qj = rc[0][_get_row(jj, _ACTIVE, data, rc, ic)]
        else:
            Qj = _q_row(jj, _ACTIVE, data, rc, ic)
        ai_old = alpha[ii]
        aj_old = alpha[jj]
        ai, aj = pair_step(y[ii], y[jj], ai_old, aj_old, C[ii], C[jj], G[ii], G[jj],
                            QD[ii], QD[jj], Qi[jj])
        alpha[ii] = ai
        alpha[jj] = aj
        set_status(ii, alpha, C, y, rc[10])
        set_status(jj, alpha, C, y, rc[10])
        dai = ai - ai_old
        daj = aj - aj_old
        Gmax, ki = update_scan(Qi, Qj, dai, daj, data, rc, G, ic[IC_ASIZE])
        fresh = True
        if shrinking:
            _update_gbar(ii, ai_old, ai, data, rc, C, Gbar, ic)
            _update_gbar(jj, aj_old, aj, data, rc, C, Gbar, ic)
        ic[IC_T] += 1
        ic[IC_PI] = ii
        ic[IC_PJ] = jj
        done += 1
    return done


# --------------------------------------------------------------------------- public class


class SMOSolver(Solver):
    __doc__ = __doc__
    name = "smo"
    #: example weights: the box 0 ≤ α_i ≤ C·w_i (LIBSVM's per-example C)
    weighting = "per-example box bounds C·w_i"
    title = "SMO (LIBSVM, second-order WSS)"
    paper = ("Fan, Chen & Lin (2005), Working set selection using second order information for "
             "training SVM, JMLR 6; Platt (1998), Sequential minimal optimization")
    formulation = (r"\min_{\alpha}\ \tfrac12\,\alpha^\top Q\alpha - e^\top\alpha\quad"
                   r"\text{s.t. } 0\le\alpha_i\le C,\ y^\top\alpha=0,\qquad "
                   r"Q_{ij}=y_iy_jK(x_i,x_j)")
    update_rule = (r"i=\arg\max_{t\in I_{up}} -y_tG_t,\quad "
                   r"j=\arg\min_{t\in I_{low},\,-y_tG_t<-y_iG_i} -\frac{b_{it}^2}{a_{it}},\quad "
                   r"\alpha_i \mathrel{+}= y_i\frac{b_{ij}}{a_{ij}},\ "
                   r"\alpha_j \mathrel{-}= y_j\frac{b_{ij}}{a_{ij}}\ (\text{clipped}),\quad "
                   r"G \mathrel{+}= Q_{:i}\Delta\alpha_i + Q_{:j}\Delta\alpha_j;\ "
                   r"b_{it}=-y_iG_i+y_tG_t,\ a_{it}=\max(K_{ii}+K_{tt}-2K_{it},\tau)")
    params = {
        "C": C_SPEC,
        "kernel": KERNEL_SPEC,
        "gamma": GAMMA_SPEC,
        "degree": DEGREE_SPEC,
        "coef0": COEF0_SPEC,
        "tol": ParamSpec(1e-3, "float", "ε — how exact the answer must be: stop when the "
                         "largest KKT violation m(α) − M(α) is ≤ tol (LIBSVM's eps).",
                         low=0.0, low_open=True, high=1e3, ui=(1e-6, 1e-1), log=True),
        "cache_mb": ParamSpec(200.0, "float", "cache (MB) — memory for kernel rows kept between "
                              "iterations: more memory, fewer kernel evaluations (LIBSVM's "
                              "cache; at least two rows are always kept).", low=0.0,
                              low_open=True, high=1e6, ui=(0.01, 4000.0), log=True,
                              advanced=True),
        "max_iter": ParamSpec(10_000_000, "int", "max_iter — stop after this many SMO "
                              "iterations even if the tolerance is not reached.",
                              low=1, high=10**12, ui=(100, 10_000_000), log=True, advanced=True),
        "shrinking": ParamSpec(True, "bool", "shrinking — LIBSVM's heuristic that sets aside the "
                               "α_i that stay at a bound, so fewer kernel values are computed; the "
                               "gradient is rebuilt before the final test (same stopping rule).",
                               advanced=True),
        "loss": ParamSpec("hinge", "choice", "ℓ — the problem: hinge (C-SVC, labels ±1) or "
                          "epsilon_insensitive (ε-SVR, real targets: LIBSVM's 2n-variable dual).",
                          choices=("hinge", "epsilon_insensitive"), advanced=True),
        "epsilon": ParamSpec(0.1, "float", "ε — errors smaller than ε cost nothing in the "
                             "ε-insensitive loss (regression only; SVR's epsilon).", low=0.0,
                             high=1e12, ui=(0.0, 1.0), advanced=True,
                             when=("loss", ("epsilon_insensitive",))),
    }
    tasks = ("classification", "regression")
    kernels = POINT_KERNELS + ("precomputed",)

    def __init__(self, **params):
        super().__init__(**params)
        self.regression = self.p["loss"] == "epsilon_insensitive"
    stochastic = False
    kernelized = True
    listing_default = SMO_LISTING.select("shrinking")     # shrinking is on by default

    memory_params = ("cache_mb",)

    def _is_small(self, n) -> bool:
        """Is the problem small enough for the dense Q: at most SMALL_MAX variables, and the
        nv × nv float32 matrix within cache_mb?"""
        nv = 2 * n if self.regression else n
        return nv <= SMALL_MAX and 4 * nv * nv <= self.p["cache_mb"] * 2**20

    def memory_bytes(self, n, d, X=None):
        """The kernel-row cache (float32 rows, at least two, at most cache_mb; with shrinking
        one more byte per entry, which ones a row holds), the transposed copy of X that whole
        rows are computed from (d × n float64, up to TRANSPOSED_MAX) plus O(n) state. ε-SVR:
        the cache holds whole kernel rows of the n points (no marks), the state is 2n
        variables long and two 2n float32 rows of Q̃ are built from the kernel rows."""
        slots = max(2, min(n, int(self.p["cache_mb"] * 2**20 // (4 * n))))
        xt = 0 if self.p["kernel"] == "precomputed" else transposed_bytes(n, d)
        small = self._is_small(n)
        if self.regression:
            q = 16 * n * n + 2 * n if small else 4 * n * slots     # the dense Q̃ or the cache
            return q + 2 * 88 * n + 16 * n + xt
        # a small problem's dense Q (4 n² + n bytes, no row cache beside it) fits within the
        # cache and its marks; without shrinking (no marks) 9 n more (a bound, n would do)
        extra = 9 * n if small and not self.p["shrinking"] else 0
        return (5 if self.p["shrinking"] else 4) * n * slots + 88 * n + xt + extra

    # ---------------------------------------------------------------------------------- setup
    def _setup(self):
        n = self.n
        p = self.p
        if p["kernel"] == "precomputed":
            if self.X.d != n:
                raise ValueError(f"kernel='precomputed': X must be the square n × n kernel "
                                 f"matrix of the training points, got shape ({n}, {self.X.d})")
            if self.X.sparse:                 # kernel rows are read from the dense matrix
                self.X = as_rows(self.X.to_scipy().toarray())
        self.C = p["C"]
        self.lam = lam_from_C(self.C, n)
        self.weights = self.example_weights()
        self.Cv = self.C * self.weights       # per-example box bounds C·w_i (LIBSVM's C_i)
        self.horizon = int(p["max_iter"])
        # the dual's variables: C-SVC one per point (labels y); ε-SVR (LIBSVM's
        # solve_epsilon_svr) α_t and α*_t of every point, y = +1 / −1, p = ε − y_t / ε + y_t
        nv = 2 * n if self.regression else n
        self.eps = float(p["epsilon"]) if self.regression else 0.0   # the tube (ASSET's name)
        if self.regression:
            eps = self.eps
            self.ys = np.concatenate([np.ones(n), -np.ones(n)])
            self.lin = np.concatenate([eps - self.y, eps + self.y])
            self.point = np.concatenate([np.arange(n), np.arange(n)])
            self.Cv = np.concatenate([self.Cv, self.Cv])
        else:
            self.ys, self.lin, self.point = self.y, -np.ones(n), np.arange(n)
        self.nv = nv
        self.alpha = np.zeros(nv)
        self.G = self.lin.copy()              # ∇f(0) = p
        self.Gbar = np.zeros(nv)              # Σ_{α_t = C_t} C_t Q_:t, kept only when shrinking
        X = rows_args(self.X)
        self.ic = np.zeros(N_IC, dtype=np.int64)
        self.ic[IC_PI] = self.ic[IC_PJ] = -1
        self.ic[IC_ASIZE] = nv
        self.ic[IC_COUNTER] = min(nv, 1000) + 1
        self.ic[IC_NK] = n if self.regression else 0
        QD = np.empty(n)
        self.ic[IC_KEVALS] = kernel_diagonal(self.kcode, self.kp, *X, QD)
        self.QD = np.concatenate([QD, QD]) if self.regression else QD
        self.kernel_evals = int(self.ic[IC_KEVALS])
        slots = int(p["cache_mb"] * 2**20 // (4 * n))
        self.small = self._is_small(n)
        if self.small:
            # the dense Q (nv × nv float32) holds every row: no row cache, LRU ring or marks
            # (empty arrays of their types, so the compiled functions keep one signature)
            self.Qd = np.zeros((nv, nv), np.float32)
            self.have = np.zeros(nv, dtype=np.bool_)
            self.slots = nv
            self.cache = np.zeros((0, n), np.float32)
            self.slot_of = self.row_of = self.nxt = self.prev = self.row_state = _NO_SLOTS
            valid = _NO_MARKS
        else:
            self.Qd = np.zeros((0, 0), np.float32)
            self.have = np.zeros(0, dtype=np.bool_)
            self.slots = max(2, min(n, slots))
            if slots < 2:
                self.notes.append(f"cache_mb = {p['cache_mb']:g} holds {max(slots, 0)} kernel "
                                  f"row(s) of n = {n:,}; 2 rows ({8 * n / 2**20:.3g} MB) are "
                                  "kept, the two one step needs")
            self.cache = zeros_small_pages((self.slots, n), np.float32)      # Qfloat
            self.slot_of = np.full(n, -1, dtype=np.int64)
            self.row_of = np.full(self.slots, -1, dtype=np.int64)
            # LRU ring over slots 0..slots-1 with sentinel `slots`: 0 is MRU, slots-1 is LRU
            order = np.arange(self.slots + 1, dtype=np.int64)
            self.nxt = np.roll(order, -1)
            self.prev = np.roll(order, 1)
            self.row_state = np.full(self.slots, -2, dtype=np.int64)
            marks = bool(p["shrinking"]) and not self.regression   # ε-SVR: whole rows only
            valid = zeros_small_pages((self.slots, n) if marks else (0, 0), np.bool_)
        self.allidx = np.arange(nv, dtype=np.int64)
        self.active = np.arange(nv, dtype=np.int64)   # active[:ic[IC_ASIZE]] is the active set
        d = self.X.d
        if transposed_bytes(n, d) and p["kernel"] != "precomputed":
            XT = (self.X.to_scipy().T.toarray() if self.X.sparse else self.X.dense.T)
            XT = np.ascontiguousarray(XT, dtype=np.float64)
        else:
            XT = np.zeros((0, 0))
        self._data = (self.kcode, self.kp, *X, self.ys, self.allidx, XT)
        self._rc = (self.cache, self.slot_of, self.row_of, self.prev, self.nxt, self.row_state,
                    valid, np.empty(nv), np.empty(nv, dtype=np.int64), self.active,
                    np.empty((2, nv)), np.empty(n), np.ones(n), np.arange(n, dtype=np.int64),
                    np.zeros((2, nv if self.regression else 0), np.float32), self.lin)
        self._G_memo = (None, None)

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Run up to n SMO iterations in one compiled call; returns the iterations done
        (fewer when the stopping rule fires or max_iter is reached)."""
        self._require_ready()
        n = min(int(n), self.horizon - self.t)
        if n <= 0 or self.converged:
            return 0
        # membership of I_up / I_low from α as it is now (α may have been set from outside)
        set_all_status(self.alpha, self.Cv, self.ys, self._rc[10])
        args = (self._data, self._rc, self.Cv, self.p["tol"], n, bool(self.p["shrinking"]),
                self.alpha, self.G, self.Gbar, self.QD, self.ic)
        done = small_chunk(self.Qd, self.have, *args) if self.small else _smo_chunk(*args)
        self.t = int(self.ic[IC_T])
        self.kernel_evals = int(self.ic[IC_KEVALS])
        return int(done)

    @property
    def converged(self) -> bool:
        return bool(self._ready and self.ic[IC_CONV])

    @property
    def has_bias(self) -> bool:
        """The constraint yᵀα = 0 comes from the bias: SMO's model always has one."""
        return True

    # ---------------------------------------------------------------------------------- model
    @property
    def active_size(self) -> int:
        """How many variables the working-set scans look at (n unless shrinking set some aside)."""
        return int(self.ic[IC_ASIZE])

    def full_gradient(self) -> np.ndarray:
        """G = Qα + p at every index (p = −e for C-SVC). The maintained G is exact on the
        active set; entries of shrunk variables are stale until LIBSVM's reconstruction, so here
        they are rebuilt into a copy, Ḡ_t + p_t + y_t Σ_{free j} α_j y_j K_tj. Observing a run
        never changes it, and these kernel values are not counted (like predictions)."""
        asize = int(self.ic[IC_ASIZE])
        if asize == self.nv:
            return self.G
        key = (int(self.ic[IC_T]), asize, int(self.ic[IC_GEN]))
        if self._G_memo[0] == key:
            return self._G_memo[1]
        G = self.G.copy()
        inactive = self.active[asize:]
        free = np.flatnonzero((self.alpha > 0.0) & (self.alpha < self.Cv))
        out = np.zeros(inactive.size)
        if free.size:
            expansion(self.kcode, self.kp, self.X.take(self.point[inactive]), self.X,
                      self.point[free], self.alpha[free] * self.ys[free], out)
        G[inactive] = self.Gbar[inactive] + self.lin[inactive] + self.ys[inactive] * out
        self._G_memo = (key, G)
        return G

    @property
    def intercept_(self) -> float:
        return kkt_bias(self.alpha, self.full_gradient(), self.ys, self.Cv)

    def _beta(self) -> np.ndarray:
        """ε-SVR's expansion coefficients β = α − α* of the n points."""
        return self.alpha[:self.n] - self.alpha[self.n:]

    def support_coef(self):
        """C-SVC: the α_t > 0 and y_t α_t; ε-SVR: the points with β_t = α_t − α*_t ≠ 0 (LIBSVM's
        support vectors) and β_t."""
        if self.regression:
            beta = self._beta()
            support = np.flatnonzero(beta != 0.0)
            return support, beta[support], self.intercept_
        support = np.flatnonzero(self.alpha > 0.0)
        return support, self.alpha[support] * self.y[support], self.intercept_

    def rows_like_train(self, X):
        if self.p["kernel"] == "precomputed":
            shape = np.shape(X)
            if len(shape) != 2 or shape[1] != self.n:
                raise ValueError(f"kernel='precomputed': X must hold the kernel values of the "
                                 f"rows against the {self.n} training points, shape (n_samples, "
                                 f"{self.n}); got shape {shape}")
        return super().rows_like_train(X)

    def kernel_block(self, rows, cols) -> np.ndarray:
        if self.p["kernel"] == "precomputed":       # the rows of X are kernel values
            return self.X.to_scipy()[np.asarray(rows)][:, np.asarray(cols)]
        return super().kernel_block(rows, cols)

    def _decision_rows(self, R):
        return self._expansion_rows(R)

    def train_scores(self) -> np.ndarray:
        """f(x_i) on the training set from the gradient, without kernel evaluations
        (ε-SVR: (Kβ)_i = G_i − p_i)."""
        if self.regression:
            return self.full_gradient()[:self.n] - self.lin[:self.n] + self.intercept_
        return self.y * (self.full_gradient() + 1.0) + self.intercept_

    def dual_objective_C(self) -> float:
        """D_C(α) = eᵀα − ½ αᵀQα (from G: αᵀQα = αᵀ(G + e)); ε-SVR: −(½ αᵀQ̃α + pᵀα) =
        −½ αᵀ(G + p) = yᵀβ − ε Σ(α + α*) − ½ βᵀKβ, LIBSVM's −obj."""
        if self.regression:
            return -0.5 * float(self.alpha @ (self.full_gradient() + self.lin))
        aQa = float(self.alpha @ (self.full_gradient() + 1.0))
        return float(self.alpha.sum()) - 0.5 * aQa

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        pair = e.get("working_pair")
        i, j = pair if isinstance(pair, tuple) and len(pair) == 2 else (-1, -1)
        return join_state([
            state_part("last pair (i, j) = ({i}, {j})", i=i, j=j) if i >= 0 else "no pair yet",
            state_part("max violation m − M = {v:.2e} (stops at ≤ {tol:g})",
                       v=e.get("max_violation"), tol=self.p["tol"]),
            state_part("α free {f:,}, at C {b:,}", f=e.get("n_free"), b=e.get("n_bound")),
            state_part("row cache {h:,} hits / {m:,} misses ({s:,} rows)", h=e.get("cache_hits"),
                       m=e.get("cache_misses"), s=e.get("cache_slots")),
            state_part("shrinking: {a:,} of {n:,} variables active", a=e.get("active_size"),
                       n=self.n) if self.p["shrinking"] else None,
        ])

    def snapshot(self) -> Snapshot:
        self._require_ready()
        if self.regression:
            return self._svr_snapshot()
        a, G, y, C = self.alpha, self.full_gradient(), self.y, self.Cv
        b = kkt_bias(a, G, y, C)
        scores = y * (G + 1.0) + b
        wsq = max(float(a @ (G + 1.0)), 0.0)
        obj = primal_objective(scores, y, wsq, lam=self.lam)
        dual = (float(a.sum()) - 0.5 * wsq) / (self.C * self.n)
        support = np.flatnonzero(a > 0.0)
        n_free = int(np.count_nonzero((a > 0.0) & (a < C)))
        return Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals, objective_name="primal L1-SVM, λ-form",
            dual_objective=dual, dual_name=DUAL_NAME, dual_is_bound=True,
            gap=obj - dual, gap_name=GAP_NAME, converged=self.converged,
            coef=self.alpha[support] * self.y[support],
            extra={"working_pair": (int(self.ic[IC_PI]), int(self.ic[IC_PJ])),
                   "max_violation": max_violation(a, G, y, C),
                   "train_error": error_rate(scores, y), "b": b, "lam": self.lam,
                   "n_free": n_free, "n_bound": int(support.size) - n_free,
                   "cache_slots": self.slots, "cache_hits": int(self.ic[IC_HITS]),
                   "cache_misses": int(self.ic[IC_MISSES]), "active_size": self.active_size},
        )

    def _svr_snapshot(self) -> Snapshot:
        """ε-SVR: the primal ½λ‖w‖² + mean max(0, |y − f| − ε) (λ = 1/(C n)) and the dual
        D_C/(C n) ≤ it; the support vectors are the β_t ≠ 0."""
        a, G, C, n = self.alpha, self.full_gradient(), self.Cv, self.n
        b = kkt_bias(a, G, self.ys, C)
        scores = G[:n] - self.lin[:n] + b
        wsq = max(float(a @ (G - self.lin)), 0.0)
        loss = np.maximum(0.0, np.abs(self.y - scores) - float(self.p["epsilon"]))
        obj = 0.5 * self.lam * wsq + float(loss.mean())
        dual = -0.5 * float(a @ (G + self.lin)) / (self.C * n)
        support, coef, _ = self.support_coef()
        n_free = int(np.count_nonzero((a > 0.0) & (a < C)))
        return Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals, objective_name="primal ε-insensitive, λ-form",
            dual_objective=dual, dual_name="dual ε-SVR, λ-form (a lower bound on the optimum)",
            dual_is_bound=True, gap=obj - dual, gap_name=GAP_NAME, converged=self.converged,
            coef=coef,
            extra={"working_pair": (int(self.ic[IC_PI]), int(self.ic[IC_PJ])),
                   "max_violation": max_violation(a, G, self.ys, C),
                   "train_error": float(np.sqrt(np.mean((self.y - scores) ** 2))),
                   "train_error_kind": "rmse", "b": b, "lam": self.lam,
                   "n_free": n_free, "n_bound": int(np.count_nonzero(a >= C)),
                   "cache_slots": self.slots, "cache_hits": int(self.ic[IC_HITS]),
                   "cache_misses": int(self.ic[IC_MISSES]), "active_size": self.active_size},
        )

    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        return self.listing_default if self.p["shrinking"] else SMO_LISTING.select()

    def step_through_state(self) -> dict:
        """α, the gradient G = Qα − e at every index, and the bias b."""
        return {"α": self.alpha.copy(), "G": self.full_gradient().copy(),
                "b": float(self.intercept_)}

    def _step_through_one(self) -> StepThroughRecord:
        """One SMO iteration: the compiled chunk chooses the pair and updates it; the record
        recomputes WSS 2's quantities for that pair in NumPy from the state before (ε-SVR: the
        generic record, the difference of two snapshots)."""
        if self.regression:
            return super()._step_through_one()
        L = self.listing()
        if self.converged:
            return self._idle_record(L.no("stop"), "the stopping test m(α) − M(α) ≤ tol has "
                                     "fired: α is optimal within tol")
        if self.t >= self.horizon:
            return self._idle_record(L.no("loop"), f"max_iter = {self.horizon:,} reached")
        s0 = self.step_through_state()
        a0, G0 = s0["α"], s0["G"]
        y, C, tol = self.y, self.Cv, self.p["tol"]
        v = -y * G0
        up = ((y > 0) & (a0 < C)) | ((y < 0) & (a0 > 0))
        low = ((y > 0) & (a0 > 0)) | ((y < 0) & (a0 < C))
        m0 = float(v[up].max()) if up.any() else -math.inf
        M0 = float(v[low].min()) if low.any() else math.inf
        shrink_now = bool(self.p["shrinking"]) and int(self.ic[IC_COUNTER]) == 1
        gen0 = int(self.ic[IC_GEN])
        t_next = self.t + 1
        done = self.step(1)
        s1 = self.step_through_state()
        q = {"t": t_next, "m": m0, "M": M0, "gap": m0 - M0, "tol": tol,
             "n_up": int(up.sum()), "n_low": int(low.sum()), "active": self.active_size,
             "C": self.C, "b": s1["b"]}
        keys = ["loop", "sets", "pick_i", "stop"]
        if shrink_now:
            keys.append("shrink")
        if int(self.ic[IC_GEN]) != gen0:
            keys.append("unshrink")
        if done == 0:
            keys.append("bias")
            text = (f"m(α) − M(α) = {m0 - M0:.3g} ≤ tol = {tol:g}: the KKT conditions hold "
                    "within tol, SMO stops.")
            return StepThroughRecord(t_before=self.t, t=self.t, lines=L.no(*keys), text=text,
                              changes=state_changes(s0, s1), quantities=q)
        i, j = int(self.ic[IC_PI]), int(self.ic[IC_PJ])
        Kij = self.kernel_block([i, j], [i, j])
        b_ij = float(v[i] - v[j])
        # K_ij as the step read it from the float32 row cache, K_ii from the float64 diagonal
        a_raw = float(self.QD[i] + self.QD[j] - 2.0 * float(np.float32(Kij[0, 1])))
        a_ij = a_raw if a_raw > 0 else TAU
        step = b_ij / a_ij
        a1 = s1["α"]
        dai, daj = float(a1[i] - a0[i]), float(a1[j] - a0[j])
        clipped = not (math.isclose(dai, y[i] * step, rel_tol=1e-9, abs_tol=1e-15 * self.C)
                       and math.isclose(daj, -y[j] * step, rel_tol=1e-9, abs_tol=1e-15 * self.C))
        # f(α) = ½ αᵀ(G − e) ... with G = Qα − e: f = ½ αᵀ(G + e) − eᵀα = ½ αᵀ(G − e)
        f0 = 0.5 * float(a0 @ (G0 - 1.0))
        f1 = 0.5 * float(a1 @ (s1["G"] - 1.0))
        q.update({"i": i, "j": j, "G_i": float(G0[i]), "G_j": float(G0[j]), "b_ij": b_ij,
                  "a_ij": a_ij, "gain": b_ij * b_ij / (2.0 * a_ij), "step": step,
                  "clipped": clipped, "dalpha_i": dai, "dalpha_j": daj,
                  "alpha_i": (float(a0[i]), float(a1[i])),
                  "alpha_j": (float(a0[j]), float(a1[j])), "decrease": f0 - f1,
                  "dual_before": -f0, "dual_after": -f1})
        keys += ["pick_j", "step", "grad", "bias"] + (["clip"] if clipped else [])
        changes = state_changes(s0, s1, skip=("α",))
        changes["α"] = (a0[[i, j]], a1[[i, j]])
        text = (f"t = {self.t}: i = {i} violates most (−y_iG_i = m(α) = {m0:.3g}), "
                f"j = {j} promises the largest decrease b²/(2a) = {q['gain']:.3g} "
                f"(m(α) − M(α) = {m0 - M0:.3g} > tol); α_{i}: {a0[i]:.3g} → {a1[i]:.3g}, "
                f"α_{j}: {a0[j]:.3g} → {a1[j]:.3g}"
                + (" (clipped at the box)" if clipped else "")
                + f", the dual objective falls by {f0 - f1:.3g}.")
        return StepThroughRecord(t_before=self.t - 1, t=self.t, lines=L.no(*keys), text=text,
                          picked=(i, j), changes=changes, quantities=q,
                          roles={"i": (i,), "j": (j,), "updated": (i, j)},
                          index={"α": np.array([i, j])})

    # ------------------------------------------------------------------------ mid-run changes
    #: taken mid-run (``retune``): C. The dual's feasible set scales with C, so α is rescaled by
    #: C_new/C_old (α_i = C_old lands exactly on C_new; yᵀα = 0 and 0 ≤ α ≤ C stay true) and
    #: the gradient G = Qα − e is recomputed from scratch (n·|{α > 0}| kernel values, counted;
    #: with shrinking also Ḡ = C Σ_{α_t = C} Q_:t, and every variable is active again). The
    #: kernel cache stays valid (Q does not depend on C); the stopping test runs again.
    soft_params = ("C",)

    def _retune(self, diff):
        C_old, C = diff["C"]
        n, y, a = self.n, self.ys, self.alpha
        upper = a >= self.Cv
        self.Cv = C * (np.concatenate([self.weights, self.weights]) if self.regression
                       else self.weights)
        a *= C / C_old
        a[upper] = self.Cv[upper]
        np.minimum(a, self.Cv, out=a)
        self.C, self.lam = C, lam_from_C(C, n)
        G = self._expansion_at_train(np.flatnonzero(a > 0.0), a)
        self.G[:] = y * G[self.point] + self.lin
        if self.p["shrinking"]:
            at_c = np.flatnonzero(a >= self.Cv)
            self.Gbar[:] = y * self._expansion_at_train(at_c, self.Cv)[self.point]
            self.ic[IC_ASIZE] = self.nv
            self.ic[IC_GEN] += 1
            self.ic[IC_UNSHRUNK] = 0
        self.ic[IC_CONV] = 0
        self.kernel_evals = int(self.ic[IC_KEVALS])
        self._G_memo = (None, None)

    def _expansion_at_train(self, idx, coef) -> np.ndarray:
        """Σ_{j ∈ idx} coef_j y_j K(x_i, x_{point j}) over variables j at every training point i
        (counted as training kernel evaluations)."""
        out = np.zeros(self.n)
        if idx.size:
            expansion(self.kcode, self.kp, self.X, self.X, self.point[idx],
                      coef[idx] * self.ys[idx], out)
            self.ic[IC_KEVALS] += self.n * idx.size
        return out
