"""``SVMClassifier`` / ``SVMRegressor`` with scikit-learn's attributes wherever they apply, and
the fixes of the general face: ASSET's ``partial_fit`` over uneven chunks, ASSET's support set,
NORMA's class weights, the refused ``partial_fit``'s message."""
import warnings

import numpy as np
import pytest
from sklearn import svm
from sklearn.datasets import load_diabetes, load_iris, make_blobs, make_classification
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from svmcore import SVMClassifier, SVMRegressor


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_ovo_has_svcs_layout(iris, kernel):
    X, y = iris
    m = SVMClassifier(solver="smo", kernel=kernel, multi_class="ovo").fit(X, y)
    a = svm.SVC(kernel=kernel).fit(X, y)
    np.testing.assert_array_equal(m.support_, a.support_)
    np.testing.assert_array_equal(m.n_support_, a.n_support_)
    np.testing.assert_allclose(m.dual_coef_, a.dual_coef_, atol=1e-9)
    np.testing.assert_allclose(m.support_vectors_, a.support_vectors_)
    if kernel == "linear":
        np.testing.assert_allclose(m.coef_, a.coef_, atol=1e-9)


def test_ovr_expansions_and_linear_coef(iris):
    X, y = iris
    m = SVMClassifier(solver="smo", kernel="rbf", multi_class="ovr").fit(X, y)
    assert m.dual_coef_.shape == (3, m.support_.shape[0])
    assert m.n_support_.sum() == m.support_.shape[0] == m.support_vectors_.shape[0]
    np.testing.assert_allclose(m.support_vectors_, X[m.support_])
    # the expansion in dual_coef_ is the model: row c reproduces problem c's decision values
    K = np.exp(-m.solvers_[0].p["gamma"] * ((X[:, None, :] - X[m.support_][None]) ** 2)
               .sum(axis=2))
    np.testing.assert_allclose(K @ m.dual_coef_.T + m.intercept_, m.decision_function(X),
                               atol=1e-8)
    for solver in ("smo", "sfw"):
        b = SVMClassifier(solver=solver, kernel="linear", random_state=0).fit(X, y > 0)
        assert b.coef_.shape == (1, 4)
        np.testing.assert_allclose(X @ b.coef_[0] + b.intercept_[0], b.decision_function(X),
                                   atol=1e-8)
        assert b.n_support_.sum() == b.support_.shape[0]


def test_regressor_linear_coef_and_asset_landmarks():
    X, y = load_diabetes(return_X_y=True)
    m = SVMRegressor(solver="asset", random_state=0).fit(X, y)
    assert m.support_.shape == (256,) and m.support_vectors_.shape == (256, 10)
    assert m.n_support_.tolist() == [256]
    assert np.unique(m.support_).shape[0] == 256 < X.shape[0]
    lin = SVMRegressor(solver="asset", kernel="linear", random_state=0).fit(X, y)
    assert lin.coef_.shape == (1, 10)
    np.testing.assert_allclose(X @ lin.coef_[0] + lin.intercept_[0], lin.predict(X), atol=1e-8)


def test_asset_partial_fit_over_uneven_chunks():
    """Chunks 500, 500, 500, 500, 300: the Nyström landmarks are rows of the first chunk,
    kept by the feature map (indexing them into the last chunk raised IndexError)."""
    X, y = make_classification(2300, 10, random_state=0)
    m = SVMClassifier(solver="asset", kernel="rbf", gamma=0.1, random_state=0)
    for a in range(0, 2300, 500):
        m.partial_fit(X[a:a + 500], y[a:a + 500], classes=[0, 1])
    assert m.support_vectors_.shape == (256, 10)
    np.testing.assert_allclose(m.support_vectors_, X[:500][m.support_])
    assert m.score(X, y) > 0.85


def test_norma_class_weight_helps_on_unbalanced_data():
    """540 rows, 88 % / 12 %: NORMA's one epoch predicts the majority everywhere (balanced
    accuracy 0.5 on most seeds); class_weight="balanced" draws the minority as often as the
    majority and the median balanced accuracy over 6 seeds rises well above chance."""
    X, y = make_blobs([475, 65], centers=[[0, 0], [2, 2]], random_state=0)
    X = StandardScaler().fit_transform(X)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

    def median(cw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.median([balanced_accuracy_score(yte, SVMClassifier(
                solver="norma", kernel="rbf", class_weight=cw, random_state=s)
                .fit(Xtr, ytr).predict(Xte)) for s in range(6)])
    plain, weighted = median(None), median("balanced")
    assert plain < 0.6 and weighted > 0.85


def test_refused_partial_fit_names_the_solver():
    m = SVMClassifier(solver="sfw")
    assert not hasattr(m, "partial_fit")
    with pytest.raises(AttributeError, match=r"SVMClassifier with solver 'sfw' has no attribute "
                                             r"'partial_fit': solver 'sfw' is not an online"):
        m.partial_fit
