"""``svmcore.LinearSVC`` (dual coordinate descent) against ``sklearn.svm.LinearSVC``
(liblinear): the primal objective with the regularised intercept within 1e-4 relative, for both
losses, intercept_scaling, class and sample weights, sparse input; and the closed-form optimum
of a one-dimensional problem."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from svmcore import LinearSVC
from svmcore.solvers.linear_dcd import dcd_fit, primal_objective


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _objectives(a, b, X, y, C, loss, isc, w=None):
    yy = np.where(y == a.classes_[1], 1.0, -1.0)
    Ci = C * (np.ones(len(y)) if w is None else w)
    return (primal_objective(X, yy, Ci, b.coef_[0], b.intercept_[0], loss, isc),
            primal_objective(X, yy, Ci, a.coef_[0], a.intercept_[0], loss, isc))


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("C, isc", [(0.1, 1.0), (1.0, 1.0), (1.0, 10.0)])
def test_reaches_liblinears_objective(cancer, loss, C, isc):
    X, y = cancer
    kw = dict(loss=loss, C=C, intercept_scaling=isc, max_iter=50_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = svm.LinearSVC(**kw).fit(X, y)
    b = LinearSVC(**kw).fit(X, y)
    ours, theirs = _objectives(a, b, X, y, C, loss, isc)
    assert ours <= theirs * (1 + 1e-4)
    assert (b.predict(X) == a.predict(X)).mean() >= 0.995
    assert b.coef_.shape == (1, 30) and b.intercept_.shape == (1,)


def test_weights_and_sparse_input(cancer):
    X, y = cancer
    w = np.random.RandomState(0).uniform(0.2, 3.0, len(y))
    cw = {0: 2.0, 1: 0.5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = svm.LinearSVC(class_weight=cw, max_iter=50_000).fit(X, y, sample_weight=w)
    b = LinearSVC(class_weight=cw, max_iter=50_000).fit(sp.csr_matrix(X), y, sample_weight=w)
    wi = w * np.where(y == 0, 2.0, 0.5)
    ours, theirs = _objectives(a, b, X, y, 1.0, "squared_hinge", 1.0, wi)
    assert ours <= theirs * (1 + 1e-4)
    c = LinearSVC(class_weight=cw, max_iter=50_000).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(b.coef_, c.coef_, atol=1e-4)      # the same optimum to tol


def test_no_intercept_and_three_classes(cancer):
    X, y = cancer
    m = LinearSVC(fit_intercept=False, max_iter=20_000).fit(X, y)
    assert m.intercept_ == 0.0
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    m3 = LinearSVC(max_iter=20_000).fit(X, y3)
    assert m3.coef_.shape == (3, 30) and m3.decision_function(X).shape == (len(y3), 3)


def test_one_feature_closed_form():
    """Hinge loss on two mirrored points x = ±1 (labels ±1), no intercept: the primal is
    ½w² + 2C·max(0, 1 − w), minimised at w = min(2C, 1)."""
    X = np.array([[1.0], [-1.0]])
    y = np.array([1.0, -1.0])
    for C, want in ((0.1, 0.2), (0.25, 0.5), (2.0, 1.0)):
        w, b, _, _, ok = dcd_fit(X, y, np.full(2, C), "hinge", bias=0.0, tol=1e-10)
        assert ok and b == 0.0
        np.testing.assert_allclose(w, [want], rtol=1e-9)
