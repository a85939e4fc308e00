"""The patterns of scikit-learn's SVM gallery (``examples/svm/``), each run with
``svmcore.SVC`` / ``SVR`` / ``LinearSVC`` beside scikit-learn's estimator of the same name, on
the kind of data the example draws: the same predictions and the same fitted numbers.

SVC is LIBSVM's algorithm step for step (same pairs, same steps), so its support sets,
coefficients and iteration counts are scikit-learn's to rounding; LinearSVC reaches liblinear's
optimum by another path (dual coordinate descent where liblinear's default takes the primal), so
its objective is compared; SVR compares the dual objective (relative 1e-6) and the support
count (± 1 %), as LIBSVM's own stopping tolerance leaves both slightly free.
"""
import warnings

import numpy as np
import pytest
from sklearn import svm
from sklearn.datasets import load_diabetes, load_iris, make_blobs
from sklearn.feature_selection import SelectPercentile, f_classif
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from svmcore import SVC, SVR, LinearSVC
from svmcore.solvers.linear_dcd import primal_objective


def _grid(X, n=30):
    lo, hi = X.min(axis=0) - 1, X.max(axis=0) + 1
    a, b = np.meshgrid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n))
    return np.c_[a.ravel(), b.ravel()]


def _same(a, b, X, atol=1e-8):
    """Same support set, coefficients, biases, decision values on X and predictions."""
    np.testing.assert_array_equal(b.support_, a.support_)
    np.testing.assert_array_equal(b.n_support_, a.n_support_)
    np.testing.assert_allclose(b.dual_coef_, a.dual_coef_, rtol=1e-7, atol=atol)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=1e-7, atol=atol)
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), rtol=1e-7,
                               atol=atol)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))


def _svc_dual(m, X, gamma):
    """A binary SVC's dual objective Σα − ½ αᵀQα from its dual coefficients (y_i α_i)."""
    c = m.dual_coef_[0]
    K = pairwise_kernels(m.support_vectors_, metric="rbf", gamma=gamma)
    return np.abs(c).sum() - 0.5 * c @ K @ c


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_separating_hyperplane():
    """plot_separating_hyperplane: two blobs, a linear kernel with a large C (hard margin)."""
    X, y = make_blobs(n_samples=40, centers=2, random_state=6)
    a, b = svm.SVC(kernel="linear", C=1000).fit(X, y), SVC(kernel="linear", C=1000).fit(X, y)
    _same(a, b, _grid(X))
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-7)
    np.testing.assert_allclose(b.support_vectors_, a.support_vectors_)


@pytest.mark.parametrize("C", [1.0, 0.05])
def test_margins(C):
    """plot_svm_margin: the margin 1/‖w‖ of a soft and a softer linear SVM."""
    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(20, 2) - [2, 2], rng.randn(20, 2) + [2, 2]]
    y = [0] * 20 + [1] * 20
    a, b = svm.SVC(kernel="linear", C=C).fit(X, y), SVC(kernel="linear", C=C).fit(X, y)
    _same(a, b, _grid(X))
    np.testing.assert_allclose(1 / np.linalg.norm(b.coef_), 1 / np.linalg.norm(a.coef_),
                               rtol=1e-8)


def test_C_gamma_grid(iris):
    """plot_rbf_parameters: the 2-D panel's 3 × 3 models on two features and two classes, and a
    grid search over C × γ on the full data (a 3 × 3 slice of the example's 13 × 13 grid): the
    same models, the same cross-validated scores and the same best parameters."""
    X, y = iris
    X = StandardScaler().fit_transform(X)
    X2, y2 = X[y > 0, :2], y[y > 0] - 1
    G = _grid(X2)
    for C in (1e-2, 1, 1e2):
        for g in (1e-1, 1, 1e1):
            a, b = svm.SVC(C=C, gamma=g).fit(X2, y2), SVC(C=C, gamma=g).fit(X2, y2)
            # where the optimal α is not unique (C = 100: many points at the bound), the runs
            # may part at a float32 rounding of a kernel value: the same optimum to tol
            np.testing.assert_array_equal(b.support_, a.support_)
            assert abs(_svc_dual(b, X2, g) - _svc_dual(a, X2, g)) <= 1e-6 * abs(
                _svc_dual(a, X2, g))
            assert (b.predict(G) == a.predict(G)).mean() >= 0.998
            np.testing.assert_allclose(b.decision_function(X2), a.decision_function(X2),
                                       atol=1e-3 * max(1.0, C))
    grid = {"C": np.logspace(-2, 2, 3), "gamma": np.logspace(-3, 1, 3)}
    cv = StratifiedShuffleSplit(n_splits=5, test_size=0.2, random_state=42)
    a = GridSearchCV(svm.SVC(), grid, cv=cv).fit(X, y)
    b = GridSearchCV(SVC(), grid, cv=cv).fit(X, y)
    np.testing.assert_array_equal(b.cv_results_["mean_test_score"],
                                  a.cv_results_["mean_test_score"])
    assert b.best_params_ == a.best_params_


def _xor_like():
    """A small 2-D set in the spirit of plot_svm_kernels' hand-drawn points."""
    rng = np.random.RandomState(3)
    X = rng.uniform(-2, 2, (40, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("kw", [dict(kernel="linear"), dict(kernel="poly", degree=3, gamma=2),
                                dict(kernel="rbf", gamma=2), dict(kernel="sigmoid", gamma=0.5,
                                                                  coef0=0.0)])
def test_kernels(kw):
    """plot_svm_kernels: linear, poly, rbf and sigmoid on one small 2-D set."""
    X, y = _xor_like()
    a, b = svm.SVC(**kw).fit(X, y), SVC(**kw).fit(X, y)
    _same(a, b, _grid(X), atol=1e-7)
    np.testing.assert_array_equal(b.n_iter_, a.n_iter_)


def test_callable_kernel(iris):
    """plot_custom_kernel: K(X, Y) = X M Yᵀ with M = diag(2, 1) on two iris features."""
    X, y = iris
    X = X[:, :2]
    M = np.array([[2.0, 0.0], [0.0, 1.0]])

    def my_kernel(A, B):
        return A @ M @ B.T
    a, b = svm.SVC(kernel=my_kernel).fit(X, y), SVC(kernel=my_kernel).fit(X, y)
    G = _grid(X, 20)
    np.testing.assert_array_equal(b.predict(G), a.predict(G))
    np.testing.assert_array_equal(b.support_, a.support_)
    np.testing.assert_allclose(b.dual_coef_, a.dual_coef_, rtol=1e-7, atol=1e-8)
    K = pairwise_kernels(X, metric="linear")
    pre = SVC(kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(pre.predict(K), svm.SVC(kernel="precomputed").fit(K, y)
                                  .predict(K))


@pytest.mark.parametrize("shape", ["ovo", "ovr"])
def test_iris_three_classes(iris, shape):
    """plot_iris_svc: SVC linear, rbf (γ = 0.7) and poly (degree 3) on two features, one-vs-one
    with either decision shape; LinearSVC one-vs-rest reaches liblinear's objective."""
    X, y = iris
    X = X[:, :2]
    G = _grid(X, 25)
    for kw in (dict(kernel="linear"), dict(kernel="rbf", gamma=0.7),
               dict(kernel="poly", degree=3, gamma="auto")):
        a = svm.SVC(decision_function_shape=shape, **kw).fit(X, y)
        b = SVC(decision_function_shape=shape, **kw).fit(X, y)
        _same(a, b, G, atol=1e-7)
        if kw["kernel"] == "linear":
            np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-7, atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = svm.LinearSVC(C=1.0, max_iter=100_000).fit(X, y)
        b = LinearSVC(C=1.0, max_iter=100_000).fit(X, y)
    for c in range(3):
        yy = np.where(y == c, 1.0, -1.0)
        pa = primal_objective(X, yy, 1.0, a.coef_[c], a.intercept_[c])
        pb = primal_objective(X, yy, 1.0, b.coef_[c], b.intercept_[c])
        assert pb <= pa * (1 + 1e-4)
    assert (b.predict(G) == a.predict(G)).mean() > 0.99


def test_unbalanced_class_weight():
    """plot_separating_hyperplane_unbalanced: 1000 against 100 points, class_weight={1: 10}."""
    X, y = make_blobs(n_samples=[1000, 100], centers=[[0.0, 0.0], [2.0, 2.0]],
                      cluster_std=[1.5, 0.5], random_state=0, shuffle=False)
    for cw in (None, {1: 10}):
        a = svm.SVC(kernel="linear", C=1.0, class_weight=cw).fit(X, y)
        b = SVC(kernel="linear", C=1.0, class_weight=cw).fit(X, y)
        _same(a, b, _grid(X, 20), atol=1e-7)
        np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-6)
        np.testing.assert_array_equal(b.class_weight_, a.class_weight_)


def test_weighted_samples():
    """plot_weighted_samples: rbf SVC, constant weights against larger weights on ten points."""
    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(10, 2) + [1, 1], rng.randn(10, 2)]
    y = [1] * 10 + [-1] * 10
    w_last = abs(rng.randn(len(X)))
    w_const = np.ones(len(X))
    w_last[15:] *= 5
    w_last[9] *= 15
    for w in (w_const, w_last):
        a = svm.SVC(gamma=1).fit(X, y, sample_weight=w)
        b = SVC(gamma=1).fit(X, y, sample_weight=w)
        _same(a, b, _grid(X), atol=1e-7)


def test_anova_pipeline(iris):
    """plot_svm_anova: SelectPercentile(f_classif) → StandardScaler → SVC on iris with 36
    noise features, cross-validated over percentiles."""
    X, y = iris
    X = np.hstack((X, 2 * np.random.RandomState(0).random((X.shape[0], 36))))
    for pct in (3, 10, 30, 100):
        sk = make_pipeline(SelectPercentile(f_classif, percentile=pct), StandardScaler(),
                           svm.SVC())
        ours = make_pipeline(SelectPercentile(f_classif, percentile=pct), StandardScaler(),
                             SVC())
        np.testing.assert_array_equal(cross_val_score(ours, X, y), cross_val_score(sk, X, y))


def test_tie_breaking():
    """plot_svm_tie_breaking: three blobs, break_ties on and off, on a dense grid where votes
    tie: the same predictions as scikit-learn's in both cases."""
    X, y = make_blobs(random_state=27)
    G = _grid(X, 60)
    for bt in (False, True):
        a = svm.SVC(break_ties=bt, decision_function_shape="ovr").fit(X, y)
        b = SVC(break_ties=bt, decision_function_shape="ovr").fit(X, y)
        np.testing.assert_array_equal(b.predict(G), a.predict(G))
        np.testing.assert_allclose(b.decision_function(G), a.decision_function(G), atol=1e-7)


# ------------------------------------------------------------------------- regression


def _svr_dual(m, X, y, eps):
    """LIBSVM's ε-SVR dual ½ βᵀKβ + ε‖β‖₁ − yᵀβ (β = α − α*) at the model's coefficients."""
    beta = np.zeros(X.shape[0])
    beta[m.support_] = m.dual_coef_[0]
    p = m.get_params()
    kw = {"linear": {}, "rbf": {"gamma": m._gamma}, "poly": {"gamma": m._gamma,
          "degree": p["degree"], "coef0": p["coef0"]}}[p["kernel"]]
    K = pairwise_kernels(X, metric=p["kernel"], **kw)
    return 0.5 * beta @ K @ beta + eps * np.abs(beta).sum() - y @ beta


def _check_svr(X, y, **kw):
    a, b = svm.SVR(**kw).fit(X, y), SVR(**kw).fit(X, y)
    eps = kw.get("epsilon", 0.1)
    da, db = _svr_dual(a, X, y, eps), _svr_dual(b, X, y, eps)
    assert abs(db - da) <= 1e-6 * abs(da), (db, da)
    na, nb = a.support_.shape[0], b.support_.shape[0]
    assert abs(nb - na) <= max(1, 0.01 * na), (nb, na)
    np.testing.assert_allclose(b.predict(X), a.predict(X), atol=1e-2 * np.std(y))
    return a, b


@pytest.mark.parametrize("kw", [dict(kernel="rbf", C=100, gamma=0.1, epsilon=0.1),
                                dict(kernel="linear", C=100),
                                dict(kernel="poly", C=10, degree=3, epsilon=0.1, coef0=1,
                                     gamma="auto")])
def test_regression_kernels(kw):
    """plot_svm_regression: rbf, linear and poly SVR on a noisy sine (x standardised: on the
    example's raw [0, 5] the poly model with C = 100 takes LIBSVM 15 million iterations)."""
    rng = np.random.RandomState(0)
    X = np.sort(5 * rng.rand(40, 1), axis=0)
    y = np.sin(X).ravel()
    X = (X - X.mean()) / X.std()
    y[::5] += 3 * (0.5 - rng.rand(8))
    a, b = _check_svr(X, y, **kw)
    if kw["kernel"] == "linear":
        np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-3)


def test_regression_diabetes():
    """A real regression set: scikit-learn's bundled load_diabetes (442 rows, 10 features,
    targets standardised), rbf SVR."""
    X, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    _check_svr(StandardScaler().fit_transform(X), y, C=10.0, epsilon=0.1)
