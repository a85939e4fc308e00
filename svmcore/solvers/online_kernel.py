r"""Online kernel SVMs of Kecman & Melki (2016): NORMA (List 1), Pegaz (List 2), OL SVM (Lists 3a, 3b).

All four learn a kernel expansion o(x) = Σ_j α_j k(x, x_j) + b (α_j carries the sign of y_j; the
bias b of eqs. 6–7 is optional and off by default, as in the paper) by visiting the training points
of a shuffled dataset in order, epoch after epoch, with the step η_t = C √(2/t) (t = 1, 2, … counts
all visits). With x_i the point visited at step t and viol = y_i o(x_i) its margin under the
current model:

* **NORMA** (List 1; Kivinen, Smola & Williamson 2004)::

      α_j ← (1 − η_t/C) α_j  for every j ≠ i;     if viol ≤ 1:  α_i ← η_t y_i  (α_i is *set*)

* **Pegaz** (List 2; Shalev-Shwartz & Ben-David 2014, Pegasos without projection)::

      α = η_t β;   if viol ≤ 1:  β_i ← β_i + y_i;          the model after step t is η_t β_t

* **OL SVM, hinge** (List 3b, the paper's experiments) — stochastic gradient of (2) Σ max(0, 1 − y_i o_i)::

      if viol < 1:  α_i ← α_i + η_t y_i

* **OL SVM, regularized** (List 3a) — stochastic gradient of (1) C Σ max(0, 1 − y_i o_i) + ½‖o‖²::

      if viol < 1:  α_i ← (1 − η_t/C) α_i + η_t y_i;    elif viol > 1:  α_i ← (1 − η_t/C) α_i

  and with ``fit_intercept`` every variant also does b ← b + η_t y_i under its violation test.

Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/norma.md``.
One file past 700 lines: the compiled core (the @njit chunk function and the helpers it
inlines) is one piece whose state layout the class, the step-through and the tests share.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import njit
from .kernels import kernel_row, rows_args
from .objectives import error_rate, hinge_losses
from .step_sizes import SCHEDULE_CODES, step_size
from .base import (AVERAGING_SPEC, C_SPEC, COEF0_SPEC, DEGREE_SPEC, ETA0_SPEC, GAMMA_SPEC,
                   KERNEL_SPEC, Line, Listing, ParamSpec, SampleStream, Snapshot, Solver, StepThroughRecord,
                   averaging_start, join_state, state_changes, state_part)

# algorithm codes
NORMA, PEGAZ, OL_HINGE, OL_REG = 0, 1, 2, 3
# scalar state slots (float64 array `sc`)
_A, _B, _BSUM, _BIAS_SUM, _N_AVG = 0, 1, 2, 3, 4
_NSC = 5
# integer state slots (int64 array `ic`)
_T, _KEVALS, _NSV, _DIVERGED, _NVIOL, _NCOL = 0, 1, 2, 3, 4, 5
_NIC = 6

# fold a into γ when |a| < 1e-3. The averaged sum U + B·γ cancels digits in proportion to 1/|a|:
# measured relative error of averaged NORMA vs the reference 2e-14 here, 2e-8 with 1e-9.
_RENORM = 1e-3


# --------------------------------------------------------------------------- compiled core


@njit
def _sv_add(j, sv, pos, ic):
    pos[j] = ic[_NSV]
    sv[ic[_NSV]] = j
    ic[_NSV] += 1


@njit
def _sv_remove(j, sv, pos, ic):
    m = pos[j]
    last = ic[_NSV] - 1
    k = sv[last]
    sv[m] = k
    pos[k] = m
    pos[j] = -1
    ic[_NSV] = last


@njit
def _set_coef(i, new, gam, ot, U, sv, pos, sc, ic, cache, code, kp,
              Xd, Xdata, Xind, Xptr, Xsq, sparse, allidx, col):
    """γ_i ← new, keeping the averaging sum U + B·γ, the support list and (if cached) õ = Kγ."""
    old = gam[i]
    d = new - old
    if d == 0.0:
        return
    U[i] -= sc[_BSUM] * d
    gam[i] = new
    if old == 0.0:
        _sv_add(i, sv, pos, ic)
    elif new == 0.0:
        _sv_remove(i, sv, pos, ic)
    if cache:
        n = ot.shape[0]
        kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                   Xd, Xdata, Xind, Xptr, Xsq, allidx, col)
        ic[_KEVALS] += n
        ic[_NCOL] += 1
        for j in range(n):
            ot[j] += d * col[j]


@njit
def _rescale(r, gam, ot, U, sv, pos, sc, ic, cache):
    """α = a·γ with the scalar a folded into γ: γ ← r γ, õ ← r õ (r = a). The averaging scale
    B is folded into U first (U += B γ, B = 0), so B cannot overflow over many rescales.
    r == 0 resets the model (every γ_j = 0, empty support)."""
    B = sc[_BSUM]
    for m in range(ic[_NSV] - 1, -1, -1):
        j = sv[m]
        if B != 0.0:
            U[j] += B * gam[j]
        gam[j] *= r
        if gam[j] == 0.0:
            _sv_remove(j, sv, pos, ic)
    sc[_BSUM] = 0.0
    if cache:
        if r == 0.0:
            ot[:] = 0.0
        else:
            for j in range(ot.shape[0]):
                ot[j] *= r


@njit
def _online_chunk(alg, code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, y, idx, n_steps,
                  gam, ot, U, sv, pos, sc, ic, scode, sparams, Cs, fit_b, t_avg0, cache,
                  strict, add_rule, row, allidx, full_row):
    """n_steps iterations of NORMA / Pegaz / OL SVM (``alg``) on α = a·γ. Returns steps done."""
    for s in range(n_steps):
        t = ic[_T] + 1
        eta = step_size(scode, sparams, t)
        i = idx[s]
        a = sc[_A]
        if alg == PEGAZ:
            a = eta                                   # α = η β (List 2)
        b = sc[_B]
        # ---- the violator quantity y_i o(x_i)
        if cache:
            g = ot[i]
        elif full_row:
            # the listings' k(x_i, :) * α: the whole kernel row, n values every step
            nn = allidx.shape[0]
            kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                       Xd, Xdata, Xind, Xptr, Xsq, allidx, row)
            ic[_KEVALS] += nn
            # summed in support-list order, as the 'support' mode sums: the same α whichever
            # mode runs, and a streamed chunk (partial_fit) adds the same terms in fit's order
            g = 0.0
            for m in range(ic[_NSV]):
                j = sv[m]
                g += gam[j] * row[j]
        else:
            g = 0.0
            nsv = ic[_NSV]
            if nsv > 0:
                svi = sv[:nsv]
                kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, i,
                           Xd, Xdata, Xind, Xptr, Xsq, svi, row)
                ic[_KEVALS] += nsv
                for m in range(nsv):
                    g += gam[svi[m]] * row[m]
        viol = y[i] * (a * g + b)
        if strict:
            hit = viol < 1.0
        else:
            hit = viol <= 1.0
        if hit:
            ic[_NVIOL] += 1
            if fit_b:
                b += eta * y[i]
        # ---- the update
        if alg == NORMA:
            old = a * gam[i]                          # α_i before the step
            a *= 1.0 - eta / Cs
            if a == 0.0 or abs(a) < _RENORM:
                _rescale(a, gam, ot, U, sv, pos, sc, ic, cache)
                a = 1.0
            if add_rule:                              # Kivinen et al.: every term shrinks
                newg = gam[i] + eta * y[i] / a if hit else gam[i]
            elif hit:                                 # List 1: α_i = η y_i ...
                newg = eta * y[i] / a
            else:                                     # ... else α_i unchanged (not shrunk)
                newg = old / a
            _set_coef(i, newg, gam, ot, U, sv, pos, sc, ic, cache, code, kp,
                      Xd, Xdata, Xind, Xptr, Xsq, sparse, allidx, row)
        elif alg == PEGAZ:
            if hit:
                _set_coef(i, gam[i] + y[i], gam, ot, U, sv, pos, sc, ic, cache, code, kp,
                          Xd, Xdata, Xind, Xptr, Xsq, sparse, allidx, row)
        elif alg == OL_HINGE:
            if hit:
                _set_coef(i, gam[i] + eta * y[i], gam, ot, U, sv, pos, sc, ic, cache, code,
                          kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, allidx, row)
        else:                                         # OL_REG (a stays 1)
            if hit:
                new = (1.0 - eta / Cs) * gam[i] + eta * y[i]
            elif viol > 1.0:
                new = (1.0 - eta / Cs) * gam[i]
            else:
                new = gam[i]
            _set_coef(i, new, gam, ot, U, sv, pos, sc, ic, cache, code, kp,
                      Xd, Xdata, Xind, Xptr, Xsq, sparse, allidx, row)
        sc[_A] = a
        sc[_B] = b
        ic[_T] = t
        if t >= t_avg0:
            sc[_BSUM] += a
            sc[_BIAS_SUM] += b
            sc[_N_AVG] += 1.0
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(gam[i])
                and math.isfinite(viol)):
            ic[_DIVERGED] = 1
            return s + 1
    return n_steps


@njit
def _outputs(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, svi, gam, ot, col, allidx):
    """õ += γ_j k(x_j, ·) for the support list in its order: the sums a run that added those
    coefficients one by one holds (streamed chunks continue it)."""
    for m in range(svi.shape[0]):
        j = svi[m]
        kernel_row(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, j,
                   Xd, Xdata, Xind, Xptr, Xsq, allidx, col)
        for q in range(ot.shape[0]):
            ot[q] += gam[j] * col[q]


# --------------------------------------------------------------------------- solvers


_KECMAN_SCHEDULE = ParamSpec("kecman", "choice", "η_t — the rule that sets the step size "
                             "at iteration t; the paper's is kecman, η_t = C√(2/t); pegasos "
                             "gives η_t = C/t (λ = 1/C).",
                             choices=tuple(SCHEDULE_CODES))
_EPOCHS = ParamSpec(1.0, "float", "N — how many passes over the data the run makes (N·n "
                    "iterations); the paper leaves N open, one pass is its Pegaz/NORMA "
                    "comparison setting.",
                    low=0.0, low_open=True, high=1e5, ui=(0.1, 100.0), log=True)
_FIT_B = ParamSpec(False, "bool", "b — learn an offset, so the boundary need not pass "
                   "through the origin (Kecman & Melki eq. 6: b += η y_i on every violation; off "
                   "in the paper, the app turns it on by default).")
_RESHUFFLE = ParamSpec(False, "bool", "order — draw a new random order of the examples every "
                       "epoch (False: the paper's single shuffle, cycled).", advanced=True)
_VIOL_RULE = ParamSpec("listing", "choice", "viol — which margin test makes x_i a violator: "
                       "listing (y_i o(x_i) ≤ 1 for NORMA and Pegaz, < 1 for OL SVM, as the "
                       "Lists write it), or one rule for all.", choices=("listing", "<", "<="),
                       advanced=True)


def _cache_spec(default: bool) -> ParamSpec:
    return ParamSpec(default, "bool", "o = Kα — keep the outputs of all training points and "
                     "update them with one kernel column per coefficient change (List 3); False "
                     "recomputes y_i Σ α_j k(x_i, x_j) over the support every step (Lists 1–2).",
                     advanced=True)


_COMMON = {
    "C": C_SPEC,
    "kernel": ParamSpec("rbf", "choice", KERNEL_SPEC.help, choices=KERNEL_SPEC.choices),
    "gamma": GAMMA_SPEC,
    "degree": DEGREE_SPEC,
    "coef0": COEF0_SPEC,
    "epochs": _EPOCHS,
    "schedule": _KECMAN_SCHEDULE,
    "eta0": ETA0_SPEC,
    "fit_intercept": _FIT_B,
    "averaging": AVERAGING_SPEC,
    "reshuffle": _RESHUFFLE,
    "viol_rule": _VIOL_RULE,
    "literal": ParamSpec("row", "choice", "k(x_i, ·) — without cached outputs: 'row' computes the "
                         "whole kernel row every step (n values, as the listings and the paper's "
                         "MATLAB code do: the cost its Figs 5–8 compare); 'support' sums over the "
                         "current non-zero coefficients only (cheaper, same α).",
                         choices=("row", "support"), when=("cache_outputs", (False,)),
                         advanced=True),
}


class _OnlineKernelMixin:
    """Shared machinery of NORMA, Pegaz and OL SVM (see the module docstring). A mixin, not a
    Solver subclass, so that the registry test sees only the three public classes."""
    #: example weights: example i is drawn with probability w_i / Σw and λ = 1/(C·Σw), so the
    #: expected objective is λ/2‖w‖² + (1/Σw) Σ w_i ℓ_i (C·w_i per example, as SVC)
    weighting = "sampling ∝ w_i, λ = 1/(C·Σw)"

    kernelized = True
    online = True
    _strict_listing = False          # the listing's violation test: False ≤ 1, True < 1

    def _alg(self) -> int:
        raise NotImplementedError

    # ---------------------------------------------------------------------------------- setup
    def _setup(self):
        p = self.p
        n = self.n
        self.alg = self._alg()
        self.C = p["C"]
        # the C the listings run with: C, or C·n for NORMA/Pegaz with c_scale="svc"
        svc = p.get("c_scale", "paper") == "svc"
        self.C_run = self.C * self.weight_total if svc else self.C
        self.lam = 1.0 / self.C_run             # schedules' λ: pegasos gives η_t = C/t
        self.horizon = max(1, math.ceil(p["epochs"] * n))
        self.t_avg0 = averaging_start(p["averaging"], self.horizon)
        self.sched = self.schedule
        self.sparams = self.sched.params(self.lam, self.C_run)
        rule = p["viol_rule"]
        self.strict = self._strict_listing if rule == "listing" else rule == "<"
        self.cache = bool(p["cache_outputs"])
        self.add_rule = p.get("update", "set") == "add"
        self.stream = self.sample_stream("permutation")
        self._perm = None if p["reshuffle"] else self.stream.take(n)
        self.sc = np.zeros(_NSC)
        self.sc[_A] = 1.0
        self.ic = np.zeros(_NIC, dtype=np.int64)
        self.gam = np.zeros(n)
        self.U = np.zeros(n)
        self.ot = np.zeros(n if self.cache else 0)
        self.sv = np.zeros(n, dtype=np.int64)
        self.pos = -np.ones(n, dtype=np.int64)
        self.row = np.zeros(n)
        self.allidx = np.arange(n, dtype=np.int64)

    def carry_over(self, old, keep: np.ndarray, n_lam: int) -> None:
        """Continue ``old`` (the same algorithm) on this run's data, whose first rows are old's
        rows ``keep`` (its support in support-list order, then rows only its average uses): α,
        its average, b and t carry over, the support list keeps its order. With c_scale="svc",
        C_run = C·``n_lam``; when that changes C_run and the steps are ∝ C_run (the kecman and
        pegasos schedules), α, b and their averages are scaled by C_run_new/C_run_old: the
        model a run with the new C_run from its start would have, for the same violators.
        Outputs (cache_outputs) are summed column by column in support-list order, as the run
        accumulated them. Call after ``init``."""
        m = keep.shape[0]
        self.gam[:m], self.U[:m] = old.gam[keep], old.U[keep]
        listed = np.flatnonzero(self.gam[:m] != 0.0)        # a prefix: keep lists them first
        self.sv[:listed.size] = self.pos[listed] = listed
        self.sc[:], self.ic[:] = old.sc, old.ic
        self.ic[_NSV] = listed.size
        self.t, self.t_avg0 = old.t, old.t_avg0
        if self.p.get("c_scale", "paper") == "svc":
            self.C_run = self.C * n_lam
            self.lam = 1.0 / self.C_run
            self.sparams = self.sched.params(self.lam, self.C_run)
            r = self.C_run / old.C_run
            if old.t > 0 and r != 1.0 and self.p["schedule"] in ("kecman", "pegasos"):
                self.U[:m] *= r
                self.sc[[_A, _B, _BSUM, _BIAS_SUM]] *= r
        if self.cache and listed.size:                  # õ = Kγ at every row of this run
            self.ot[:] = 0.0
            _outputs(self.kcode, self.kp, *rows_args(self.X), self.sv[:listed.size], self.gam,
                     self.ot, self.row, self.allidx)
            self.kernel_evals += self.n * listed.size

    def support_rows(self) -> np.ndarray:
        """The rows the model uses, in support-list order (then rows only the average uses)."""
        listed = self.sv[:self.ic[_NSV]].copy()
        extra = np.setdiff1d(np.flatnonzero(self.U != 0.0), listed)
        return np.concatenate([listed, extra]).astype(np.int64)

    def visit(self, idx: np.ndarray) -> int:
        """One step per row of ``idx``, in that order (no sampling): how ``partial_fit``
        streams a chunk. Returns the iterations done."""
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        return self._advance(idx, idx.shape[0])

    def _indices(self, m: int) -> np.ndarray:
        if self._perm is None:
            return self.stream.take(m)
        return self._perm[(self.t + np.arange(m, dtype=np.int64)) % self.n]

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Run n iterations (visits) in one compiled call; returns the iterations done."""
        self._require_ready()
        n = int(n)
        if n <= 0 or self.diverged:
            return 0
        return self._advance(self._indices(n), n)

    def _advance(self, idx: np.ndarray, n: int) -> int:
        """n visits of the points ``idx`` in one compiled call."""
        done = _online_chunk(self.alg, self.kcode, self.kp, *rows_args(self.X), self.y, idx, n,
                             self.gam, self.ot, self.U, self.sv, self.pos, self.sc, self.ic,
                             self.sched.code, self.sparams, self.C_run, self.p["fit_intercept"],
                             self.t_avg0, self.cache, self.strict, self.add_rule, self.row,
                             self.allidx, self.p["literal"] == "row")
        self.t = int(self.ic[_T])
        self.kernel_evals = int(self.ic[_KEVALS])
        if self.ic[_DIVERGED]:
            self._mark_diverged("the coefficients became NaN or infinite")
        return int(done)

    # ---------------------------------------------------------------------------------- model
    @property
    def averaging_active(self) -> bool:
        return self.sc[_N_AVG] > 0

    def model(self, last: bool = False):
        """(α over all training points, b): the averaged iterate once the averaging window has
        started (unless ``last``), else the last iterate (for Pegaz η_t β_t)."""
        if self.averaging_active and not last:
            m = self.sc[_N_AVG]
            return (self.U + self.sc[_BSUM] * self.gam) / m, float(self.sc[_BIAS_SUM] / m)
        return self.sc[_A] * self.gam, float(self.sc[_B])

    @property
    def alpha_(self) -> np.ndarray:
        """Expansion coefficients α_i (signed: o(x) = Σ α_i k(x, x_i) + b) of the reported model."""
        return self.model()[0]

    @property
    def intercept_(self) -> float:
        return self.model()[1]

    @property
    def n_support_current(self) -> int:
        """|{j : γ_j ≠ 0}| of the last iterate (what the literal form evaluates per step)."""
        return int(self.ic[_NSV])

    def support_coef(self, last: bool = False):
        alpha, b = self.model(last)
        support = np.flatnonzero(alpha != 0.0)
        return support, alpha[support], b

    def _decision_rows(self, R):
        return self._expansion_rows(R)

    def _last_rows(self, R):
        return self._expansion_rows(R, self.support_coef(last=True))

    # ------------------------------------------------------------------------------ objective
    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        """The list of this variant (from the options: it works before ``init``)."""
        p = self.p
        rule = p["viol_rule"]
        strict = self._strict_listing if rule == "listing" else rule == "<"
        return online_listing(self._alg(), cache=p["cache_outputs"], bias=p["fit_intercept"],
                              add=p.get("update") == "add", strict=strict,
                              eta=self.schedule.text)

    def step_through_state(self) -> dict:
        """The last iterate α (over all n points) and b; Pegaz also β (α = η β); with
        averaging also the reported average ``α_avg``, ``b_avg``."""
        out = {"α": self.sc[_A] * self.gam, "b": float(self.sc[_B])}
        if self.alg == PEGAZ:
            out["β"] = self.gam.copy()
        if self.p["averaging"] is not None:
            avg, bavg = self.model()
            out["α_avg"], out["b_avg"] = np.array(avg, copy=True), bavg
        return out

    def _step_through_one(self) -> StepThroughRecord:
        """One visit: the margin viol of the visited point computed in NumPy from the state
        before (with the η of this step for Pegaz), then the compiled step on that point."""
        L = self.listing()
        if self.diverged:
            return self._idle_record(L.no("loop"), "the run diverged")
        t = self.t + 1
        idx = self._indices(1)
        i = int(idx[0])
        eta = float(self.sched.values([t], self.lam, self.C_run)[0])
        s0 = self.step_through_state()
        coef = eta * s0["β"] if self.alg == PEGAZ else s0["α"]
        sup = np.flatnonzero(coef != 0.0)
        o_i = float(self.kernel_block([i], sup)[0] @ coef[sup]) if sup.size else 0.0
        viol = float(self.y[i] * (o_i + s0["b"]))
        nviol0 = int(self.ic[_NVIOL])
        self._advance(idx, 1)                              # the compiled step on x_i
        hit = int(self.ic[_NVIOL]) > nviol0
        s1 = self.step_through_state()
        own = "β" if self.alg == PEGAZ else "α"       # the coefficient the visit sets
        moved = bool(s0[own][i] != s1[own][i])
        # NORMA's decay moves every α_j: recorded whole; otherwise only entry i changes
        skip = () if self.alg == NORMA else (own,)
        changes = state_changes(s0, s1, skip=skip)
        index = {}
        if skip and moved:
            changes[own], index[own] = (s0[own][[i]], s1[own][[i]]), np.array([i])
        shrink = 1.0 - eta / self.C_run
        keys = ["loop", "eta", "next", "viol", "test"]
        if self.alg == PEGAZ:
            keys.append("alpha")
        if self.alg == NORMA:
            keys.append("shrink")
        if hit:
            keys += ["set"] + (["update_o"] if L.has("update_o") else [])
            keys += ["bias"] if L.has("bias") else []
        elif self.alg == OL_REG and viol > 1.0:
            keys += ["elif", "shrink_i"] + (["shrink_o"] if L.has("shrink_o") else [])
        else:
            keys.append("keep")
        q = {"t": t, "i": i, "eta": eta, "viol": viol, "o_i": o_i, "hit": hit,
             "shrink": shrink, "C": self.C_run, "alpha_i": (float(s0["α"][i]),
                                                            float(s1["α"][i])),
             "b": s1["b"]}
        if self.alg == PEGAZ:
            q["beta_i"] = (float(s0["β"][i]), float(s1["β"][i]))
        text = self._visit_text(t, i, viol, hit, eta, shrink, q["alpha_i"])
        if self.diverged:
            text += " The coefficients became NaN or infinite: the run diverged."
        return StepThroughRecord(t_before=t - 1, t=self.t, lines=L.no(*keys), text=text, picked=(i,),
                          changes=changes, quantities=q, index=index,
                          roles={"sample": (i,), **({"updated": (i,)} if moved else {})})

    def _visit_text(self, t, i, viol, hit, eta, shrink, alpha_i) -> str:
        rel = ("< 1" if self.strict else "≤ 1") if hit else ("≥ 1" if self.strict else "> 1")
        head = f"t = {t}: x_{i} has viol = y·o(x) = {viol:.3g} {rel}"
        a0, a1 = alpha_i
        if self.alg == NORMA:
            tail = (f"; every other α_j decays by 1 − η/C = {shrink:.3g}"
                    + (f" and α_{i} is set to η y = {a1:.3g}" if hit and not self.add_rule
                       else f" and α_{i} goes {a0:.3g} → {a1:.3g}" if hit
                       else f"; α_{i} = {a1:.3g} stays"))
        elif self.alg == PEGAZ:
            tail = ((f", so β_{i} gains y_{i}" if hit else ", β is unchanged")
                    + f"; the model α = η β is rescaled to η = {eta:.3g}")
        elif hit:
            tail = f", so α_{i} goes {a0:.3g} → {a1:.3g}"
        elif self.alg == OL_REG and viol > 1.0:
            tail = f", so only the regulariser acts: α_{i} {a0:.3g} → {a1:.3g}"
        else:
            tail = ": nothing changes"
        return head + tail + "."

    def _objective(self, hinge_mean: float, o_sqnorm: float) -> tuple[float, str, float | None]:
        """(value, name, λ) of the objective this variant minimises."""
        raise NotImplementedError

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        return join_state([
            state_part("step η_t = {eta:.3g}", eta=e.get("eta")),
            state_part("violations so far {v:,}", v=e.get("violations")),
            state_part("output-vector column updates {c:,}", c=e.get("column_updates"))
            if e.get("column_updates") else None,
            state_part("b = {b:.3g}", b=e.get("b")) if self.p.get("fit_intercept") else None,
            "averaging the iterates now" if e.get("averaging_active") else None,
        ])

    def memory_bytes(self, n, d, X=None):
        """Nine length-n state arrays (coefficients, averaging sum, outputs, support list, …)."""
        return 80 * n

    def train_scores(self):
        """o(x_i) on the training set from the kept outputs õ = Kγ (cached form, last iterate:
        o = a·õ + b, no kernel evaluation); None otherwise."""
        if not self.cache or self.averaging_active:
            return None
        return self.sc[_A] * self.ot + self.sc[_B]

    def trace_row(self, rows):
        """The objective with the hinge term on the training rows ``rows``. Cached form, last
        iterate: from the kept outputs, ‖o‖² = a² γᵀõ exactly, O(n) and no kernel evaluation;
        else the rows' decision values and ‖o‖² exact or estimated from len(rows) // 2 draws
        (see ``Solver._trace_sqnorm``)."""
        self._require_ready()
        kept = self.train_scores()
        if kept is not None:
            scores = kept[rows]
            a = self.sc[_A]
            with np.errstate(over="ignore", invalid="ignore"):
                o_sq = float(a * a * (self.gam @ self.ot))
        else:
            scores = self._decision_rows(self._rows_of(rows))
            o_sq = self._trace_sqnorm(rows.size // 2)
        h = hinge_losses(scores, self.y[rows])
        obj = self._objective(float(h.mean()), o_sq)[0]
        return obj, error_rate(scores, self.y[rows]), int(np.count_nonzero(self.model()[0]))

    def snapshot(self) -> Snapshot:
        self._require_ready()
        support, coef, b = self.support_coef()
        scores = self._decision_rows(self.X)
        # ‖o‖² = αᵀKα = Σ_{j∈S} α_j (o(x_j) − b): no kernel evaluation beyond the scores
        o_sq = float(coef @ (scores[support] - b)) if support.size else 0.0
        h = hinge_losses(scores, self.y)
        obj, name, lam = self._objective(float(h.mean()), o_sq)
        return Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=self.kernel_evals, objective_name=name, diverged=self.diverged,
            extra={"train_error": error_rate(scores, self.y), "lam": lam,
                   "R_rhl_eq1": self.C * float(h.sum()) + 0.5 * o_sq,
                   "R_hl_eq2": float(h.sum()), "o_sqnorm": o_sq, "b": b,
                   "violations": int(self.ic[_NVIOL]), "column_updates": int(self.ic[_NCOL]),
                   "eta": float(self.sched.values([max(self.t, 1)], self.lam, self.C_run)[0]),
                   "averaging_active": bool(self.averaging_active)},
        )


    # ------------------------------------------------------------------------ mid-run changes
    #: taken mid-run (``retune``): C (and C_run, λ = 1/C_run, the shrink 1 − η/C of NORMA and
    #: OL SVM's R_reg), the schedule and η0 from the next visit on; a new ``averaging`` drops
    #: the average so far and opens the new window on the planned horizon.
    soft_params = ("C", "schedule", "eta0", "averaging")

    def _retune(self, diff):
        p = self.p
        if "C" in diff:
            self.C = p["C"]
            self.C_run = (self.C * self.weight_total if p.get("c_scale", "paper") == "svc"
                          else self.C)
            self.lam = 1.0 / self.C_run
        self.sched = self.schedule
        self.sparams = self.sched.params(self.lam, self.C_run)
        self._retune_average(diff, self.horizon)

    def _clear_average(self):
        self.U[:] = 0.0
        self.sc[[_BSUM, _BIAS_SUM, _N_AVG]] = 0.0


def _lam_c_objective(solver, hinge_mean, o_sq, note=""):
    """NORMA / Pegaz: the λ-form with λ = 1/C_run (see the module docstring)."""
    lam = 1.0 / solver.C_run
    if solver.p["c_scale"] == "svc":
        name = "primal L1-SVM, λ-form, λ = 1/(C n) (SVC with C; the listing runs with C·n)"
    else:
        name = "primal L1-SVM, λ-form, λ = 1/C (SVC with C/n)"
    return 0.5 * lam * o_sq + hinge_mean, name + note, lam


#: Schedules with 1/η_t − 1/η_{t−1} = 1/C (pegasos: η_t = C/t; invscaling: η0/(1 + η0 t/C)):
#: only with them is Pegaz's α = η_t β the iterate of stochastic gradient steps on the λ = 1/C
#: objective (see the module docstring).
PEGAZ_SGD_SCHEDULES = ("pegasos", "invscaling")
NORMA_SET_NOTE = ("; List 1's set rule α_i = η y_i is a stochastic gradient step on it in the "
                  "first epoch only")
PEGAZ_HINGE_NAME = ("mean hinge loss (1/n) Σ max(0, 1 − y o(x)), unregularised: Pegaz with "
                    "this step minimises no objective ({why})")


_C_SCALE = ParamSpec("paper", "choice", "C ↔ λ — which meaning C has: paper: C as in Lists "
                     "1–2, which minimise the λ-form with λ = 1/C (SVC with C/n); svc: C as in "
                     "SVC — the listing runs with C·n, so it minimises eq. 1 with C "
                     "(λ = 1/(C n)).", choices=("paper", "svc"), advanced=True)


# --------------------------------------------------------------------------- pseudocode

_VIOL_NOTE = ("The margin of x_i under the current model: ≤ 1 means x_i is inside the margin or "
              "misclassified, a violator.")
_O_NOTE = ("With the output vector o = Kα (+ b) kept for every training point, viol is a look-up; "
           "o changes by one kernel column whenever some α_j changes (List 3).")
_COMMON_HEAD = (
    Line("loop", "for t = 1, …, N·l", "N epochs over the l training points.", ("t",)),
    Line("eta", "  η = «eta»", "The step size (the paper's C√(2/t)); the record shows the "
         "value used.", ("eta",)),
    Line("next", "  i = i + 1   (cycling through the shuffled data)",
         "Online: one example per step, in a fixed random order.", ("i",)),
)
_BIAS = Line("bias", "    b = b + η y_i   (eq. 6)", "The bias moves with each violation; it is "
             "never shrunk.", ("b",), when="bias")
_SYMBOLS = {"viol": "viol = y_i o(x_i)", "i": "i", "shrink": "1 − η/C", "alpha_i": "α_i",
            "beta_i": "β_i", "hit": "violator", "eta": "η"}

NORMA_LISTING = Listing("Kecman & Melki (2016), List 1: NORMA (Kivinen, Smola & Williamson 2004)", (
    Line("min", "Minimization of R_rhl in (1)",
         "Per example C·max(0, 1 − y_i o(x_i)) + ½‖o‖²: over the data, the λ-form with "
         "λ = 1/C (SVC with C/n; the solver's docstring shows why)."),
    Line("init", "Shuffle the dataset & initialize α = 0, i = 0",
         "One random order, then the points are visited in it, epoch after epoch."),
    *_COMMON_HEAD,
    Line("viol", "  viol = «viol»", _VIOL_NOTE, ("viol",)),
    Line("shrink", "  α(I_noti) = (1 − η/C) α(I_noti)",
         "The regulariser's gradient: every other coefficient decays; the visited one is "
         "handled below.", ("shrink",), when="!add"),
    Line("shrink", "  α = (1 − η/C) α",
         "Kivinen et al.: every coefficient, the visited one too, decays.", ("shrink",),
         when="add"),
    Line("test", "  if viol «le» 1", "Only a violator has a non-zero hinge-loss gradient.",
         ("hit",)),
    Line("set", "    α_i = η y_i", "List 1 *sets* the coefficient: a repeated example "
         "replaces its old term.", ("alpha_i",), when="!add"),
    Line("set", "    α_i = α_i + η y_i", "The hinge loss's gradient step adds a new term.",
         ("alpha_i",), when="add"),
    _BIAS,
    Line("keep", "  else: α_i stays as it is   (I_noti excludes i: not shrunk)",
         "A point outside the margin keeps its coefficient.", when="!add"),
    Line("keep", "  else: α_i only decays", "A point outside the margin adds nothing.",
         when="add"),
    Line("end", "end   (o(x) = Σ_j α_j k(x, x_j) (+ b))",
         "The model: a kernel expansion over the points with α_j ≠ 0."),
), symbols=_SYMBOLS)

PEGAZ_LISTING = Listing("Kecman & Melki (2016), List 2: Pegaz (Pegasos without projection; "
                        "Shalev-Shwartz & Ben-David 2014)", (
    Line("min", "Minimization of R_rhl in (1)",
         "As NORMA: the λ-form with λ = 1/C, one example at a time."),
    Line("init", "Shuffle the dataset & initialize α = β = 0, i = 0",
         "β sums the labels of the violations; the model is α = η β."),
    *_COMMON_HEAD,
    Line("alpha", "  α = η β", "The whole model is rescaled by the current step: this is "
         "the shrink of every coefficient, in O(1).", ("eta",)),
    Line("viol", "  viol = «viol»", _VIOL_NOTE, ("viol",)),
    Line("test", "  if viol «le» 1", "Only a violator changes β.", ("hit",)),
    Line("set", "    β_i = β_i + y_i", "The violator's label is added once more.", ("beta_i",)),
    _BIAS,
    Line("keep", "  else: β unchanged", "A point outside the margin adds nothing; α still "
         "changes with the next η."),
    Line("end", "end;  α = η β", "The model after the last step: o(x) = Σ_j α_j k(x, x_j)."),
), symbols=_SYMBOLS)

OLSVM_LISTING = Listing("Kecman & Melki (2016), List 3b: OL SVM for R_hl", (
    Line("min", "Minimization of R_hl in (2)",
         "The plain hinge loss Σ max(0, 1 − y_i o(x_i)), no regulariser: C only scales the "
         "steps.", when="hinge"),
    Line("min", "Minimization of R_rhl in (1)",
         "C Σ hinge + ½‖o‖²: SVC's problem with this C.", when="reg"),
    Line("init", "Shuffle the dataset & initialize α = 0, o = 0, i = 0",
         "o holds the current output o(x_j) of every training point."),
    *_COMMON_HEAD,
    Line("viol", "  viol = «viol»", _O_NOTE, ("viol",)),
    Line("test", "  if viol < 1", "A violator: a gradient step on its hinge loss.", ("hit",)),
    Line("update_o", "    o = o + η y_i k(:, x_i)", "The outputs of all points change by one "
         "kernel column.", when="hinge+cache"),
    Line("set", "    α_i = α_i + η y_i", "Like the kernel perceptron, with the margin 1 in "
         "the test.", ("alpha_i",), when="hinge"),
    Line("update_o", "    o = o + η (y_i − α_i/C) k(:, x_i)", "The outputs follow the change "
         "of α_i.", when="reg+cache"),
    Line("set", "    α_i = (1 − η/C) α_i + η y_i", "Hinge step plus the regulariser's decay "
         "of the visited coefficient.", ("alpha_i", "shrink"), when="reg"),
    _BIAS,
    Line("elif", "  elseif viol > 1", "Outside the margin: only the regulariser acts.",
         when="reg"),
    Line("shrink_o", "    o = o − η α_i k(:, x_i)/C", "The outputs follow the decay of α_i.",
         when="reg+cache"),
    Line("shrink_i", "    α_i = (1 − η/C) α_i", "The visited coefficient decays: over an "
         "epoch these decays add up to one gradient of ½‖o‖².", ("alpha_i", "shrink"),
         when="reg"),
    Line("keep", "  else: nothing changes", "A non-violator costs no kernel evaluation.",
         when="hinge"),
    Line("keep", "  (viol = 1 exactly: no change)", "On the margin itself the hinge loss has "
         "a kink; the list does nothing there.", when="reg"),
    Line("end", "end   (o(x) = Σ_j α_j k(x, x_j) (+ b))",
         "The model: a kernel expansion over the points with α_j ≠ 0."),
), symbols=_SYMBOLS)


def online_listing(alg: int, cache=False, bias=False, add=False, strict=False,
                   eta="C√(2/t)") -> Listing:
    """The listing of ``alg`` (NORMA, PEGAZ, OL_HINGE, OL_REG) for these options: cached
    outputs (List 3's o) or the literal kernel row, the bias of eq. 6, NORMA's add rule, the
    violation test (< or ≤) and the schedule's η."""
    flags = ["cache"] if cache else []
    flags += ["bias"] if bias else []
    flags += ["add"] if add else []
    base = {NORMA: NORMA_LISTING, PEGAZ: PEGAZ_LISTING}.get(alg, OLSVM_LISTING)
    src = None
    if alg in (OL_HINGE, OL_REG):
        flags.append("hinge" if alg == OL_HINGE else "reg")
        if alg == OL_REG:
            src = "Kecman & Melki (2016), List 3a: OL SVM for R_rhl"
    viol = ("y_i o_i   (o = Kα (+ b), kept for all points)" if cache
            else "y_i k(x_i, :) · α   (+ b)")
    return base.select(*flags, source=src, eta=eta, viol=viol, le="<" if strict else "≤")


class NormaSolver(_OnlineKernelMixin, Solver):
    __doc__ = __doc__
    name = "norma"
    title = "NORMA (List 1)"
    paper = ("Kecman & Melki (2016), Fast online algorithms for SVMs, List 1; Kivinen, Smola & "
             "Williamson (2004), Online learning with kernels")
    formulation = (r"\min_\alpha\ C\sum_i \max\{0,1-y_i o(x_i)\} + \tfrac12\|o\|^2"
                   r"\ \text{per example}\ \Leftrightarrow\ \frac{1}{2C}\|o\|^2 + \frac1n\sum_i"
                   r"\max\{0,1-y_io(x_i)\}")
    update_rule = (r"\alpha_{j\ne i} \leftarrow (1-\eta_t/C)\,\alpha_j,\quad "
                   r"y_i o(x_i)\le 1:\ \alpha_i \leftarrow \eta_t y_i,\quad \eta_t = C\sqrt{2/t}")
    params = {**_COMMON, "cache_outputs": _cache_spec(False), "c_scale": _C_SCALE,
              "update": ParamSpec("set", "choice", "α_i — how a violator's coefficient changes: "
                                  "set: α_i = η y_i as List 1 writes it; add: α_i ← (1−η/C)α_i + η y_i "
                                  "(Kivinen et al. 2004; identical in the first epoch).",
                                  choices=("set", "add"), advanced=True)}
    _strict_listing = False
    listing_default = online_listing(NORMA)

    def _alg(self):
        return NORMA

    def _objective(self, hinge_mean, o_sq):
        note = NORMA_SET_NOTE if self.p["update"] == "set" else ""
        return _lam_c_objective(self, hinge_mean, o_sq, note)


class PegazSolver(_OnlineKernelMixin, Solver):
    __doc__ = __doc__
    name = "pegaz"
    title = "Pegaz (List 2)"
    paper = ("Kecman & Melki (2016), List 2; Shalev-Shwartz & Ben-David (2014), Understanding "
             "Machine Learning (Pegasos without projection)")
    formulation = (r"\eta_t = \tfrac{C}{t}:\ \min_\alpha\ \frac{1}{2C}\|o\|^2 + \frac1n\sum_i"
                   r"\max\{0,1-y_io(x_i)\};\qquad \eta_t = C\sqrt{2/t}:\ \text{no objective "
                   r"(plotted: }\frac1n\sum_i\max\{0,1-y_io(x_i)\}\text{)}")
    update_rule = (r"\alpha = \eta_t\beta,\quad y_i o(x_i)\le 1:\ \beta_i \leftarrow \beta_i + "
                   r"y_i,\quad \eta_t = C\sqrt{2/t}")
    params = {**_COMMON, "cache_outputs": _cache_spec(False), "c_scale": _C_SCALE}
    _strict_listing = False
    listing_default = online_listing(PEGAZ)

    def _alg(self):
        return PEGAZ

    def _objective(self, hinge_mean, o_sq):
        schedule = self.p["schedule"]
        if schedule in PEGAZ_SGD_SCHEDULES:
            return _lam_c_objective(self, hinge_mean, o_sq)
        why = ("α = η_t β grows like √t" if schedule in ("kecman", "sqrt") else
               "α = η β grows like the violation count")
        return hinge_mean, PEGAZ_HINGE_NAME.format(why=why), None


class OLSVMSolver(_OnlineKernelMixin, Solver):
    __doc__ = __doc__
    name = "olsvm"
    title = "OL SVM (Lists 3a/3b)"
    paper = "Kecman & Melki (2016), Fast online algorithms for support vector machines, List 3"
    formulation = (r"\text{hinge: }\min_\alpha \sum_i \max\{0, 1 - y_i o(x_i)\};\quad "
                   r"\text{regularized: }\min_\alpha C\sum_i \max\{0, 1 - y_i o(x_i)\} + "
                   r"\tfrac12\|o\|^2")
    update_rule = (r"y_i o_i < 1:\ o \mathrel{+}= \eta_t y_i\, k(\cdot, x_i),\ "
                   r"\alpha_i \mathrel{+}= \eta_t y_i\quad(\text{3b}),\qquad \eta_t = C\sqrt{2/t}")
    params = {**_COMMON, "cache_outputs": _cache_spec(True),
              "variant": ParamSpec("hinge", "choice", "eq. 1 / eq. 2 — which objective OL SVM "
                                   "minimises: hinge: List 3b, eq. 2 (the paper's experiments); "
                                   "regularized: List 3a, eq. 1.",
                                   choices=("hinge", "regularized"), advanced=True)}
    _strict_listing = True
    listing_default = online_listing(OL_HINGE, cache=True, strict=True)

    def _alg(self):
        return OL_HINGE if self.p["variant"] == "hinge" else OL_REG

    def _objective(self, hinge_mean, o_sq):
        if self.p["variant"] == "hinge":
            return hinge_mean, "mean hinge loss (eq. 2 / n), unregularised", None
        lam = 1.0 / (self.C * self.weight_total)
        return (0.5 * lam * o_sq + hinge_mean,
                "primal L1-SVM, λ-form, λ = 1/(C n) (eq. 1 / (C n), SVC with C)", lam)


__all__ = ["NormaSolver", "PegazSolver", "OLSVMSolver"]
