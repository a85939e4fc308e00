"""scikit-learn regressor over the solver registry: ``SVMRegressor``.

``SVMRegressor(solver="asset", ...)`` behaves like scikit-learn's SVR: the ε-insensitive loss,
``C`` with SVR's meaning (λ-form solvers use λ = 1/(C·n), so both have the same minimiser),
``epsilon``, ``predict``, ``score`` (R²). Any registered solver that declares a ``loss``
parameter with the choice ``"epsilon_insensitive"`` can be used (today: ``"asset"``; its
``variant="star"`` is the Pegasos-style SGD, η_j = 1/(λj), no bias, last iterate).

Fitted attributes: ``n_features_in_``, ``solver_`` (the trained solver), ``history_`` (the
training trace as a list of dicts; its ``train_error`` column is the training RMSE),
``n_iter_``, ``intercept_``; solvers with a kernel expansion (ASSET with Nyström features) add
``support_``, ``support_vectors_`` and ``dual_coef_`` (the landmarks and their α, so that
predict(X) = K(X, support_vectors_) dual_coef_ᵀ + intercept_); feature-space solvers (ASSET
with random Fourier features) add ``coef_`` (weights on the random features).
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .estimators import shared_solver_kwargs
from .run import TrainingRun
from .solvers import get_solver

# estimator parameter -> default; passed on to the solver when it declares the parameter
_SHARED = {
    "kernel": "rbf", "C": 1.0, "gamma": "scale", "degree": 3, "coef0": 0.0, "epsilon": 0.1,
    "epochs": 10.0, "fit_intercept": True, "averaging": 0.5,
}


class SVMRegressor(RegressorMixin, BaseEstimator):
    """Support vector regression (ε-insensitive loss) trained by a registered svmcore solver.

    Parameters
    ----------
    solver : str, default="asset"
        A registered solver supporting ``loss="epsilon_insensitive"``.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    C : float, default=1.0
        As in SVR: weight of the summed ε-insensitive losses against ½‖w‖²; λ = 1/(C·n).
    gamma : "scale", "auto" or float, default="scale"
    degree, coef0 : polynomial kernel (γ⟨x, z⟩ + coef0)^degree.
    epsilon : float, default=0.1
        Width of the insensitive tube.
    epochs : float, default=10
        Passes over the data (iterations = epochs·n).
    fit_intercept : bool, default=True
    averaging : None, float in (0, 1] or int, default=0.5
        Iterate averaging (ASSET: step-length weighted, from N̄ on). 0.5 = the final half of the
        iterates, the Theorem 1 setting ρ = 1/2; the paper's experiments average the last 100.
    random_state : int, RandomState or None
    solver_params : dict or None
        Further solver parameters (ASSET: approx, n_components, variant, ...).
    """

    def __init__(self, solver="asset", kernel="rbf", C=1.0, gamma="scale", degree=3, coef0=0.0,
                 epsilon=0.1, epochs=10.0, fit_intercept=True, averaging=0.5, random_state=None,
                 solver_params=None):
        self.solver = solver
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.epochs = epochs
        self.fit_intercept = fit_intercept
        self.averaging = averaging
        self.random_state = random_state
        self.solver_params = solver_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _solver_kwargs(self, X) -> dict:
        cls = get_solver(self.solver)
        spec = cls.params.get("loss")
        if spec is None or "epsilon_insensitive" not in spec.choices:
            raise ValueError(f"solver {self.solver!r} does not support regression (it has no "
                             f"loss='epsilon_insensitive')")
        kw = {"loss": "epsilon_insensitive", **shared_solver_kwargs(self, cls, X, _SHARED)}
        extra = dict(self.solver_params or {})
        if extra.get("loss", "epsilon_insensitive") != "epsilon_insensitive":
            raise ValueError("SVMRegressor trains the epsilon_insensitive loss; use "
                             "SVMClassifier for the hinge loss")
        kw.update(extra)
        return kw

    def fit(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=True)
        if X.shape[0] < 2:
            raise ValueError(f"SVMRegressor needs at least 2 samples, got n_samples={X.shape[0]}")
        if isinstance(self.epsilon, bool) or not isinstance(self.epsilon, numbers.Real):
            raise ValueError(f"epsilon must be a number ≥ 0, got {self.epsilon!r}")
        kw = self._solver_kwargs(X)
        cls = get_solver(self.solver)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        run = TrainingRun(cls(**kw), X, np.asarray(y, dtype=np.float64), seed=seed,
                          per_decade=5).run()
        if run.solver.diverged:
            raise ValueError(f"training diverged: {run.message}")
        s = run.solver
        self.solver_ = s
        self.history_ = run.trace_dicts()
        self.n_iter_ = s.t
        self.intercept_ = np.array([s.intercept_])
        if s.support_coef() is not None:
            support, coef, _ = s.support_coef()
            self.support_ = support.astype(np.int32)
            self.dual_coef_ = np.asarray(coef)[None, :]
            self.support_vectors_ = s.X.take(support).to_scipy()
        else:
            self.coef_ = np.asarray(s.coef_)[None, :]
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self.solver_.decision_function(X)
