"""``SVC`` and ``SVR`` under scikit-learn's names, signatures, defaults and fitted attributes,
trained by SMO (LIBSVM's algorithm: second-order working-set selection, shrinking, a kernel-row
cache of ``cache_size`` MB) unless ``solver=`` names another registered solver.

SVC follows LIBSVM's C-SVC step by step where it decides the model: classes sorted; one
binary problem per pair of classes (i, j) on the rows of both classes, class i's rows first,
labelled +1; C_t = C · class_weight[y_t] · sample_weight_t; LIBSVM's stopping rule (``tol``),
its bias, its vote (ties to the first class) and scikit-learn's one-vs-rest shape of the votes
(``decision_function_shape="ovr"``, ``break_ties``). A binary model's signs are flipped as
scikit-learn flips them (positive decision values for ``classes_[1]``).

A callable kernel is evaluated here, on the rows given (K = kernel(X, X) at fit,
kernel(X, X_fit) at decision time), and the solver trains on the matrix as ``"precomputed"``.
"""
from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ..solvers import REGISTRY, get_solver
from ..solvers.base import estimator_memory_budget
from ._base import check_weights
from ._model import (SVC_KERNELS, check_gram, kernel_block, ovo_layout, ovo_votes, ovr_shape,
                     pair_decisions, quick_X, quick_Xy, resolve_svc_gamma)
from ._proba import couple_pairs, platt_fit, platt_proba

#: SVC's arguments that are solver parameters: SVC's name -> (the solver's name, SVC's default)
_SOLVER_ARGS = {"tol": ("tol", 1e-3), "max_iter": ("max_iter", -1),
                "cache_size": ("cache_mb", 200), "shrinking": ("shrinking", True)}


class _LibsvmFace(BaseEstimator):
    """What SVC and SVR share: the kernel (by name, precomputed or callable), the solver's
    arguments, one binary (or regression) training run, the kernel expansion's decision."""

    _task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    # --------------------------------------------------------------------------- kernel
    def _kernel_name(self) -> str:
        if callable(self.kernel):
            return "precomputed"
        if self.kernel not in SVC_KERNELS:
            raise ValueError(f"kernel must be one of {list(SVC_KERNELS)} or a callable, got "
                             f"{self.kernel!r}")
        return self.kernel

    def _train_matrix(self, X):
        """The matrix the solver trains on: X itself, or the n × n Gram matrix of a
        precomputed or callable kernel (checked: square, finite)."""
        n = X.shape[0]
        if callable(self.kernel):
            self._X_fit = X
            return check_gram(self.kernel(X, X), n, n,
                              f"the callable kernel's K(X, X) for {n} rows")
        if self.kernel == "precomputed":
            if sp.issparse(X):
                raise TypeError("Sparse precomputed kernels are not supported.")
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"Precomputed matrix must be a square matrix. Input is a "
                                 f"{X.shape[0]}x{X.shape[1]} matrix.")
        return X

    def _test_block(self, X):
        """K(X, support vectors) for the decision values (n_test × n_SV)."""
        check_is_fitted(self, "support_")
        n_fit = self.shape_fit_[0]
        if callable(self.kernel):
            m = X.shape[0] if hasattr(X, "shape") else len(X)
            K = check_gram(self.kernel(X, self._X_fit), m, n_fit,
                           f"the callable kernel's K(X, X_fit) for {m} × {n_fit} rows")
            return K[:, self.support_]
        X = quick_X(self, X, reset=False)
        if self.kernel == "precomputed":
            if sp.issparse(X):
                raise TypeError("Sparse precomputed kernels are not supported.")
            if X.shape[1] != n_fit:
                raise ValueError(f"X.shape[1] = {X.shape[1]} should be equal to {n_fit}, the "
                                 "number of samples at training time")
            return np.asarray(X)[:, self.support_]
        if X.shape[0] * max(self.support_.shape[0], 1) <= 1 << 22:
            return kernel_block(X, self.support_vectors_, self.kernel, self._gamma,
                                float(self.coef0), float(self.degree))
        step = max(1, (1 << 22) // max(self.support_.shape[0], 1))
        return np.vstack([kernel_block(X[a:a + step], self.support_vectors_, self.kernel,
                                       self._gamma, float(self.coef0), float(self.degree))
                          for a in range(0, X.shape[0], step)])

    # --------------------------------------------------------------------------- solver
    def _solver_setup(self, X, kernel: str):
        """(solver class, its keyword arguments): SVC's arguments under the solver's names; a
        solver without a task, a kernel or an argument set away from SVC's default refuses,
        naming what it supports."""
        cls = get_solver(self.solver)
        if self._task not in cls.tasks:
            able = [name for name, c in REGISTRY.items() if self._task in c.tasks]
            raise ValueError(f"solver {cls.name!r} does not do {self._task}; solvers that do: "
                             f"{', '.join(able)}")
        kernels = getattr(cls, "kernels", ())
        if "kernel" not in cls.params or kernel not in kernels:
            what = "a callable kernel (passed on as 'precomputed')" if callable(self.kernel) \
                else f"kernel={kernel!r}"
            raise ValueError(f"solver {cls.name!r} cannot train {what}; it supports kernel in "
                             f"{list(kernels) if 'kernel' in cls.params else ['linear']}")
        gamma = 0.0 if kernel in ("precomputed", "linear") else resolve_svc_gamma(self.gamma, X)
        self._gamma = gamma
        kw = {"C": float(self.C), "kernel": kernel}
        if kernel in ("rbf", "poly", "sigmoid"):
            kw["gamma"] = gamma
        if kernel in ("poly", "sigmoid"):
            kw["coef0"] = float(self.coef0)
        if kernel == "poly":
            kw["degree"] = self.degree
        for arg, (name, default) in _SOLVER_ARGS.items():
            value = getattr(self, arg)
            if name in cls.params:
                if arg == "max_iter" and value == -1:
                    value = cls.params[name].high       # no limit
                kw[name] = value
            elif not _same(value, default):
                raise ValueError(f"solver {cls.name!r} has no {arg} (it takes "
                                 f"{', '.join(sorted(cls.params))}); {arg} applies to SMO")
        kw.update(self._task_kwargs(cls))
        return cls, kw

    def _task_kwargs(self, cls) -> dict:
        return {}

    def _train(self, proto, X, y, w, seed, budget):
        """One training run of a fresh copy of the solver ``proto`` (built once per fit, its
        parameters validated once) to its stopping rule (or max_iter): the solver and whether
        it stopped by its rule."""
        s = proto.fresh()
        s.memory_budget = budget
        s.sample_weight = w
        s.init(X, y, seed)
        if s.stochastic:
            while s.t < s.horizon and not s.converged and s.step(s.horizon - s.t):
                pass
        else:
            s.step(s.horizon)
        for note in s.notes:
            warnings.warn(f"{s.name}: {note}", UserWarning, stacklevel=4)
        done = bool(s.converged) or s.stochastic
        model = s.support_coef()
        if s.diverged or not _finite(model or s.linear_model()):
            raise ValueError("The dual coefficients or intercepts are not finite. The input "
                             "data may contain large values and need to be preprocessed.")
        return s, done, model

    def _report(self, label, s):
        support, coef, b = s.support_coef()
        at_c = int(np.count_nonzero(np.abs(coef) >= np.asarray(getattr(s, "Cv", np.inf))
                                    [support] * (1 - 1e-12)))
        print(f"[svmcore {s.name}] {label}: optimization finished, #iter = {s.t}, "
              f"rho = {-b:.6f}, nSV = {support.size}, nBSV = {at_c}")

    def _status(self, done_all):
        self.fit_status_ = 0 if done_all else 1
        if not done_all:
            warnings.warn(f"Solver terminated early (max_iter={self.max_iter}).  Consider "
                          "pre-processing your data with StandardScaler or MinMaxScaler.",
                          ConvergenceWarning, stacklevel=3)


def _finite(model) -> bool:
    """Are the model's numbers finite (an expansion's coefficients and bias, or w and b)?"""
    if model is None:
        return True
    coef, b = (model[1], model[2]) if len(model) == 3 else model
    # a NaN or infinite coefficient makes the sum NaN or infinite: the sum decides
    return bool(np.isfinite(b) and np.isfinite(np.add.reduce(coef, axis=None)))


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return float(a) == float(b)
    return a == b


_BUDGET = [0.0, None]


def _budget():
    """The machine's available memory, read at most every half second (reading /proc/meminfo
    costs as much as a small fit's kernel rows)."""
    now = time.monotonic()
    if _BUDGET[1] is None or now - _BUDGET[0] > 0.5:
        _BUDGET[:] = [now, estimator_memory_budget()]
    return _BUDGET[1]


def _seed(random_state) -> int:
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class SVC(ClassifierMixin, _LibsvmFace):
    """C-support vector classification, as ``sklearn.svm.SVC``, trained by SMO.

    Minimises, for every pair of classes (i, j), the dual ½ αᵀQα − eᵀα subject to
    0 ≤ α_t ≤ C_t, yᵀα = 0, Q_st = y_s y_t K(x_s, x_t), with C_t = C · class_weight[y_t] ·
    sample_weight_t, to LIBSVM's stopping rule (maximal violating pair ≤ ``tol``); predicts by
    one-vs-one votes. The arguments and fitted attributes are scikit-learn's; ``solver`` names
    the algorithm ("smo", LIBSVM's; any registered classification solver whose kernels include
    the one asked for: it then refuses ``tol``, ``max_iter``, ``cache_size`` or ``shrinking``
    set away from SVC's defaults if it has no such parameter).

    Parameters
    ----------
    C : float, default=1.0
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default="rbf"
    degree : int, default=3
    gamma : {"scale", "auto"} or float, default="scale"
        "scale" = 1/(n_features · X.var()), "auto" = 1/n_features.
    coef0 : float, default=0.0
    shrinking : bool, default=True
        LIBSVM's shrinking heuristic (the stopping test is always made on every variable).
    probability : bool, default=False
        Platt scaling on 5-fold cross-validated decision values (seeded by ``random_state``).
    tol : float, default=1e-3
    cache_size : float, default=200
        Kernel-row cache in MB (never more than the n × n matrix).
    class_weight : dict, "balanced" or None
    verbose : bool, default=False
        Print LIBSVM's summary line of every binary problem.
    max_iter : int, default=-1
        SMO iterations per binary problem; −1: no limit.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
    break_ties : bool, default=False
        With "ovr" and 3+ classes, ``predict`` takes the argmax of the decision function
        (confidences break vote ties) instead of LIBSVM's first-class rule.
    random_state : int, RandomState or None
        Only the probability calibration's folds use it.
    solver : str, default="smo"

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, n_support_, intercept_, coef_ (linear kernel),
    n_iter_, class_weight_, classes_, fit_status_, shape_fit_, n_features_in_, probA_, probB_
    (probability=True): scikit-learn's shapes and layout.
    """

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1, decision_function_shape="ovr",
                 break_ties=False, random_state=None, solver="smo"):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.solver = solver

    def fit(self, X, y, sample_weight=None):
        """Train one binary SVM per pair of classes; ``sample_weight`` rescales C per row."""
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError("decision_function_shape must be 'ovr' or 'ovo', got "
                             f"{self.decision_function_shape!r}")
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        kernel = self._kernel_name()
        if callable(self.kernel):
            check_consistent_length(X, y)
            y = np.asarray(y)
        else:
            X, y = quick_Xy(self, X, y, classify=True)
        if y.dtype.kind not in "iu":
            check_classification_targets(y)
        if y.ndim != 1:
            y = np.ravel(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        k = self.classes_.shape[0]
        if k < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {k} class")
        cw = (np.ones(k) if self.class_weight is None else
              compute_class_weight(self.class_weight, classes=self.classes_, y=y))
        self.class_weight_ = cw
        n = y_idx.shape[0]
        Xs = self._train_matrix(X)
        w = check_weights(sample_weight, Xs, cw[y_idx] if self.class_weight is not None
                          else None)
        if w is not None and np.unique(y_idx[w > 0]).shape[0] < 2:
            raise ValueError("Invalid input - all samples with positive weights belong to the "
                             "same class")
        cls, kw = self._solver_setup(Xs, kernel)
        self.shape_fit_ = X.shape if hasattr(X, "shape") else (n,)
        self._fit_pairs(cls, kw, Xs, y_idx, w, k)
        return self

    def _pair_rows(self, y_idx, k):
        """(i, j, rows, labels) of every pair: class i's rows then class j's, +1 for i."""
        order = np.argsort(y_idx, kind="stable")
        bounds = np.searchsorted(y_idx[order], np.arange(k + 1))
        members = [order[bounds[c]:bounds[c + 1]] for c in range(k)]
        for i in range(k):
            for j in range(i + 1, k):
                rows = np.concatenate([members[i], members[j]])
                yy = np.ones(rows.shape[0])
                yy[members[i].shape[0]:] = -1.0
                yield i, j, rows, yy

    def _fit_pairs(self, cls, kw, Xs, y_idx, w, k):
        seed = _seed(self.random_state)
        budget = _budget()
        proto = cls(**kw)
        precomputed = self._kernel_name() == "precomputed"
        pairs, iters, done_all = [], [], True
        self.probA_, self.probB_ = [], []
        for i, j, rows, yy in self._pair_rows(y_idx, k):
            Xp = Xs[np.ix_(rows, rows)] if precomputed else Xs[rows]
            wp = None if w is None else w[rows]
            s, done, model = self._train(proto, Xp, yy, wp, seed, budget)
            done_all &= done
            if model is None:
                raise ValueError(f"solver {cls.name!r} does not train a kernel expansion "
                                 f"with kernel={kw['kernel']!r}; SVC needs one (use "
                                 "solver='smo')")
            support, coef, b = model
            pairs.append((rows[support], np.asarray(coef, dtype=np.float64), float(b)))
            iters.append(s.t)
            if self.verbose:
                self._report(f"classes ({self.classes_[i]!r}, {self.classes_[j]!r})", s)
            if self.probability:
                self._fit_platt(proto, Xp, yy, wp, seed, budget, s, precomputed)
        self._status(done_all)
        self.support_, self.dual_coef_, self.n_support_, b, self._coef = ovo_layout(
            self.classes_, y_idx, pairs)
        self._b = b
        self.n_iter_ = np.array(iters, dtype=np.int32)
        self.support_vectors_ = (np.empty((0, 0)) if precomputed
                                 else Xs[self.support_])
        if k == 2:                                  # scikit-learn's signs: + for classes_[1]
            self.dual_coef_ = -self.dual_coef_
            self.intercept_ = -b
        else:
            self.intercept_ = b
        if self.kernel == "linear":
            self.coef_ = self._linear_coef()
        self.probA_ = np.array(self.probA_)
        self.probB_ = np.array(self.probB_)

    def _linear_coef(self):
        """w of every pair (k(k−1)/2 × n_features), ordered as ``intercept_``."""
        W = np.asarray(self.support_vectors_.T @ self._coef).T
        return -W if self.classes_.shape[0] == 2 else W

    def _fit_platt(self, proto, Xp, yy, wp, seed, budget, s, precomputed):
        """Platt's (A, B) of a pair from out-of-fold decision values (5 stratified folds
        shuffled by ``random_state``), as LIBSVM's ``svm_binary_svc_probability``."""
        n_min = int(min(np.sum(yy > 0), np.sum(yy < 0)))
        folds = min(5, n_min)
        f = np.empty(yy.shape[0])
        if folds >= 2:
            cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
            for tr, te in cv.split(np.zeros(yy.shape[0]), yy):
                Xtr = Xp[np.ix_(tr, tr)] if precomputed else Xp[tr]
                Xte = Xp[np.ix_(te, tr)] if precomputed else Xp[te]
                sf, _, _ = self._train(proto, Xtr, yy[tr], None if wp is None else wp[tr],
                                       seed, budget)
                f[te] = sf.decision_function(Xte)
        else:
            f[:] = s.decision_function(Xp)
        A, B = platt_fit(f, yy, wp)
        self.probA_.append(A)
        self.probB_.append(B)

    # ------------------------------------------------------------------------- predict
    def _pairwise(self, X) -> np.ndarray:
        """LIBSVM's pairwise decision values (+ for the pair's first class), n × k(k−1)/2."""
        return pair_decisions(self._test_block(X), self._coef, self._b)

    def decision_function(self, X):
        """(n,) for two classes (positive: ``classes_[1]``); else (n, k) votes with confidences
        ("ovr") or (n, k(k−1)/2) pairwise values ("ovo")."""
        dec = self._pairwise(X)
        k = self.classes_.shape[0]
        if k == 2:
            return -dec[:, 0]
        if self.decision_function_shape == "ovr":
            return ovr_shape(dec, k)
        return dec

    def predict(self, X):
        dec = self._pairwise(X)
        k = self.classes_.shape[0]
        if self.break_ties and self.decision_function_shape == "ovr" and k > 2:
            return self.classes_[np.argmax(ovr_shape(dec, k), axis=1)]
        return self.classes_[ovo_votes(dec, k)]

    def _has_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (columns in ``classes_`` order): Platt's sigmoid per pair,
        coupled as LIBSVM couples them (Wu, Lin & Weng 2004)."""
        check_is_fitted(self, "probA_")
        dec = self._pairwise(X)
        p = platt_proba(dec, self.probA_[None, :], self.probB_[None, :])
        k = self.classes_.shape[0]
        if k == 2:
            return np.column_stack([p[:, 0], 1.0 - p[:, 0]])
        return couple_pairs(p, k)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class SVR(RegressorMixin, _LibsvmFace):
    """ε-support vector regression, as ``sklearn.svm.SVR``, trained by SMO.

    Minimises ½‖w‖² + C Σ_t w_t max(0, |y_t − f(x_t)| − ε) through its dual in (α, α*) to
    LIBSVM's stopping rule; f(x) = Σ_t (α_t − α*_t) K(x_t, x) + b. Arguments and fitted
    attributes are scikit-learn's (``dual_coef_`` = α − α* of the support vectors);
    ``solver`` names another registered regression solver.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, C, shrinking, cache_size, verbose, max_iter : as SVC.
    epsilon : float, default=0.1
        Half-width of the tube in which errors cost nothing.
    solver : str, default="smo"
    """

    _task = "regression"

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0,
                 epsilon=0.1, shrinking=True, cache_size=200, verbose=False, max_iter=-1,
                 solver="smo"):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.solver = solver

    def _task_kwargs(self, cls) -> dict:
        if "epsilon" not in cls.params:
            raise ValueError(f"solver {cls.name!r} has no epsilon; SVR needs an "
                             "ε-insensitive regression solver (e.g. 'smo')")
        kw = {"epsilon": float(self.epsilon)}
        if "loss" in cls.params:
            kw["loss"] = "epsilon_insensitive"
        return kw

    def fit(self, X, y, sample_weight=None):
        """``sample_weight`` rescales C per row (C_t = C · w_t)."""
        kernel = self._kernel_name()
        if callable(self.kernel):
            check_consistent_length(X, y)
            y = np.asarray(y, dtype=np.float64)
            if not np.all(np.isfinite(y)):
                raise ValueError("Input y contains NaN or infinity.")
        else:
            X, y = quick_Xy(self, X, y, classify=False)
        y = np.ascontiguousarray(np.ravel(y), dtype=np.float64)
        if y.shape[0] < 2:
            raise ValueError(f"SVR needs at least 2 samples, got n_samples={y.shape[0]}")
        Xs = self._train_matrix(X)
        w = check_weights(sample_weight, Xs)
        cls, kw = self._solver_setup(Xs, kernel)
        self.shape_fit_ = X.shape if hasattr(X, "shape") else (y.shape[0],)
        s, done, model = self._train(cls(**kw), Xs, y, w, 0, _budget())
        if model is None:
            raise ValueError(f"solver {cls.name!r} does not train a kernel expansion; SVR "
                             "needs one (use solver='smo')")
        support, coef, b = model
        if self.verbose:
            self._report("regression", s)
        self._status(done)
        self.support_ = np.asarray(support, dtype=np.int32)
        self.dual_coef_ = np.asarray(coef, dtype=np.float64)[None, :]
        self.intercept_ = np.array([float(b)])
        self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        self.n_iter_ = int(s.t)
        self.support_vectors_ = (np.empty((0, 0)) if kernel == "precomputed"
                                 else Xs[self.support_])
        self._coef = self.dual_coef_.T.copy()
        self._b = self.intercept_
        if self.kernel == "linear":
            self.coef_ = np.asarray(self.dual_coef_ @ self.support_vectors_).reshape(1, -1)
        return self

    def predict(self, X):
        return pair_decisions(self._test_block(X), self._coef, self._b)[:, 0]
