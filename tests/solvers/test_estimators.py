"""SVMClassifier: scikit-learn's contract, determinism, labels, attributes, clear errors."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification, make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

import svmcore
import svmcore.solvers
from svmcore.estimators import SVMClassifier, expected_failed_checks


def _estimators():
    yield "pegasos-linear", SVMClassifier(random_state=0)
    for name, cls in svmcore.solvers.REGISTRY.items():
        kernel = "rbf" if "rbf" in cls.kernels else cls.kernels[0]
        yield f"{name}-{kernel}", SVMClassifier(solver=name, kernel=kernel, random_state=0)


_EST = list(_estimators())


@parametrize_with_checks([e for _, e in _EST], expected_failed_checks=expected_failed_checks)
def test_sklearn_checks(estimator, check):
    """scikit-learn's own estimator checks for every solver, sample-weight checks included (the
    known failures and their reasons: ``svmcore.estimators.expected_failed_checks``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_the_checks_run_with_sample_weights():
    names = [r["check_name"] for r in check_estimator(
        SVMClassifier(solver="smo", kernel="rbf"), on_fail=None,
        expected_failed_checks=expected_failed_checks(SVMClassifier(solver="smo")))]
    assert len(names) > 40
    assert {"check_sample_weights_shape", "check_sample_weights_list",
            "check_sample_weights_not_overwritten", "check_class_weight_classifiers"} <= set(names)


def test_list_solvers():
    assert "pegasos" in svmcore.list_solvers()


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_same_seed_is_bit_identical_and_different_seed_differs(kernel):
    X, y = make_moons(300, noise=0.3, random_state=0)
    fit = lambda seed: SVMClassifier(kernel=kernel, gamma=1.0, random_state=seed,
                                     epochs=3, trace=True).fit(X, y)
    a, b, c = fit(1), fit(1), fit(2)
    if kernel == "linear":
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert not np.array_equal(a.coef_, c.coef_)
    else:
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
        np.testing.assert_array_equal(a.support_, b.support_)
        assert not (a.dual_coef_.shape == c.dual_coef_.shape
                    and np.array_equal(a.dual_coef_, c.dual_coef_))
    strip = lambda h: [{k: v for k, v in r.items() if k != "time"} for r in h]
    np.testing.assert_equal(strip(a.history_), strip(b.history_))    # NaN == NaN here


@pytest.mark.smoke
@pytest.mark.parametrize("labels", [(0, 1), (1, 2), (-1, 1), ("ham", "spam")])
def test_any_two_labels(labels):
    X, y = make_classification(200, 4, random_state=0)
    yl = np.array(labels, dtype=object)[y] if isinstance(labels[0], str) else np.array(labels)[y]
    m = SVMClassifier(random_state=0).fit(X, yl)
    assert list(m.classes_) == sorted(labels)
    assert set(m.predict(X)) <= set(labels)
    assert m.score(X, yl) > 0.8


def test_linear_and_kernel_attributes():
    X, y = make_moons(200, noise=0.2, random_state=0)
    lin = SVMClassifier(random_state=0).fit(X, y)
    assert lin.coef_.shape == (1, 2) and lin.intercept_.shape == (1,)
    assert lin.n_features_in_ == 2 and lin.n_iter_ == 10 * 200
    np.testing.assert_allclose(lin.decision_function(X), X @ lin.coef_[0] + lin.intercept_[0])
    ker = SVMClassifier(kernel="rbf", gamma=2.0, random_state=0, trace=True).fit(X, y)
    assert not hasattr(ker, "coef_")
    assert ker.dual_coef_.shape == (1, ker.support_.shape[0])
    K = np.exp(-2.0 * ((X[:, None, :] - ker.support_vectors_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(ker.decision_function(X), K @ ker.dual_coef_[0] + ker.intercept_[0],
                               rtol=1e-9)
    rows = ker.history_
    assert rows[0]["iteration"] == 0 and rows[-1]["iteration"] == 2000
    assert all(np.isfinite(r["objective"]) for r in rows)


def test_sparse_and_dense_agree():
    X, y = make_classification(150, 8, random_state=1)
    a = SVMClassifier(random_state=0).fit(X, y)
    b = SVMClassifier(random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)


def test_multiclass_is_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    m = SVMClassifier(random_state=0, averaging=0.5).fit(X, y)
    assert m.coef_.shape == (3, 4) and m.decision_function(X).shape == (150, 3)
    ref = LinearSVC(C=1.0, random_state=0).fit(X, y).score(X, y)   # one-vs-rest too: 0.947
    assert m.score(X, y) >= ref - 0.02


def test_bad_input_gets_sklearn_style_value_errors():
    X, y = make_classification(50, 4, random_state=0)
    with pytest.raises(ValueError, match="one class"):
        SVMClassifier().fit(X, np.zeros(50))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SVMClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="C must be"):
        SVMClassifier(C=-1).fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        SVMClassifier(kernel="rbf", gamma=0).fit(X, y)
    with pytest.raises(ValueError, match="batch_size"):
        SVMClassifier(batch_size=51).fit(X, y)
    with pytest.raises(ValueError, match="unknown solver"):
        SVMClassifier(solver="nope").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        SVMClassifier().fit(X, y).predict(X[:, :2])
