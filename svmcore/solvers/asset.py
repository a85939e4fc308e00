r"""ASSET: approximate stochastic subgradient estimation training (Lee & Wright, ICPRAM 2012).

Minimises the reduced primal (PL) on approximate kernel features V_i· ∈ R^d (svmcore.solvers.feature_maps):

    P(γ, b) = λ/2 ‖γ‖² + (1/n) Σ_i ℓ(y_i, V_i·γ + b),        λ = 1 / (C n),

with ℓ the hinge loss max(0, 1 − y f) (classification) or the ε-insensitive loss
max(0, |y − f| − ε) (regression), over X = {‖γ‖ ≤ Γ, |b| ≤ B}. Algorithm 1 (ASSET), iteration j:

    draw ξ_j uniformly from {1..n};  d_j = ∂ℓ/∂f at (γ_{j−1}, b_{j−1})   (Table 1)
    (γ_j, b_j) = Π_X[(γ_{j−1}, b_{j−1}) − η_j (λγ_{j−1} + d_j V_ξ·ᵀ, d_j)],   η_j = D_X / (D_G √j)
    for j ≥ N̄:  (γ̃, b̃) ← η̃/(η̃+η_j) (γ̃, b̃) + η_j/(η̃+η_j) (γ_j, b_j),   η̃ ← η̃ + η_j

with D_X = max_{x∈X} ‖x‖ = √(Γ² + B²) and D_G² = (1/M) Σ_l d_l² (‖V_ξ(l)·‖² + 1) estimated from M
samples at (γ_0, b_0) = (0, 0). Γ = 1/√λ for classification (Shalev-Shwartz et al. 2011, Thm 1)
and Γ = √(2(‖y‖_∞ − ε)/λ) for regression (the paper's regression bound). ASSET* drops the bias,
uses η_j = 1/(λ j) and returns the last iterate (no averaging); it keeps the projection.
For regression the default step measures D_X instead of bounding it (``dx="travelled"``:
η_j = r̄_j/(D_G√j), r̄_j the distance travelled so far; ASSET*: min(1/(λj), r̄_j/(D_G√j))),
because the bound is ~100× too large at C = 100 (see the choices below).

Approximations: ``approx="nystroem"`` (ASSET_M: s random landmarks, eigenvalues ≥ ε_d kept,
d ≤ s, eq. 6-7) or ``approx="rff"`` (ASSET_F: d = s random Fourier features, eq. 8, Gaussian
kernel only). Prediction as in Sec. 2.4: Nyström f(x) = Σ_{i∈S} α_i k(x_i, x) + b with
α_S = Q D^{-1/2} γ (s kernel evaluations per point); RFF f(x) = φ(x)ᵀγ + b.

Paper: S. Lee and S. J. Wright, "ASSET: Approximate stochastic subgradient estimation training for
support vector machines", ICPRAM 2012 (and arXiv:1111.0432).

Derivations, measured runs and the choices where the paper is ambiguous: ``docs/solvers/asset.md``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._jit import njit, njit_reduce
from .feature_maps import (NystroemFeatures, RandomFourierFeatures, iter_blocks, kernel_diag_max)
from .kernels import KERNEL_CODES, dense_dot
from .objectives import error_rate, hinge_losses, lam_from_C
from .step_sizes import Schedule, StepRule, step_size
from .base import (COEF0_SPEC, C_SPEC, DEGREE_SPEC, EPOCHS_SPEC, GAMMA_SPEC, Line, Listing,
                   ParamSpec, Snapshot, Solver, StepThroughRecord, averaging_start,
                   data_bytes, join_state, state_changes, state_part)

# scalar state slots (float64 array `sc`): r̄ = largest ‖(γ_j, b_j)‖ so far, η of the last step
_B, _BAVG, _ETASUM, _GSQ, _RBAR, _ETA = 0, 1, 2, 3, 4, 5
# integer state slots (int64 array `ic`)
_T, _DIVERGED = 0, 1

HINGE, EPS_INSENSITIVE = 0, 1
_DX_MAX = 1e154          # D_X² must be a float64 (D_X = √(Γ² + B²) was computed squared)
_R_EPS = 1e-4            # dx="travelled": r̄_0 = _R_EPS · D_X, the distance the first step may go
LOSS_CODES = {"hinge": HINGE, "epsilon_insensitive": EPS_INSENSITIVE}


@njit_reduce
def _vdot(a, b):
    """⟨a, b⟩ for two vectors (pure inner product; see svmcore._jit)."""
    s = 0.0
    for f in range(a.shape[0]):
        s += a[f] * b[f]
    return s


@njit
def _asset_chunk(F, pos, idx, y, n_steps, g, gavg, sc, ic, lam, gmax, bmax, scode, sparams,
                 loss, eps, fit_b, t_avg0, travelled, dx, dg):
    """n_steps ASSET / ASSET* iterations. Iteration s uses feature row F[pos[s]] of training
    point idx[s]. State: γ = g, γ̃ = gavg; sc = [b, b̃, η̃, ‖γ‖², r̄, η]; ic = [t, diverged].
    With ``travelled`` the step is min(schedule η_j, min(r̄, D_X) / (D_G √j)) and r̄ follows
    the largest ‖(γ_j, b_j)‖ (see the class docstring). Returns the iterations done."""
    d = g.shape[0]
    gmax2 = gmax * gmax
    for s in range(n_steps):
        j = ic[_T] + 1
        eta = step_size(scode, sparams, j)      # the solver's StepRule: what the page plots
        if travelled:                           # D_X = the distance travelled so far, r̄
            eta = min(eta, min(sc[_RBAR], dx) / (dg * math.sqrt(float(j))))
        r = pos[s]
        yi = y[idx[s]]
        b = sc[_B]
        fx = dense_dot(F, r, g) + b
        # subgradient of the loss with respect to f (Table 1)
        if loss == 0:
            dd = -yi if yi * fx < 1.0 else 0.0
        else:
            if yi > fx + eps:
                dd = -1.0
            elif yi < fx - eps:
                dd = 1.0
            else:
                dd = 0.0
        shrink = 1.0 - eta * lam
        c = eta * dd
        if c != 0.0:
            for f in range(d):
                g[f] = shrink * g[f] - c * F[r, f]
        else:
            for f in range(d):
                g[f] = shrink * g[f]
        gsq = _vdot(g, g)
        # projection onto the ball ‖γ‖ ≤ Γ and the interval |b| ≤ B (a product set)
        if gsq > gmax2:
            scale = gmax / math.sqrt(gsq)
            for f in range(d):
                g[f] *= scale
            gsq = _vdot(g, g)
        if fit_b:
            b = b - c
            if b > bmax:
                b = bmax
            elif b < -bmax:
                b = -bmax
        sc[_B] = b
        sc[_GSQ] = gsq
        sc[_ETA] = eta
        if travelled:
            r = math.sqrt(gsq + b * b)
            if r > sc[_RBAR]:
                sc[_RBAR] = r
        ic[_T] = j
        # step-length weighted average of the iterates from N̄ on (Algorithm 1, line 9)
        if j >= t_avg0:
            es = sc[_ETASUM] + eta
            a1 = sc[_ETASUM] / es
            a2 = eta / es
            for f in range(d):
                gavg[f] = a1 * gavg[f] + a2 * g[f]
            sc[_BAVG] = a1 * sc[_BAVG] + a2 * b
            sc[_ETASUM] = es
        if not (math.isfinite(gsq) and math.isfinite(b)):
            ic[_DIVERGED] = 1
            return s + 1
    return n_steps


@dataclass(frozen=True)
class _CappedPegasos(StepRule):
    """ASSET* with dx="travelled": η_t = min(1/(λt), cap0/√t), cap0 = r̄/D_G (the loop applies
    the cap after ``step_size``; this rule is what the page plots)."""

    cap0: float = math.inf

    @property
    def formula(self) -> str:
        return r"\eta_t = \min\Big(\frac{1}{\lambda t},\ \frac{\bar r}{D_G\sqrt{t}}\Big)"

    def values(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        return np.minimum(super().values(t), self.cap0 / np.sqrt(t))


_KERNEL_SPEC = ParamSpec("rbf", "choice", "k(x, z) — the kernel the features stand in for, "
                         "which decides the shape of the boundary (rff: rbf only).",
                         choices=tuple(KERNEL_CODES))


# --------------------------------------------------------------------------- pseudocode

ASSET_LISTING = Listing("Lee & Wright (2012), Algorithm 1: ASSET", (
    Line("init", "1: (γ_0, b_0) = (0, 0),  (γ̃, b̃) = (0, 0),  η̃ = 0",
         "γ are weights on d approximate kernel features, b the bias.", when="!star"),
    Line("init", "1: γ_0 = 0   (ASSET*: no bias, no averaging)",
         "γ are weights on d approximate kernel features.", when="star"),
    Line("loop", "2: for j = 1, 2, …, N do", "N iterations of projected stochastic "
         "sub-gradient descent on the features.", ("t",)),
    Line("eta", "3:   η_j = D_X / (D_G √j)",
         "Robust stochastic approximation: D_X bounds the feasible set, D_G the sub-gradients "
         "(estimated at the start).", ("eta",), when="!star+!travelled"),
    Line("eta", "3:   η_j = r̄_j / (D_G √j),   r̄_j = max(r̄_0, ‖(γ_i, b_i)‖ for i < j) ≤ D_X",
         "D_X measured, not bounded: the distance the iterates have travelled from (0, 0) so "
         "far (at most the radius of the feasible set). D_G is estimated at the start.",
         ("eta", "rbar"), when="!star+travelled"),
    Line("eta", "3:   η_j = 1/(λ j)", "ASSET*: Pegasos' step for a λ-strongly convex "
         "objective.", ("eta",), when="star+!travelled"),
    Line("eta", "3:   η_j = min{1/(λ j), r̄_j / (D_G √j)}", "ASSET*: Pegasos' step once it is "
         "the smaller; before that (small λ) the robust step with the distance travelled "
         "r̄_j.", ("eta", "rbar"), when="star+travelled"),
    Line("sample", "4:   choose ξ_j ∈ {1, …, m} at random", "One training example per "
         "iteration.", ("i",)),
    Line("features", "5:   V_ξj· = the approximate features of x_ξj   (Nyström eq. 7 / "
         "random Fourier eq. 8)", "K ≈ VVᵀ: the kernel SVM becomes a linear SVM on V.",
         ("f",)),
    Line("grad", "6:   G = (λγ_{j−1} + d_j V_ξjᵀ, d_j),   d_j = ∂ℓ/∂f   (Table 1)",
         "A sub-gradient of λ/2‖γ‖² + ℓ(y, Vγ + b) at the sampled example.", ("d",)),
    Line("viol", "6a:    y f < 1:  d_j = −y   (hinge violator)",
         "Inside the margin: the loss pulls γ toward y V.", ("margin",),
         when="hinge"),
    Line("ok", "6b:    y f ≥ 1:  d_j = 0   (no loss: only the regulariser acts)",
         "Outside the margin: γ only shrinks by 1 − η_jλ.", ("margin",), when="hinge"),
    Line("viol", "6a:    |y − f| > ε:  d_j = −sign(y − f)",
         "Outside the ε-tube: the loss pulls f toward y.", ("residual",), when="eps"),
    Line("ok", "6b:    |y − f| ≤ ε:  d_j = 0", "Inside the tube: no loss.", ("residual",),
         when="eps"),
    Line("step", "7:   (γ_j, b_j) = Π_X[(γ_{j−1}, b_{j−1}) − η_j G],   X = {‖γ‖ ≤ Γ, |b| ≤ B}",
         "The sub-gradient step, then the projection back onto the set that contains the "
         "optimum.", ("shrink", "norm_half", "radius", "projection"), when="!star"),
    Line("step", "7:   γ_j = Π_{‖γ‖≤Γ}[γ_{j−1} − η_j G]",
         "The sub-gradient step and Pegasos' projection.",
         ("shrink", "norm_half", "radius", "projection"), when="star"),
    Line("avg_if", "8:   if j ≥ N̄ then", "Averaging only the last iterates (N̄ = N − 100 in "
         "the paper).", ("averaging",), when="!star"),
    Line("avg", "9:     (γ̃, b̃) = η̃/(η̃ + η_j)·(γ̃, b̃) + η_j/(η̃ + η_j)·(γ_j, b_j),  "
         "η̃ = η̃ + η_j", "A step-length weighted mean of the iterates: Theorem 1's "
         "guarantee is for it.", ("avg_weight",), when="!star"),
    Line("end", "11: end for", "N is set by the planned epochs (epochs·n iterations)."),
    Line("return", "12: return (γ̃, b̃);  f(x) = Σ_{i∈S} α_i k(x_i, x) + b̃,  α_S = Q D^{-1/2} γ̃",
         "Nyström: the model is a kernel expansion over the s landmarks (Sec. 2.4).",
         when="!star"),
    Line("return", "12: return γ_N   (the last iterate)", "ASSET* has no averaging: with "
         "η_j = 1/(λj) the last iterate is what Pegasos returns too.", when="star"),
), symbols={"i": "ξ_j", "eta": "η_j", "f": "f = V_ξj·γ + b", "d": "d_j", "margin": "y f",
            "residual": "y − f", "shrink": "1 − η_jλ", "norm_half": "‖γ_{j−½}‖",
            "radius": "Γ", "rbar": "r̄_j",
            "projection": "min{1, Γ/‖γ_{j−½}‖}", "avg_weight": "η_j/(η̃ + η_j)",
            "averaging": "j ≥ N̄"})


def asset_listing(regression: bool = False, star: bool = False,
                  travelled: bool = False) -> Listing:
    """Algorithm 1 with Table 1's hinge or ε-insensitive d_j; ASSET* (η_j = 1/(λj), no bias,
    last iterate) with ``star``; D_X = the distance travelled (``dx="travelled"``) with
    ``travelled``."""
    flags = (["eps" if regression else "hinge"] + (["star"] if star else [])
             + (["travelled"] if travelled else []))
    src = ("Lee & Wright (2012), ASSET* (Algorithm 1 with η_j = 1/(λj), no bias, last "
           "iterate)") if star else None
    return ASSET_LISTING.select(*flags, source=src)


class ASSETSolver(Solver):
    __doc__ = __doc__
    name = "asset"
    online = True
    #: example weights: example i is drawn with probability w_i / Σw and λ = 1/(C·Σw), so the
    #: expected objective is λ/2‖w‖² + (1/Σw) Σ w_i ℓ_i (C·w_i per example, as SVC)
    weighting = "sampling ∝ w_i, λ = 1/(C·Σw)"
    tasks = ("classification", "regression")
    title = "ASSET (approximate kernel, robust SA)"
    paper = ("Lee & Wright (2012), ASSET: Approximate Stochastic Subgradient Estimation Training "
             "for Support Vector Machines")
    formulation = (r"\min_{\|\gamma\|\le\Gamma,\ |b|\le B}\ \frac{\lambda}{2}\|\gamma\|^2 + "
                   r"\frac{1}{n}\sum_{i=1}^n \ell\big(y_i,\ V_{i\cdot}\gamma + b\big),\qquad "
                   r"VV^\top\approx K,\quad \lambda=\frac{1}{Cn}")
    update_rule = (r"(\gamma_j,b_j)=\Pi_X\big[(\gamma_{j-1},b_{j-1})-\eta_j(\lambda\gamma_{j-1}+"
                   r"d_jV_{\xi_j\cdot}^\top,\ d_j)\big],\quad \eta_j=\frac{D_X}{D_G\sqrt{j}},\quad "
                   r"\tilde\gamma=\textstyle\sum_{j\ge\bar N}\eta_j\gamma_j/\sum_{j\ge\bar N}\eta_j")
    params = {
        "C": C_SPEC,
        "kernel": _KERNEL_SPEC,
        "gamma": GAMMA_SPEC,
        "degree": DEGREE_SPEC,
        "coef0": COEF0_SPEC,
        "epochs": EPOCHS_SPEC,
        "averaging": ParamSpec(100, "averaging", "N̄ — report the mean of the iterates from N̄ "
                               "on (step-length weighted), which smooths out the noise of "
                               "stochastic steps: an int N = the final N iterates (paper: "
                               "100), a float ρ = the final ρ fraction of the planned "
                               "iterations, None = last iterate. Ignored by ASSET*."),
        "fit_intercept": ParamSpec(True, "bool", "b — learn an offset, so the boundary need not "
                                   "pass through the origin (|b| ≤ B). Ignored by ASSET* (no "
                                   "bias)."),
        "approx": ParamSpec("nystroem", "choice", "Φ — how the kernel is replaced by features: "
                            "Nyström on s random landmarks (ASSET_M, eq. 6–7) or random Fourier "
                            "features (ASSET_F, eq. 8, rbf only).",
                            choices=("nystroem", "rff")),
        "n_components": ParamSpec(256, "int", "s — how many landmarks (Nyström) or random "
                                  "features (d, RFF) stand in for the kernel: more is closer to "
                                  "the exact kernel and slower (Nyström: clipped to n; d ≤ s "
                                  "features remain).",
                                  low=1, high=1_000_000, ui=(2, 4096), log=True),
        "variant": ParamSpec("asset", "choice", "η_j — which step rule runs: asset: η_j = "
                             "D_X/(D_G√j) with bias and averaging; star: ASSET*, no bias, "
                             "η_j = 1/(λj), last iterate.", choices=("asset", "star"),
                             advanced=True),
        "dx": ParamSpec("auto", "choice", "D_X — which distance sets the step size η_j = "
                        "D_X/(D_G√j). Options: bound = the radius of the feasible set (the "
                        "paper); travelled = the largest distance of the iterates from (0, 0) "
                        "so far, at most that radius (ASSET*: η_j = min(1/(λj), r̄_j/(D_G√j))); "
                        "auto = travelled for regression, bound for classification.",
                        choices=("auto", "bound", "travelled"), advanced=True),
        "loss": ParamSpec("hinge", "choice", "ℓ — the loss: hinge (classification, labels ±1) "
                          "or epsilon_insensitive (regression, real targets).",
                          choices=tuple(LOSS_CODES), advanced=True),
        "epsilon": ParamSpec(0.1, "float", "ε — errors smaller than ε cost nothing in the "
                             "ε-insensitive loss (regression only).", low=0.0, high=1e12,
                             ui=(0.0, 1.0), advanced=True),
        "eig_threshold": ParamSpec(1e-10, "float", "ε_d — Nyström eigenvalues of K_SS below it "
                                   "are dropped, which keeps the features numerically stable.",
                                   low=0.0, low_open=True, high=1e6, ui=(1e-16, 1e-2), log=True,
                                   advanced=True),
        "dg_samples": ParamSpec(1000, "int", "M — how many samples estimate the gradient "
                                "bound D_G at the start (it sets the step size).", low=1,
                                high=10_000_000, ui=(10, 100_000), log=True, advanced=True),
        "bias_bound": ParamSpec(0.0, "float", "B — the largest offset allowed, |b| ≤ B; 0 = "
                                "automatic (a bound that cannot cut off an optimal b).",
                                low=0.0, high=1e300, ui=(0.0, 100.0), advanced=True),
        "sampling": ParamSpec("iid", "choice", "i_j — how the example of a step is picked: with "
                              "replacement (iid, the paper) or from an epoch-wise random "
                              "permutation.", choices=("iid", "permutation"), advanced=True),
        "feature_dtype": ParamSpec("float64", "choice", "dtype — the precision of the feature "
                                   "rows (float32: half the memory, faster cosines; the iterates "
                                   "stay float64).", choices=("float64", "float32"),
                                   advanced=True),
        "cache_mb": ParamSpec(512.0, "float", "cache (MB) — keep every training row's "
                              "features once computed when n·d fits in this many MB (0 = never).",
                              low=0.0, high=1e7, ui=(0.0, 4096.0), advanced=True),
        "block_rows": ParamSpec(4096, "int", "block — how many sampled rows get their "
                                "features in one BLAS call (speed only).", low=1, high=1 << 22,
                                ui=(64, 65536), log=True, advanced=True),
    }

    listing_default = asset_listing()
    #: set before ``init`` to continue a stream (``partial_fit``): the run whose feature map,
    #: D_G and kernel bound this one keeps (None: fitted and estimated on this run's data)
    continues = None
    #: set before ``init`` for a stream's first chunk: D_G from its first M rows in order (the
    #: rows a streamed chunk visits first) instead of the sample stream's first M draws
    streamed = False

    def __init__(self, **params):
        super().__init__(**params)
        p = self.p
        if p["approx"] == "rff" and p["kernel"] != "rbf":
            raise ValueError(f"approx='rff' needs kernel='rbf' (random Fourier features of the "
                             f"Gaussian kernel), got kernel={p['kernel']!r}")
        self.kernelized = p["approx"] == "nystroem"
        self.regression = p["loss"] == "epsilon_insensitive"

    # ----------------------------------------------------------------------------- memory
    memory_params = ("n_components", "block_rows", "dg_samples", "cache_mb")

    def scales(self) -> bool:
        return True

    def memory_bytes(self, n, d, X=None):
        """Peak memory: the feature map (Nyström: the s×s landmark matrix and its eigenvectors,
        s ≤ n; RFF: the d×s frequencies), the feature cache when n·s fits in ``cache_mb``, one
        block of min(block_rows, n) feature rows (and the kernel block it comes from), the D_G
        sample indices and the O(s) iterates. s (``n_components``) bounds the d ≤ s features."""
        p = self.p
        item = np.dtype(p["feature_dtype"]).itemsize
        nys = p["approx"] == "nystroem"
        s = min(p["n_components"], n) if nys else p["n_components"]
        rows = min(p["block_rows"], n)
        if nys:
            fmap = 4 * 8 * s * s + data_bytes(s, d, X)          # K_SS, its copy, Q, Q D^-1/2
            block = rows * s * (2 * 8 + item)                    # kernel block, features
        else:
            fmap = 8 * d * s * (2 if item == 4 else 1)
            block = rows * s * item * (2 if X is not None and X.sparse else 1)
        cache = n * s * item
        cache = cache if 0 < p["cache_mb"] and cache <= p["cache_mb"] * 2**20 else 0
        return int(fmap + cache + block + 24 * p["dg_samples"] + 4 * 8 * s + 64 * n)

    # ------------------------------------------------------------------------------ setup
    def _setup(self):
        p = self.p
        n = self.n
        self.star = p["variant"] == "star"
        self.fit_b = bool(p["fit_intercept"]) and not self.star
        self.lam = lam_from_C(p["C"], self.weight_total)
        self.loss_code = LOSS_CODES[p["loss"]]
        self.eps = float(p["epsilon"]) if self.regression else 0.0
        self.horizon = max(1, math.ceil(p["epochs"] * n))
        self.t_avg0 = (np.iinfo(np.int64).max if self.star
                       else averaging_start(p["averaging"], self.horizon))
        self.dtype = np.dtype(p["feature_dtype"])
        self.block = int(p["block_rows"])
        self._Xs = self.X.to_scipy()
        # 1. the feature map (randomness: default_rng([seed, 1])), or the continued run's
        arng = np.random.default_rng([self.seed, 1])
        old = self.continues
        if p["approx"] == "nystroem":
            self.R2 = kernel_diag_max(self.X.sqnorm, p["kernel"], p["gamma"], p["coef0"],
                                      p["degree"])
            if old is None:
                self.fmap = NystroemFeatures(p["n_components"], p["kernel"], p["gamma"],
                                             p["coef0"], p["degree"],
                                             p["eig_threshold"]).fit(self._Xs, arng)
        else:
            self.R2 = 2.0
            if old is None:
                self.fmap = RandomFourierFeatures(p["n_components"], p["gamma"]).fit(self.d,
                                                                                      arng)
        if old is not None:
            self.fmap, self.R2 = old.fmap, max(self.R2, old.R2)
        self.kernel_evals = 0 if old is not None else int(self.fmap.fit_kernel_evals)
        if old is None and p["approx"] == "nystroem" and p["n_components"] > n:
            self.notes.append(f"n_components = {p['n_components']:,} landmarks asked for, "
                              f"{n:,} used (Nyström picks landmarks among the n = {n:,} "
                              "training rows)")
        self.dim = self.fmap.n_features_out_
        self.travelled = (p["dx"] == "travelled"
                          or (p["dx"] == "auto" and self.regression))
        # 2. the feasible set X = {‖γ‖ ≤ Γ, |b| ≤ B}
        self._set_bounds(self.lam)
        # 3. feature cache (only when n·d fits in cache_mb), filled in canonical chunks of
        #    block_rows consecutive rows: a row's features never depend on who asked first
        nbytes = n * self.dim * self.dtype.itemsize
        self.cache = None
        if p["cache_mb"] > 0 and nbytes <= p["cache_mb"] * 2 ** 20:
            self.cache = np.empty((n, self.dim), dtype=self.dtype)
            nchunks = -(-n // self.block)
            self.chunk_done = np.zeros(nchunks, dtype=bool)      # features computed
            self.chunk_counted = np.zeros(nchunks, dtype=bool)   # ... and needed by training
        # 4. D_G from M samples at (γ_0, b_0) = (0, 0): the sample stream's first M draws
        #    (the rows training visits first), or the continued run's D_G
        self.stream = self.sample_stream(p["sampling"])
        if old is not None:
            self.DG, self.dg_fallback = old.DG, old.dg_fallback
        else:
            M = p["dg_samples"]
            self._estimate_dg(np.arange(min(M, n), dtype=np.int64) if self.streamed
                              else self.sample_stream(p["sampling"]).take(M))
        self._set_rule()
        # 5. state
        self.g = np.zeros(self.dim)
        self.gavg = np.zeros(self.dim)
        self.sc = np.zeros(6)
        self.sc[_RBAR] = _R_EPS * self.DX
        self.ic = np.zeros(2, dtype=np.int64)
        self._buf = None
        self._F = None
        self._pos = np.zeros(0, dtype=np.int64)
        self._bidx = np.zeros(0, dtype=np.int64)
        self._bat = 0

    def _estimate_dg(self, didx):
        """D_G² = mean of d_l² (‖V_l·‖² + 1) over the rows ``didx`` at (γ_0, b_0) = (0, 0)."""
        uniq, inv = np.unique(didx, return_inverse=True)
        sq_u = np.empty(uniq.size)
        for a, c in iter_blocks(uniq.size, self.block):     # O(block·d) memory for any M
            Vs = self._features_of(uniq[a:c])
            sq_u[a:c] = np.einsum("ij,ij->i", Vs, Vs, dtype=np.float64)
        sq = sq_u[inv]
        yd = self.y[didx]
        if self.regression:
            dl = np.where(yd > self.eps, -1.0, np.where(yd < -self.eps, 1.0, 0.0))
        else:
            dl = -yd                    # every point violates the margin at (0, 0)
        extra1 = 1.0 if self.fit_b else 0.0
        DG2 = float(np.mean(dl ** 2 * (sq + extra1)))
        self.dg_fallback = DG2 == 0.0
        if self.dg_fallback:
            DG2 = float(np.mean(sq + extra1))
        self.DG = math.sqrt(DG2) if DG2 > 0 else 1.0

    def _set_bounds(self, lam):
        """λ and what it bounds: Γ, B (when automatic) and D_X = √(Γ² + B²)."""
        p = self.p
        if self.regression:
            ymax = float(np.max(np.abs(self.y)))
            gmax = math.sqrt(max(0.0, 2.0 * (ymax - self.eps) / lam))
            b_auto = ymax + math.sqrt(self.R2) * gmax
        else:
            gmax = 1.0 / math.sqrt(lam)
            b_auto = 1.0 + math.sqrt(self.R2) * gmax
        bmax = (p["bias_bound"] or b_auto) if self.fit_b else 0.0
        DX = math.hypot(gmax, bmax)
        if not DX < _DX_MAX:
            raise ValueError(f"asset: the kernel values of these data (max k(x, x) = "
                             f"{self.R2:.3g}) make the radius of the feasible set D_X = √(Γ² + "
                             f"B²) = {DX:.3g}, beyond what float64 can square (B = 1 + √(max k)·Γ "
                             "overflows float64); scale the features (e.g. StandardScaler), or "
                             f"use a smaller gamma, coef0, degree or C (C = {p['C']:g})")
        self.lam, self.gmax, self.bmax, self.DX = lam, gmax, bmax, DX

    def _set_rule(self):
        """The step rule of λ, D_X and D_G: η0 = D_X / D_G (ASSET*: 1/(λj))."""
        C = self.p["C"]
        self.step0 = self.DX / self.DG
        self._rule = (StepRule(Schedule("pegasos"), self.lam, C, note="ASSET*: η_j = 1/(λj)")
                      if self.star else
                      StepRule(Schedule("sqrt", eta0=self.step0 if self.step0 > 0 else
                                        np.finfo(np.float64).tiny), self.lam, C,
                               note=f"η0 = D_X / D_G = {self.DX:.4g} / {self.DG:.4g}"))

    # ---- streams (partial_fit) ---------------------------------------------------------------
    def carry_over(self, old: "ASSETSolver", lam: float) -> None:
        """Continue ``old`` (its map and D_G given as ``continues`` to ``init``): γ, b, the
        step-weighted average, r̄ and t carry over (η_j goes on from j = t + 1); λ = ``lam``
        sets Γ, B, D_X and η0 anew (the iterate is projected by the next step, as for a new
        C). Call after ``init``."""
        self.g[:], self.gavg[:], self.sc[:], self.ic[:] = old.g, old.gavg, old.sc, old.ic
        self.t, self.t_avg0 = old.t, old.t_avg0
        if lam != self.lam:
            self._set_bounds(lam)
            self._set_rule()

    def visit(self, idx: np.ndarray) -> int:
        """One step per training row of ``idx``, in that order (no sampling): how
        ``partial_fit`` streams a chunk, its feature rows computed as ``step`` computes them.
        Returns the iterations done."""
        self._require_ready()
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        total = 0
        for a, c in iter_blocks(idx.shape[0], self.block):
            if self.diverged:
                break
            self._load_block(idx[a:c])
            total += self._run(c - a)
        self._bidx = np.zeros(0, dtype=np.int64)        # step() draws a new block
        self._bat = 0
        return total

    # ---- features --------------------------------------------------------------------------
    def _transform(self, rows, out=None):
        return self.fmap.transform(self._Xs[rows], out=out, dtype=self.dtype, block=self.block)

    def _compute_chunks(self, chunks):
        for k in chunks:
            if not self.chunk_done[k]:
                a, b = k * self.block, min(self.n, (k + 1) * self.block)
                self.fmap.transform(self._Xs[a:b], out=self.cache[a:b], block=self.block)
                self.chunk_done[k] = True

    def _fill_cache(self, uniq):
        """Make the features of the rows ``uniq`` available in the cache; training counts the
        rows of every chunk it needs for the first time (a snapshot may have computed it)."""
        chunks = np.unique(uniq // self.block)
        new = chunks[~self.chunk_counted[chunks]]
        if new.size:
            self._compute_chunks(new)
            self.chunk_counted[new] = True
            rows = sum(min(self.n, (k + 1) * self.block) - k * self.block for k in new)
            self.kernel_evals += int(rows) * self.fmap.evals_per_row

    def _features_of(self, uniq):
        """Feature rows of the sorted unique training indices ``uniq`` (counted; cached when the
        cache is on)."""
        if self.cache is None:
            V = self._transform(uniq)
            self.kernel_evals += uniq.size * self.fmap.evals_per_row
            return V
        self._fill_cache(uniq)
        return self.cache[uniq]

    def _next_block(self):
        """Draw the next ``block_rows`` sample indices and make their feature rows available."""
        self._load_block(self.stream.take(self.block))

    def _load_block(self, idx):
        """Make the feature rows of the sample indices ``idx`` available for ``_run``."""
        uniq, inv = np.unique(idx, return_inverse=True)
        if self.cache is not None:
            self._fill_cache(uniq)
            self._F, self._pos = self.cache, idx
        else:
            if self._buf is None:        # at most n distinct rows per block
                self._buf = np.empty((min(self.block, self.n), self.dim), dtype=self.dtype)
            self._transform(uniq, out=self._buf[:uniq.size])
            self.kernel_evals += uniq.size * self.fmap.evals_per_row
            self._F, self._pos = self._buf, inv.astype(np.int64)
        self._bidx = idx
        self._bat = 0

    # ----------------------------------------------------------------------------------- step
    def step(self, n: int) -> int:
        """Run n iterations (compiled, over stream-aligned feature blocks); returns those done."""
        self._require_ready()
        n = int(n)
        total = 0
        while total < n and not self.diverged:
            if self._bat >= self._bidx.shape[0]:
                self._next_block()
            total += self._run(min(n - total, self._bidx.shape[0] - self._bat))
        return total

    def _run(self, m: int) -> int:
        """m iterations on the loaded block from its position ``_bat`` on."""
        a = self._bat
        done = _asset_chunk(self._F, self._pos[a:a + m], self._bidx[a:a + m], self.y, m,
                            self.g, self.gavg, self.sc, self.ic, self.lam, self.gmax, self.bmax,
                            self._rule.code, self._rule.params, self.loss_code, self.eps,
                            self.fit_b, self.t_avg0, self.travelled, self.DX, self.DG)
        self._bat += done
        self.t = int(self.ic[_T])
        if self.ic[_DIVERGED]:
            self._mark_diverged("the iterate became NaN or infinite")
        return int(done)

    # ---------------------------------------------------------------------------------- model
    @property
    def has_bias(self) -> bool:
        """fit_intercept, except for ASSET* (defined without a bias)."""
        return bool(self.p["fit_intercept"]) and self.p["variant"] != "star"

    @property
    def averaging_active(self) -> bool:
        return self.sc[_ETASUM] > 0

    def model(self, last: bool = False):
        """(γ, b): the averaged iterate once the averaging window has started (unless
        ``last``), else the last."""
        if self.averaging_active and not last:
            return self.gavg.copy(), float(self.sc[_BAVG])
        return self.g.copy(), float(self.sc[_B])

    @property
    def coef_(self) -> np.ndarray:
        """γ, the weights on the d approximate features."""
        return self.model()[0]

    @property
    def intercept_(self) -> float:
        return float(self.model()[1])

    @property
    def eta(self) -> float:
        """η_t of the last iteration done (η_1 before the first)."""
        return float(self.sc[_ETA]) if self.t > 0 else float(self.step_rule().values([1])[0])

    @property
    def dx_travelled(self) -> float:
        """r̄: the largest ‖(γ_j, b_j)‖ so far (r̄_0 = 1e-4·D_X), at most D_X (dx="travelled")."""
        return min(float(self.sc[_RBAR]), self.DX)

    def step_rule(self) -> StepRule:
        """ASSET: η_j = D_X / (D_G √j) (the ``sqrt`` schedule with η0 = D_X / D_G, estimated at
        init); ASSET*: η_j = 1/(λ j) (the ``pegasos`` schedule). With dx="travelled" (default
        for regression) the rule with today's r̄ in place of D_X: the steps from now on while
        r̄ stays (it only grows, and mostly in the first iterations)."""
        self._require_ready()
        if not self.travelled:
            return self._rule
        r = self.dx_travelled
        note = (f"D_X = r̄ = {r:.4g}, the largest distance from (0, 0) so far (the bound "
                f"√(Γ² + B²) = {self.DX:.4g} caps it); D_G = {self.DG:.4g}")
        if not self.star:
            return StepRule(Schedule("sqrt", eta0=r / self.DG), self.lam, self.p["C"],
                            note="η0 = r̄ / D_G; " + note)
        return _CappedPegasos(Schedule("pegasos"), self.lam, self.p["C"],
                              note="ASSET*: η_j = min(1/(λj), r̄/(D_G√j)); " + note,
                              cap0=r / self.DG)

    def support_coef(self):
        """Nyström: (landmark indices S, α_S = Q D^{-1/2} γ, b), the expansion of Sec. 2.4."""
        if not self.kernelized:
            return None         # random Fourier features: weights on the features (coef_)
        gvec, b = self.model()
        return self.fmap.landmark_indices_.copy(), self.fmap.expansion_coef(gvec), b

    def _decision_rows(self, R, last: bool = False):
        gvec, b = self.model(last)
        return self.fmap.decision(R.to_scipy(), gvec, b, block=self.block, dtype=self.dtype)

    def _last_rows(self, R):
        return self._decision_rows(R, last=True)

    def _train_scores(self, gvec, b):
        """Decision values V_i·γ + b on the training set: from the cache (completing it
        first, without counting: snapshot work is not training work), else the efficient
        prediction in blocks."""
        if self.cache is None:
            return self.fmap.decision(self._Xs, gvec, b, block=self.block, dtype=self.dtype)
        self._compute_chunks(np.flatnonzero(~self.chunk_done))
        out = np.empty(self.n)
        for a, c in iter_blocks(self.n, 65536):
            out[a:c] = self.cache[a:c] @ gvec + b
        return out

    def train_scores(self) -> np.ndarray:
        """Decision values of the current model on the training set (for the app's mistake
        marks): a matrix-vector product over the cached feature rows, or s kernel evaluations
        (d features) per row without the cache."""
        self._require_ready()
        return self._train_scores(*self.model())

    def losses(self, scores, y=None) -> np.ndarray:
        y = self.y if y is None else y
        if self.regression:
            return np.maximum(0.0, np.abs(y - scores) - self.eps)
        return hinge_losses(scores, y)

    def _fit_terms(self, scores, y):
        """(mean loss, training error or RMSE, points on or beyond the margin / tube)."""
        if self.regression:
            margin = np.abs(y - scores) >= self.eps
            err = float(np.sqrt(np.mean((y - scores) ** 2)))
        else:
            margin = y * scores <= 1.0
            err = error_rate(scores, y)
        return float(self.losses(scores, y).mean()), err, margin

    def trace_row(self, rows):
        """The objective and the training error with the data term on the rows ``rows`` only:
        from the feature cache when there is one (completing the chunks those rows lie in,
        uncounted, as a snapshot does), else s kernel evaluations or d features a row."""
        self._require_ready()
        gvec, b = self.model()
        if self.cache is not None:               # the features training computes anyway
            self._compute_chunks(np.unique(rows // self.block))
            scores = self.cache[rows] @ gvec + b
        else:
            memo = getattr(self, "_xs_memo", None)
            if memo is None or memo[0] is not rows:
                memo = self._xs_memo = (rows, self._Xs[rows])
            scores = self.fmap.decision(memo[1], gvec, b, block=self.block, dtype=self.dtype)
        loss, err, margin = self._fit_terms(scores, self.y[rows])
        n_sv = (self.fmap.n_components_ if self.kernelized
                else int(round(margin.mean() * self.n)))
        return 0.5 * self.lam * float(gvec @ gvec) + loss, err, n_sv

    def state_line(self, snap: Snapshot) -> str:
        e = snap.extra
        return join_state([
            state_part("step η_j = {eta:.3g} (D_X = {dx:.3g}, D_G = {dg:.3g})", eta=e.get("eta"),
                       dx=e.get("D_X_travelled") or e.get("D_X"), dg=e.get("D_G")),
            state_part("{d:,} approximate features ({s:,} requested)", d=e.get("dim"),
                       s=e.get("n_components")),
            state_part("points on or inside the margin {m:,}", m=e.get("n_margin_sv")),
            "averaging the iterates now" if e.get("averaging_active") else None,
        ])

    def snapshot(self) -> Snapshot:
        self._require_ready()
        gvec, b = self.model()
        scores = self._train_scores(gvec, b)
        loss, train_err, margin = self._fit_terms(scores, self.y)
        obj = 0.5 * self.lam * float(gvec @ gvec) + loss
        margin_sv = np.flatnonzero(margin)
        support = np.sort(self.fmap.landmark_indices_) if self.kernelized else margin_sv
        loss_name = "ε-insensitive" if self.regression else "hinge"
        return Snapshot(
            t=self.t, objective=obj, n_sv=int(support.size), support=support,
            kernel_evals=int(self.kernel_evals),
            objective_name=f"primal {loss_name}, λ-form, on the approximate features",
            diverged=self.diverged,
            extra={"train_error": train_err,
                   "train_error_kind": "rmse" if self.regression else "error rate",
                   "lam": self.lam, "eta": self.eta, "D_G": self.DG, "D_X": self.DX,
                   "D_X_travelled": self.dx_travelled if self.travelled else None,
                   "gamma_bound": self.gmax, "bias_bound": self.bmax, "dim": self.dim,
                   "n_components": int(self.p["n_components"]),
                   "n_margin_sv": int(margin_sv.size),
                   "support_kind": "landmarks" if self.kernelized else "margin",
                   "averaging_active": bool(self.averaging_active),
                   "feature_cache": self.cache is not None},
        )

    # ------------------------------------------------------------------------ step through
    def listing(self) -> Listing:
        travelled = self.p["dx"] == "travelled" or (self.p["dx"] == "auto" and self.regression)
        return asset_listing(self.regression, self.p["variant"] == "star", travelled)

    def step_through_state(self) -> dict:
        """γ and b of the last iterate; with averaging (not ASSET*) also the averages
        ``γ_avg``, ``b_avg``."""
        out = {"γ": self.g.copy(), "b": float(self.sc[_B])}
        if not self.star and self.p["averaging"] is not None:
            out["γ_avg"], out["b_avg"] = self.gavg.copy(), float(self.sc[_BAVG])
        return out

    def _step_through_one(self) -> StepThroughRecord:
        """One iteration of Algorithm 1 on the next sample of the stream-aligned block: the
        feature row, d_j, the step and the projection computed in NumPy from the state before,
        then the compiled step on the same row."""
        L = self.listing()
        if self.diverged:
            return self._idle_record(L.no("loop"), "the run diverged")
        if self._bat >= self._bidx.shape[0]:
            self._next_block()                 # what step(1) would do first: same stream
        i = int(self._bidx[self._bat])
        V = np.asarray(self._F[self._pos[self._bat]], dtype=np.float64)
        j = self.t + 1
        eta = float(self.step_rule().values([j])[0])
        lam, yi = self.lam, float(self.y[i])
        s0 = self.step_through_state()
        f = float(V @ s0["γ"] + s0["b"])
        if self.regression:
            d = -1.0 if yi > f + self.eps else (1.0 if yi < f - self.eps else 0.0)
        else:
            d = -yi if yi * f < 1.0 else 0.0
        shrink = 1.0 - eta * lam
        half = shrink * s0["γ"] - eta * d * V
        norm_half = float(np.linalg.norm(half))
        factor = min(1.0, self.gmax / norm_half) if norm_half > 0 else 1.0
        es0 = float(self.sc[_ETASUM])
        self.step(1)                           # the compiled step on row i
        s1 = self.step_through_state()
        avg = j >= self.t_avg0
        keys = ["loop", "eta", "sample", "features", "grad", "viol" if d != 0.0 else "ok",
                "step"] + (["avg_if", "avg"] if avg else [])
        q = {"t": j, "i": i, "eta": eta, "lam": lam, "f": f, "d": d, "shrink": shrink,
             "norm_half": norm_half, "radius": self.gmax, "rbar": self.dx_travelled,
             "projection": factor,
             "projected": factor < 1.0, "averaging": avg, "gamma_half": half,
             "b": s1["b"], "bias_bound": self.bmax}
        if self.regression:
            q["residual"] = yi - f
        else:
            q["margin"] = yi * f
        if avg:
            q["avg_weight"] = eta / (es0 + eta)
        loss = "outside the ε-tube" if self.regression else "a margin violator"
        text = (f"j = {j}: x_{i} has " + (f"y − f = {yi - f:.3g}" if self.regression
                                            else f"y·f = {yi * f:.3g}")
                + (f", {loss} (d_j = {d:g})" if d != 0.0 else ", no loss (d_j = 0)")
                + f"; γ shrinks by 1 − η_jλ = {shrink:.3g}"
                + (" and moves along −η_j d_j V_ξj·" if d != 0.0 else " only"))
        if factor < 1.0:
            text += f"; ‖γ‖ > Γ = {self.gmax:.3g}: projected back"
        if avg:
            text += f"; the average takes it with weight {q['avg_weight']:.3g}"
        return StepThroughRecord(t_before=j - 1, t=self.t, lines=L.no(*keys), text=text + ".",
                          picked=(i,), changes=state_changes(s0, s1), quantities=q,
                          roles={"sample": (i,)})


    # ------------------------------------------------------------------------ mid-run changes
    #: taken mid-run (``retune``): C gives a new λ = 1/(C n), hence a new feasible set (Γ, and
    #: B when ``bias_bound`` is automatic), D_X and η0 = D_X / D_G (D_G, measured at (0, 0), does
    #: not depend on λ); the iterate is projected onto the new set by the next step. A new
    #: ``averaging`` drops the step-weighted average so far and opens the new window (ASSET*
    #: never averages).
    soft_params = ("C", "averaging")

    def _retune(self, diff):
        p = self.p
        if "C" in diff:
            self._set_bounds(lam_from_C(p["C"], self.weight_total))
            self._set_rule()
        if not self.star:
            self._retune_average(diff, self.horizon)

    def _clear_average(self):
        self.gavg[:] = 0.0
        self.sc[[_BAVG, _ETASUM]] = 0.0
