"""scikit-learn estimators over the solver registry.

``SVMClassifier(solver="pegasos", ...)`` behaves like scikit-learn's SVC / LinearSVC: any two
labels, ``C`` with SVC's meaning (solvers in the λ-form use λ = 1/(C·n), so both have the same
minimiser), ``decision_function``, ``predict``, ``score``. Three or more classes are fitted
one-vs-rest (one binary solver per class, as LinearSVC does).

Fitted attributes: ``classes_``, ``n_features_in_``, ``solver_`` (the trained solver, binary) or
``solvers_`` (one per class), ``history_`` (the training trace as a list of dicts), ``n_iter_``;
linear primal solvers add ``coef_`` and ``intercept_``; kernel solvers ``support_``,
``support_vectors_``, ``dual_coef_`` (y_i·β_i of the support vectors) and ``intercept_``.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .run import TrainingRun
from .solvers import get_solver

# Estimator parameters passed on to the solver when it declares them. ``None`` (where it is the
# default) means "the solver's own default": a NORMA run keeps the paper's C√(2/t) schedule and a
# Pegasos run its 1/(λt), unless the user asks otherwise.
_SHARED = {
    "kernel": "linear", "C": 1.0, "gamma": "scale", "degree": 3, "coef0": 0.0,
    "epochs": None, "batch_size": None, "schedule": None, "eta0": None,
    "fit_intercept": True, "averaging": "auto",
    "approx": None, "n_components": None, "variant": None,
}
# Solver-family options a solver without them simply ignores (scikit-learn's own checks set
# n_components on any estimator that has it, whatever the solver).
_FAMILY_ONLY = ("approx", "n_components", "variant")
_SOLVER_DEFAULT = {"epochs": None, "batch_size": None, "schedule": None, "eta0": None,
                   "averaging": "auto", "approx": None, "n_components": None, "variant": None}


def shared_solver_kwargs(est, cls, X, shared: dict, solver_default=None,
                         family_only=()) -> dict:
    """The estimator parameters in ``shared`` that the solver class declares, gamma resolved
    against X. A value equal to ``solver_default[name]`` is left out (the solver's own default
    applies); a non-default value for a parameter the solver lacks is an error, except for the
    ``family_only`` options."""
    solver_default = solver_default or {}
    kw = {}
    for name, default in shared.items():
        value = getattr(est, name)
        if name in solver_default and _same(value, solver_default[name]):
            continue
        if name in cls.params:
            if name == "gamma":
                try:
                    value = resolve_gamma(value, X)
                except ValueError:
                    if est.kernel != "linear" or not isinstance(value, str):
                        raise
                    continue             # a linear kernel never uses gamma
            kw[name] = value
        elif name not in family_only and not _same(value, default):
            raise ValueError(f"solver {est.solver!r} has no parameter {name!r} "
                             f"(it takes {sorted(cls.params)})")
    return kw


def resolve_gamma(gamma, X) -> float:
    """scikit-learn's meaning: "scale" = 1/(d·Var(X)), "auto" = 1/d, or a positive number."""
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "auto":
            return 1.0 / d
        if gamma == "scale":
            with np.errstate(over="ignore", invalid="ignore"):
                if sp.issparse(X):
                    var = X.multiply(X).mean() - X.mean() ** 2
                else:
                    var = X.var()
                g = 1.0 / (d * var) if var > 0 else 1.0
            if not (math.isfinite(var) and math.isfinite(g) and g > 0):
                raise ValueError(f"gamma='scale' = 1/(n_features·Var(X)) is not a usable number "
                                 f"for these data (Var(X) = {float(var):g}): scale the features "
                                 "(e.g. StandardScaler) or give gamma as a number > 0")
            return float(g)
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not gamma > 0:
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
    return float(gamma)


class SVMClassifier(ClassifierMixin, BaseEstimator):
    """A binary (or one-vs-rest) SVM trained by any registered svmcore solver.

    Parameters
    ----------
    solver : str, default="pegasos"
        A name from ``svmcore.list_solvers()``.
    kernel : {"linear", "rbf", "poly"}, default="linear"
    C : float, default=1.0
        As in SVC: weight of the summed hinge losses against ½‖w‖². λ-form solvers (Pegasos)
        run with λ = 1/(C·n).
    gamma : "scale", "auto" or float, default="scale"
        Kernel width, with scikit-learn's meaning of "scale" and "auto".
    degree, coef0 : polynomial kernel (γ⟨x, z⟩ + coef0)^degree.
    epochs : float or None, default=None
        Passes over the data for stochastic solvers (iterations = epochs·n / batch_size);
        None takes the solver's default (Pegasos 10, the online kernel solvers 1).
    batch_size : int or None, default=None
        Mini-batch size k (None: the solver's default, 1).
    schedule : str or None, default=None
        Step-size schedule (see ``svmcore.schedules``); None takes the solver's own (Pegasos
        1/(λt), NORMA / Pegaz / OL SVM C√(2/t)). ``eta0`` is its η0 where it has one.
    fit_intercept : bool, default=True
        Learn an unregularised bias b.
    averaging : "auto", None, float in (0, 1] or int, default="auto"
        Iterate averaging: None = last iterate, a float ρ = the final ρ fraction of the planned
        iterations, an int N = the final N; "auto" keeps the solver's own default (Pegasos: last
        iterate; ASSET: the last 100, as in its paper).
    approx : {"nystroem", "rff"} or None, default=None
        ASSET's kernel approximation (None: the solver's default, Nyström).
    n_components : int or None, default=None
        ASSET's number of landmarks / random features s.
    variant : str or None, default=None
        Solver variant: ASSET "asset" | "star" (ASSET*), OL SVM "hinge" | "regularized".
        ``approx``, ``n_components`` and ``variant`` are ignored by solvers that do not have them;
        every other parameter set for a solver that lacks it is an error.
    random_state : int, RandomState or None
        Seeds the sample order; the same seed gives bit-identical models.
    solver_params : dict or None
        Further parameters of the chosen solver (see its ``params``).
    """

    def __init__(self, solver="pegasos", kernel="linear", C=1.0, gamma="scale", degree=3,
                 coef0=0.0, epochs=None, batch_size=None, schedule=None, eta0=None,
                 fit_intercept=True, averaging="auto", approx=None, n_components=None,
                 variant=None, random_state=None, solver_params=None):
        self.solver = solver
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epochs = epochs
        self.batch_size = batch_size
        self.schedule = schedule
        self.eta0 = eta0
        self.fit_intercept = fit_intercept
        self.averaging = averaging
        self.approx = approx
        self.n_components = n_components
        self.variant = variant
        self.random_state = random_state
        self.solver_params = solver_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------------------ fit
    def _solver_kwargs(self, X) -> dict:
        cls = get_solver(self.solver)
        kw = shared_solver_kwargs(self, cls, X, _SHARED, _SOLVER_DEFAULT, _FAMILY_ONLY)
        if "c_scale" in cls.params:
            kw["c_scale"] = "svc"        # C keeps SVC's meaning (NORMA / Pegaz scale it by n)
        kw.update(self.solver_params or {})
        if "batch_size" in kw and isinstance(kw["batch_size"], numbers.Integral):
            if not 1 <= kw["batch_size"] <= X.shape[0]:
                raise ValueError(f"batch_size must be in [1, n_samples={X.shape[0]}], "
                                 f"got {kw['batch_size']}")
        return kw

    def fit(self, X, y):
        X, y = _validate(self, X, y)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            only = self.classes_[0]
            only = only.item() if isinstance(only, np.generic) else only
            raise ValueError("SVMClassifier needs samples of at least two classes; "
                             f"the data contain only one class: {only!r}")
        kw = self._solver_kwargs(X)
        cls = get_solver(self.solver)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        targets = ([self.classes_[1]] if self.classes_.shape[0] == 2 else list(self.classes_))
        self.solvers_, histories = [], []
        for c in targets:
            yy = np.where(y == c, 1.0, -1.0)
            run = TrainingRun(cls(**kw), X, yy, seed=seed, per_decade=5).run()
            # diverged, or a last snapshot that was not finite (the run keeps only finite rows)
            if run.status == "diverged" or not run.trace or run.trace[-1].iteration != run.t:
                why = (run.message or "the model became NaN or infinite").rstrip(".")
                raise ValueError(f"training diverged: {why}. If the features are large, scale "
                                 "them (e.g. StandardScaler).")
            self.solvers_.append(run.solver)
            histories.append(run.trace_dicts())
        self.history_ = histories[0] if len(histories) == 1 else histories
        self.n_iter_ = max(s.t for s in self.solvers_)
        self._export_model()
        return self

    def _export_model(self):
        s0 = self.solvers_[0]
        if len(self.solvers_) == 1:
            self.solver_ = s0
        self.intercept_ = np.array([s.intercept_ for s in self.solvers_])
        if s0.linear_model() is not None:
            # a linear model in the input space (random-feature models have no input-space w)
            self.coef_ = np.vstack([s.linear_model()[0] for s in self.solvers_])
        elif len(self.solvers_) == 1 and s0.support_coef() is not None:
            support, coef, _ = s0.support_coef()
            self.support_ = support.astype(np.int32)
            self.dual_coef_ = coef[None, :]
            self.support_vectors_ = s0.X.take(support).to_scipy()

    # ------------------------------------------------------------------------------ predict
    def decision_function(self, X):
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        scores = np.column_stack([s.decision_function(X) for s in self.solvers_])
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


_NO_Y = object()


def _validate(est, X, y=_NO_Y, reset=True):
    """scikit-learn's validate_data, with plain words for two mistakes its messages leave
    cryptic: rows of different lengths and text where numbers belong."""
    if isinstance(X, (list, tuple)) and X and all(isinstance(r, (list, tuple, np.ndarray))
                                                  for r in X):
        lens = [len(r) for r in X]
        bad = next((i for i, m in enumerate(lens) if m != lens[0]), None)
        if bad is not None:
            raise ValueError(f"X has rows of different lengths (ragged rows): row 0 has "
                             f"{lens[0]} values, row {bad} has {lens[bad]}; every row needs the "
                             "same number of features")
    kw = dict(accept_sparse="csr", dtype=np.float64)
    try:
        if y is _NO_Y:
            return validate_data(est, X, reset=reset, **kw)
        return validate_data(est, X, y, reset=reset, **kw)
    except ValueError as exc:
        if "could not convert" in str(exc):
            raise ValueError(f"X must be numeric ({exc}); encode text features as numbers "
                             "first") from exc
        raise


def _same(a, b) -> bool:
    """Is an estimator parameter still at its default (numbers compare by value)?"""
    if a is None or b is None or isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        return a is b or (type(a) is type(b) and a == b)
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return float(a) == float(b)
    return False
