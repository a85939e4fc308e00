r"""What an approximate kernel costs: the numbers of the Kernel approximation page (no plotting).

For a training set X (at most :data:`MAX_ROWS` rows) and the Gaussian kernel
k(x, z) = exp(−γ‖x − z‖²):

* the exact kernel matrix K and its approximations K̃ = VVᵀ by Nyström on s landmarks (ASSET
  eq. 6–7, eigenvalues of the sampled block K_SS below ε_d dropped) and by d random Fourier
  features (eq. 8), drawn exactly as the ASSET solver draws them (``default_rng([seed, 1])``,
  :func:`feature_map`), so the K̃ shown is the one ASSET trains on;
* the relative error ‖K − K̃‖_F / ‖K‖_F, with scikit-learn's ``Nystroem`` / ``RBFSampler``
  (``random_state=seed``) as the reference;
* the test error of ASSET on those features (:func:`asset_test_error`) and of the exact-kernel
  SVM (scikit-learn ``SVC``, same C and γ) as the baseline;
* the eigenvalue spectrum of K_SS with the threshold ε_d (:func:`spectrum`), the time of each
  feature map (:func:`map_times`);
* :func:`sweep`: s and d over a log grid × several seeds, as arrays with the median and the
  band (min, max over seeds) — the ASSET paper's Fig. 1 at classroom scale;
* :func:`loglog_slope`: the slope of a curve on log axes (RFF: about −1/2, the Monte-Carlo
  rate of eq. 8; tests/lessons/test_kernel_approx.py checks it).

Every function validates its input (γ ≤ 0, s > n, d < 1, …) with a ValueError a student can
read. Randomness comes from ``np.random.default_rng`` seeded by the caller: same seed ⇒ same
numbers (timings aside).
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._blas import one_blas_thread
from ..solvers.feature_maps import NystroemFeatures, RandomFourierFeatures, kernel_block

__all__ = ["MAX_ROWS", "METHODS", "Approximation", "Sweep", "approximate", "asset_test_error",
           "cap_rows", "check_gamma", "check_size", "check_threshold", "class_order",
           "display_rows", "exact_kernel", "exact_svm_test_error", "feature_map", "log_grid",
           "loglog_slope", "map_times", "relative_error", "scale_gamma", "sklearn_map", "spectrum",
           "sweep"]

MAX_ROWS = 2000                   # rows of K at most: n² floats (32 MB at n = 2000)
MAX_VALUES = 20_000_000           # rows × features of the (dense) data at most: 160 MB
END_AT_N_MAX = 1024               # the Nyström sweep ends at s = n up to this n
EIG_THRESHOLD = 1e-10             # ε_d, the ASSET solver's default
METHODS = ("nystroem", "rff")     # svmcore's maps; the scikit-learn references: "sk_" + method
LABELS = {"nystroem": "Nyström (ASSET eq. 7)", "rff": "random Fourier (eq. 8)",
          "sk_nystroem": "scikit-learn Nystroem", "sk_rff": "scikit-learn RBFSampler"}


def _one_blas_thread(fn):
    """Run ``fn`` with BLAS on one thread (:func:`svmcore._blas.one_blas_thread`): a sweep of
    breast_cancer on the loaded 2-core server took 32 s with OpenBLAS's two threads, 3.9 s with
    one."""
    @functools.wraps(fn)
    def wrapped(*args, **kw):
        with one_blas_thread():
            return fn(*args, **kw)
    return wrapped


# ------------------------------------------------------------------------------ validation
def check_gamma(gamma) -> float:
    """γ as a float, or a ValueError: the Gaussian kernel needs γ > 0 (finite)."""
    try:
        g = float(gamma)
    except (TypeError, ValueError):
        raise ValueError(f"γ must be a number, got {gamma!r}") from None
    if not (math.isfinite(g) and g > 0):
        raise ValueError(f"γ must be a positive number (the RBF kernel exp(−γ‖x − z‖²) needs "
                         f"γ > 0), got γ = {g:g}")
    return g


def check_threshold(eps) -> float:
    """ε_d as a float, or a ValueError: it must be a positive number."""
    e = float(eps)
    if not (math.isfinite(e) and e > 0):
        raise ValueError(f"the eigenvalue threshold ε_d must be a positive number, got {e:g}")
    return e


def check_size(method: str, size, n: int) -> int:
    """s (Nyström: 1 ≤ s ≤ n landmarks, chosen among the n training rows) or d (RFF: d ≥ 1)."""
    if method not in METHODS:
        raise ValueError(f"unknown approximation {method!r}; valid: {', '.join(METHODS)}")
    try:
        k = int(size)
    except (TypeError, ValueError):
        raise ValueError(f"the number of {'landmarks s' if method == 'nystroem' else 'features d'}"
                         f" must be a whole number, got {size!r}") from None
    if k != size:
        raise ValueError(f"the size must be a whole number, got {size!r}")
    if method == "nystroem":
        if k < 1:
            raise ValueError(f"Nyström needs at least one landmark: s = {k}")
        if k > n:
            raise ValueError(f"s = {k:,} landmarks but only n = {n:,} training rows: Nyström "
                             f"picks its landmarks among the training rows, so s ≤ {n:,}")
    elif k < 1:
        raise ValueError(f"random Fourier features need d ≥ 1, got d = {k}")
    return k


def _dense(X) -> np.ndarray:
    X = X.toarray() if sp.issparse(X) else X
    return np.ascontiguousarray(X, dtype=np.float64)


def scale_gamma(X) -> float:
    """scikit-learn's ``gamma="scale"``: 1 / (n_features · Var X) (1 when Var X = 0)."""
    X = _dense(X)
    v = float(X.var()) * X.shape[1]
    return 1.0 / v if v > 0 else 1.0


def cap_rows(X, y, max_rows: int = MAX_ROWS, seed: int = 0):
    """At most ``max_rows`` rows, dense: ``(X, y, note)``; a larger set is subsampled uniformly
    without replacement (``default_rng(seed)``, rows kept in their order) and ``note`` says so.
    Refuses (ValueError) more than :data:`MAX_VALUES` values once dense."""
    y = np.asarray(y, dtype=np.float64)
    n, p = X.shape
    note = None
    if n > max_rows:
        keep = np.sort(np.random.default_rng(seed).choice(n, size=max_rows, replace=False))
        X, y = X[keep], y[keep]
        note = (f"{n:,} rows subsampled to {max_rows:,} (uniformly at random, seed {seed}): "
                "the kernel matrix has n² entries")
    if X.shape[0] * p > MAX_VALUES:
        raise ValueError(f"{X.shape[0]:,} rows × {p:,} features is too wide for this page (at "
                         f"most {MAX_VALUES:,} values, dense): use fewer features")
    return _dense(X), y, note


# ------------------------------------------------------------------------------ the maps
def exact_kernel(X, gamma: float) -> np.ndarray:
    """K = [exp(−γ‖x_i − x_j‖²)], n × n (scikit-learn's pairwise kernels)."""
    return kernel_block(X, X, "rbf", check_gamma(gamma))


def feature_map(X, method: str, size: int, gamma: float, seed: int = 0,
                eig_threshold: float = EIG_THRESHOLD):
    """The fitted map ASSET uses for ``approx=method, n_components=size`` with this seed: the
    same calls as :class:`~svmcore.solvers.asset.ASSETSolver` (randomness
    ``default_rng([seed, 1])``). Nyström: s landmarks among the rows of X; RFF: d features."""
    X = _dense(X)
    gamma = check_gamma(gamma)
    size = check_size(method, size, X.shape[0])
    rng = np.random.default_rng([int(seed), 1])
    if method == "nystroem":
        return NystroemFeatures(size, "rbf", gamma, eig_threshold=check_threshold(eig_threshold)
                                ).fit(X, rng)
    return RandomFourierFeatures(size, gamma).fit(X.shape[1], rng)


def sklearn_map(X, method: str, size: int, gamma: float, seed: int = 0):
    """scikit-learn's ``Nystroem`` (s components) or ``RBFSampler`` (d), ``random_state=seed``,
    fitted on X."""
    from sklearn.kernel_approximation import Nystroem, RBFSampler
    X = _dense(X)
    gamma = check_gamma(gamma)
    size = check_size(method, size, X.shape[0])
    if method == "nystroem":
        return Nystroem(kernel="rbf", gamma=gamma, n_components=size, random_state=seed).fit(X)
    return RBFSampler(gamma=gamma, n_components=size, random_state=seed).fit(X)


def relative_error(K: np.ndarray, V: np.ndarray) -> float:
    """‖K − VVᵀ‖_F / ‖K‖_F (VVᵀ formed explicitly: exact to rounding, n²d work)."""
    E = V @ V.T
    E -= K
    return float(np.linalg.norm(E) / np.linalg.norm(K))


def spectrum(fmap: NystroemFeatures) -> dict:
    """The eigenvalues of the sampled block K_SS (descending), ε_d and how many are kept (d)."""
    return {"eigenvalues": np.asarray(fmap.all_eigenvalues_, dtype=np.float64),
            "threshold": float(fmap.eig_threshold), "kept": int(fmap.n_features_out_),
            "s": int(fmap.n_components_)}


def _timed(fn, repeat: int = 2) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@_one_blas_thread
def map_times(X, s: int, d: int, gamma: float, seed: int = 0, repeat: int = 2) -> dict:
    """Seconds (best of ``repeat``) to fit each map and transform the n rows of X, and to form
    the exact K: ``{"exact": …, "nystroem": …, "rff": …, "sk_nystroem": …, "sk_rff": …}``."""
    X = _dense(X)
    sizes = {"nystroem": s, "rff": d}
    out = {"exact": _timed(lambda: exact_kernel(X, gamma), repeat)}
    for m in METHODS:
        out[m] = _timed(lambda m=m: feature_map(X, m, sizes[m], gamma, seed).transform(X),
                        repeat)
        out["sk_" + m] = _timed(lambda m=m: sklearn_map(X, m, sizes[m], gamma, seed)
                                .transform(X), repeat)
    return out


# ------------------------------------------------------------------------------ learning
@_one_blas_thread
def asset_test_error(X, y, X_test, y_test, method: str, size: int, gamma: float, C: float = 1.0,
                     epochs: float = 5.0, seed: int = 0,
                     eig_threshold: float = EIG_THRESHOLD) -> float:
    """Test error rate of ASSET (``approx=method``, ``n_components=size``, default variant:
    η_j = D_X/(D_G√j), bias, averaging) after ``epochs`` passes; its features are
    :func:`feature_map` of the same seed (and ε_d)."""
    from ..solvers.objectives import error_rate
    from ..solvers.asset import ASSETSolver
    X = _dense(X)
    size = check_size(method, size, X.shape[0])
    solver = ASSETSolver(approx=method, n_components=size, kernel="rbf",
                         gamma=check_gamma(gamma), C=float(C), epochs=float(epochs),
                         eig_threshold=check_threshold(eig_threshold))
    solver.init(X, y, seed)
    solver.step(solver.horizon)
    return error_rate(solver.decision_function(_dense(X_test)), y_test)


@_one_blas_thread
def exact_svm_test_error(X, y, X_test, y_test, gamma: float, C: float = 1.0) -> float:
    """Test error rate of the exact-kernel SVM (scikit-learn ``SVC``, same C and γ): the level
    the approximations approach."""
    from sklearn.svm import SVC
    from ..solvers.objectives import error_rate
    model = SVC(C=float(C), kernel="rbf", gamma=check_gamma(gamma)).fit(_dense(X), y)
    return error_rate(model.decision_function(_dense(X_test)), y_test)


# ------------------------------------------------------------------------------ one (s, d)
def class_order(y, X=None) -> np.ndarray:
    """Row order with the classes together (−1 first, then +1); within a class by the first
    principal component of X when given (near rows near each other: K shows blocks), else
    stable."""
    y = np.asarray(y)
    if X is None:
        return np.argsort(y, kind="stable")
    X = _dense(X)
    Xc = X - X.mean(axis=0)
    pc = np.linalg.svd(Xc, full_matrices=False)[2][0] if X.shape[1] > 1 else np.ones(1)
    score = Xc @ pc
    return np.lexsort((score, y))


def display_rows(n: int, max_rows: int) -> np.ndarray:
    """At most ``max_rows`` evenly spaced positions out of range(n) (all of them if n fits)."""
    if n <= max_rows:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_rows).round().astype(np.int64))


@dataclass
class Approximation:
    """K and both approximations at one (s, d) and seed: heatmaps (rows and columns sorted by
    class, at most ``display`` of them, float32), errors, spectrum and the class boundary."""

    s: int
    d: int
    gamma: float
    seed: int
    n: int
    K: np.ndarray
    K_nystroem: np.ndarray
    K_rff: np.ndarray
    labels: np.ndarray                 # the class of each shown row (sorted)
    rows_shown: int
    errors: dict                       # method (and "sk_" + method) -> relative error
    spectrum: dict
    features: dict = field(default_factory=dict)   # method -> d of the map (Nyström: kept)


@_one_blas_thread
def approximate(X, y, gamma: float, s: int, d: int, seed: int = 0, display: int = 300,
                eig_threshold: float = EIG_THRESHOLD) -> Approximation:
    """Exact K, Nyström K̃ (s landmarks) and RFF K̃ (d features) of the rows of X with this seed;
    the relative errors of both and of scikit-learn's maps; the spectrum of K_SS."""
    X = _dense(X)
    y = np.asarray(y, dtype=np.float64)
    n = X.shape[0]
    gamma = check_gamma(gamma)
    sizes = {"nystroem": check_size("nystroem", s, n), "rff": check_size("rff", d, n)}
    K = exact_kernel(X, gamma)
    order = class_order(y, X)[display_rows(n, display)]
    ix = np.ix_(order, order)
    mats, errors, dims = {}, {}, {}
    ny = None
    for m in METHODS:
        fmap = feature_map(X, m, sizes[m], gamma, seed, eig_threshold)
        ny = fmap if m == "nystroem" else ny
        V = fmap.transform(X)
        errors[m] = relative_error(K, V)
        mats[m] = np.asarray((V[order] @ V[order].T), dtype=np.float32)
        dims[m] = int(fmap.n_features_out_)
        errors["sk_" + m] = relative_error(K, sklearn_map(X, m, sizes[m], gamma, seed)
                                           .transform(X))
    return Approximation(sizes["nystroem"], sizes["rff"], gamma, int(seed), n,
                         np.asarray(K[ix], dtype=np.float32), mats["nystroem"], mats["rff"],
                         y[order], int(order.size), errors, spectrum(ny), dims)


# ------------------------------------------------------------------------------ the sweep
def log_grid(lo: int = 4, hi: int = 1024, per_octave: int = 1) -> np.ndarray:
    """Integers from ``lo`` to ``hi`` spaced evenly on a log scale (powers of two by default)."""
    if not (1 <= lo <= hi):
        raise ValueError(f"a size grid needs 1 ≤ lo ≤ hi, got lo = {lo}, hi = {hi}")
    k = max(1, int(round(math.log2(hi / lo) * per_octave)))
    return np.unique(np.round(np.geomspace(lo, hi, k + 1)).astype(np.int64))


@dataclass
class Sweep:
    """Errors over a size grid × seeds. ``error[m]`` and ``test_error[m]`` are
    (len(sizes[m]), len(seeds)) arrays (NaN where a size does not apply, e.g. Nyström s > n);
    :meth:`band` gives the median and the (min, max) band over seeds."""

    sizes: dict                        # method -> sizes (Nyström: those ≤ n, then n)
    seeds: tuple
    gamma: float
    C: float
    epochs: float
    n: int
    n_test: int
    error: dict                        # "nystroem", "rff", "sk_nystroem", "sk_rff"
    test_error: dict                   # "nystroem", "rff" (ASSET); empty without a test part
    exact_test_error: float | None     # SVC with the exact kernel
    eig_threshold: float = EIG_THRESHOLD   # ε_d of the Nyström maps

    def band(self, key: str, test: bool = False):
        """(median, low, high) over seeds for each size of the series ``key``."""
        A = (self.test_error if test else self.error)[key]
        return np.median(A, axis=1), A.min(axis=1), A.max(axis=1)

    def sizes_of(self, key: str) -> np.ndarray:
        return self.sizes[key.removeprefix("sk_")]


@_one_blas_thread
def sweep(X, y, X_test, y_test, gamma: float, sizes=None, seeds=(0, 1, 2), C: float = 1.0,
          epochs: float = 5.0, learn: bool = True, progress=None,
          eig_threshold: float = EIG_THRESHOLD) -> Sweep:
    """Relative kernel errors (svmcore's and scikit-learn's maps) and ASSET test errors for every
    size of ``sizes`` (default :func:`log_grid` 4…1024) and seed. Nyström keeps the sizes ≤ n
    and, when the grid goes beyond n and n ≤ :data:`END_AT_N_MAX`, ends at s = n (where K̃ = K:
    the curve shows it; above that the n × n eigendecompositions would dominate the sweep).
    ``learn=False`` or no test part skips the ASSET runs. ``progress(done, total)`` is called
    after each (size, seed). ``eig_threshold`` is ε_d of svmcore's Nyström map and ASSET's."""
    X = _dense(X)
    y = np.asarray(y, dtype=np.float64)
    n = X.shape[0]
    gamma = check_gamma(gamma)
    eps = check_threshold(eig_threshold)
    grid = log_grid() if sizes is None else np.asarray(sorted({int(v) for v in sizes}))
    for v in grid:
        check_size("rff", v, n)
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("the sweep needs at least one seed")
    ny = grid[grid <= n]
    end = grid.max() > n and n not in ny and n <= END_AT_N_MAX
    per = {"nystroem": np.append(ny, n) if end else ny, "rff": grid}
    if per["nystroem"].size == 0:
        raise ValueError(f"every size of the grid exceeds the n = {n} training rows")
    learn = bool(learn) and X_test is not None and len(y_test) > 0
    K = exact_kernel(X, gamma)
    error = {k: np.full((per[k.removeprefix("sk_")].size, len(seeds)), np.nan)
             for k in ("nystroem", "rff", "sk_nystroem", "sk_rff")}
    test_error = {m: np.full((per[m].size, len(seeds)), np.nan) for m in METHODS} if learn \
        else {}
    total = sum(per[m].size for m in METHODS) * len(seeds)
    done = 0
    for m in METHODS:
        for i, size in enumerate(per[m]):
            for j, seed in enumerate(seeds):
                error[m][i, j] = relative_error(K, feature_map(X, m, size, gamma, seed, eps)
                                                .transform(X))
                error["sk_" + m][i, j] = relative_error(
                    K, sklearn_map(X, m, size, gamma, seed).transform(X))
                if learn:
                    test_error[m][i, j] = asset_test_error(X, y, X_test, y_test, m, size, gamma,
                                                           C, epochs, seed, eps)
                done += 1
                if progress is not None:
                    progress(done, total)
    exact = exact_svm_test_error(X, y, X_test, y_test, gamma, C) if learn else None
    return Sweep(per, seeds, gamma, float(C), float(epochs), n,
                 0 if X_test is None else int(len(y_test)), error, test_error, exact, eps)


def loglog_slope(x, v, lo: float | None = None, hi: float | None = None) -> float:
    """Least-squares slope of log v against log x over lo ≤ x ≤ hi (v ∝ x^slope)."""
    x, v = np.asarray(x, dtype=np.float64), np.asarray(v, dtype=np.float64)
    keep = np.isfinite(v) & (v > 0) & (x > 0)
    if lo is not None:
        keep &= x >= lo
    if hi is not None:
        keep &= x <= hi
    if keep.sum() < 2:
        raise ValueError("a slope needs at least two positive points in the range")
    return float(np.polyfit(np.log(x[keep]), np.log(v[keep]), 1)[0])
