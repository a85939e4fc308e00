"""``svmcore.SVC`` / ``SVR`` / ``LinearSVC`` as drop-ins for scikit-learn's: signatures and
defaults, fitted attributes with scikit-learn's shapes and numbers, SVC's arguments with SVC's
meaning, refusals that name the solver, bad input answered as scikit-learn answers it, and
scikit-learn's estimator checks."""
import inspect
import warnings

import numpy as np
import pytest
from sklearn import svm
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmcore
from svmcore import SVC, SVR, LinearSVC


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_importable_from_the_top():
    from svmcore import LinearSVC as L, SVC as S, SVR as R
    assert (S, R, L) == (svmcore.estimators.SVC, svmcore.estimators.SVR,
                         svmcore.estimators.LinearSVC)


@pytest.mark.parametrize("ours, theirs", [(SVC, svm.SVC), (SVR, svm.SVR),
                                          (LinearSVC, svm.LinearSVC)])
def test_signature_and_defaults_are_sklearns(ours, theirs):
    """Every scikit-learn parameter, with its default (SVC's probability: False, the value
    scikit-learn 1.9's "deprecated" placeholder stands for); ``solver`` is the one addition."""
    mine = inspect.signature(ours.__init__).parameters
    ref = inspect.signature(theirs.__init__).parameters
    for name, p in ref.items():
        if name == "self":
            continue
        assert name in mine, name
        want = False if (theirs is svm.SVC and name == "probability") else p.default
        assert mine[name].default == want, name
        assert mine[name].kind == p.kind, name
    assert set(mine) - set(ref) <= {"solver"}


def _same_svc(a, b, atol=1e-9):
    for attr in ("support_", "n_support_", "classes_", "n_iter_", "class_weight_"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr), err_msg=attr)
    for attr in ("dual_coef_", "intercept_", "support_vectors_"):
        np.testing.assert_allclose(getattr(a, attr), getattr(b, attr), atol=atol, err_msg=attr)
    assert a.fit_status_ == b.fit_status_ and a.shape_fit_ == b.shape_fit_
    assert a.n_features_in_ == b.n_features_in_


@pytest.mark.parametrize("kw", [{}, {"kernel": "linear"}, {"kernel": "poly", "coef0": 1.0},
                                {"C": 10.0, "gamma": 0.1}, {"class_weight": "balanced"},
                                {"shrinking": False}, {"gamma": "auto", "tol": 1e-5}])
def test_svc_is_sklearns_model(iris, kw):
    """SVC().fit on iris: LIBSVM's support set, dual coefficients, biases, iteration counts
    (the same SMO steps), decision values and predictions."""
    X, y = iris
    a, b = svm.SVC(**kw).fit(X, y), SVC(**kw).fit(X, y)
    _same_svc(a, b)
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))
    if kw.get("kernel") == "linear":
        np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-9)
    else:
        assert not hasattr(b, "coef_")


def test_binary_signs_and_ovo_shape(iris):
    X, y = iris
    yb = np.where(y > 0, "b", "a")
    a, b = svm.SVC(kernel="linear").fit(X, yb), SVC(kernel="linear").fit(X, yb)
    _same_svc(a, b)
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-9)
    assert b.dual_coef_.shape == (1, b.support_.shape[0]) and b.n_iter_.shape == (1,)
    a3 = svm.SVC(decision_function_shape="ovo").fit(X, y)
    b3 = SVC(decision_function_shape="ovo").fit(X, y)
    assert b3.decision_function(X).shape == (150, 3)
    np.testing.assert_allclose(b3.decision_function(X), a3.decision_function(X), atol=1e-9)


def test_max_iter_stops_with_sklearns_status(iris):
    X, y = iris
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        b = SVC(max_iter=5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = svm.SVC(max_iter=5).fit(X, y)
    assert b.fit_status_ == a.fit_status_ == 1
    np.testing.assert_array_equal(b.n_iter_, a.n_iter_)


def test_verbose_prints_libsvm_summary(iris, capsys):
    X, y = iris
    SVC(verbose=True).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("optimization finished, #iter =") == 3


def test_probability_is_platt_per_pair(iris):
    X, y = iris
    m = SVC(probability=True, random_state=0).fit(X, y)
    p = m.predict_proba(X)
    assert p.shape == (150, 3) and np.allclose(p.sum(axis=1), 1.0)
    assert (p.argmax(axis=1) == m.predict(X)).mean() > 0.95
    assert not hasattr(SVC(), "predict_proba")


# ------------------------------------------------------------------------- refusals


def test_a_solver_refuses_what_it_cannot_take(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"solver 'pegasos' cannot train "
                                         r"kernel='precomputed'; it supports kernel in"):
        SVC(solver="pegasos", kernel="precomputed").fit(X @ X.T, y)
    with pytest.raises(ValueError, match=r"solver 'pegasos' has no tol .*applies to SMO"):
        SVC(solver="pegasos", kernel="rbf", tol=0.1).fit(X, y)
    with pytest.raises(ValueError, match=r"solver 'pegasos' cannot train a callable kernel"):
        SVC(solver="pegasos", kernel=lambda a, b: a @ b.T).fit(X, y)
    with pytest.raises(ValueError, match="solver 'pegasos' does not do regression"):
        SVR(solver="pegasos").fit(X, y.astype(float))
    with pytest.raises(ValueError, match="penalty='l1' is not supported by svmcore.LinearSVC"):
        LinearSVC(penalty="l1", dual=False).fit(X, y)
    with pytest.raises(ValueError, match="crammer_singer"):
        LinearSVC(multi_class="crammer_singer").fit(X, y)
    with pytest.raises(ValueError, match="break_ties must be False"):
        SVC(break_ties=True, decision_function_shape="ovo").fit(X, y)


def test_another_solver_keeps_the_layout(iris):
    X, y = iris
    m = SVC(solver="pegasos", random_state=0).fit(X, y)
    assert m.dual_coef_.shape == (2, m.support_.shape[0]) and m.n_support_.sum() == \
        m.support_.shape[0]
    assert m.score(X, y) > 0.85


# ------------------------------------------------------------------------- bad input


def test_precomputed_shapes(iris):
    X, y = iris
    K = X @ X.T
    with pytest.raises(ValueError, match="Precomputed matrix must be a square matrix. "
                                         "Input is a 150x4 matrix."):
        SVC(kernel="precomputed").fit(X, y)
    m = SVC(kernel="precomputed").fit(K, y)
    for bad in (X, K[:, :100]):          # scikit-learn's words: the width seen at fit
        with pytest.raises(ValueError, match=f"X has {bad.shape[1]} features, but SVC is "
                                             "expecting 150 features as input."):
            m.predict(bad)
        with pytest.raises(ValueError, match=f"X has {bad.shape[1]} features"):
            svm.SVC(kernel="precomputed").fit(K, y).predict(bad)
    assert m.support_vectors_.shape == (0, 0)


@pytest.mark.parametrize("bad, match", [
    (lambda a, b: (a @ b.T)[:, :-1], r"callable kernel's K\(X, X\) for 150 rows has shape "
                                     r"\(150, 149\); expected \(150, 150\)"),
    (lambda a, b: np.full((a.shape[0], b.shape[0]), np.nan), "contains NaN or infinity")])
def test_callable_kernel_bad_output(iris, bad, match):
    X, y = iris
    with pytest.raises(ValueError, match=match):
        SVC(kernel=bad).fit(X, y)


@pytest.mark.parametrize("est", [SVC(), SVR(), LinearSVC()])
def test_nan_inf_in_X_and_y(iris, est):
    X, y = iris
    for v in (np.nan, np.inf):
        Xb = X.copy()
        Xb[3, 1] = v
        with pytest.raises(ValueError, match="Input X contains"):
            est.fit(Xb, y)
    yb = y.astype(float)
    yb[2] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        est.fit(X, yb)


@pytest.mark.parametrize("est", [SVC(), LinearSVC()])
def test_one_class_only(iris, est):
    X, y = iris
    with pytest.raises(ValueError, match=r"one.*class|class.*one"):
        est.fit(X[:50], y[:50])


# ------------------------------------------------------------------------- sklearn checks

_WEIGHTS = "sample_weight is not equivalent to removing/repeating samples (as SVC's own)"


def _expected(est):
    return {"check_sample_weight_equivalence_on_dense_data": _WEIGHTS,
            "check_sample_weight_equivalence_on_sparse_data": _WEIGHTS}


@parametrize_with_checks([SVC(), SVR(), LinearSVC()], expected_failed_checks=_expected)
def test_sklearn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
