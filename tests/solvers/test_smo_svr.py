"""SMO's ε-SVR (LIBSVM's 2n-variable dual) against scikit-learn's SVR, and SMO's sigmoid and
precomputed kernels against SVC.

The dual objective is evaluated the same way for both models, exactly from their expansion
coefficients β (float64 kernel values from sklearn.metrics.pairwise):
D(β) = yᵀβ − ε Σ|β| − ½ βᵀKβ (at LIBSVM's optimum α_t α*_t = 0, so Σ(α + α*) = Σ|β|)."""
import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel, sigmoid_kernel
from sklearn.svm import SVC, SVR

from svmcore.solvers import REGISTRY
from svmcore.solvers.smo import SMOSolver


def _fit(X, y, **params):
    s = SMOSolver(**params)
    s.init(X, y)
    while not s.converged:
        assert s.step(1 << 20) > 0 or s.converged
    return s


def _dual(X, y, support, beta, eps, kernel, kw):
    S = X[support]
    K = pairwise_kernels(S, S, metric=kernel, filter_params=True, **kw)
    return float(y[support] @ beta - eps * np.abs(beta).sum() - 0.5 * beta @ K @ beta)


def _sine():
    """The gallery's plot_svm_regression data: 40 points of a sine, every fifth one noisy."""
    rng = np.random.RandomState(0)
    X = np.sort(5 * rng.rand(40, 1), axis=0)
    y = np.sin(X).ravel()
    y[::5] += 3 * (0.5 - rng.rand(8))
    return X, y


def _diabetes():
    """scikit-learn's bundled diabetes set (442 × 10), features and target standardised."""
    X, y = load_diabetes(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X, (y - y.mean()) / y.std()


# the gallery's three models (C = 100, ε = 0.1; poly: gamma="auto" = 1 for one feature, coef0 = 1)
GALLERY = [("rbf", {"gamma": 0.1}), ("linear", {}),
           ("poly", {"gamma": 1.0, "degree": 3, "coef0": 1.0})]


def _compare(X, y, kernel, kw, C, eps, shrinking=True):
    ref = SVR(kernel=kernel, C=C, epsilon=eps, tol=1e-3, shrinking=shrinking, **kw).fit(X, y)
    s = _fit(X, y, kernel=kernel, C=C, loss="epsilon_insensitive", epsilon=eps, tol=1e-3,
             shrinking=shrinking, max_iter=10**8, **kw)
    support, beta, b = s.support_coef()
    d_ref = _dual(X, y, ref.support_, ref.dual_coef_.ravel(), eps, kernel, kw)
    d_smo = _dual(X, y, support, beta, eps, kernel, kw)
    assert abs(d_smo - d_ref) <= 1e-6 * abs(d_ref), (d_smo, d_ref)
    assert abs(support.size - ref.support_.size) <= 0.01 * ref.support_.size
    # within what tol = 1e-3 leaves open (the KKT conditions hold to 1e-3): b and f
    assert abs(b - ref.intercept_[0]) <= 1e-3
    np.testing.assert_allclose(s.decision_function(X), ref.predict(X), rtol=0, atol=1e-3)
    return s, ref


@pytest.mark.parametrize("kernel,kw,shrinking", [
    GALLERY[0] + (True,), GALLERY[1] + (True,), GALLERY[0] + (False,),
    # LIBSVM takes 15 million pair steps here (the poly kernel's values reach 26³)
    pytest.param(*GALLERY[2], True, marks=pytest.mark.slow)])
def test_svr_matches_sklearn_on_the_gallery_sine(kernel, kw, shrinking):
    X, y = _sine()
    s, ref = _compare(X, y, kernel, kw, C=100.0, eps=0.1, shrinking=shrinking)
    if kernel != "poly":             # poly: LIBSVM's powi and our pow round differently
        assert s.t == int(ref.n_iter_)           # LIBSVM's pair sequence, step for step
        np.testing.assert_array_equal(s.support_coef()[0], ref.support_)
        np.testing.assert_allclose(s.decision_function(X), ref.predict(X), rtol=1e-9, atol=1e-9)
    else:
        assert abs(s.t - int(ref.n_iter_)) <= 1e-3 * ref.n_iter_
    snap = s.snapshot()
    assert snap.extra["train_error_kind"] == "rmse" and snap.gap >= -1e-9
    assert snap.n_sv == ref.support_.size and snap.converged


def test_svr_matches_sklearn_on_diabetes():
    X, y = _diabetes()
    gamma = 1.0 / (X.shape[1] * X.var())           # SVR's gamma="scale"
    s, ref = _compare(X, y, "rbf", {"gamma": gamma}, C=1.0, eps=0.1)
    assert ref.support_.size > 300                   # most points lie outside the tube
    s10, _ = _compare(X, y, "rbf", {"gamma": gamma}, C=10.0, eps=0.2)
    # the running dual (from the maintained float32-row gradient) is close to the exact one
    support, beta, _ = s10.support_coef()
    exact = _dual(X, y, support, beta, 0.2, "rbf", {"gamma": gamma})
    assert s10.dual_objective_C() == pytest.approx(exact, rel=1e-5)


def test_svr_weights_retune_and_tasks():
    X, y = _sine()
    w = np.linspace(0.5, 2.0, y.size)
    ref = SVR(kernel="rbf", C=10.0, gamma=0.5, epsilon=0.1).fit(X, y, sample_weight=w)
    s = SMOSolver(kernel="rbf", C=10.0, gamma=0.5, loss="epsilon_insensitive", epsilon=0.1)
    s.sample_weight = w
    s.init(X, y)
    s.step(10**6)
    np.testing.assert_allclose(s.decision_function(X), ref.predict(X), rtol=1e-7, atol=1e-8)
    # C changed mid-run: the rescaled state continues to SVR's optimum for the new C
    s.retune(C=100.0)
    s.step(10**6)
    ref100 = SVR(kernel="rbf", C=100.0, gamma=0.5, epsilon=0.1).fit(X, y, sample_weight=w)
    assert s.converged and np.all(s.alpha <= 100.0 * np.r_[w, w])
    d_ref = _dual(X, y, ref100.support_, ref100.dual_coef_.ravel(), 0.1, "rbf", {"gamma": 0.5})
    support, beta, _ = s.support_coef()
    assert _dual(X, y, support, beta, 0.1, "rbf", {"gamma": 0.5}) == pytest.approx(d_ref, rel=1e-5)
    assert "regression" in SMOSolver.tasks and s.regression
    with pytest.raises(ValueError, match="NaN or infinity"):
        SMOSolver(loss="epsilon_insensitive").init(X, np.r_[y[:-1], np.nan])


# --------------------------------------------------------------------------- kernels


def _c_dual(K, support, coef):
    """C-SVC's dual D_C = Σα − ½ (yα)ᵀK(yα) from the support and the coefficients y_t α_t."""
    return float(np.abs(coef).sum() - 0.5 * coef @ K[np.ix_(support, support)] @ coef)


def _agrees_with_svc(s, ref, K):
    """The same optimum within tol = 1e-3: the dual to 1e-6 relative, the support set, and the
    decision values to a few 1e-3."""
    support, coef, b = s.support_coef()
    d_ref = _c_dual(K, ref.support_, ref.dual_coef_.ravel())
    assert _c_dual(K, support, coef) == pytest.approx(d_ref, rel=1e-6)
    np.testing.assert_array_equal(support, np.sort(ref.support_))


def _moons(n=80):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_sigmoid_kernel_matches_svc():
    X, y = _moons()
    ref = SVC(kernel="sigmoid", C=1.0, gamma=0.5, coef0=-0.5, tol=1e-3).fit(X, y)
    s = _fit(X, y, kernel="sigmoid", C=1.0, gamma=0.5, coef0=-0.5)
    _agrees_with_svc(s, ref, sigmoid_kernel(X, X, gamma=0.5, coef0=-0.5))
    np.testing.assert_allclose(s.decision_function(X), ref.decision_function(X), atol=1e-2)
    K = sigmoid_kernel(X[:3], X[:4], gamma=0.5, coef0=-0.5)
    np.testing.assert_allclose(s.kernel_block([0, 1, 2], [0, 1, 2, 3]), K, rtol=1e-12)


def test_precomputed_kernel_matches_svc_and_refuses_bad_shapes():
    X, y = _moons()
    Xt = np.random.default_rng(4).normal(size=(30, 2))
    K, Kt = rbf_kernel(X, X, gamma=0.7), rbf_kernel(Xt, X, gamma=0.7)
    ref = SVC(kernel="precomputed", C=3.0).fit(K, y)
    s = _fit(K, y, kernel="precomputed", C=3.0)
    _agrees_with_svc(s, ref, K)
    np.testing.assert_allclose(s.decision_function(Kt), ref.decision_function(Kt), atol=1e-2)
    np.testing.assert_array_equal(s.kernel_block([2, 5], [1, 7]), K[np.ix_([2, 5], [1, 7])])
    with pytest.raises(ValueError, match=r"square n × n kernel matrix.*\(80, 79\)"):
        SMOSolver(kernel="precomputed").init(K[:, :-1], y)
    with pytest.raises(ValueError, match=r"against the 80 training points.*\(30, 2\)"):
        s.decision_function(Xt)
    # ε-SVR on a precomputed kernel too
    r = _fit(K, X[:, 0], kernel="precomputed", C=3.0, loss="epsilon_insensitive")
    ref_r = SVR(kernel="precomputed", C=3.0).fit(K, X[:, 0])
    np.testing.assert_allclose(r.decision_function(Kt), ref_r.predict(Kt), atol=1e-2)


@pytest.mark.parametrize("name", [n for n, c in REGISTRY.items()
                                  if "kernel" in c.params and "precomputed" not in c.kernels])
def test_other_solvers_refuse_a_precomputed_kernel_by_name(name):
    with pytest.raises(ValueError, match=rf"^{name} supports kernel in \[.*'rbf'.*\], got "
                                         r"'precomputed' \(a precomputed Gram matrix is taken "
                                         r"by solver 'smo'\)$"):
        REGISTRY[name](kernel="precomputed")
