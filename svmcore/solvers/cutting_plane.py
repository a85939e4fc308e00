r"""Cutting planes with sampled cuts (CPSP) for the kernel L1-SVM (Yu & Joachims, KDD 2008).

Minimises the 1-slack form of the L1-SVM without bias (the paper's binary case with the 0-1 loss Δ
and Ψ(x, y) = ½ y φ(x); the paper writes y φ(x), the ½ makes each cut the usual hinge loss, as in
SVMperf)

    min_{w, ξ ≥ 0}  ½‖w‖² + C_p ξ   s.t.  ∀ cuts (c, g):  c + ⟨w, g⟩ ≤ ξ,      C_p = C·n,

whose optimum is that of ½‖w‖² + C Σ_i max(0, 1 − y_i⟨w, φ(x_i)⟩) (scikit-learn's SVC C; the
snapshot reports it in the λ-form P_λ = P_C/(C n), λ = 1/(C n), like the other L1 solvers).
An exact cut at w has c = |I|/n, g = −(1/n) Σ_{i∈I} y_i φ(x_i), I = {i : y_i f(x_i) < 1}, and
c + ⟨w, g⟩ is the mean hinge loss L(w). One iteration (paper Algorithm 1):

    (c, g) = FindCuttingPlane(w);  J ← J ∪ {(c, g)};  α = argmax_{α≥0, Σα≤C_p} −½ αᵀGα + cᵀα
    (Optimization Problem 2, G_tu = ⟨g_t, g_u⟩);  w = −Σ_t α_t g_t,

until c + ⟨w, g⟩ ≤ ξ + ε. The cuts are sampled so that each costs few kernel evaluations:

* ``sampling="linear"`` (Algorithm 3): the margins of all n points come from the stored inner
  products A_ti = ⟨g_t, φ(x_i)⟩ (f(x_i) = −Σ_t α_t A_ti, no kernel evaluation); the exact cut
  decides when to stop (L(w) ≤ ξ + ε); the cut added is c = |I|/n, g = −|I|/(n r) Σ_j y_Sj φ(x_Sj)
  with r indices S drawn uniformly (with replacement) from I, redrawn until the sampled cut is
  violated (c + ⟨w, g⟩ > ξ + ε). Adding it costs n kernel evaluations per distinct sampled
  point (the new row of A, from one block product: ``kernels.expansion_by_matmul``); its row of
  G is read off A (no kernel evaluation).
* ``sampling="constant"`` (Algorithm 2): r indices drawn uniformly from all n; c = (1/r)·#violators,
  g = −(1/r) Σ_{violators} y_j φ(x_j); their margins cost |S̄|·|U| kernel evaluations (S̄ = the
  distinct sampled points, U = the distinct points of the active cuts; one gathered block for
  dense RBF data), and the same block gives the new row of G. No pass over the n points.
  The stopping test uses the sampled cut: as in the paper's experiments (Sec. 6.1) the run stops
  when ``patience`` (p = 4) consecutive sampled cuts are not violated by more than ε.

Not in the paper, which leaves the QP solver open: Optimization Problem 2 is re-solved by
active-set rounds warm-started from the previous α (taken only when they meet the KKT
conditions), else by Clarabel and the same rounds (``solve_cut_dual``).
Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/cpsp.md``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._jit import njit
from .kernels import (RBF, rbf_args, exp_into, expansion_by_matmul, kernel_block, kernel_row,
                      rows_args)
from .objectives import error_rate, lam_from_C
from .base import (C_SPEC, COEF0_SPEC, DEGREE_SPEC, GAMMA_SPEC, KERNEL_SPEC, Line, Listing,
                   ParamSpec, Snapshot, Solver, StepThroughRecord, join_state, state_changes,
                   state_part)

#: the label of the snapshot's second curve: what the cutting-plane method minimises, over cuts
#: that are sampled (also in Algorithm 3, whose exact cut only decides when to stop)
MODEL_NAME = "cut model ½λ‖w‖² + ξ over the sampled cuts (not a bound on the optimum)"

_ZERO_A = 1e-8           # a_t = α_t / C_p at or below this counts as inactive
_MAX_DRAWS = 100


class _StoreFull(Exception):
    """The cut store would outgrow the memory budget (the run halts; nothing is allocated)."""


@njit
def _kernel_rows(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, pts, idx, out):
    """out[j, m] = k(x_pts[j], x_idx[m]); returns the kernel evaluations done."""
    for j in range(pts.shape[0]):
        kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, pts[j],
                   Xd, Xdata, Xind, Xptr, Xsq, idx, out[j])
    return pts.shape[0] * idx.shape[0]


@njit
def _rbf_rows_dense(g, Xd, Xsq, pts, idx, out):
    """:func:`_kernel_rows` for dense rows and the RBF kernel: the columns gathered once into a
    d × m block, each row's exponents by a vectorised loop, then the vectorised exp (the
    values agree with the pairwise loop's to ~1e-16 relative)."""
    d = Xd.shape[1]
    m = idx.shape[0]
    C = np.empty((d, m))
    csq = np.empty(m)
    for k in range(m):
        csq[k] = Xsq[idx[k]]
        for f in range(d):
            C[f, k] = Xd[idx[k], f]
    arg = np.empty(m)
    work = np.empty(m)
    for j in range(pts.shape[0]):
        i = pts[j]
        for k in range(m):
            arg[k] = 0.0
        for f in range(d):
            a = Xd[i, f]
            Cf = C[f]
            for k in range(m):
                arg[k] += a * Cf[k]
        rbf_args(Xsq[i], csq, arg, g, arg, m)
        exp_into(arg, out[j], work, m)
    return pts.shape[0] * m


def _rows_block(code, kp, X, pts, idx, out):
    """out[j, m] = k(x_pts[j], x_idx[m]); the gathered dense RBF loop where it applies."""
    if code == RBF and not X.sparse and X.d * idx.shape[0] <= 1 << 22:
        return _rbf_rows_dense(float(kp[0]), X.dense, X.sqnorm, pts, idx, out)
    return _kernel_rows(code, kp, *rows_args(X), pts, idx, out)


def solve_cut_dual(G: np.ndarray, c: np.ndarray, Cp: float, warm=None) -> np.ndarray:
    """argmax_{α ≥ 0, Σα ≤ C_p} −½ αᵀGα + cᵀα (Optimization Problem 2), by Clarabel.

    Solved on a = α/C_p: min ½ aᵀ(C_p G)a − cᵀa s.t. a ≥ 0, Σa ≤ 1. Returns α ≥ 0.
    ``warm`` (the previous α, the new cut's entry 0): the active-set rounds of :func:`_polish`
    start from its support plus the new cut; their answer is taken when it meets the KKT
    conditions (the QP's exact optimum), else Clarabel solves from scratch."""
    import clarabel

    T = c.shape[0]
    if warm is not None and T > 1:
        a0 = np.asarray(warm, dtype=np.float64) / Cp
        a0[-1] = max(a0[-1], 1e-300)           # the new cut joins the support
        a, ok = _polish(Cp * G, np.asarray(c, dtype=np.float64), a0, kkt=True)
        if ok:
            return Cp * a
    P = sp.csc_matrix(np.triu(Cp * G))
    A = sp.csc_matrix(np.vstack([-np.eye(T), np.ones((1, T))]))
    b = np.concatenate([np.zeros(T), [1.0]])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = 1e-10
    st.tol_feas = 1e-10
    st.max_iter = 200
    sol = clarabel.DefaultSolver(P, -np.asarray(c, dtype=np.float64), A, b,
                                 [clarabel.NonnegativeConeT(T + 1)], st).solve()
    a = np.asarray(sol.x, dtype=np.float64)
    if a.shape[0] != T or not np.all(np.isfinite(a)):
        raise RuntimeError(f"the cut QP failed ({sol.status})")
    a = np.maximum(a, 0.0)
    s = a.sum()
    if s > 1.0:
        a /= s
    return Cp * _polish(Cp * G, np.asarray(c, dtype=np.float64), a)


def _polish(P, c, a, rounds=20, kkt=False):
    """Refine an interior-point solution of min ½aᵀPa − cᵀa, a ≥ 0, Σa ≤ 1 by a few active-set
    rounds started from its support: solve the stationarity system on the support F (with and
    without the sum constraint tight), drop a negative coordinate or add the worst KKT violator,
    repeat. The result is kept only if it is feasible and not worse than ``a``. ``kkt``: also
    return whether the kept point met the KKT conditions (then it is the optimum)."""
    obj = lambda v: 0.5 * v @ P @ v - c @ v
    T = a.shape[0]
    F = list(np.flatnonzero(a > 1e-9 * max(a.max(), 1e-300)))
    best = a
    for _ in range(rounds):
        if not F:
            break
        k = len(F)
        PF, cF = P[np.ix_(F, F)], c[F]
        cands = []
        free = np.linalg.lstsq(PF, cF, rcond=None)[0]
        cands.append((free, 0.0))
        M = np.zeros((k + 1, k + 1))
        M[:k, :k], M[:k, k], M[k, :k] = PF, 1.0, 1.0
        z = np.linalg.lstsq(M, np.concatenate([cF, [1.0]]), rcond=None)[0]
        cands.append((z[:k], z[k]))
        ok = [(aF, mu) for aF, mu in cands if np.all(np.isfinite(aF)) and aF.min() >= 0.0
              and aF.sum() <= 1.0 + 1e-12 and mu >= 0.0]
        if not ok:
            worst = int(np.argmin(cands[1][0] if np.isfinite(cands[1][0]).all() else free))
            F.pop(worst)
            continue
        vals = []
        for aF, mu in ok:
            v = np.zeros(T)
            v[F] = aF
            vals.append((obj(v), v, mu))
        _, v, mu = min(vals, key=lambda x: x[0])
        if v.sum() > 1.0:
            v /= v.sum()
        kept = obj(v) <= obj(best)
        if kept:
            best = v
        viol = (c - P @ v) - mu                       # KKT: ≤ 0 off the support, 0 on it
        tol = 1e-13 * max(1.0, np.abs(c).max())
        on = np.abs(viol[F]).max() <= 1e-9 * max(1.0, np.abs(c).max(), np.abs(P @ v).max())
        viol[F] = -np.inf
        j = int(np.argmax(viol))
        if viol[j] <= tol:
            return (best, kept and on) if kkt else best
        F.append(j)
    return (best, False) if kkt else best


# --------------------------------------------------------------------------- pseudocode

_QP_NOTE = ("The dual of the cut problem (Optimization Problem 2) over the cuts in J, "
            "G_tu = ⟨g_t, g_u⟩: w = −Σ_t α_t g_t and ξ = max(0, max_t c_t + ⟨w, g_t⟩).")
_CPSP_HEAD = (
    Line("input", "1: Input: S = ((x_1, y_1), …, (x_N, y_N)), C, ε, r",
         "Binary classification: Δ is the 0-1 loss, Ψ(x, y) = ½ y φ(x); each cut is a "
         "linear lower model of the mean hinge loss.", ("eps",)),
    Line("init", "2: J = {}, t = 0, w = 0, ξ = 0", "No cuts yet: the cut model of the loss is 0."),
    Line("first", "3: (c, g) = FindCuttingPlane(w)", "The first cut, at w = 0 (every point "
         "violates the margin there)."),
    Line("while", "4: while c̄ + w·ḡ > ξ + ε do   «test»",
         "Stop when the cut (the exact one in Alg. 3) is violated by at most ε: then the cut "
         "model is ε-close to the objective.", ("loss", "xi", "violation")),
    Line("add", "5:   J = J ∪ {(c, g)}", "The new cut: c + ⟨w, g⟩ ≤ ξ must hold from now on.",
         ("c_new", "n_cuts")),
    Line("count", "6:   t = t + 1", "t counts the calls of FindCuttingPlane.", ("t",)),
    Line("qp", "7:   (w, ξ) = SolveQP(J):  α = argmax_{α≥0, Σα≤CN} −½αᵀGα + cᵀα",
         _QP_NOTE, ("qp", "xi_after")),
    Line("prune", "     (drop cuts with α_t = 0 for 20 iterations, Sec. 6.1)",
         "Inactive cuts are removed so the QP stays small.", ("removed",)),
    Line("next", "8:   (c, g) = FindCuttingPlane(w)", "The next cut, at the new w: the loop "
         "test uses it."),
    Line("return", "10: return (w, ξ)   — f(x) = ⟨w, φ(x)⟩ = Σ_j β_j K(x_j, x)",
         "The model is a kernel expansion over the points of the active cuts."),
    Line("proc", "11: procedure FindCuttingPlane(w)", "The separation oracle: a cut that the "
         "current w violates, built from a sample."),
)

CPSP_LISTING = Listing("Yu & Joachims (2008), Algorithm 3: linear-time cut subsampling", (
    *_CPSP_HEAD,
    Line("margins", "12–14:   for i = 1..N: y_i f(x_i)   (ŷ_i ≠ y_i iff y_i f(x_i) < 1)",
         "The margins of all N points, read off the stored ⟨g_t, φ(x_i)⟩: no kernel "
         "evaluation.", when="linear"),
    Line("I", "15:   I = {i : y_i f(x_i) < 1}", "The points with a non-zero hinge loss.",
         ("n_I",), when="linear"),
    Line("exact", "16:   (c̄, ḡ) = (|I|/N, −(1/N) Σ_{i∈I} y_i φ(x_i))   (exact cut: c̄ + w·ḡ = "
         "mean hinge loss)", "Used only for the stopping test: it is the true loss at w.",
         ("loss",), when="linear"),
    Line("repeat", "17–18:   repeat: sample r examples S uniformly from I",
         "A cut on r of the violators instead of all of them: its expansion has at most r "
         "points.", ("r", "draws"), when="linear"),
    Line("cut", "19:     (c, g) = (|I|/N, −|I|/(N r) Σ_{j∈S} y_j φ(x_j))", "The sampled cut: "
         "an unbiased estimate of the exact one, with r points instead of |I|.", ("c_new",),
         when="linear"),
    Line("until", "20:   until c + w·g > ξ + ε   (the sampled cut is violated)",
         "A sampled cut that the model already satisfies would teach nothing.",
         ("violation",), when="linear"),
    Line("sample", "11b:   sample r examples S uniformly from 1..N",
         "No pass over the data: the cost per cut does not depend on N.", ("r",),
         when="constant"),
    Line("margins", "12–14:   for j = 1..r: y_Sj f(x_Sj)   (ŷ_Sj ≠ y_Sj iff margin < 1)",
         "Margins of the r sampled points only.", when="constant"),
    Line("cut", "15:   (c, g) = ((1/r) Σ_j Δ_j, −(1/r) Σ_{j: margin<1} y_Sj φ(x_Sj))",
         "A bootstrap estimate of the exact cut; also used for the stopping test.",
         ("c_new", "violation"), when="constant"),
    Line("patience", "     (stop after p = «patience» sampled cuts in a row with c + w·g ≤ ξ + ε, "
         "Sec. 6.1)", "One non-violated sample may be luck: the paper waits for p of them.",
         ("streak",), when="constant"),
    Line("endproc", "end procedure", "Returns the cut (and, in Alg. 3, the exact cut for the "
         "stopping test)."),
), symbols={"eps": "ε", "loss": "c̄ + w·ḡ (mean hinge)", "xi": "ξ", "violation":
            "c + w·g − ξ", "c_new": "c", "n_cuts": "|J|", "qp": "QP dual", "xi_after": "ξ",
            "removed": "cuts removed", "n_I": "|I|", "r": "r", "draws": "draws",
            "streak": "non-violated in a row"})


def cpsp_listing(linear: bool = True, patience: int = 4) -> Listing:
    """Algorithm 3 (linear-time sampling) or Algorithm 2 (constant-time, with the paper's
    patience rule)."""
    if linear:
        return CPSP_LISTING.select("linear", test="(exact cut c̄, ḡ)")
    return CPSP_LISTING.select(
        "constant", source="Yu & Joachims (2008), Algorithm 2: constant-time cut subsampling",
        test="(the sampled cut; see p below)", patience=str(patience))


class CuttingPlaneSolver(Solver):
    __doc__ = __doc__
    name = "cpsp"
    weighting = "weighted slack: c = Σ_I w_i/Σw, cuts sampled ∝ w_i, C_p = C·Σw"
    title = "Cutting planes with sampled cuts (CPSP)"
    paper = ("Yu & Joachims (2008), Training Structural SVMs with Kernels Using Sampled Cuts, "
             "KDD")
    formulation = (r"\min_{w,\xi\ge0}\ \tfrac12\|w\|^2 + Cn\,\xi\quad\text{s.t. } c_t + "
                   r"\langle w, g_t\rangle \le \xi\ \ \forall t")
    update_rule = (r"(c,g)=\Big(\tfrac{|I|}{n},\,-\tfrac{|I|}{nr}\sum_{j\in S}y_j\phi(x_j)\Big),\ "
                   r"S\sim I^r;\quad \alpha=\arg\max_{\alpha\ge0,\,\sum\alpha\le Cn}"
                   r"-\tfrac12\alpha^\top G\alpha+c^\top\alpha;\quad w=-\sum_t\alpha_t g_t")
    params = {
        "C": C_SPEC,
        "kernel": KERNEL_SPEC,
        "gamma": GAMMA_SPEC,
        "degree": DEGREE_SPEC,
        "coef0": COEF0_SPEC,
        "sampling": ParamSpec("linear", "choice", "Alg. 2 / 3 — how a cut's examples are sampled: "
                              "'linear' (Algorithm 3: margins of all n points, r samples from the "
                              "violators, exact stopping test) or 'constant' (Algorithm 2: r "
                              "samples from all n).", choices=("linear", "constant"),
                              advanced=True),
        "sample_size": ParamSpec(400, "int", "r — how many examples one cut is built from: "
                                 "more is closer to the exact cut and slower (Yu & Joachims).",
                                 low=1, high=10_000_000, ui=(10, 5000), log=True),
        "epsilon": ParamSpec(1e-3, "float", "ε — how exact the answer must be: stop when the "
                             "(exact or sampled) cut is violated by at most ε, in mean-hinge "
                             "units.", low=0.0, low_open=True, high=1.0,
                             ui=(1e-4, 1e-1), log=True),
        "patience": ParamSpec(4, "int", "patience — constant sampling only: stop after this "
                              "many consecutive sampled cuts that are not ε-violated (paper: 4).",
                              low=1, high=1000, ui=(1, 20), advanced=True),
        "max_inactive": ParamSpec(20, "int", "inactive — remove a cut after this many "
                                  "consecutive iterations with α_t = 0 (paper: 20; 0 keeps all "
                                  "cuts).", low=0, high=10**9, ui=(0, 100), advanced=True),
        "fit_intercept": ParamSpec(False, "bool", "b — learn an offset, so the boundary need not "
                                   "pass through the origin (a constant feature: b is "
                                   "regularised like w). The app turns it on by default."),
        "max_iter": ParamSpec(100_000, "int", "max_iter — stop after this many cutting-plane "
                              "iterations even if the cut is still violated.",
                              low=1, high=10**9, ui=(10, 100_000), log=True, advanced=True),
    }
    kernelized = True
    stochastic = False
    listing_default = cpsp_listing()
    memory_params = ("sample_size",)

    def memory_bytes(self, n, d, X=None):
        """At the start: the store A of the cuts' inner products (16 rows of n, growing by
        doubling; each growth is checked against the same budget), O(n) state, the r sampled
        rows densified and one block of their kernel values (≤ 16 MB)."""
        r = min(self.p["sample_size"], n)
        block = min(max(16, min(4096, (1 << 21) // r)), n)
        return 8 * (16 * n + 4 * n) + 8 * r * (d + 4) + 8 * block * r \
            + 24 * self.p["sample_size"]                    # the r draws, their margins

    # ---------------------------------------------------------------------------------- setup
    def _setup(self):
        p = self.p
        n = self.n
        self.C = p["C"]
        # example weights: the slack of a cut weighs example i by w_i / Σw, C_p = C·Σw, and
        # cuts are sampled with probability ∝ w_i (so a sampled cut is unbiased for the exact)
        self.w = self.example_weights()
        self.W = self.weight_total
        self.pw = None if self._w is None else self.w / self.w.sum()
        self.Cp = self.C * self.W
        self.lam = lam_from_C(self.C, self.W)
        self.eps = p["epsilon"]
        self.r = p["sample_size"]
        self.linear = p["sampling"] == "linear"
        self.add_one = 1.0 if p["fit_intercept"] else 0.0
        self.horizon = int(p["max_iter"])
        self.rng = np.random.default_rng(self.seed)
        self.allidx = np.arange(n, dtype=np.int64)
        # cuts (active ones, in order of arrival)
        self.c = np.zeros(0)
        self.G = np.zeros((0, 0))
        self.alpha = np.zeros(0)
        self.idle = np.zeros(0, dtype=np.int64)
        self.pts: list[np.ndarray] = []       # distinct points of each cut
        self.coef: list[np.ndarray] = []      # g_t = Σ coef_t[l] φ(x_pts_t[l])
        self.born: list[int] = []             # iteration that added the cut
        self._Abuf = np.zeros((0, n))          # linear: A_ti = ⟨g_t, φ(x_i)⟩ in rows [0, T)
        self.f = np.zeros(n)                  # linear: f(x_i) = ⟨w, φ(x_i)⟩ (+ b)
        self.U = np.zeros(0, dtype=np.int64)  # constant: distinct points of the active cuts
        self.Cmat = np.zeros((0, 0))          # constant: cut coefficients over U
        self.n_cuts_added = 0
        self.n_removed = 0
        self.streak = 0
        self.last_violation = float("nan")
        self.last_xi = 0.0
        self.last_draws = 0
        self.last_sample = np.zeros(0, dtype=np.int64)   # the r indices of the last draw
        self._conv = False
        self._snap_cache = None
        if self.linear:
            self._check_stop()

    # ------------------------------------------------------------------------------- pieces
    def _xi(self) -> float:
        """ξ(w) = max(0, max_t c_t + ⟨w, g_t⟩) over the active cuts (⟨w, g_t⟩ = −(Gα)_t)."""
        if self.c.size == 0:
            return 0.0
        return max(0.0, float(np.max(self.c - self.G @ self.alpha)))

    def _check_stop(self) -> bool:
        m = self.y * self.f
        hinge = np.maximum(0.0, 1.0 - m)
        loss = float(np.mean(hinge) if self.pw is None else self.pw @ hinge)
        xi = self._xi()
        if loss <= xi + self.eps:
            self._stop_if_trusted(f"mean hinge {loss:.4g} ≤ ξ + ε = {xi + self.eps:.4g}")
        return self._conv

    def qp_gap(self) -> float:
        """Duality gap of the cut QP at the current α, in λ-form units (÷ C_p):
        (‖w‖² + C_p ξ(w) − cᵀα) / C_p ≥ 0. The stopping test bounds the suboptimality only
        together with it: P(w) − min P ≤ (L(w) − ξ(w)) + qp_gap (for exact cuts)."""
        if self.c.size == 0:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            wsq = float(self.alpha @ self.G @ self.alpha)
            gap = (wsq - float(self.c @ self.alpha)) / self.Cp + self._xi()
        return gap if np.isfinite(gap) else np.inf

    def _stop_if_trusted(self, test: str):
        """The stopping test fired: converged when the cut QP behind ξ was solved to within ε,
        else halt and say why the result cannot be trusted (badly scaled data or C)."""
        gap = self.qp_gap()
        if gap <= self.eps:
            self._conv = True
            return
        with np.errstate(over="ignore", invalid="ignore"):
            gmax = float(np.max(np.abs(self.G))) if self.G.size else 0.0
        why = []
        if not np.isfinite(gmax) or gmax > 1e100:
            why.append(f"the kernel values are huge (cut products up to {gmax:.3g}): scale the "
                       "features (e.g. StandardScaler) or use a smaller gamma")
        if self.Cp * gmax > 1e6 or not why:
            why.append(f"C·n = {self.Cp:.3g} makes the cut QP badly scaled: lower C")
        self.halt(f"its stopping test fired ({test}), but the cut QP was solved only to a "
                  f"duality gap of {gap:.3g} > ε = {self.eps:g}, so the test proves nothing; "
                  + "; ".join(why) + ".")

    def _add_cut(self, c_new, pts, coef, Anew, gnew_pts):
        """Append a cut; Anew (linear) is its row of A; gnew_pts(u) gives ⟨g_new, g_u⟩.
        Raises _StoreFull, before changing anything, when A would outgrow the budget."""
        T = self.c.size
        if Anew is not None and self._Abuf.shape[0] == T:     # grow by doubling
            rows = max(16, 2 * T)        # the new buffer while the old one is copied
            grown = self.memory_bytes(self.n, self.d) + 8 * (rows + T - 16) * self.n
            if grown > self.budget_bytes:
                raise _StoreFull(
                    f"the store of the cuts' products (T × n = {rows:,} × {self.n:,}) would "
                    f"outgrow the memory budget ({self.budget_bytes / 2**20:,.0f} MB) after "
                    f"{T:,} active cuts; raise epsilon, lower C or use fewer rows")
            buf = np.empty((rows, self.n))
            buf[:T] = self._Abuf[:T]
            self._Abuf = buf
        grow = np.zeros(T + 1)
        for u in range(T):
            grow[u] = gnew_pts(u)
        grow[T] = gnew_pts(-1)
        G = np.empty((T + 1, T + 1))
        G[:T, :T] = self.G
        G[T, :] = grow
        G[:, T] = grow
        self.G = G
        self.c = np.append(self.c, c_new)
        self.alpha = np.append(self.alpha, 0.0)
        self.idle = np.append(self.idle, 0)
        self.pts.append(pts)
        self.coef.append(coef)
        self.born.append(self.t + 1)
        if Anew is not None:
            self._Abuf[T] = Anew
        self.n_cuts_added += 1

    def _solve_and_prune(self):
        self.alpha = solve_cut_dual(self.G, self.c, self.Cp, warm=self.alpha)
        inactive = self.alpha <= _ZERO_A * self.Cp
        self.idle = np.where(inactive, self.idle + 1, 0)
        mi = self.p["max_inactive"]
        if mi > 0:
            drop = self.idle >= mi
            drop[-1] = False
            if drop.any():
                keep = np.flatnonzero(~drop)
                self.c, self.alpha, self.idle = self.c[keep], self.alpha[keep], self.idle[keep]
                self.G = self.G[np.ix_(keep, keep)]
                self.pts = [self.pts[k] for k in keep]
                self.coef = [self.coef[k] for k in keep]
                self.born = [self.born[k] for k in keep]
                if self.linear:               # move the kept rows up, one row at a time
                    for k, row in enumerate(keep):
                        if row != k:
                            self._Abuf[k] = self._Abuf[row]
                else:
                    self.Cmat = self.Cmat[keep]
                    used = np.flatnonzero(np.any(self.Cmat != 0.0, axis=0))
                    self.U, self.Cmat = self.U[used], self.Cmat[:, used]
                self.n_removed += int(drop.sum())

    @property
    def A(self) -> np.ndarray:
        """linear: the stored inner products A_ti = ⟨g_t, φ(x_i)⟩ of the active cuts (T × n)."""
        return self._Abuf[:self.c.size]

    # ------------------------------------------------------------------------- linear time
    def _iter_linear(self):
        n, r, y = self.n, self.r, self.y
        m = y * self.f
        xi = self._xi()
        I = np.flatnonzero(m < 1.0)
        nI = I.size
        cI = nI / n if self.pw is None else float(self.pw[I].sum())    # the cut's c
        pI = None if self.pw is None or nI == 0 else self.pw[I] / self.pw[I].sum()
        s = cI / r
        draws = 0
        while True:
            draws += 1
            if draws > _MAX_DRAWS:
                S = np.full(r, I[np.argmin(m[I])])
                val = cI * (1.0 - m[S[0]])
                break
            S = I[self.rng.integers(0, nI, r) if pI is None else self.rng.choice(nI, r, p=pI)]
            val = cI * (1.0 - float(np.mean(m[S])))          # c + ⟨w, g⟩ of the sampled cut
            if val > xi + self.eps:
                break
        pts, cnt = np.unique(S, return_counts=True)
        coef = -s * y[pts] * cnt
        Anew = np.zeros(n)
        self.kernel_evals += expansion_by_matmul(self.kcode, self.kp, self.X, self.X, pts, coef,
                                                 Anew)
        if self.add_one:
            Anew += coef.sum()

        def gdot(u):
            if u < 0:
                return float(coef @ Anew[pts])
            return float(self.coef[u] @ Anew[self.pts[u]])

        self._add_cut(cI, pts, coef, Anew, gdot)
        self.last_violation = val - xi
        self.last_xi = xi
        self.last_draws = draws
        self.last_sample = S
        self._solve_and_prune()
        self.f = -(self.alpha @ self.A)
        self.t += 1
        self._check_stop()

    # ----------------------------------------------------------------------- constant time
    def _beta_U(self) -> np.ndarray:
        """w = Σ_m β_m φ(x_U[m]): β = −Σ_t α_t Cmat_t."""
        if self.U.size == 0:
            return np.zeros(0)
        return -(self.alpha @ self.Cmat)

    def _iter_constant(self):
        n, r, y = self.n, self.r, self.y
        S = self.rng.integers(0, n, r) if self.pw is None else self.rng.choice(n, r, p=self.pw)
        uniq, inv = np.unique(S, return_inverse=True)
        KSU = np.empty((uniq.size, self.U.size))       # every entry written below
        if self.U.size:
            self.kernel_evals += _rows_block(self.kcode, self.kp, self.X, uniq, self.U, KSU)
            if self.add_one:
                KSU += self.add_one
        fS = KSU @ self._beta_U()
        mS = (y[uniq] * fS)[inv]
        val = float(np.mean(np.maximum(0.0, 1.0 - mS)))      # c + ⟨w, g⟩ of the sampled cut
        xi = self._xi()
        self.t += 1
        self.last_violation = val - xi
        self.last_xi = xi
        self.last_draws = 1
        self.last_sample = S
        if val <= xi + self.eps:
            self.streak += 1
            if self.streak >= self.p["patience"]:
                self._stop_if_trusted(f"{self.streak} sampled cuts in a row violated by ≤ ε")
            return
        self.streak = 0
        violated = np.zeros(uniq.size, dtype=bool)
        cnt = np.zeros(uniq.size)
        np.add.at(cnt, inv, 1.0)
        violated[inv[mS < 1.0]] = True
        rows = np.flatnonzero(violated)
        pts = uniq[rows]
        coef = -(1.0 / r) * y[pts] * cnt[rows]
        Kvv = np.empty((pts.size, pts.size))
        self.kernel_evals += _rows_block(self.kcode, self.kp, self.X, pts, pts, Kvv)
        if self.add_one:
            Kvv += self.add_one
        gU = coef @ KSU[rows] if self.U.size else np.zeros(0)     # ⟨g_new, φ(x_U[m])⟩

        def gdot(u):
            if u < 0:
                return float(coef @ Kvv @ coef)
            return float(self.Cmat[u] @ gU)

        self._add_cut(np.count_nonzero(mS < 1.0) / r, pts, coef, None, gdot)
        # extend U with the new points and Cmat with the new cut's row
        new = np.setdiff1d(pts, self.U, assume_unique=True)
        U = np.concatenate([self.U, new])
        Cm = np.zeros((self.Cmat.shape[0] + 1, U.size))
        Cm[:-1, :self.U.size] = self.Cmat
        order = np.argsort(U, kind="stable")
        Cm[-1, order[np.searchsorted(U[order], pts)]] = coef
        self.U, self.Cmat = U, Cm
        self._solve_and_prune()

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Up to n cutting-plane iterations; fewer when the ε rule fires or max_iter is hit."""
        self._require_ready()
        n = min(int(n), self.horizon - self.t)
        if self.diverged or self.halted:
            return 0
        done = 0
        while done < n and not self._conv and not self.diverged and not self.halted:
            try:
                if self.linear:
                    self._iter_linear()
                else:
                    self._iter_constant()
            except _StoreFull as e:
                self.halt(str(e))
                break
            except RuntimeError as e:              # Clarabel gave no usable solution
                self.t += 1
                self._fail(str(e))
            done += 1
            if not (np.all(np.isfinite(self.alpha)) and np.all(np.isfinite(self.f))
                    and np.all(np.isfinite(self.G))):
                self._fail("the cut model became NaN or infinite")
        if done:
            self._snap_cache = None
        return done

    def _fail(self, what: str):
        self.diverged = True
        self.message = (f"{self.name} stopped at iteration {self.t}: {what} (kernel values too "
                        "large for float64? use a smaller gamma, degree or coef0)")

    @property
    def converged(self) -> bool:
        return bool(self._ready and self._conv)

    # ---------------------------------------------------------------------------------- model
    @property
    def n_cuts(self) -> int:
        """Number of active cuts."""
        return int(self.c.size)

    def support_coef(self):
        """(support, coef, b): f(x) = Σ coef_m k(x, x_support_m) + b, w = −Σ_t α_t g_t."""
        if self.c.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0), 0.0
        beta = np.zeros(self.n)
        for a, pts, coef in zip(self.alpha, self.pts, self.coef):
            beta[pts] -= a * coef
        support = np.flatnonzero(beta != 0.0)
        coef = beta[support]
        b = float(coef.sum()) if self.add_one else 0.0
        return support, coef, b

    @property
    def intercept_(self) -> float:
        return self.support_coef()[2]

    def _decision_rows(self, R):
        return self._expansion_rows(R)

    def train_scores(self) -> np.ndarray:
        """f(x_i) on the training set (linear: from A, no kernel evaluation)."""
        if self.linear:
            return self.f.copy()
        return self._decision_rows(self.X)

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        return join_state([
            state_part("cuts {n:,} (+{a:,} / −{r:,})", n=e.get("n_cuts"), a=e.get("cuts_added"),
                       r=e.get("cuts_removed")),
            state_part("ξ = {xi:.4g}, mean hinge {h:.4g}", xi=e.get("xi"), h=e.get("mean_hinge")),
            state_part("certified P − P* ≤ {g:.3g}", g=e.get("certified_gap")),
            state_part("newest cut violated by {v:.2e} (stops at ≤ ε = {eps:g})",
                       v=e.get("newest_cut_violation"), eps=e.get("epsilon")),
            state_part("{s} cuts", s=e.get("sampling")),
        ])

    def dual_lower_bound(self, scores: np.ndarray, wsq: float) -> float:
        """A certified lower bound on the optimum P* of the reported objective (weak duality).

        The cuts give every training point a weight: w = Σ_j β_j φ(x_j) with a_j = y_j β_j / C ≥ 0,
        the variables of the n-slack dual D(a) = (1/n) Σ a_j − (λ/2)‖Σ_j a_j y_j φ(x_j)‖² / (λn)²
        (0 ≤ a ≤ 1). Sampled cuts give weights above 1 (a point drawn k times in a cut of |I|
        violators has weight k|I|/r), so a itself is not dual-feasible and D(a) — which equals the
        cut-model value — is no bound. Clipped, ā = min(a, 1) is feasible, and so is θā for θ in
        [0, 1]; D(θā) = θ mean(ā) − θ² (λ/2)‖w(ā)‖², maximised over θ, is ≤ P*.
        ‖w(ā)‖² = ‖w‖² − 2⟨w, u⟩ + ‖u‖² with u the part clipped off: from the training scores and
        the |D|² kernel values among the clipped points D (not counted: snapshot work)."""
        n, lam, C, y = self.n, self.lam, self.C, self.y
        support, coef, _ = self.support_coef()
        a = np.zeros(n)
        a[support] = np.maximum(y[support] * coef / C, 0.0)
        clipped = np.flatnonzero(a > 1.0)
        abar = np.minimum(a, 1.0)
        wabar = wsq
        if clipped.size:
            u = C * (a[clipped] - 1.0) * y[clipped]       # u = Σ_D u_j φ(x_j)
            S = self.X.take(clipped)
            K = kernel_block(self.kcode, self.kp, *rows_args(S), *rows_args(S)[:5])
            K += self.add_one
            wabar = max(wsq - 2.0 * float(u @ scores[clipped]) + float(u @ K @ u), 0.0)
        A, B = float(abar.mean()), 0.5 * lam * wabar
        theta = min(1.0, A / (2.0 * B)) if B > 0.0 else 1.0
        return theta * A - theta * theta * B

    def snapshot(self) -> Snapshot:
        self._require_ready()
        if self._snap_cache is not None:
            return self._snap_cache
        scores = self.train_scores()
        wsq = max(float(self.alpha @ self.G @ self.alpha), 0.0) if self.c.size else 0.0
        loss = float(np.mean(np.maximum(0.0, 1.0 - self.y * scores)))
        obj = 0.5 * self.lam * wsq + loss
        xi = self._xi()
        model = 0.5 * self.lam * wsq + xi
        qp_dual = (float(self.c @ self.alpha) - 0.5 * wsq) / self.Cp if self.c.size else 0.0
        lower = self.dual_lower_bound(scores, wsq)
        support = self.support_coef()[0]
        name = "primal L1-SVM, λ-form"
        if self.add_one:
            name += " (with regularised bias: λ/2·b² included)"
        snap = Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals, objective_name=name,
            dual_objective=model, dual_is_bound=False, dual_name=MODEL_NAME,
            gap=None, converged=self.converged, diverged=self.diverged,
            extra={"n_cuts": self.n_cuts, "cuts_added": self.n_cuts_added,
                   "cuts_removed": self.n_removed, "xi": xi, "mean_hinge": loss,
                   "newest_cut_violation": self.last_violation, "qp_dual": qp_dual,
                   "cut_model": model, "model_gap": obj - model,
                   "dual_lower_bound": lower, "certified_gap": obj - lower,
                   "w_sqnorm": wsq, "epsilon": self.eps, "draws": self.last_draws,
                   "train_error": error_rate(scores, self.y), "lam": self.lam,
                   "sampling": self.p["sampling"]},
        )
        self._snap_cache = snap
        return snap

    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        return cpsp_listing(self.p["sampling"] == "linear", self.p["patience"])

    def qp_dual(self) -> float:
        """The value cᵀα − ½αᵀGα of the cut QP at the current α (C-form)."""
        if self.c.size == 0:
            return 0.0
        return float(self.c @ self.alpha - 0.5 * self.alpha @ self.G @ self.alpha)

    def step_through_state(self) -> dict:
        """The cuts (offsets ``c``, the iteration that added each: ``born``), their QP
        weights α, ξ, and the model's expansion ``coef`` over all n points (and ``b``)."""
        support, coef, b = self.support_coef()
        full = np.zeros(self.n)
        full[support] = coef
        return {"c": self.c.copy(), "born": np.array(self.born, dtype=np.int64),
                "α": self.alpha.copy(), "ξ": self._xi(), "coef": full, "b": b}

    def _step_through_one(self) -> StepThroughRecord:
        """One call of FindCuttingPlane and, if its cut is violated, the cut added and the QP
        re-solved: ``step(1)`` itself; the margins and the exact loss before come from the
        stored model (no kernel evaluation in linear mode)."""
        L = self.listing()
        if self.converged:
            return self._idle_record(L.no("while", "return"), "the stopping rule fired: "
                                     "the cut model is within ε of the objective")
        if self.diverged or self.t >= self.horizon:
            return self._idle_record(L.no("while"), "the run stopped (diverged or max_iter)")
        s0 = self.step_through_state()
        m0 = self.y * self.f if self.linear else None       # constant: no pass over the data
        qp0, added0, removed0 = self.qp_dual(), self.n_cuts_added, self.n_removed
        t0 = self.t
        self.step(1)
        s1 = self.step_through_state()
        added = self.n_cuts_added > added0
        removed = self.n_removed - removed0
        sample = np.asarray(self.last_sample, dtype=np.int64)
        q = {"t": self.t, "eps": self.eps, "r": self.r, "xi": self.last_xi,
             "violation": self.last_violation, "draws": self.last_draws, "added": added,
             "n_cuts": (int(s0["c"].size), int(s1["c"].size)), "removed": removed,
             "qp": (qp0, self.qp_dual()), "xi_after": s1["ξ"], "converged": self.converged,
             "sample": sample.copy()}
        if self.linear:
            q["n_I"] = int(np.count_nonzero(m0 < 1.0))
            q["loss"] = float(np.mean(np.maximum(0.0, 1.0 - m0)))
            keys = ["proc", "repeat", "cut", "until", "add", "count", "qp", "next",
                    "margins", "I", "exact", "while", "endproc"]
        else:
            q["streak"] = self.streak
            keys = ["proc", "sample", "margins", "cut", "endproc", "while"]
            if added:
                keys += ["add", "count", "qp", "next"]
            else:
                keys.append("patience")
        if removed:
            keys.append("prune")
        if self.converged:
            keys.append("return")
        roles = {"cut sample": tuple(int(j) for j in np.unique(sample))}
        if added:
            pts = self.pts[-1]
            q.update({"c_new": float(self.c[-1]), "cut_points": pts.copy(),
                      "cut_coef": self.coef[-1].copy()})
            roles["updated"] = tuple(int(j) for j in pts)
            text = (f"t = {self.t}: a cut on {len(pts)} sampled point(s) "
                    f"(c = {self.c[-1]:.3g}) is violated by {self.last_violation:.3g} > ε; "
                    f"J gets it ({s1['c'].size} cut(s) now) and the QP re-solved gives ξ = "
                    f"{s1['ξ']:.3g} (dual {qp0:.4g} → {self.qp_dual():.4g})")
            if removed:
                text += f"; {removed} inactive cut(s) removed"
        else:
            text = (f"t = {self.t}: the sampled cut is violated by only "
                    f"{self.last_violation:.3g} ≤ ε = {self.eps:g}: no cut added "
                    f"({self.streak} in a row of the {self.p['patience']} that stop the run)")
        if self.converged:
            text += "; the stopping test holds: done"
        if self.diverged:
            text += f"; {self.message}"
        return StepThroughRecord(t_before=t0, t=self.t,
                          lines=L.no(*keys), text=text + ".", picked=roles["cut sample"],
                          changes=state_changes(s0, s1), quantities=q, roles=roles)
