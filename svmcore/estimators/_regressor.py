"""``SVMRegressor``: ε-insensitive support vector regression by a registered svmcore solver."""
from __future__ import annotations

import numpy as np
from sklearn.base import RegressorMixin

from ._base import PARAMS_DOC, SVMBase, check_weights, init_params, validate_fit_input


class SVMRegressor(RegressorMixin, SVMBase):
    __doc__ = ("""Support vector regression (ε-insensitive loss) by a registered svmcore solver.

    Defaults: solver="asset", kernel="rbf", averaging=0.5. ``epsilon`` (default 0.1) is the
    width of the insensitive tube; the solver runs with loss="epsilon_insensitive".
""" + PARAMS_DOC)

    _task = "regression"
    _feature_coef = True

    def __init__(self, solver="asset", kernel="rbf", C=1.0, gamma="scale", degree=3,
                 coef0=0.0, epsilon=0.1, epochs=None, batch_size=None, schedule=None,
                 eta0=None, fit_intercept=True, averaging=0.5, approx=None, n_components=None,
                 variant=None, random_state=None, solver_params=None, trace=False):
        init_params(self, locals())

    def _task_kwargs(self) -> dict:
        if (self.solver_params or {}).get("loss", "epsilon_insensitive") != "epsilon_insensitive":
            raise ValueError("SVMRegressor trains the epsilon_insensitive loss; use "
                             "SVMClassifier for the hinge loss")
        return {"loss": "epsilon_insensitive", "epsilon": self.epsilon}

    def fit(self, X, y, sample_weight=None):
        """``sample_weight``: example i's C becomes C·w_i (SVR's meaning)."""
        X, y = validate_fit_input(self, X, y, y_numeric=True)
        if X.shape[0] < 2:
            raise ValueError(f"SVMRegressor needs at least 2 samples, got n_samples={X.shape[0]}")
        w = check_weights(sample_weight, X)
        return self._fit_runs(X, [np.asarray(y, dtype=np.float64)], weights=w)

    def predict(self, X):
        return self._scores(X)
