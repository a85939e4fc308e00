r"""Pegasos: primal estimated sub-gradient solver (Shalev-Shwartz, Singer & Srebro, ICML 2007).

Minimises the λ-form of the L1-SVM primal

    P(w, b) = λ/2 ‖w‖² + (1/n) Σ_i max(0, 1 − y_i (⟨w, x_i⟩ + b)),     λ = 1 / (C n).

Iteration t (paper, Sec. 2): draw a mini-batch A_t of k indices i.i.d. from {1..n}; A_t⁺ are the
batch points with y_i f(x_i) < 1 under the current model; then

    w ← (1 − η_t λ) w + (η_t / k) Σ_{i∈A_t⁺} y_i x_i,        η_t = 1/(λ t) by default,
    w ← min(1, 1/(√λ ‖w‖)) · w                              (optional projection onto ‖w‖ ≤ 1/√λ).

Linear kernel: w is stored as w = a·v with a scalar a (the paper's (v, a, ν) triplet), so the
shrink step costs O(1) and an update O(nnz(x_i)); ‖w‖² is maintained incrementally for the
projection. Iterate averaging uses the same trick: the running sum of iterates is U + B·v, so an
averaged run is still O(nnz) per update.

Other kernels ("kernelized Pegasos", paper Sec. 4): the iterate is kept in the dual,
w = Σ_j β_j y_j φ(x_j), with β = a·γ scaled the same way. With the pegasos schedule β_j equals
α_j / (λ (t−1) k) where α_j counts how often x_j was a violator — the paper's α counts, which the
snapshot reports. A margin costs one kernel evaluation per support vector.

Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/pegasos.md``.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import njit, prefetch, prefetch2
from .kernels import (dense_dot, kernel_row, kernel_value, linear_scores,
                       rows_args, sparse_dot)
from .objectives import error_rate, primal_objective
from .step_sizes import step_size
from .base import (AVERAGING_SPEC, C_SPEC, COEF0_SPEC, DEGREE_SPEC, EPOCHS_SPEC, ETA0_SPEC,
                   GAMMA_SPEC, KERNEL_SPEC, SCHEDULE_SPEC, Line, Listing, ParamSpec,
                   Snapshot, Solver, StepThroughRecord, averaging_start, join_state,
                   state_changes, state_part)

# scalar state slots (float64 array `sc`)
_A, _VSQ, _B, _BSUM_AVG, _BIAS_SUM, _N_AVG, _WSQ = 0, 1, 2, 3, 4, 5, 6
# integer state slots (int64 array `ic`)
_T, _KEVALS, _NSV, _DIVERGED = 0, 1, 2, 3

# w = a·v takes the scale into v once a falls below this: the running sum U + B·v cancels terms
# up to 1/_RENORM times the average, so the bound keeps that cancellation to ~1e-12
_RENORM = 1e-4
_MAX_DRAWN = 1 << 20     # sample indices drawn per compiled call (step(n) with a large batch)


_PREFETCH = 2            # sampled rows ahead whose memory a linear chunk asks for early


@njit
def _linear_chunk(Xd, Xdata, Xind, Xptr, Xsq, sparse, y, idx, n_steps, k,
                  v, U, sc, ic, code, sparams, lam, project, fit_b, t_avg0, viol, vdot):
    """n_steps Pegasos iterations on w = a·v (primal). Returns the steps done.

    The hot loop of linear Pegasos, O(nnz(x_i)) per example: the scalars (a, b, ‖v‖², t, the
    averaging sums) live in registers for the whole chunk and go back to ``sc``/``ic`` at its
    end; the rows sampled ``_PREFETCH`` draws ahead are prefetched (a random row is a cache
    miss, its latency now overlaps the current row's work); one pass over a violator's row
    updates v and the averaging sum U together. The arithmetic, operation by operation, is
    the straightforward loop's (tests/solvers/test_pegasos.py compares with a NumPy reference)."""
    d = v.shape[0]
    n_idx = n_steps * k
    t = ic[_T]
    a = sc[_A]
    b = sc[_B]
    vsq = sc[_VSQ]
    bsum = sc[_BSUM_AVG]
    bias_sum = sc[_BIAS_SUM]
    n_avg = sc[_N_AVG]
    done = n_steps
    for s in range(n_steps):
        t += 1
        eta = step_size(code, sparams, t)
        # 1. violators of the current model
        nv = 0
        for r in range(k):
            j = s * k + r
            i = idx[j]
            if j + _PREFETCH < n_idx:               # ask for a later sampled row now
                i2 = idx[j + _PREFETCH]
                if sparse:
                    if j + 2 * _PREFETCH < n_idx:
                        prefetch(Xptr, idx[j + 2 * _PREFETCH])
                    for p in range(Xptr[i2], Xptr[i2 + 1], 8):
                        prefetch(Xdata, p)
                        prefetch(Xind, p)
                else:
                    for f in range(0, d, 8):
                        prefetch2(Xd, i2, f)
            if sparse:
                dot = sparse_dot(Xdata, Xind, Xptr, i, v)
            else:
                dot = dense_dot(Xd, i, v)
            if y[i] * (a * dot + b) < 1.0:
                viol[nv] = i
                vdot[nv] = dot
                nv += 1
        # 2. shrink: w <- (1 - eta*lam) w
        shrink = 1.0 - eta * lam
        a *= shrink
        v_same = True          # is v still the vector the margins were computed with?
        if a == 0.0:
            v_same = False
            # exact reset (t = 1 under the pegasos schedule); keep the running sum U + B v intact
            if bsum != 0.0:
                for f in range(d):
                    U[f] += bsum * v[f]
            for f in range(d):
                v[f] = 0.0
            vsq = 0.0
            a = 1.0
        elif abs(a) < _RENORM:
            # fold B v into U before v takes the scale: dividing B by a instead lets U and B v
            # grow past 1e200 and cancel in the sum of iterates
            v_same = False
            for f in range(d):
                U[f] += bsum * v[f]
                v[f] *= a
            vsq *= a * a
            bsum = 0.0
            a = 1.0
        # 3. add the violators: v += c x_i with c = eta y_i / (k a), and U -= B c x_i
        for r in range(nv):
            i = viol[r]
            c = eta * y[i] / (k * a)
            # <v, x_i> at the current v: the margin's dot while v is unchanged (first violator)
            if v_same and r == 0:
                dot = vdot[0]
            elif sparse:
                dot = sparse_dot(Xdata, Xind, Xptr, i, v)
            else:
                dot = dense_dot(Xd, i, v)
            if bsum != 0.0:
                bc = bsum * c
                if sparse:
                    for p in range(Xptr[i], Xptr[i + 1]):
                        x = Xdata[p]
                        v[Xind[p]] += c * x
                        U[Xind[p]] -= bc * x
                else:
                    for f in range(d):
                        x = Xd[i, f]
                        v[f] += c * x
                        U[f] -= bc * x
            elif sparse:
                for p in range(Xptr[i], Xptr[i + 1]):
                    v[Xind[p]] += c * Xdata[p]
            else:
                for f in range(d):
                    v[f] += c * Xd[i, f]
            vsq += 2.0 * c * dot + c * c * Xsq[i]
            if fit_b:
                b += eta * y[i] / k
        # 4. projection onto ||w|| <= 1/sqrt(lam)
        wsq = a * a * vsq
        if project and wsq * lam > 1.0:
            a *= 1.0 / math.sqrt(lam * wsq)
        # 5. running sum of iterates: S = U + B v
        if t >= t_avg0:
            bsum += a
            bias_sum += b
            n_avg += 1.0
        if not (math.isfinite(a) and math.isfinite(vsq) and math.isfinite(b)):
            ic[_DIVERGED] = 1
            done = s + 1
            break
    sc[_A] = a
    sc[_B] = b
    sc[_VSQ] = vsq
    sc[_BSUM_AVG] = bsum
    sc[_BIAS_SUM] = bias_sum
    sc[_N_AVG] = n_avg
    ic[_T] = t
    return done


@njit
def _kernel_chunk(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, idx, n_steps, k,
                  gam, U, counts, sv, sc, ic, scode, sparams, lam, project, fit_b, t_avg0,
                  viol, vmarg, row):
    """n_steps kernelized Pegasos iterations on β = a·γ (dual). Returns the steps done."""
    for s in range(n_steps):
        t = ic[_T] + 1
        eta = step_size(scode, sparams, t)
        a = sc[_A]
        b = sc[_B]
        nsv = ic[_NSV]
        svi = sv[:nsv]
        # 1. violators: f(x_i) = a Σ_j γ_j y_j K(x_j, x_i) + b
        nv = 0
        for r in range(k):
            i = idx[s * k + r]
            g = 0.0
            if nsv > 0:
                kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                           Xd, Xdata, Xind, Xptr, Xsq, svi, row)
                ic[_KEVALS] += nsv
                for m in range(nsv):
                    j = svi[m]
                    g += gam[j] * y[j] * row[m]
                g *= a
            if y[i] * (g + b) < 1.0:
                viol[nv] = i
                vmarg[nv] = g
                nv += 1
        # 2. shrink
        shrink = 1.0 - eta * lam
        a *= shrink
        sc[_WSQ] *= shrink * shrink
        if a == 0.0:
            Bs = sc[_BSUM_AVG]
            for m in range(nsv):
                j = svi[m]
                U[j] += Bs * gam[j]
                gam[j] = 0.0
                counts[j] = 0.0          # membership of sv is counts > 0 (below)
            sc[_WSQ] = 0.0
            ic[_NSV] = 0
            a = 1.0
        elif abs(a) < _RENORM:
            Bs = sc[_BSUM_AVG]
            for m in range(nsv):
                j = svi[m]
                U[j] += Bs * gam[j]
                gam[j] *= a
            sc[_BSUM_AVG] = 0.0
            a = 1.0
        # 3. add violators: β_i += eta/k, i.e. γ_i += eta / (k a)
        cb = eta / k
        for r in range(nv):
            i = viol[r]
            if project:
                # <w_current, φ(x_i)> = shrink * g_i + contributions of earlier batch violators
                gcur = shrink * vmarg[r]
                for q in range(r):
                    l = viol[q]
                    gcur += cb * y[l] * kernel_value(code, kp, Xd, Xdata, Xind, Xptr, Xsq,
                                                     sparse, l, Xd, Xdata, Xind, Xptr, Xsq, i)
                    ic[_KEVALS] += 1
                kii = kernel_value(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                                   Xd, Xdata, Xind, Xptr, Xsq, i)
                ic[_KEVALS] += 1
                sc[_WSQ] += 2.0 * cb * y[i] * gcur + cb * cb * kii
            # a member of sv can have γ_i == 0.0 again (rescaling underflows, or a negative
            # scale cancels it): membership is counts_i > 0, never γ_i != 0
            if counts[i] == 0.0:
                sv[ic[_NSV]] = i
                ic[_NSV] += 1
            c = cb / a
            gam[i] += c
            U[i] -= sc[_BSUM_AVG] * c
            counts[i] += 1.0
            if fit_b:
                b += eta * y[i] / k
        # 4. projection
        if project and sc[_WSQ] * lam > 1.0:
            f = 1.0 / math.sqrt(lam * sc[_WSQ])
            a *= f
            sc[_WSQ] *= f * f
        sc[_A] = a
        sc[_B] = b
        ic[_T] = t
        if t >= t_avg0:
            sc[_BSUM_AVG] += a
            sc[_BIAS_SUM] += b
            sc[_N_AVG] += 1.0
        if not (math.isfinite(a) and math.isfinite(b)):
            ic[_DIVERGED] = 1
            return s + 1
    return n_steps


# --------------------------------------------------------------------------- pseudocode

_SRC_LINEAR = ("Pegasos (Shalev-Shwartz, Singer & Srebro 2007), Fig. 1 / Sec. 2: mini-batch "
               "sub-gradient step and projection")
_SRC_KERNEL = ("Pegasos, kernel form (Sec. 4; Shalev-Shwartz et al. 2011, Fig. 3), mini-batch, "
               "w = Σ_j β_j y_j φ(x_j)")

PEGASOS_LISTING = Listing(_SRC_LINEAR, (
    Line("input", "INPUT: S = {(x_i, y_i)}_{i=1..m}, λ, T, mini-batch size k",
         "λ = 1/(C m) weighs the regulariser ½‖w‖² against the mean hinge loss.",
         ("lam",)),
    Line("init", "INITIALIZE: w_1 = 0   (any w_1 with ‖w_1‖ ≤ 1/√λ)",
         "The optimum lies in the ball ‖w‖ ≤ 1/√λ, so any start inside it will do.",
         when="!kernel"),
    Line("init", "INITIALIZE: β = 0, α = 0   (w_1 = Σ_j β_j y_j φ(x_j) = 0)",
         "The kernel form never builds w: it keeps one coefficient β_j per training point, "
         "and α_j counts how often x_j was a violator.", when="kernel"),
    Line("loop", "FOR t = 1, 2, …, T:", "One iteration looks at k examples only: its cost "
         "does not grow with m.", ("t",)),
    Line("batch", "  choose A_t ⊆ S, |A_t| = k, i.i.d. uniformly",
         "A random mini-batch: its loss is an unbiased estimate of the mean hinge loss.",
         ("batch",)),
    Line("margin", "  compute y⟨w_t, x⟩ for (x, y) ∈ A_t",
         "The margin y·f(x): ≥ 1 means x is on the right side with room to spare.",
         ("margins",), when="!kernel"),
    Line("margin", "  f(x_i) = Σ_j β_j y_j K(x_j, x_i) for i ∈ A_t",
         "A margin costs one kernel value per point with β_j ≠ 0: this is why kernel Pegasos "
         "slows down as the support grows.", ("margins",), when="kernel"),
    Line("violators", "  A_t⁺ = {(x, y) ∈ A_t : y f(x) < 1}",
         "Only these examples have a non-zero hinge loss max{0, 1 − y f(x)}, so only they "
         "contribute to the sub-gradient.", ("violators",)),
    Line("eta", "  η_t = «eta»", "The step size; with 1/(λt) the analysis gives "
         "Õ(1/(λε)) iterations for an ε-accurate solution.", ("eta",)),
    Line("grad", "  ∇_t = λ w_t − (1/k) Σ_{(x,y)∈A_t⁺} y x        (eq. 3)",
         "A sub-gradient of f(w; A_t) = λ/2‖w‖² + (1/k) Σ_{A_t} hinge at w_t: the "
         "regulariser pulls w toward 0, each violator pulls it toward y x.",
         ("grad_norm",), when="!kernel"),
    Line("grad", "  ∇_t = λ w_t − (1/k) Σ_{i∈A_t⁺} y_i φ(x_i)   (eq. 3 in feature space)",
         "The same sub-gradient, written in the span of the φ(x_j): it changes β, never φ.",
         ("grad_norm",), when="kernel"),
    Line("shrink", "  w_{t+½} = (1 − η_t λ) w_t …", "The regulariser's part of −η_t∇_t: "
         "every weight shrinks by the same factor (at t = 1 with η_1 = 1/λ the factor is 0).",
         ("shrink",), when="!kernel"),
    Line("shrink", "  β ← (1 − η_t λ) β", "The regulariser's part of −η_t∇_t: every "
         "coefficient shrinks by the same factor, w shrinks with them.", ("shrink",),
         when="kernel"),
    Line("add", "    … + (η_t/k) Σ_{(x,y)∈A_t⁺} y x",
         "The loss part of −η_t∇_t: each violator moves w toward y x, i.e. toward classifying "
         "x correctly with margin 1.", ("n_violators",), when="!kernel"),
    Line("add", "    for i ∈ A_t⁺: β_i ← β_i + η_t/k,  α_i ← α_i + 1",
         "Each violator x_i enters the expansion (or grows): it becomes a support vector.",
         ("n_violators",), when="kernel"),
    Line("noadd", "    (A_t⁺ = ∅: every margin ≥ 1, no hinge term — only the shrink)",
         "No sampled example suffers a loss, so the sub-gradient is the regulariser's alone."),
    Line("bias", "  b ← b + (η_t/k) Σ_{A_t⁺} y   (unregularised bias, Sec. 4)",
         "The bias takes the loss part of the step only; it is neither shrunk nor projected.",
         ("b",), when="bias"),
    Line("project", "  w_{t+1} = min{1, (1/√λ)/‖w_{t+½}‖} · w_{t+½}   (projection onto B, eq. 4)",
         "The optimum lies in B = {‖w‖ ≤ 1/√λ}: scaling back into B can only bring w closer "
         "to it, and keeps the steps bounded.", ("norm_half", "radius", "projection"),
         when="project+!kernel"),
    Line("project", "  β ← min{1, 1/(√λ‖w‖)} · β,   ‖w‖² = Σ_ij β_i β_j y_i y_j K(x_i, x_j)",
         "The same projection onto ‖w‖ ≤ 1/√λ; ‖w‖² is kept up to date from the kernel "
         "values of the new terms only.", ("norm_half", "radius", "projection"),
         when="project+kernel"),
    Line("avg", "  t ≥ T₀: w̄ = mean of the iterates w_{T₀+1}, …, w_{t+1}",
         "Averaging the last iterates smooths out the noise of the stochastic steps.",
         ("averaging",), when="avg"),
    Line("output", "OUTPUT: w_{T+1}   (or the average w̄)",
         "The model is f(x) = ⟨w, x⟩ (+ b).", when="!kernel"),
    Line("output", "OUTPUT: f(x) = Σ_j β_j y_j K(x_j, x)   (+ b)",
         "β_j = α_j/(λ t k) with the 1/(λt) schedule: the violation counts are the dual "
         "variables.", when="kernel"),
), symbols={"batch": "A_t", "margins": "y·f(x)", "violators": "A_t⁺",
            "n_violators": "|A_t⁺|", "grad_norm": "‖∇_t‖", "norm_half": "‖w_{t+½}‖",
            "radius": "1/√λ", "projection": "min{1, (1/√λ)/‖w_{t+½}‖}",
            "averaging": "averaging"})


def pegasos_listing(kernel=False, bias=False, project=True, avg=False, eta="1/(λt)") -> Listing:
    """The variant of :data:`PEGASOS_LISTING` for these options."""
    flags = [f for f, on in (("kernel", kernel), ("bias", bias), ("project", project),
                             ("avg", avg)) if on]
    return PEGASOS_LISTING.select(*flags, source=_SRC_KERNEL if kernel else _SRC_LINEAR,
                                  eta=eta)


class PegasosSolver(Solver):
    __doc__ = __doc__
    name = "pegasos"
    online = True
    #: example weights: example i is drawn with probability w_i / Σw and λ = 1/(C·Σw), so the
    #: expected objective is λ/2‖w‖² + (1/Σw) Σ w_i ℓ_i (C·w_i per example, as SVC)
    weighting = "sampling ∝ w_i, λ = 1/(C·Σw)"
    title = "Pegasos"
    paper = "Shalev-Shwartz, Singer & Srebro (2007), Pegasos: Primal Estimated sub-GrAdient SOlver for SVM"
    formulation = (r"\min_{w,b}\ \frac{\lambda}{2}\|w\|^2 + \frac{1}{n}\sum_{i=1}^n "
                   r"\max\{0,\ 1 - y_i(\langle w, x_i\rangle + b)\},\qquad \lambda=\frac{1}{Cn}")
    update_rule = (r"w_{t+1} = \Pi_{\|w\|\le 1/\sqrt{\lambda}}\Big[(1-\eta_t\lambda)\,w_t + "
                   r"\frac{\eta_t}{k}\sum_{i\in A_t^+} y_i x_i\Big],\quad \eta_t=\frac{1}{\lambda t}")
    params = {
        "C": C_SPEC,
        "kernel": KERNEL_SPEC,
        "gamma": GAMMA_SPEC,
        "degree": DEGREE_SPEC,
        "coef0": COEF0_SPEC,
        "epochs": EPOCHS_SPEC,
        "batch_size": ParamSpec(1, "int", "k — how many examples each iteration looks at (the "
                                "mini-batch A_t, |A_t| = k, Pegasos Sec. 2).",
                                low=1, high=1_000_000, ui=(1, 256), log=True),
        "schedule": SCHEDULE_SPEC,
        "eta0": ETA0_SPEC,
        "projection": ParamSpec(True, "bool", "‖w‖ ≤ 1/√λ — after each step, pull w back into the "
                                "ball where the optimum must lie (Pegasos Sec. 2, the optional "
                                "projection).", advanced=True),
        "fit_intercept": ParamSpec(False, "bool", "b — learn an offset, so the boundary need not "
                                   "pass through the origin (Pegasos Sec. 4; unregularised here). "
                                   "The app turns it on by default."),
        "averaging": AVERAGING_SPEC,
        "sampling": ParamSpec("iid", "choice", "A_t — how the examples of a step are picked: with "
                              "replacement (iid, as in the paper) or from an epoch-wise random "
                              "permutation.",
                              choices=("iid", "permutation"), advanced=True),
        "dual": ParamSpec(False, "bool", "α — run the kernelized form (one coefficient α_i per "
                          "example, Pegasos Sec. 4) even for the linear kernel: the same iterates, "
                          "another cost.",
                          when=("kernel", ("linear",)), advanced=True),
    }
    listing_default = pegasos_listing()

    # ---------------------------------------------------------------------------------- setup
    def _setup(self):
        p = self.p
        k = p["batch_size"]
        if k > self.n:
            raise ValueError(f"batch_size must be in [1, n={self.n}], got {k}")
        self.k = k
        self.kernelized = p["kernel"] != "linear" or p["dual"]
        self.horizon = max(1, math.ceil(p["epochs"] * self.n / k))
        self.t_avg0 = averaging_start(p["averaging"], self.horizon)
        self.sched = self.schedule
        self.sparams = self.sched.params(self.lam, p["C"])
        self.stream = self.sample_stream(p["sampling"])
        self.sc = np.zeros(7)
        self.sc[_A] = 1.0
        self.ic = np.zeros(4, dtype=np.int64)
        self.viol = np.zeros(k, dtype=np.int64)
        self.vdot = np.zeros(k)
        if self.kernelized:
            n = self.n
            self.gam = np.zeros(n)
            self.U = np.zeros(n)
            self.counts = np.zeros(n)
            self.sv = np.zeros(n, dtype=np.int64)
            self.vmarg = np.zeros(k)
            self.row = np.zeros(n)
        else:
            self.v = np.zeros(self.d)
            self.U = np.zeros(self.d)

    def carry_over(self, old: "PegasosSolver", lam: float, keep=None) -> None:
        """Continue another Pegasos run on this run's data: its w (linear) or its expansion,
        b, average and t (the schedule goes on from t + 1), with λ = ``lam``. A kernel run's
        first rows are old's rows ``keep`` (its support, in its support-list order); ‖w‖² is
        recomputed when rows were left out. With the 1/(λt) schedule a new λ scales w, b and
        their average by λ_old/λ (then projects): w_t = (1/(λt)) Σ_s g_s is the iterate a run
        with the new λ from its start would have, for the same violators. Call after ``init``."""
        if self.kernelized != old.kernelized or old.d != self.d:
            raise ValueError("pegasos carries over a model of the same form and features")
        self.sc[:], self.ic[:] = old.sc, old.ic
        self.t, self.t_avg0 = old.t, old.t_avg0
        self.lam = lam
        self.sparams = self.sched.params(lam, self.p["C"])
        r = old.lam / lam
        rescale = old.t > 0 and r != 1.0 and self.p["schedule"] == "pegasos"
        if rescale:
            self.sc[[_A, _B, _BSUM_AVG, _BIAS_SUM]] *= r
            self.sc[_WSQ] *= r * r
        if not self.kernelized:
            self.v[:], self.U[:] = old.v, old.U
            if rescale:
                self.U *= r
                wsq = self.sc[_A] ** 2 * self.sc[_VSQ]
                if self.p["projection"] and wsq * lam > 1.0:
                    self.sc[_A] /= math.sqrt(lam * wsq)
            return
        m = keep.shape[0]
        self.gam[:m], self.U[:m], self.counts[:m] = old.gam[keep], old.U[keep], old.counts[keep]
        if rescale:
            self.U[:m] *= r
        listed = np.flatnonzero(self.counts[:m] > 0)    # a prefix: keep lists them first
        self.sv[:listed.size] = listed
        self.ic[_NSV] = listed.size
        if listed.size < int(old.ic[_NSV]) and listed.size:    # pruned: ‖w‖² of what is kept
            c = self.gam[listed] * self.y[listed]
            self.sc[_WSQ] = self.sc[_A] ** 2 * float(c @ self.kernel_block(listed, listed) @ c)
        if rescale and self.p["projection"] and self.sc[_WSQ] * lam > 1.0:
            f = 1.0 / math.sqrt(lam * self.sc[_WSQ])
            self.sc[_A] *= f
            self.sc[_WSQ] *= f * f

    def support_rows(self) -> np.ndarray:
        """The rows the kernel model uses, in support-list order (then rows only the average
        uses)."""
        listed = self.sv[:self.ic[_NSV]].copy()
        extra = np.setdiff1d(np.flatnonzero(self.U != 0.0), listed)
        return np.concatenate([listed, extra]).astype(np.int64)

    def visit(self, idx: np.ndarray) -> int:
        """One step per consecutive mini-batch of the training rows ``idx``, in that order (no
        sampling): how ``partial_fit`` streams a chunk. Returns the iterations done."""
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        if idx.shape[0] % self.k:
            raise ValueError(f"pegasos visits whole mini-batches: {idx.shape[0]} rows is not a "
                             f"multiple of batch_size = {self.k}")
        return self._advance(idx, idx.shape[0] // self.k)

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Run n iterations (n mini-batches) in one compiled call; returns the iterations done."""
        self._require_ready()
        n = int(n)
        if n <= 0 or self.diverged:
            return 0
        total = 0
        per = max(1, _MAX_DRAWN // self.k)       # the sample indices of a call: ≤ 8 MB
        while total < n and not self.ic[_DIVERGED]:
            m = min(per, n - total)
            total += self._advance(self.stream.take(m * self.k), m)
        return total

    def _advance(self, idx: np.ndarray, n: int) -> int:
        """n iterations on the mini-batches ``idx`` (n·k indices from the stream)."""
        X = rows_args(self.X)
        p = self.p
        if self.kernelized:
            done = _kernel_chunk(self.kcode, self.kp, *X, self.y, idx, n, self.k, self.gam,
                                 self.U, self.counts, self.sv, self.sc, self.ic, self.sched.code,
                                 self.sparams, self.lam, p["projection"], p["fit_intercept"],
                                 self.t_avg0, self.viol, self.vmarg, self.row)
        else:
            done = _linear_chunk(*X, self.y, idx, n, self.k, self.v, self.U, self.sc, self.ic,
                                 self.sched.code, self.sparams, self.lam, p["projection"],
                                 p["fit_intercept"], self.t_avg0, self.viol, self.vdot)
        self.t = int(self.ic[_T])
        self.kernel_evals = int(self.ic[_KEVALS])
        if self.ic[_DIVERGED]:
            self._mark_diverged("the weights became NaN or infinite")
        return int(done)

    # ---------------------------------------------------------------------------------- model
    @property
    def averaging_active(self) -> bool:
        return self.sc[_N_AVG] > 0

    def model(self, last: bool = False):
        """(coefficients, b): w (linear) or β over all training points (kernel), averaged if
        the averaging window has started (unless ``last``), else the last iterate."""
        if self.kernelized:
            vec = self.gam
        else:
            vec = self.v
        if self.averaging_active and not last:
            m = self.sc[_N_AVG]
            return (self.U + self.sc[_BSUM_AVG] * vec) / m, self.sc[_BIAS_SUM] / m
        return self.sc[_A] * vec, float(self.sc[_B])

    @property
    def coef_(self) -> np.ndarray:
        if self.kernelized:
            raise AttributeError("coef_ exists only for the linear primal form")
        return self.model()[0]

    @property
    def intercept_(self) -> float:
        return float(self.model()[1])

    @property
    def alpha_counts(self) -> np.ndarray:
        """How often each example was a violator (the paper's α; kernel form only)."""
        return self.counts

    def support_coef(self, last: bool = False):
        if not self.kernelized:
            return None                      # the linear primal form: see linear_model()
        beta, b = self.model(last)
        support = np.flatnonzero(beta != 0.0)
        return support, beta[support] * self.y[support], b

    def linear_model(self):
        """(w, b) of the linear primal form (None for the kernelized form)."""
        return None if self.kernelized else self.model()

    def _decision_rows(self, R, last: bool = False):
        if self.kernelized:
            return self._expansion_rows(R, self.support_coef(last))
        out = np.zeros(R.n)
        w, b = self.model(last)
        linear_scores(*rows_args(R)[:4], R.sparse, w, out)
        return out + b

    def _last_rows(self, R):
        return self._decision_rows(R, last=True)

    def w_sqnorm(self) -> float:
        """‖w‖² of the reported model (exact, from the coefficients)."""
        if not self.kernelized:
            w, _ = self.model()
            with np.errstate(over="ignore", invalid="ignore"):
                return float(w @ w)
        support, coef, _ = self.support_coef()
        if support.size == 0:
            return 0.0
        S = self.X.take(support)
        from .kernels import kernel_block
        K = kernel_block(self.kcode, self.kp, *rows_args(S), *rows_args(S)[:5])
        return float(coef @ K @ coef)

    def trace_row(self, rows):
        """Objective and training error with the hinge term on the training rows ``rows``;
        ‖w‖²: exact for the linear form, for a projected last iterate (kept by the compiled
        loop) and when ``rows`` are every row, else estimated from len(rows) // 2 draws
        (``Solver._trace_sqnorm``)."""
        self._require_ready()
        scores = self._decision_rows(self._rows_of(rows))
        y = self.y[rows]
        if not self.kernelized:
            wsq, n_sv = self.w_sqnorm(), int(round(np.mean(y * scores <= 1.0) * self.n))
        else:
            exact = self.p["projection"] and not self.averaging_active
            if exact:
                wsq = float(self.sc[_WSQ])
            elif rows.size == self.n:            # every row: exact, as the snapshot computes it
                full = np.empty(self.n)
                full[rows] = scores
                support, coef, b = self.support_coef()
                wsq = float(coef @ (full[support] - b)) if support.size else 0.0
            else:
                wsq = self._trace_sqnorm(rows.size // 2)
            n_sv = int(np.count_nonzero(self.model()[0]))
        return primal_objective(scores, y, wsq, lam=self.lam), error_rate(scores, y), n_sv

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        return join_state([
            state_part("step η_t = {eta:.3g}", eta=e.get("eta")),
            state_part("λ = {lam:.3g}", lam=e.get("lam")),
            state_part("mini-batch k = {k:,}", k=self.p.get("batch_size")),
            "averaging the iterates now" if e.get("averaging_active") else None,
        ])

    def snapshot(self) -> Snapshot:
        self._require_ready()
        scores = self._decision_rows(self.X)
        margins = self.y * scores
        coef = None
        if self.kernelized:
            support, coef, b = self.support_coef()
            # ‖w‖² = Σ_s c_s ⟨w, φ(x_s)⟩ = Σ_s c_s (f(x_s) − b): no kernel values beyond the scores
            wsq = float(coef @ (scores[support] - b)) if support.size else 0.0
        else:
            support = np.flatnonzero(margins <= 1.0)
            wsq = self.w_sqnorm()
        obj = primal_objective(scores, self.y, wsq, lam=self.lam)
        return Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals, objective_name="primal L1-SVM, λ-form",
            diverged=self.diverged, coef=coef,
            extra={"train_error": error_rate(scores, self.y), "lam": self.lam,
                   "eta": float(self.step_sizes([max(self.t, 1)])[0]),
                   "averaging_active": bool(self.averaging_active)},
        )

    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        """Fig. 1 (linear, primal) or the kernel form (dual), with the bias, projection and
        averaging lines of the options that are on and the schedule's η_t."""
        p = self.p
        return pegasos_listing(kernel=p["kernel"] != "linear" or p["dual"],
                               bias=p["fit_intercept"], project=p["projection"],
                               avg=p["averaging"] is not None, eta=self.schedule.text)

    def step_through_state(self) -> dict:
        """Linear form: the iterate ``w`` = a·v and ``b``; kernel form: ``β`` = a·γ over all
        n points, the violation counts ``α`` and ``b``; with averaging also the reported
        average (``w_avg`` or ``β_avg``, and ``b_avg``)."""
        vec, name = (self.gam, "β") if self.kernelized else (self.v, "w")
        out = {name: self.sc[_A] * vec, "b": float(self.sc[_B])}
        if self.kernelized:
            out["α"] = self.counts.copy()
        if self.p["averaging"] is not None:
            avg, bavg = self.model()
            out[name + "_avg"], out["b_avg"] = np.array(avg, copy=True), float(bavg)
        return out

    def _step_through_one(self) -> StepThroughRecord:
        """One iteration of Fig. 1 (or its kernel form) with its sub-gradient ∇_t, computed in
        NumPy from the state before the compiled step, which then runs on the same batch."""
        L = self.listing()
        if self.diverged:
            return self._idle_record(L.no("loop"), "the run diverged")
        k, lam, y = self.k, self.lam, self.y
        t = self.t + 1
        eta = float(self.sched.values([t], lam, self.p["C"])[0])
        shrink = 1.0 - eta * lam
        idx = self.stream.take(k)
        s0 = self.step_through_state()
        name = "β" if self.kernelized else "w"
        vec0, b0 = s0[name], s0["b"]
        if self.kernelized:
            sup = np.flatnonzero(vec0 != 0.0)
            f = (vec0[sup] * y[sup]) @ self.kernel_block(sup, idx) if sup.size else np.zeros(k)
        else:
            R = self.X.take(idx).to_scipy()
            f = np.asarray(R @ vec0).ravel()
        margins = y[idx] * (f + b0)
        viol = idx[margins < 1.0]
        mult = np.bincount(viol, minlength=self.n).astype(np.float64)
        # ∇_t = λ w_t − (1/k) Σ_{A⁺} y x, and w_{t+½} = w_t − η_t ∇_t
        if self.kernelized:
            grad = lam * vec0 * y - mult * y / k          # coefficients of φ(x_j)
            half = shrink * vec0 + eta * mult / k          # β_{t+½}
            touched = np.flatnonzero((grad != 0.0) | (half != 0.0))
            Kt = self.kernel_block(touched, touched) if touched.size else np.zeros((0, 0))
            gt, ht = grad[touched], half[touched] * y[touched]
            grad_norm = math.sqrt(max(float(gt @ Kt @ gt), 0.0))
            norm_half = math.sqrt(max(float(ht @ Kt @ ht), 0.0))
        else:
            Rv = self.X.take(viol).to_scipy() if viol.size else None
            pull = np.asarray(y[viol] @ Rv).ravel() / k if viol.size else np.zeros(self.d)
            grad = lam * vec0 - pull
            half = vec0 - eta * grad
            grad_norm, norm_half = float(np.linalg.norm(grad)), float(np.linalg.norm(half))
        radius = 1.0 / math.sqrt(lam)
        factor = min(1.0, radius / norm_half) if (self.p["projection"] and norm_half > 0) else 1.0

        done = self._advance(idx, 1)                      # the compiled step on this batch
        s1 = self.step_through_state()
        changes = state_changes(s0, s1, skip=("α",))
        index = {}
        if self.kernelized and viol.size:
            u = np.unique(viol)
            changes["α"], index["α"] = (s0["α"][u], s1["α"][u]), u
        keys = ["loop", "batch", "margin", "violators", "eta", "grad", "shrink"]
        keys += ["add"] if viol.size else ["noadd"]
        if self.p["fit_intercept"] and viol.size:
            keys.append("bias")
        if factor < 1.0:
            keys.append("project")
        if self.p["averaging"] is not None and t >= self.t_avg0:
            keys.append("avg")
        q = {"t": t, "eta": eta, "lam": lam, "shrink": shrink, "k": k, "batch": idx.copy(),
             "margins": margins, "violators": viol, "n_violators": int(viol.size),
             "grad": grad, "grad_norm": grad_norm, "norm_half": norm_half, "radius": radius,
             "projection": factor, "projected": factor < 1.0, "b": s1["b"],
             "averaging": bool(t >= self.t_avg0),
             # the iterate before, after the sub-gradient step and after the projection
             name + "_t": vec0, name + "_half": half, name + "_next": s1[name]}
        roles = {"sample": tuple(int(i) for i in np.unique(idx))}
        if viol.size:
            roles["violators"] = tuple(int(i) for i in np.unique(viol))
            roles["updated"] = roles["violators"]
        text = _pegasos_text(t, idx, margins, viol, shrink, factor, radius, self.kernelized)
        if done == 0 or self.diverged:
            text += " The weights became NaN or infinite: the run diverged."
        return StepThroughRecord(t_before=t - 1, t=self.t, lines=L.no(*keys), text=text,
                          picked=roles["sample"], changes=changes, quantities=q,
                          roles=roles, index=index)


    # ------------------------------------------------------------------------ mid-run changes
    #: taken mid-run (``retune``): λ = 1/(C n), the schedule and η0 enter the step sizes of the
    #: next iterations (the projection radius 1/√λ is read from λ at every step); a new
    #: ``batch_size`` re-plans the horizon for the examples still to see (epochs·n − those
    #: seen so far); a new ``averaging`` drops the average so far and opens the new window.
    soft_params = ("C", "schedule", "eta0", "averaging", "batch_size")

    def _retune(self, diff):
        from .objectives import lam_from_C
        p = self.p
        if "batch_size" in diff:
            k = p["batch_size"]
            if k > self.n:
                raise ValueError(f"batch_size must be in [1, n={self.n}], got {k}")
            seen = self.examples_seen
            self._k_base = (self.t, seen)
            self.k = k
            self.viol, self.vdot = np.zeros(k, dtype=np.int64), np.zeros(k)
            if self.kernelized:
                self.vmarg = np.zeros(k)
            self.horizon = max(1, self.t + max(0, math.ceil((p["epochs"] * self.n - seen) / k)))
        if "C" in diff:
            self.lam = lam_from_C(p["C"], self.weight_total)
        self.sched = self.schedule
        self.sparams = self.sched.params(self.lam, p["C"])
        self._retune_average(diff, self.horizon)

    @property
    def examples_seen(self) -> int:
        """Training examples drawn so far (Σ of the batch sizes of the iterations done)."""
        t0, seen0 = getattr(self, "_k_base", (0, 0))
        return seen0 + (self.t - t0) * self.k

    def _clear_average(self):
        self.U[:] = 0.0
        self.sc[[_BSUM_AVG, _BIAS_SUM, _N_AVG]] = 0.0


def _pegasos_text(t, idx, margins, viol, shrink, factor, radius, kernel) -> str:
    """One sentence for a Pegasos iteration."""
    if idx.size == 1:
        i, m = int(idx[0]), float(margins[0])
        head = (f"t = {t}: x_{i} has margin y·f(x) = {m:.3g}"
                + (" < 1, a violator" if viol.size else " ≥ 1, no loss"))
    else:
        head = (f"t = {t}: {viol.size} of the {idx.size} sampled points "
                f"{'has' if viol.size == 1 else 'have'} margin < 1")
    what = "β" if kernel else "w"
    body = f"; {what} shrinks by 1 − η_tλ = {shrink:.3g}"
    if viol.size:
        body += (" and moves toward y·x of the violator" + ("s" if viol.size > 1 else "")
                 if not kernel else " and the violator" + ("s" if viol.size > 1 else "")
                 + " gain η_t/k in β")
    else:
        body += " only"
    if factor < 1.0:
        body += f"; ‖w‖ exceeded 1/√λ = {radius:.3g}, so w is scaled back by {factor:.3g}"
    return head + body + "."
