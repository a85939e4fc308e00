"""What the general estimators ``SVMClassifier`` (:mod:`._classifier`) and ``SVMRegressor``
(:mod:`._regressor`) share.

Both are thin subclasses of one base (:class:`SVMBase`) and take the same top-level parameters
(``solver``, ``kernel``, ``C``, ``gamma``, ``epochs``, ``averaging``, ``approx``,
``n_components``, ``variant``, ``solver_params``, ``trace``, …); the regressor adds ``epsilon``.

``SVMClassifier(solver="pegasos", ...)`` behaves like scikit-learn's SVC / LinearSVC: any two
labels, ``C`` with SVC's meaning (solvers in the λ-form use λ = 1/(C·n), so both have the same
minimiser), ``decision_function``, ``predict``, ``score``. Three or more classes are fitted
one-vs-rest (one binary solver per class, as LinearSVC does).

``SVMRegressor(solver="asset", ...)`` behaves like scikit-learn's SVR: the ε-insensitive loss,
``C`` with SVR's meaning, ``epsilon``, ``predict``, ``score`` (R²). It accepts the registered
solvers whose ``tasks`` contain "regression" (today: ``"asset"``; its ``variant="star"`` is the
Pegasos-style SGD, η_j = 1/(λj), no bias, last iterate).

Fitted attributes: ``classes_`` (classifier), ``n_features_in_``, ``solver_`` (the trained
solver, binary or regression) and ``solvers_`` (one per binary problem), ``history_`` (the
training trace as a list of dicts with ``trace=True``, else None), ``n_iter_``, ``intercept_``;
``coef_`` whenever the model is linear in the inputs (a primal w, or a linear kernel's
expansion summed into w); kernel expansions ``support_``, ``support_vectors_``, ``dual_coef_``
and ``n_support_`` (one-vs-one in SVC's layout, one-vs-rest one row per class); the regressor
on random Fourier features ``coef_`` (weights on the features). ``svmcore.SVC`` / ``SVR`` /
``LinearSVC`` (``_svc``, ``_linear``) are scikit-learn's names and defaults over SMO and dual
coordinate descent.

Speed: ``fit`` runs the solver's compiled steps and nothing else unless ``trace=True`` (no
snapshot, no evaluation on the training set); ``python -m svmcore.bench estimators`` measures
the time ratio to the bare solver. Warnings: a solver that stops at ``max_iter`` before its
stopping rule, or whose stopping test cannot be trusted, raises scikit-learn's
``ConvergenceWarning``; a parameter the solver had to adjust (e.g. more Nyström landmarks than
rows) a ``UserWarning``. A run that would not fit in the memory available is refused before it
allocates (:class:`svmcore.solvers.base.MemoryBudgetError`, a ``MemoryError`` and a
``ValueError``), saying what would fit.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..runs.run import TrainingRun, eval_rows
from ..solvers import REGISTRY, get_solver
from ..solvers.base import estimator_memory_budget
from ..solvers.params import resolve_gamma

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
# averaging="auto" where the estimator's default differs from the solver's (which is the
# paper's): SFW's and MSFW's last iterate collapses on some seeds (see SVMBase's docstring)
_ROBUST_AVERAGING = {"sfw": 0.5, "msfw": 0.5}


def mean_kernel_diagonal(X, kernel: str, gamma: float, coef0: float, degree: float) -> float:
    """The mean of k(x_i, x_i) over the rows of X: R² of the feature space, the scale of a
    stochastic step's move (‖φ(x)‖² = k(x, x))."""
    if kernel == "rbf":
        return 1.0
    sq = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
          else np.einsum("ij,ij->i", X, X))
    if kernel == "poly":
        sq = (gamma * sq + coef0) ** degree
    return float(np.mean(sq)) if sq.size else 1.0


def averaged_sgd(X, kw: dict) -> dict:
    """The estimator's Pegasos: averaged SGD on Pegasos's objective (Polyak–Ruppert averaging
    of every iterate, with Bottou's η_t = η0/(1 + η0 λ t), η0 = 1/mean k(x_i, x_i)).

    Pegasos's own 1/(λt) takes steps of 1/λ = C·n at the start; at small λ the last iterate
    and even a suffix average of it stay far from the optimum (a9a, C = 1, 10 epochs: 33–62 %
    and 12 % above LinearSVC's objective). 1/(λ(t + t0)) with t0 = 1/(λ η0) has the same
    tail and a first step that moves a margin by about 1; averaging its iterates (Polyak &
    Juditsky 1992; Xu 2011, "averaged SGD") brings the same 10 epochs within 3 % (a9a
    2.7–3 %, ijcnn1 1.6 %, w8a 2.2 %, covtype 1.2 %; docs/estimators.md). Averaging every
    iterate needs no horizon, so ``partial_fit`` continues the same average. A given ``eta0``
    is kept (``partial_fit`` otherwise takes η0 from its first chunk)."""
    if kw.get("eta0") is not None:
        return dict(kw, averaging=1.0, schedule="invscaling")
    r2 = mean_kernel_diagonal(X, kw.get("kernel", "linear"), kw.get("gamma", 1.0),
                              kw.get("coef0", 0.0), kw.get("degree", 3))
    if not (math.isfinite(r2) and r2 > 1e-12):   # overflowing features: the paper's run says so
        return kw
    return dict(kw, averaging=1.0, schedule="invscaling", eta0=1.0 / r2)


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
            if name == "gamma" and est.kernel == "linear" and isinstance(value, str):
                continue                 # a linear kernel never uses gamma: no pass over X
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


PARAMS_DOC = """
    Parameters
    ----------
    solver : str
        A name from ``svmcore.list_solvers()`` (the regressor: one whose ``tasks`` contain
        "regression").
    kernel : {"linear", "rbf", "poly"}
    C : float, default=1.0
        As in SVC / SVR: weight of the summed losses against ½‖w‖². λ-form solvers (Pegasos,
        ASSET) run with λ = 1/(C·n).
    gamma : "scale", "auto" or float, default="scale"
        Kernel width, with scikit-learn's meaning of "scale" and "auto".
    degree, coef0 : polynomial kernel (γ⟨x, z⟩ + coef0)^degree.
    epochs : float or None, default=None
        Passes over the data for stochastic solvers (iterations = epochs·n / batch_size);
        None takes the solver's default (Pegasos and ASSET 10, SFW/MSFW 2, the online kernel
        solvers 1).
    batch_size : int or None, default=None
        Mini-batch size k (None: the solver's default, 1).
    schedule : str or None, default=None
        Step-size schedule (see ``svmcore.solvers.step_sizes``); None takes the solver's own (Pegasos
        1/(λt), NORMA / Pegaz / OL SVM C√(2/t)). ``eta0`` is its η0 where it has one.
    fit_intercept : bool, default=True
        Learn a bias b.
    averaging : "auto", None, float in (0, 1] or int
        Which iterate the model is. None = the last iterate; a float ρ = the mean of the final ρ
        fraction of the planned iterations; an int N = the mean of the final N. "auto" (the
        classifier's default) is the solver's own default — the paper's output: NORMA, Pegaz,
        OL SVM the last iterate, ASSET the mean of the last 100 — except for two. Pegasos,
        with ``schedule`` left at None, is averaged SGD on its objective: the mean of every
        iterate, with η_t = η0/(1 + η0 λ t) and η0 = 1/mean k(x_i, x_i) unless given (after
        10 epochs on a9a at C = 1, 3 % above LinearSVC's objective where the paper's last
        iterate is 33–62 % above; see :func:`averaged_sgd`); ``averaging=None`` gives the
        paper's algorithm, 1/(λt) and the last iterate. SFW and MSFW: 0.5 (the mean of the
        second half of the iterates) rather than the paper's last iterate: the last iterate
        collapses on one seed in five on w3a (62 % test
        accuracy, MSFW 48 %, against 98 % for the other seeds) and reaches 79.9 % median on a9a
        after one epoch, where the mean of the second half gives 85.0-85.1 % and no collapse
        (``python -m svmcore.bench frank-wolfe``; docs/notes/reliability.md). ``averaging=None``
        keeps the last iterate. The regressor's default is 0.5 (Theorem 1's ρ = 1/2).
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
    trace : bool, default=False
        Record the training trace in ``history_``: at log-spaced iterations (5 per decade) the
        objective and the training error (RMSE for the regressor), with the data term evaluated
        on a fixed random subsample of at most 1,000 training rows (about horizon/40 for short
        stochastic runs, at least 250), and ‖w‖² of a kernel expansion with more support vectors
        than that estimated on as many of them, so that it costs about 10 % of the fit rather
        than a pass over the data per row. Off: no trace, ``history_`` is None.
"""


class SVMBase(BaseEstimator):
    """What the classifier and the regressor share: parameters, solver arguments, training
    runs, warnings and the exported model. Subclasses set ``_task`` and the target handling."""

    _task = "classification"
    #: export ``coef_`` for models on random features (weights on the features)
    _feature_coef = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------------------ solver
    def _solver_class(self):
        cls = get_solver(self.solver)
        if self._task not in cls.tasks:
            able = [name for name, c in REGISTRY.items() if self._task in c.tasks]
            raise ValueError(f"solver {self.solver!r} does not support {self._task}; solvers "
                             f"that do: {', '.join(able)}")
        return cls

    def _task_kwargs(self) -> dict:
        return {}

    def _solver_kwargs(self, cls, X) -> dict:
        kw = shared_solver_kwargs(self, cls, X, _SHARED, _SOLVER_DEFAULT, _FAMILY_ONLY)
        auto = isinstance(self.averaging, str) and self.averaging == "auto"
        if auto and "averaging" in cls.params and cls.name in _ROBUST_AVERAGING:
            kw["averaging"] = _ROBUST_AVERAGING[cls.name]
        if (auto and cls.name == "pegasos" and self.schedule is None
                and self._task == "classification"):
            kw = averaged_sgd(X, kw)
        if "c_scale" in cls.params:
            kw["c_scale"] = "svc"        # C keeps SVC's meaning (NORMA / Pegaz scale it by n)
        kw.update(self._task_kwargs())
        kw.update(self.solver_params or {})
        if "batch_size" in kw and isinstance(kw["batch_size"], numbers.Integral):
            if not 1 <= kw["batch_size"] <= X.shape[0]:
                raise ValueError(f"batch_size must be in [1, n_samples={X.shape[0]}], "
                                 f"got {kw['batch_size']}")
        return kw

    def _train(self, cls, kw, X, y, seed, w=None):
        """One training run to its end; returns the solver. Divergence is an error; a run
        that stopped short of its stopping rule, or whose stopping test cannot be trusted, a
        ConvergenceWarning; an adjusted parameter a UserWarning. ``w``: per-example weights
        (example i's C becomes C·w_i); a solver that cannot honour them refuses."""
        solver = cls(**kw)
        solver.memory_budget = estimator_memory_budget()
        solver.sample_weight = w
        run = TrainingRun(solver, X, y, seed=seed, per_decade=5,
                          trace="light" if self.trace else None).run()
        if run.status == "diverged" or (self.trace and (not run.trace
                                                         or run.trace[-1].iteration != run.t)):
            _diverged(run.message or "the model became NaN or infinite")
        # a model whose numbers overflowed (no snapshot has looked at it without a trace):
        # its coefficients, and its decision values on a few training rows (cheap: 32 rows)
        coef = solver.support_coef() or solver.linear_model()
        with np.errstate(all="ignore"):
            f = solver.decision_function(X[eval_rows(solver.n, seed, 32)])
            finite = np.all(np.isfinite(f)) and (coef is None or all(
                np.all(np.isfinite(np.asarray(c, dtype=float))) for c in coef))
        if not finite:
            _diverged(f"{solver.name} diverged at iteration {solver.t}: the decision values "
                      f"became NaN or infinite")
        if run.status == "not trusted" or (run.status == "finished" and not cls.stochastic):
            warnings.warn(run.message, ConvergenceWarning, stacklevel=3)
        for note in solver.notes:
            warnings.warn(f"{solver.name}: {note}", UserWarning, stacklevel=3)
        return solver, (run.trace_dicts() if self.trace else None)

    def _fit_runs(self, X, targets, weights=None):
        """Train one solver per target vector; sets solvers_, history_, n_iter_ and the model.
        A target is a vector over X's rows, or (rows, vector) for a problem on a subset of
        them (one-vs-one); ``weights`` are the per-row weights (None: unweighted)."""
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        self._seed = seed
        self.solvers_, histories = [], []
        for yy in targets:
            rows, yy = yy if isinstance(yy, tuple) else (None, yy)
            XX = X if rows is None else X[rows]
            w = None if weights is None else (weights if rows is None else weights[rows])
            solver, history = self._train(cls, kw, XX, yy, seed, w)
            self.solvers_.append(solver)
            histories.append(history)
        self.history_ = histories[0] if len(histories) == 1 else histories
        self.n_iter_ = max(s.t for s in self.solvers_)
        self._export_model()
        return self

    def _export_model(self):
        """scikit-learn's attributes of the trained solvers: ``coef_`` whenever the model is
        linear in the inputs (a primal w, or a linear kernel's expansion summed into w);
        ``support_``, ``support_vectors_``, ``dual_coef_`` and ``n_support_`` of kernel
        expansions — binary, one-vs-one (SVC's layout) or one-vs-rest (one row of
        ``dual_coef_`` per class); a regressor's or a feature model's ``coef_``."""
        s0 = self.solvers_[0]
        if len(self.solvers_) == 1:
            self.solver_ = s0
        self.intercept_ = np.array([s.intercept_ for s in self.solvers_])
        if s0.linear_model() is not None:
            # a linear model in the input space (random-feature models have no input-space w)
            self.coef_ = np.vstack([s.linear_model()[0] for s in self.solvers_])
            return
        models = [s.support_coef() for s in self.solvers_]
        if all(m is not None for m in models):
            self._export_expansions(models)
        elif self._feature_coef and hasattr(s0, "coef_"):
            self.coef_ = np.vstack([np.asarray(s.coef_) for s in self.solvers_])

    def _export_expansions(self, models):
        s0 = self.solvers_[0]
        if s0.name == "asset":
            # the expansion is over the Nyström landmarks, rows of the first call's data
            # (partial_fit: the first chunk), which the feature map keeps
            support, coef, _ = models[0]
            self.support_ = np.asarray(support, dtype=np.int32)
            self.support_vectors_ = s0.fmap.landmarks_
            self.dual_coef_ = np.vstack([np.asarray(m[1]) for m in models])
            self._n_support_of(None)
            if getattr(self, "kernel", None) == "linear":
                self.coef_ = np.asarray(self.dual_coef_ @ self.support_vectors_)
            return
        linear = getattr(self, "kernel", None) == "linear"
        if len(self.solvers_) == 1:
            support, coef, _ = models[0]
            self.support_ = np.asarray(support, dtype=np.int32)
            self.dual_coef_ = np.asarray(coef)[None, :]
            self.support_vectors_ = s0.X.take(support).to_scipy()
            self._n_support_of(s0.y[support] if self._task == "classification" else None)
        else:
            y_idx, rows = getattr(self, "_y_idx", None), getattr(self, "_rows_of", None)
            if y_idx is None or rows is None:
                return
            if self.multi_class == "ovo":
                from ._model import ovo_layout
                pairs = [(r[m[0]], np.asarray(m[1], dtype=np.float64), m[2])
                         for r, m in zip(rows, models)]
                self.support_, self.dual_coef_, self.n_support_, _, _ = ovo_layout(
                    self.classes_, y_idx, pairs)
            else:                         # one row of coefficients per class
                used = np.zeros(y_idx.shape[0], dtype=bool)
                for m in models:
                    used[m[0]] = True
                k = self.classes_.shape[0]
                support = np.concatenate([np.flatnonzero(used & (y_idx == c)) for c in range(k)])
                col = np.full(y_idx.shape[0], -1, dtype=np.int64)
                col[support] = np.arange(support.shape[0])
                dual = np.zeros((k, support.shape[0]))
                for c, m in enumerate(models):
                    dual[c, col[m[0]]] = m[1]
                self.support_ = support.astype(np.int32)
                self.dual_coef_ = dual
                self.n_support_ = np.array([np.count_nonzero(used & (y_idx == c))
                                            for c in range(k)], dtype=np.int32)
            self.support_vectors_ = self._X_fit_rows(self.support_)
        if linear:                        # w = Σ coef_s x_s of every problem, on its rows
            self.coef_ = np.vstack([np.asarray(m[1] @ s.X.take(m[0]).to_scipy()).ravel()
                                    for s, m in zip(self.solvers_, models)])

    def _n_support_of(self, labels):
        """``n_support_``: per class (classifier, from the support vectors' ±1 labels), or
        the one count (regressor, and landmarks shared by every class)."""
        if labels is None or self._task != "classification":
            self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        else:
            self.n_support_ = np.array([np.count_nonzero(labels < 0),
                                        np.count_nonzero(labels > 0)], dtype=np.int32)

    def _X_fit_rows(self, idx):
        """Rows ``idx`` of the training matrix (kept by the first problem's solver when it
        saw every row: one-vs-rest), else gathered from the pair problems' solvers."""
        s0 = self.solvers_[0]
        if s0.n == self._y_idx.shape[0]:
            return s0.X.take(idx).to_scipy()
        out = None
        for s, r in zip(self.solvers_, self._rows_of):
            pos = np.searchsorted(r, idx)
            hit = (pos < r.shape[0]) & (r[np.minimum(pos, r.shape[0] - 1)] == idx)
            if out is None:
                part = s.X.take(pos[hit]).to_scipy()
                out = np.zeros((idx.shape[0], part.shape[1]))
            if hit.any():
                part = s.X.take(pos[hit]).to_scipy()
                out[hit] = part.toarray() if sp.issparse(part) else part
        return out

    def _scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_fit_input(self, X, reset=False)
        scores = np.column_stack([s.decision_function(X) for s in self.solvers_])
        return scores[:, 0] if scores.shape[1] == 1 else scores


def init_params(est, params: dict) -> None:
    """Store the __init__ arguments as they are (scikit-learn's convention)."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)


def _diverged(why: str):
    raise ValueError(f"training diverged: {why.rstrip('.')}. If the features are large, scale "
                     "them (e.g. StandardScaler).")


_NO_Y = object()


def validate_fit_input(est, X, y=_NO_Y, reset=True, **extra):
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
    kw = dict(accept_sparse="csr", dtype=np.float64, **extra)
    try:
        if y is _NO_Y:
            return validate_data(est, X, reset=reset, **kw)
        return validate_data(est, X, y, reset=reset, **kw)
    except ValueError as exc:
        if "could not convert" in str(exc):
            raise ValueError(f"X must be numeric ({exc}); encode text features as numbers "
                             "first") from exc
        raise


def check_weights(sample_weight, X, class_w=None):
    """The per-row weights: ``sample_weight`` (None: 1) times ``class_w`` (None: 1), as float64,
    or None when every product is 1 (the unweighted run, bit for bit)."""
    n = X.shape[0]
    if sample_weight is None:
        w = np.ones(n)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 0:
            w = np.full(n, float(w))
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(f"sample_weight.shape == {w.shape}, expected ({n},)")
        if not np.all(np.isfinite(w)):
            raise ValueError("sample_weight contains NaN or infinity")
        if np.any(w < 0):
            raise ValueError("sample_weight must be non-negative")
        if not w.sum() > 0:
            raise ValueError("sample_weight must not be all zero")
        w = w.copy()
    if class_w is not None:
        w = w * class_w
    return None if np.all(w == 1.0) else w


def _same(a, b) -> bool:
    """Is an estimator parameter still at its default (numbers compare by value)?"""
    if a is None or b is None or isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        return a is b or (type(a) is type(b) and a == b)
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return float(a) == float(b)
    return False
