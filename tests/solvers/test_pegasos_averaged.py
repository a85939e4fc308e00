"""The estimator's Pegasos is averaged SGD on Pegasos's objective: on a fixed seed its model's
objective is below the paper's last iterate's and close to LinearSVC's optimum, and
``averaging=None`` still gives the paper's algorithm."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from svmcore.estimators import SVMClassifier
from svmcore.solvers.objectives import lam_from_C, primal_objective


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(4000, 20, n_informative=8, flip_y=0.1, random_state=1)
    yy = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, dual=True, tol=1e-8,
                        max_iter=100_000).fit(X, yy).coef_.ravel()
    return X, yy, ref


def _objective(X, y, w):
    return primal_objective(X @ w, y, float(w @ w), lam=lam_from_C(1.0, X.shape[0]))


def test_the_average_beats_the_last_iterate_and_nears_the_optimum(problem):
    X, y, ref = problem
    kw = dict(C=1.0, epochs=10, fit_intercept=False, random_state=0)
    avg = SVMClassifier(**kw).fit(X, y)
    paper = SVMClassifier(averaging=None, **kw).fit(X, y)
    assert avg.solver_.p["schedule"] == "invscaling" and avg.solver_.p["averaging"] == 1.0
    assert avg.solver_.p["eta0"] == pytest.approx(1.0 / np.mean(np.sum(X * X, axis=1)))
    assert paper.solver_.p["schedule"] == "pegasos" and paper.solver_.p["averaging"] is None
    f_avg, f_last = _objective(X, y, avg.coef_.ravel()), _objective(X, y, paper.coef_.ravel())
    f_opt = _objective(X, y, ref)
    assert f_avg < f_last
    assert f_avg <= 1.05 * f_opt
    # the same averaged run's own last iterate is worse than its average
    w_last = avg.solver_.model(last=True)[0]
    assert f_avg < _objective(X, y, w_last)
