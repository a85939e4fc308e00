r"""Stochastic Frank-Wolfe (SFW) and SFW with away steps (MSFW) for the L2-SVM (Ouyang & Gray 2010).

Maximises the dual (aD) of the L2-SVM with a regularised bias (the core-vector-machine form)

    max_α  f(α) = −αᵀAα     s.t.  Σ_i α_i = 1,  α_i ≥ 0,
    A = K∘yyᵀ + yyᵀ + I/(2C),    A_ij = y_i y_j (K_ij + 1) + δ_ij/(2C),

a concave quadratic over the unit simplex, by Frank-Wolfe steps with exact line search. The
gradient g = ∇f = −2Aα is kept for the working set S only (eq. 3.8):

    g_p = −2 y_p Σ_{m∈S} y_m α_m (K_pm + 1) − α_p / C.

Iteration k (paper Algorithm 1) is fed the next sample x_k of the stream: if x_k ∉ S its g_k is
computed (one kernel row against S, α_k = 0) and x_k joins S when g_k ≥ max_{p∈S} g_p. Then

* TOWARD (Algorithm 2, SFW): p* = argmax_{p∈S} g_p (the new sample when it joined), d = e(p*) − α,
  λ = clamp((q + g_p*/2) / (q + g_p* + A_p*p*), [0, 1])   (eq. 3.9, q = αᵀAα),
  q ← (1−λ)² q − λ(1−λ) g_p* + λ² A_p*p*                   (eq. 3.10),
  g_p ← (1−λ) g_p − 2λ A_p p*  for p ∈ S,   α ← (1−λ) α + λ e(p*);
* DECIDESTEP (Algorithm 3, MSFW): TOWARD if d_tᵀ∇f ≥ d_aᵀ∇f, i.e. g_p* + g_pa + 4q ≥ 0, else
  AWAY (Algorithm 4) from p_a = argmin g_p over the support: d = α − e(p_a),
  λ = clamp(−(q + g_pa/2) / (q + g_pa + A_pa pa), [0, α_pa/(1 − α_pa)]),
  q ← (1+λ)² q + λ(1+λ) g_pa + λ² A_pa pa,  g_p ← (1+λ) g_p + 2λ A_p pa,  α ← (1+λ) α − λ e(p_a).

α is stored as α = c·β with a running product c (paper Sec. 3.2): a step rescales c in O(1) and
changes one β entry. The bias is b = yᵀα. Cost per iteration: at most two kernel rows of length
|S| (the new sample's, and the chosen vertex's when that is another point).

Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/sfw.md``.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import njit
from .feature_maps import kernel_diag_max
from .kernels import (MATMUL_MIN_EVALS, expansion_by_matmul, finish_row, gathered_row,
                       kernel_expansion, kernel_row, kernel_value, rows_args)
from .objectives import error_rate
from .base import (AVERAGING_SPEC, COEF0_SPEC, DEGREE_SPEC, GAMMA_SPEC, KERNEL_SPEC, Line,
                   Listing, ParamSpec, SampleStream, Snapshot, Solver, StepThroughRecord,
                   averaging_start, data_bytes, join_state, state_changes, state_part)

# float state slots (`sc`)
_C, _Q, _LAM, _BSUM, _NAVG = 0, 1, 2, 3, 4
_NSC = 5
# int state slots (`ic`)
_T, _KEVALS, _NS, _VERTEX, _AWAY, _NAWAY, _NDROP, _ADDED = 0, 1, 2, 3, 4, 5, 6, 7
_NIC = 8

_C_LO, _C_HI = 1e-100, 1e100
#: the dense transposed copy of a CSR working set (SFWSolver.BT) is kept up to d·n ≤ BT_MAX values
#: (256 MB: w8a, 300 × 49,749, takes 119 MB)
BT_MAX = 1 << 25
_Q_NOISE = 1e-10        # q below this × max A_pp is rounding noise (see SFWSolver._check_q)


@njit
def _renorm(betaS, ns, sc):
    """Fold the scale c into β (α = c·β is unchanged; so is the averaged sum U + B·β)."""
    c = sc[_C]
    for m in range(ns):
        betaS[m] *= c
    sc[_BSUM] /= c
    sc[_C] = 1.0


@njit
def _append_row(Xd, Xdata, Xind, Xptr, Xsq, sparse, i, Bd, Bdata, Bind, Bptr, Bsq, m, BT):
    """Copy training row i into slot m of the compact working-set matrix B (and, with a
    transposed block BT of d × n, into its column m)."""
    Bsq[m] = Xsq[i]
    if not sparse and BT.shape[1] > 0:
        for f in range(Xd.shape[1]):
            BT[f, m] = Xd[i, f]
    if sparse:
        p0 = Bptr[m]
        with_bt = BT.shape[1] > 0
        for p in range(Xptr[i], Xptr[i + 1]):
            Bdata[p0] = Xdata[p]
            Bind[p0] = Xind[p]
            if with_bt:
                BT[Xind[p], m] = Xdata[p]
            p0 += 1
        Bptr[m + 1] = p0
    else:
        for f in range(Xd.shape[1]):
            Bd[m, f] = Xd[i, f]


@njit
def _dense_gathered_row(code, kp, Ad, Asq, i, BT, Bsq, m, out):
    """out[k] = k(A_i, b_k) for k < m, for a dense row A_i and the working set held as the
    columns of BT (d × ≥ m): Σ over A_i's nonzero features f of A_if · BT[f, :m], each a
    contiguous loop over the working set that LLVM vectorises (the dense counterpart of
    :func:`~svmcore.solvers.kernels.gathered_row`; features added in ascending order)."""
    d = Ad.shape[1]
    fi = np.empty(d, dtype=np.int64)
    nz = 0
    for f in range(d):
        if Ad[i, f] != 0.0:
            fi[nz] = f
            nz += 1
    for k in range(m):
        out[k] = 0.0
    # four features a pass (a quarter of the passes over ``out``), added in the same order
    p = 0
    while p + 4 <= nz:
        a0, a1, a2, a3 = Ad[i, fi[p]], Ad[i, fi[p + 1]], Ad[i, fi[p + 2]], Ad[i, fi[p + 3]]
        c0, c1, c2, c3 = BT[fi[p]], BT[fi[p + 1]], BT[fi[p + 2]], BT[fi[p + 3]]
        for k in range(m):
            out[k] = (((out[k] + a0 * c0[k]) + a1 * c1[k]) + a2 * c2[k]) + a3 * c3[k]
        p += 4
    while p < nz:
        a = Ad[i, fi[p]]
        col = BT[fi[p]]
        for k in range(m):
            out[k] += a * col[k]
        p += 1
    return finish_row(code, kp, Asq[i], Bsq, out, m)


@njit
def _fw_chunk(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, Bd, Bdata, Bind, Bptr, Bsq, BT,
              y, idx, n_steps, inv2C, away, Sidx, pos, yS, betaS, gS, arange, rowi, rowp, sc, ic,
              flog, t_avg0, Uavg, Gsum):
    """n_steps SFW (away=False) or MSFW (away=True) iterations; sample idx[s] feeds step s.

    B holds the rows of the working set in the order they joined (slot m = training row
    Sidx[m]), so a kernel row against S reads memory sequentially; for CSR rows BT (d × n,
    or 0 × 0 when not kept) holds the same rows as columns of a dense block, and a kernel row
    against S is :func:`~svmcore.solvers.kernels.gathered_row` (~5× faster on a9a). If ``flog`` has n_steps
    entries, flog[s] receives f(α) = −q after step s. From iteration t_avg0 on, the sum of the
    iterates Σ_t α_t is kept as Uavg + B·β (B = Σ_t c_t in sc[_BSUM]): a change δ of one β entry
    costs Uavg[m] −= B·δ, so averaging stays O(1) per step. Gsum[m] keeps Σ_t g_m(t) over
    the same window (g is linear in α: its mean is the gradient at the mean iterate, so
    ρ̄ = ᾱᵀAᾱ = −½ ᾱᵀḡ costs O(|S|)); a sample joining S inside the window starts from
    Σ_t g_i(t) = −2 y_i Σ_m y_m (K_im + 1) Σ_t α_m(t), read off its new kernel row."""
    keep_log = flog.shape[0] >= n_steps
    for s in range(n_steps):
        i = idx[s]
        ns = ic[_NS]
        c = sc[_C]
        q = sc[_Q]
        added = False
        # ---- 1. the new sample: g_i and the working-set test (Algorithm 1, lines 4-9)
        if pos[i] < 0:
            if BT.shape[1] > 0 and not sparse:
                _dense_gathered_row(code, kp, Xd, Xsq, i, BT, Bsq, ns, rowi)
            elif BT.shape[1] > 0:
                gathered_row(code, kp, Xdata, Xind, Xptr, Xsq, i, BT, Bsq, ns, rowi)
            else:
                kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                           Bd, Bdata, Bind, Bptr, Bsq, arange[:ns], rowi)
            ic[_KEVALS] += ns
            acc = 0.0
            gmax = -np.inf
            for m in range(ns):
                acc += yS[m] * betaS[m] * (rowi[m] + 1.0)
                if gS[m] > gmax:
                    gmax = gS[m]
            gi = -2.0 * y[i] * c * acc               # α_i = 0
            if gi >= gmax:
                if sc[_NAVG] > 0.0:              # Σ_t g_i(t) over the window so far
                    acc = 0.0
                    bsum = sc[_BSUM]
                    for m in range(ns):
                        acc += yS[m] * (Uavg[m] + bsum * betaS[m]) * (rowi[m] + 1.0)
                    Gsum[ns] = -2.0 * y[i] * acc
                else:
                    Gsum[ns] = 0.0
                Sidx[ns] = i
                pos[i] = ns
                yS[ns] = y[i]
                betaS[ns] = 0.0
                gS[ns] = gi
                _append_row(Xd, Xdata, Xind, Xptr, Xsq, sparse, i, Bd, Bdata, Bind, Bptr, Bsq,
                            ns, BT)
                rowi[ns] = kernel_value(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                                        Xd, Xdata, Xind, Xptr, Xsq, i)
                ic[_KEVALS] += 1
                ns += 1
                ic[_NS] = ns
                added = True
        # ---- 2. toward vertex p* = argmax_S g (the new sample if it joined)
        if added:
            mt = ns - 1
        else:
            mt = 0
            for m in range(1, ns):
                if gS[m] > gS[mt]:
                    mt = m
        # ---- 3. DECIDESTEP (MSFW): away vertex = argmin of g over the support
        do_away = False
        ma = -1
        if away:
            for m in range(ns):
                if betaS[m] > 0.0 and (ma < 0 or gS[m] < gS[ma]):
                    ma = m
            if ma >= 0 and c * betaS[ma] < 1.0:
                # d_tᵀ∇f = g_t − αᵀg, d_aᵀ∇f = αᵀg − g_a, αᵀg = −2q
                if not (gS[mt] + 2.0 * q >= -2.0 * q - gS[ma]):
                    do_away = True
        mv = ma if do_away else mt
        p = Sidx[mv]
        # ---- 4. kernel row of the vertex against S
        if added and mv == ns - 1:
            row = rowi
        elif BT.shape[1] > 0 and not sparse:
            _dense_gathered_row(code, kp, Bd, Bsq, mv, BT, Bsq, ns, rowp)
            ic[_KEVALS] += ns
            row = rowp
        elif BT.shape[1] > 0:
            gathered_row(code, kp, Bdata, Bind, Bptr, Bsq, mv, BT, Bsq, ns, rowp)
            ic[_KEVALS] += ns
            row = rowp
        else:
            kernel_row(code, kp, Bd, Bdata, Bind, Bptr, Bsq, sparse, mv,
                       Bd, Bdata, Bind, Bptr, Bsq, arange[:ns], rowp)
            ic[_KEVALS] += ns
            row = rowp
        yp = yS[mv]
        gp = gS[mv]
        dv = inv2C[Sidx[mv]]                          # A's diagonal term 1/(2C·w_p)
        App = row[mv] + 1.0 + dv
        den = q + gp + App                            # dᵀAd ≥ 0
        if not do_away:
            # ---- TOWARD (Algorithm 2)
            lam = (q + 0.5 * gp) / den if den > 0.0 else 0.0
            if lam < 0.0:
                lam = 0.0
            elif lam > 1.0:
                lam = 1.0
            om = 1.0 - lam
            sc[_Q] = om * om * q - lam * om * gp + lam * lam * App
            tl = 2.0 * lam
            for m in range(ns):
                gS[m] = om * gS[m] - tl * yS[m] * yp * (row[m] + 1.0)
            gS[mv] -= tl * dv
            cn = om * c
            bsum = sc[_BSUM]
            if cn == 0.0:
                for m in range(ns):
                    Uavg[m] += bsum * betaS[m]
                    betaS[m] = 0.0
                betaS[mv] = 1.0
                Uavg[mv] -= bsum
                sc[_C] = 1.0
            else:
                betaS[mv] += lam / cn
                Uavg[mv] -= bsum * (lam / cn)
                sc[_C] = cn
        else:
            # ---- AWAY (Algorithm 4)
            ap = c * betaS[mv]
            lmax = ap / (1.0 - ap)
            lam = -(q + 0.5 * gp) / den if den > 0.0 else 0.0
            drop = False
            if lam < 0.0:
                lam = 0.0
            elif lam >= lmax:
                lam = lmax
                drop = True
            op = 1.0 + lam
            sc[_Q] = op * op * q + lam * op * gp + lam * lam * App
            tl = 2.0 * lam
            for m in range(ns):
                gS[m] = op * gS[m] + tl * yS[m] * yp * (row[m] + 1.0)
            gS[mv] += tl * dv
            cn = op * c
            bold = betaS[mv]
            if drop:
                betaS[mv] = 0.0
                ic[_NDROP] += 1
            else:
                betaS[mv] -= lam / cn
                if betaS[mv] < 0.0:
                    betaS[mv] = 0.0
            Uavg[mv] -= sc[_BSUM] * (betaS[mv] - bold)
            sc[_C] = cn
            ic[_NAWAY] += 1
        if sc[_C] < _C_LO or sc[_C] > _C_HI:
            _renorm(betaS, ns, sc)
        sc[_LAM] = lam
        ic[_VERTEX] = p
        ic[_AWAY] = 1 if do_away else 0
        ic[_ADDED] = 1 if added else 0
        ic[_T] += 1
        if ic[_T] >= t_avg0:
            sc[_BSUM] += sc[_C]
            sc[_NAVG] += 1.0
            for m in range(ns):
                Gsum[m] += gS[m]
        if keep_log:
            flog[s] = -sc[_Q]
    return n_steps


# --------------------------------------------------------------------------- pseudocode

_SYMBOLS = {"i": "x_k", "g_k": "g_k", "g_max": "max_{p∈S} g_p", "vertex": "p*",
            "g_p": "g_p*", "A_pp": "A_p*p*", "lam_raw": "line-search λ (unclamped)",
            "lam": "λ*", "lam_max": "upper bound of λ", "q": "q = αᵀAα", "dt": "d_tᵀ∇f(α)",
            "da": "d_aᵀ∇f(α)", "away_vertex": "p_a", "toward_vertex": "p*", "S": "|S|",
            "f": "f(α) = −q"}
_STEP_NOTE = ("Exact line search: f is a concave quadratic along the direction, so its "
              "maximiser is a ratio of two numbers the solver already has (q, g_p, A_pp).")

FW_LISTING = Listing("Ouyang & Gray (2010), Algorithm 1 (SFW) with Algorithm 2 (TOWARD)", (
    Line("init", "1–2: p*₀ = rand(),  q = A_p*₀p*₀,  α = e(p*₀),  S = {p*₀},  update g",
         "Start at a vertex of the unit simplex: all weight on one random point."),
    Line("loop", "3: for k = 1, 2, … do", "One new sample of the stream per iteration "
         "(epoch-wise random permutations).", ("t",)),
    Line("sample", "4:   sample {x_k, y_k};  g_k = −2 y_k Σ_{m∈S} y_m α_m (K_km + 1)   (eq. 3.8)",
         "The gradient of f(α) = −αᵀAα at the new point's coordinate (α_k = 0 there): how "
         "much moving weight onto x_k would raise f.", ("i", "g_k")),
    Line("join", "5–6:   if g_k ≥ max_{p∈S} g_p:  S ← S ∪ {k}",
         "The new sample joins the working set only if it is the best vertex to move "
         "toward.", ("g_max",)),
    Line("nojoin", "7–8:   else S unchanged   (x_k already in S: its g_k is kept up to date)",
         "The working set S holds every point that ever had weight; it never shrinks."),
    Line("call", "10:  TOWARD", "The Frank-Wolfe step (Algorithm 2).", when="!away"),
    Line("call", "10:  DECIDESTEP   (MSFW: Algorithm 3 replaces TOWARD)",
         "With away steps the solver can also take weight off a bad vertex.", when="away"),
    Line("decide", "  DECIDESTEP 1: if d_tᵀ∇f(α) ≥ d_aᵀ∇f(α),  d_t = e(p*) − α,  "
         "d_a = α − e(p_a),  p_a = argmin_{p∈S, α_p>0} g_p",
         "Compare the slopes: moving toward the best vertex, or away from the worst "
         "vertex that has weight. The steeper one is taken.", ("dt", "da"), when="away"),
    Line("toward", "  DECIDESTEP 2:   TOWARD", "The toward slope is at least as steep.",
         when="away"),
    Line("t1", "  TOWARD 1: p* = argmax_{p∈S} g_p",
         "The simplex vertex e(p*) that maximises the linearised objective: the "
         "Frank-Wolfe direction is d = e(p*) − α.", ("vertex", "g_p")),
    Line("t2", "  TOWARD 2: λ* = Clamp{(q + g_p*/2)/(q + g_p* + A_p*p*), [0, 1]}   (eq. 3.9)",
         _STEP_NOTE + " λ* ∈ [0, 1] keeps α on the simplex.", ("lam_raw", "lam", "A_pp")),
    Line("t3", "  TOWARD 3: q ← (1−λ*)² q − λ*(1−λ*) g_p* + λ*² A_p*p*   (eq. 3.10)",
         "q = αᵀAα is updated in O(1); f(α) = −q.", ("q",)),
    Line("t5", "  TOWARD 4–5: g_p ← (1−λ*) g_p − 2λ* A_pp*   for p ∈ S",
         "One kernel row of p* against S updates the gradient."),
    Line("t7", "  TOWARD 7: α ← (1−λ*) α + λ* e(p*)",
         "Every weight shrinks, p* gains λ*: kept as α = c·β, so this is O(1)."),
    Line("away", "  DECIDESTEP 4: else AWAY", "Taking weight off p_a raises f faster: "
         "this is what lets MSFW converge linearly.", when="away"),
    Line("a1", "  AWAY 1: p = argmin_{p∈S, α_p>0} g_p", "The vertex with weight that hurts "
         "f the most.", ("away_vertex", "g_p"), when="away"),
    Line("a2", "  AWAY 2: λ = Clamp{−(q + g_p/2)/(q + g_p + A_pp), [0, α_p/(1 − α_p)]}",
         _STEP_NOTE + " The upper bound keeps α_p ≥ 0.", ("lam_raw", "lam", "lam_max"),
         when="away"),
    Line("a3", "  AWAY 3: q ← (1+λ)² q + λ(1+λ) g_p + λ² A_pp", "q = αᵀAα in O(1), "
         "as in TOWARD 3 with the opposite direction.", ("q",), when="away"),
    Line("a5", "  AWAY 4–5: g_p' ← (1+λ) g_p' + 2λ A_p'p   for p' ∈ S", "One kernel row of p "
         "against S updates the gradient.", when="away"),
    Line("a7", "  AWAY 7: α ← (1+λ) α − λ e(p)", "Weight moves from p to all the others "
         "in proportion.", when="away"),
    Line("drop", "  (λ = α_p/(1 − α_p): α_p becomes 0 — a drop step)",
         "The line search hit the bound: the vertex leaves the support.", when="away"),
    Line("bias", "12: b = yᵀα;   f(x) = (Σ_m α_m y_m K(x_m, x) + b)/ρ,  ρ = q",
         "The bias comes from the Lagrangian; dividing by ρ = q puts the margins at ±1 "
         "(the usual L2-SVM)."),
), symbols=_SYMBOLS)


def _epochs_spec(default):
    return ParamSpec(default, "float", "epochs — how many passes over the data the run plans: "
                     "⌈epochs·n⌉ iterations, one new sample each (fractions allowed). The paper "
                     "runs 1 or 2.",
                     low=0.0, low_open=True, high=1e4, ui=(0.1, 20.0), log=True)


class SFWSolver(Solver):
    __doc__ = __doc__
    name = "sfw"
    #: example weights: the L2-SVM's diagonal term per example, A_ii = y_i²(K_ii + 1) + 1/(2C·w_i)
    weighting = "per-example diagonal 1/(2C·w_i) of the L2-SVM dual"
    title = "Stochastic Frank-Wolfe (SFW)"
    paper = ("Ouyang & Gray (2010), Fast Stochastic Frank-Wolfe Algorithms for Nonlinear SVMs, "
             "SIAM SDM")
    formulation = (r"\max_{\alpha}\ -\alpha^\top A\alpha\quad\text{s.t. }"
                   r"\textstyle\sum_i\alpha_i=1,\ \alpha\ge0,\qquad "
                   r"A=K\circ yy^\top+yy^\top+\tfrac{1}{2C}I")
    update_rule = (r"p^*=\arg\max_{p\in S} g_p,\quad \lambda=\mathrm{clamp}_{[0,1]}"
                   r"\frac{q+g_{p^*}/2}{q+g_{p^*}+A_{p^*p^*}},\quad "
                   r"\alpha\leftarrow(1-\lambda)\alpha+\lambda e_{p^*},\quad "
                   r"g_p\leftarrow(1-\lambda)g_p-2\lambda A_{pp^*}")
    away: bool = False
    params = {
        "C": ParamSpec(1.0, "float", "C — how much a margin violation costs in the L2-SVM "
                       "(squared hinge; Ouyang & Gray: A = K∘yyᵀ + yyᵀ + I/(2C)). Not the "
                       "L1-SVM's C: the paper's Table 2 uses different values.",
                       low=1e-12, high=1e12, ui=(1e-3, 1e3), log=True),
        "kernel": KERNEL_SPEC,
        "gamma": GAMMA_SPEC,
        "degree": DEGREE_SPEC,
        "coef0": COEF0_SPEC,
        "epochs": _epochs_spec(2.0),
        "averaging": AVERAGING_SPEC,
    }
    kernelized = True
    stochastic = True
    listing_default = FW_LISTING.select()
    record_dual = False     # set True to keep f(α) after every iteration in ``dual_trace``

    # ---------------------------------------------------------------------------------- setup
    def _setup(self):
        n = self.n
        self.weights = self.example_weights()
        if np.any(self.weights <= 0.0):
            raise ValueError(f"{self.name}: sample weights must be > 0 (the L2-SVM's diagonal "
                             "term is 1/(2C·w_i))")
        self.inv2C = 1.0 / (2.0 * self.p["C"] * self.weights)   # per example: C·w_i
        p = self.p
        with np.errstate(over="ignore", invalid="ignore"):
            self.app_max = kernel_diag_max(self.X.sqnorm, p["kernel"], p["gamma"], p["coef0"],
                                           p["degree"]) + 1.0 + float(self.inv2C.max())
        self.horizon = max(1, math.ceil(self.p["epochs"] * n))
        self.stream = SampleStream(n, self.seed, "permutation")   # weights act through A
        self.t_avg0 = averaging_start(self.p["averaging"], self.horizon)
        self.Uavg = np.zeros(n)
        self.Gsum = np.zeros(n)
        self._qbar = None
        self.Sidx = np.zeros(n, dtype=np.int64)
        self.pos = -np.ones(n, dtype=np.int64)
        self.yS = np.zeros(n)
        self.betaS = np.zeros(n)
        self.gS = np.zeros(n)
        self.arange = np.arange(n, dtype=np.int64)
        R = self.X
        if R.sparse:
            self.B = (R.dense, np.zeros_like(R.data), np.zeros_like(R.indices),
                      np.zeros_like(R.indptr), np.zeros(n))
        else:
            self.B = (np.zeros_like(R.dense), R.data, R.indices, R.indptr, np.zeros(n))
        # CSR rows: the working set also as columns of a dense d × n block (BT), from which a
        # kernel row is a few vectorised passes (see _fw_chunk) — when d is small enough that
        # the block stays within BT_MAX values (a9a: 123 × 32,561, 32 MB; high-dimensional
        # text data keeps the pairwise rows)
        # (dense rows too: the working set's columns are read contiguously, not row by row)
        self.BT = (np.zeros((R.d, n)) if R.d * n <= BT_MAX else np.zeros((0, 0)))
        self.rowi = np.zeros(n + 1)
        self.rowp = np.zeros(n + 1)
        self.sc = np.zeros(_NSC)
        self.ic = np.zeros(_NIC, dtype=np.int64)
        # Algorithm 1, lines 1-2: α = e(p0), q = A_p0p0, g_p0 = −2 A_p0p0
        p0 = int(np.random.default_rng([self.seed, 1]).integers(n))
        X = rows_args(self.X)
        k00 = kernel_value(self.kcode, self.kp, *X, p0, *X[:5], p0)
        _append_row(*X, p0, *self.B, 0, self.BT)
        a00 = k00 + 1.0 + self.inv2C[p0]
        self.Sidx[0] = p0
        self.pos[p0] = 0
        self.yS[0] = self.y[p0]
        self.betaS[0] = 1.0
        self.gS[0] = -2.0 * a00
        self.sc[_C] = 1.0
        self.sc[_Q] = a00
        self.sc[_LAM] = 1.0
        self.ic[_NS] = 1
        self.ic[_KEVALS] = 1
        self.ic[_VERTEX] = p0
        self.ic[_ADDED] = 1
        self.p0 = p0
        self.kernel_evals = 1
        self._snap_cache = None
        self.dual_trace: list[np.ndarray] = []
        self._check_q()

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Run n iterations (n samples fed) in one compiled call; returns the iterations done."""
        self._require_ready()
        n = int(n)
        if n <= 0 or self.diverged:
            return 0
        return self._advance(self.stream.take(n), n)

    def _advance(self, idx: np.ndarray, n: int) -> int:
        """n iterations fed the samples ``idx``, in one compiled call."""
        flog = np.empty(n if self.record_dual else 0)
        _fw_chunk(self.kcode, self.kp, *rows_args(self.X), *self.B, self.BT, self.y, idx, n,
                  self.inv2C, self.away, self.Sidx, self.pos, self.yS, self.betaS, self.gS,
                  self.arange, self.rowi, self.rowp, self.sc, self.ic, flog, self.t_avg0,
                  self.Uavg, self.Gsum)
        if self.record_dual:
            self.dual_trace.append(flog)
        self.t = int(self.ic[_T])
        self.kernel_evals = int(self.ic[_KEVALS])
        self._snap_cache = None
        self._qbar = None
        self._check_q()
        return n

    def _check_q(self):
        """Stop the run when q = αᵀAα or the gradient is no longer a positive finite number
        (the line search λ = (q + g/2)/(q + g + A_pp) then overflows or divides 0 by 0), or when
        q has fallen below the rounding error of its own updates: eq. 3.10 adds terms of size
        A_pp, so a q under 1e-10·max A_pp is noise (features × 1e50 with a linear kernel: the
        maintained q was 2.8e83 where αᵀAα is −1.8e83 … and the model 74 % instead of 85 %)."""
        q = self.sc[_Q]
        ok = q > 0.0 and np.isfinite(q) and np.all(np.isfinite(self.gS[:self.ic[_NS]]))
        if ok and q >= _Q_NOISE * self.app_max:
            return
        why = ("is not a positive finite number" if not ok else
               f"is below the rounding error of its updates ({_Q_NOISE:g} × max A_pp = "
               f"{_Q_NOISE * self.app_max:.3g})")
        self._mark_diverged(
            f"q = αᵀAα = {q:.3g} {why}: it lost its precision in the line search (kernel values "
            "too large for float64 next to 1/(2C))",
            "Scale the features (e.g. StandardScaler), or use a smaller gamma, degree, coef0 "
            "or C.")

    @staticmethod
    def _scale(q: float) -> float:
        """ρ = q for the ±1-margin model; 1 if q lost its precision (a diverged run)."""
        return q if (q > 0.0 and np.isfinite(q)) else 1.0

    @property
    def has_bias(self) -> bool:
        """The (regularised) bias b = yᵀα is part of the L2-SVM solved here."""
        return True

    @property
    def converged(self) -> bool:
        """The paper's stopping rule for the stochastic algorithms: the planned epochs are done."""
        return bool(self._ready and self.t >= self.horizon)

    # ---------------------------------------------------------------------------------- model
    @property
    def working_set(self) -> np.ndarray:
        """Training indices in S, in the order they joined."""
        return self.Sidx[:int(self.ic[_NS])].copy()

    @property
    def alpha(self) -> np.ndarray:
        """The (aD) variable α over all n training points (sums to 1)."""
        ns = int(self.ic[_NS])
        a = np.zeros(self.n)
        a[self.Sidx[:ns]] = self.sc[_C] * self.betaS[:ns]
        return a

    @property
    def gradient(self) -> np.ndarray:
        """The maintained g = −2Aα on the working set, aligned with :attr:`working_set`."""
        return self.gS[:int(self.ic[_NS])].copy()

    @property
    def q(self) -> float:
        """q = αᵀAα as maintained by eq. 3.10 / Algorithm 4 line 3."""
        return float(self.sc[_Q])

    @property
    def dual_value(self) -> float:
        """f(α) = −q, the (aD) objective as the solver tracks it (no kernel evaluations)."""
        return -float(self.sc[_Q])

    @property
    def averaging_active(self) -> bool:
        """True once the averaging window has started (the model is then the mean iterate)."""
        return bool(self.sc[_NAVG] > 0)

    def _slot_alpha(self, last: bool = False) -> np.ndarray:
        """α of the reported model per working-set slot: the mean of the iterates in the
        averaging window once it has started (unless ``last``), else the last iterate c·β."""
        ns = int(self.ic[_NS])
        if self.averaging_active and not last:
            a = (self.Uavg[:ns] + self.sc[_BSUM] * self.betaS[:ns]) / self.sc[_NAVG]
            return np.maximum(a, 0.0)                 # rounding may leave −1e-20 for α = 0
        return self.sc[_C] * self.betaS[:ns]

    @property
    def model_alpha(self) -> np.ndarray:
        """α of the reported model over all n training points (sums to 1): :attr:`alpha`, or
        its average over the averaging window."""
        ns = int(self.ic[_NS])
        a = np.zeros(self.n)
        a[self.Sidx[:ns]] = self._slot_alpha()
        return a

    def _raw_support(self, positions=False, last=False):
        """(training indices, y_m α_m) of the reported model's support (of the last iterate
        with ``last``), in working-set order; with ``positions`` also their slots in the
        compact matrix B."""
        ns = int(self.ic[_NS])
        a = self._slot_alpha(last)
        keep = np.flatnonzero(a > 0.0)
        a = a[keep]
        if positions:
            return self.Sidx[:ns][keep], a * self.yS[:ns][keep], keep
        return self.Sidx[:ns][keep], a * self.yS[:ns][keep]

    def _expansion(self, R, coef, pos, out):
        """out[i] = Σ_m coef[m] k(R_i, x_S[pos[m]]), reading the support rows from B (in
        working-set order, so sequentially) rather than scattered over X; large evaluations
        (a whole test set) by matrix products instead."""
        if pos.size and R.n * pos.size >= MATMUL_MIN_EVALS:
            expansion_by_matmul(self.kcode, self.kp, R, self.X, self.Sidx[pos], coef, out)
        elif pos.size:
            kernel_expansion(self.kcode, self.kp, *rows_args(R), *self.B,
                             np.ascontiguousarray(pos, dtype=np.int64),
                             np.ascontiguousarray(coef), out)
        return out

    def _model_q(self, last: bool = False) -> float:
        """ρ = αᵀAα of the reported model: the maintained q for the last iterate; for the
        averaged ᾱ, −½ ᾱᵀḡ with ḡ the mean of the maintained gradients over the window (g is
        linear in α), O(|S|) — no kernel evaluation."""
        if last or not self.averaging_active:
            return self._scale(self.sc[_Q])
        if self._qbar is None:
            ns = int(self.ic[_NS])
            gbar = self.Gsum[:ns] / self.sc[_NAVG]
            self._qbar = self._scale(-0.5 * float(self._slot_alpha() @ gbar))
        return self._qbar

    @property
    def intercept_(self) -> float:
        _, ya = self._raw_support()
        return float(ya.sum()) / self._model_q()

    def support_coef(self):
        """(support indices, y_m α_m / ρ, yᵀα / ρ): the L2-SVM model with margins at ±1."""
        support, ya = self._raw_support()
        q = self._model_q()
        return support, ya / q, float(ya.sum()) / q

    def _decision_rows(self, R, last: bool = False):
        _, ya, pos = self._raw_support(positions=True, last=last)
        q = self._model_q(last)
        out = self._expansion(R, ya / q, pos, np.zeros(R.n))
        return out + float(ya.sum()) / q

    def _last_rows(self, R):
        return self._decision_rows(R, last=True)

    def full_gradient(self, model: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(g, h): g = −2Aα on every training point and the raw scores h = Σ α_m y_m k + yᵀα,
        computed from scratch (n·|support| kernel evaluations, not counted). α is the last
        iterate, or with ``model=True`` the reported (possibly averaged) α."""
        ns = int(self.ic[_NS])
        if model:
            _, ya, pos = self._raw_support(positions=True)
            alpha = self.model_alpha
        else:
            a = self.sc[_C] * self.betaS[:ns]
            pos = np.flatnonzero(a > 0.0)
            ya = a[pos] * self.yS[:ns][pos]
            alpha = self.alpha
        h = self._expansion(self.X, ya, pos, np.zeros(self.n))
        h += ya.sum()
        g = -2.0 * self.y * h - alpha / (self.p["C"] * self.weights)
        return g, h

    def memory_bytes(self, n, d, X=None):
        """The compact copy B of the working-set rows (at most all n), its dense transposed
        copy BT when d·n ≤ BT_MAX, and ten length-n arrays (S, positions, labels,
        β, g, the averaging sums, two kernel rows, …)."""
        bt = 8 * d * n if d * n <= BT_MAX else 0
        return data_bytes(n, d, X) + bt + 96 * n

    def trace_row(self, rows):
        """(f(α) = −ρ of the reported model (maintained, O(|S|)), training error on the rows
        ``rows``, support size)."""
        self._require_ready()
        scores = self._decision_rows(self._rows_of(rows))
        return (-self._model_q(), error_rate(scores, self.y[rows]),
                int(self._raw_support()[0].size))

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        step = e.get("step")
        return join_state([
            state_part("working set |S| = {s:,}", s=e.get("working_set_size")),
            state_part("last step: {kind} vertex {v} with λ = {lam:.2e}{new}", kind=step,
                       v=e.get("vertex"), lam=e.get("lambda"),
                       new=" (a new sample)" if e.get("sample_added") else "")
            if step else None,
            state_part("away steps {a:,}, drop steps {d:,}", a=e.get("away_steps"),
                       d=e.get("drop_steps")) if self.away else None,
            state_part("epochs {ep:.2f}", ep=e.get("epochs_done")),
            state_part("L2-SVM primal {p:.4g} / dual {d:.4g}", p=e.get("l2svm_primal"),
                       d=e.get("l2svm_dual")),
            "averaging the iterates now" if e.get("averaging_active") else None,
        ])

    def snapshot(self) -> Snapshot:
        self._require_ready()
        if self._snap_cache is not None:
            return self._snap_cache
        C = self.p["C"]
        avg = self.averaging_active
        alpha = self.model_alpha                         # the last iterate unless averaging
        g, h = self.full_gradient(model=True)
        f = 0.5 * float(alpha @ g)                       # −αᵀAα = ½ αᵀg
        q_exact = self._scale(-f)
        fw_gap = float(g.max() - alpha @ g)              # ≥ f(α*) − f(α)  (Lemma 4.1)
        # the same α as a model of the usual L2-SVM with regularised bias (margins at ±1)
        scores = h / q_exact
        support, ya = self._raw_support()
        # ‖(w, b)‖² of the ±1-margin model = (q − ‖α‖²/(2C)) / q², written so that no
        # intermediate overflows when 1/(2C) or the kernel values are huge
        wb_sq = (1.0 - float(alpha @ (alpha / self.weights)) / (2.0 * C) / q_exact) / q_exact
        sq_loss = float(np.sum(self.weights * np.maximum(0.0, 1.0 - self.y * scores) ** 2))
        l2_primal = 0.5 * wb_sq + C * sq_loss
        l2_dual = 0.5 / q_exact
        ic = self.ic
        snap = Snapshot(
            t=self.t, objective=f, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals,
            objective_name="L2-SVM dual (aD): −αᵀAα, maximised (not the L1-SVM primal)",
            dual_objective=f + fw_gap, dual_is_bound=True,
            dual_name="upper bound f(α) + Frank-Wolfe gap on the (aD) optimum",
            gap=fw_gap, gap_name="Frank-Wolfe gap max_i g_i − αᵀg (≥ f* − f(α))",
            converged=self.converged, diverged=self.diverged,
            extra={"working_set_size": int(ic[_NS]), "vertex": int(ic[_VERTEX]),
                   "step": ("away" if ic[_AWAY] else "toward"), "lambda": float(self.sc[_LAM]),
                   "sample_added": bool(ic[_ADDED]), "away_steps": int(ic[_NAWAY]),
                   "drop_steps": int(ic[_NDROP]),
                   "b": float(ya.sum()) / q_exact, "train_error": error_rate(scores, self.y),
                   "l2svm_primal": l2_primal, "l2svm_dual": l2_dual,
                   "epochs_done": self.t / self.n, "averaging_active": avg,
                   "iterate_dual": -float(self.sc[_Q])},
        )
        # the maintained ρ (q, or −½ ᾱᵀḡ when averaging) against the same α from scratch
        snap.extra["q_drift"] = float(self._model_q() - q_exact)
        self._snap_cache = snap
        return snap

    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        return self.listing_default

    def step_through_state(self) -> dict:
        """α over all n points (the last iterate), the gradient g on the working set (NaN
        elsewhere: not kept), q = αᵀAα, the working set S in joining order; with averaging
        also the reported average ``α_avg``."""
        ns = int(self.ic[_NS])
        g = np.full(self.n, np.nan)
        g[self.Sidx[:ns]] = self.gS[:ns]
        out = {"α": self.alpha, "g": g, "q": float(self.sc[_Q]), "S": self.working_set}
        if self.p["averaging"] is not None:
            out["α_avg"] = self.model_alpha
        return out

    def _step_through_one(self) -> StepThroughRecord:
        """One iteration of Algorithm 1: the new sample's g_k, the working-set test, the
        vertex and the line search, recomputed in NumPy from the state before the compiled
        step (which then runs on the same sample)."""
        L = self.listing()
        if self.diverged:
            return self._idle_record(L.no("loop"), "the run diverged (q lost its precision)")
        t = self.t + 1
        idx = self.stream.take(1)
        i = int(idx[0])
        s0 = self.step_through_state()
        a0, g0, q0, S0 = s0["α"], s0["g"], s0["q"], s0["S"]
        inv2C, y = self.inv2C, self.y
        new = self.pos[i] < 0
        gmax = float(np.max(g0[S0]))
        if new:
            Ki = self.kernel_block([i], S0)[0]
            g_k = float(-2.0 * y[i] * ((y[S0] * a0[S0]) @ (Ki + 1.0)))
        else:
            g_k = float(g0[i])
        # DECIDESTEP's two candidates, from the state before (ties: first in S order)
        cand = np.append(g0[S0], g_k) if (new and g_k >= gmax) else g0[S0]
        order = np.append(S0, i) if (new and g_k >= gmax) else S0
        p_t = int(order[int(np.argmax(cand))])
        supp = S0[a0[S0] > 0.0]
        p_a = int(supp[int(np.argmin(g0[supp]))]) if supp.size else -1
        dt = float(np.max(cand) + 2.0 * q0)
        da = float(-2.0 * q0 - g0[p_a]) if p_a >= 0 else float("nan")
        ndrop0 = int(self.ic[_NDROP])
        self._advance(idx, 1)                              # the compiled step on x_k
        s1 = self.step_through_state()
        added, away = bool(self.ic[_ADDED]), bool(self.ic[_AWAY])
        drop = int(self.ic[_NDROP]) > ndrop0
        p = int(self.ic[_VERTEX])
        lam = float(self.sc[_LAM])
        gp = g_k if p == i and new else float(g0[p])
        App = float(self.kernel_block([p], [p])[0, 0]) + 1.0 + inv2C[p]
        den = q0 + gp + App
        if away:
            lam_raw = -(q0 + 0.5 * gp) / den if den > 0 else 0.0
            lam_max = a0[p] / (1.0 - a0[p])
        else:
            lam_raw = (q0 + 0.5 * gp) / den if den > 0 else 0.0
            lam_max = 1.0
        keys = ["loop", "sample", "join" if added else "nojoin", "call", "bias"]
        if self.away:
            keys += ["decide"]
        if away:
            keys += ["away", "a1", "a2", "a3", "a5", "a7"] + (["drop"] if drop else [])
        else:
            keys += (["toward"] if self.away else []) + ["t1", "t2", "t3", "t5", "t7"]
        q = {"t": t, "i": i, "new": bool(new), "g_k": g_k, "g_max": gmax, "joined": added,
             "vertex": p, "step": "away" if away else "toward", "drop": drop, "g_p": gp,
             "A_pp": App, "lam_raw": float(lam_raw), "lam": lam, "lam_max": float(lam_max),
             "q": (q0, s1["q"]), "f": (-q0, -s1["q"]), "S": (int(S0.size), int(s1["S"].size)),
             "toward_vertex": p_t}
        if self.away:
            q.update({"dt": dt, "da": da, "away_vertex": p_a})
        roles = {"sample": (i,), ("drop" if drop else q["step"]): (p,), "updated": (p,)}
        if added:
            roles["joined"] = (i,)
        text = (f"t = {t}: sample x_{i} " + ("joins S" if added else "does not join S"
                                              if new else "is already in S")
                + f" (g_k = {g_k:.3g}, max over S {gmax:.3g}); ")
        if away:
            text += (f"moving away from x_{p} is steeper (d_aᵀ∇f = {da:.3g} > d_tᵀ∇f = "
                     f"{dt:.3g}): AWAY step λ = {lam:.3g}"
                     + (" reaches its bound, α_p drops to 0" if drop else ""))
        else:
            text += (f"TOWARD x_{p} with the line-search step λ* = {lam:.3g}"
                     + ("" if 0.0 <= lam_raw <= lam_max else " (clamped)"))
        text += f"; f(α) = −q: {-q0:.4g} → {-s1['q']:.4g}."
        return StepThroughRecord(t_before=t - 1, t=self.t, lines=L.no(*keys), text=text,
                          picked=tuple(dict.fromkeys((i, p))), changes=state_changes(s0, s1),
                          quantities=q, roles=roles)


    # ------------------------------------------------------------------------ mid-run changes
    #: taken mid-run (``retune``): C changes only the diagonal of A by δ = 1/(2C_new) −
    #: 1/(2C_old), and the simplex does not depend on C, so α stays feasible and everything
    #: kept is corrected exactly in O(|S|): q += δ Σ α_m², g_m −= 2δ α_m, and the window's
    #: gradient sum Σ_t g_m(t) −= 2δ Σ_t α_m(t) (g is linear in α), so an average that has begun
    #: goes on (its ρ̄ is then that of the new problem). A new ``averaging`` drops the average so
    #: far and opens the new window.
    soft_params = ("C", "averaging")

    def _retune(self, diff):
        if "C" in diff:
            ns = int(self.ic[_NS])
            inv2C = 1.0 / (2.0 * self.p["C"] * self.weights)
            delta = (inv2C - self.inv2C)[self.Sidx[:ns]]
            alpha = self.sc[_C] * self.betaS[:ns]
            if ns and np.all(delta == delta[0]):   # one C for all: δ Σ α_m²
                self.sc[_Q] += float(delta[0]) * float(alpha @ alpha)
            else:
                self.sc[_Q] += float(delta @ (alpha * alpha))
            self.gS[:ns] -= 2.0 * delta * alpha
            if self.sc[_NAVG] > 0.0:
                self.Gsum[:ns] -= 2.0 * delta * (self.Uavg[:ns]
                                                 + self.sc[_BSUM] * self.betaS[:ns])
            self.app_max += float(inv2C.max() - self.inv2C.max())   # max A_pp moves too
            self.inv2C = inv2C
            self._check_q()
        self._retune_average(diff, self.horizon)
        self._snap_cache = None
        self._qbar = None

    def _clear_average(self):
        self.Uavg[:] = 0.0
        self.Gsum[:] = 0.0
        self.sc[[_BSUM, _NAVG]] = 0.0


class MSFWSolver(SFWSolver):
    __doc__ = __doc__
    name = "msfw"
    title = "Stochastic Frank-Wolfe with away steps (MSFW)"
    listing_default = FW_LISTING.select("away", source="Ouyang & Gray (2010), Algorithm 1 "
                                        "(SFW) with Algorithm 3 (DECIDESTEP), 2 (TOWARD) and "
                                        "4 (AWAY): MSFW")
    update_rule = (r"\text{TOWARD if } d_t^\top\nabla f\ge d_a^\top\nabla f \text{ else AWAY: }"
                   r"p=\arg\min_{\alpha_p>0} g_p,\ \alpha\leftarrow(1+\lambda)\alpha-\lambda e_p,\ "
                   r"\lambda\in[0,\tfrac{\alpha_p}{1-\alpha_p}]")
    away = True
