"""Sample and class weights with LIBSVM's meaning (example i's C becomes C·w_i), against SVC and
SGDClassifier: SMO's per-example box bounds, the stochastic solvers' weighted sampling, and the
solvers that refuse weights."""
import warnings

import numpy as np
import pytest
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from svmcore.estimators import SVMClassifier
from svmcore.solvers.base import SampleStream


def _imbalanced(n=500, n_pos=60, seed=0):
    """Two overlapping gaussians, 88 / 12."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0.0, 1.0, (n - n_pos, 2)), rng.normal(1.5, 1.0, (n_pos, 2))])
    return X, np.r_[np.zeros(n - n_pos), np.ones(n_pos)]


def test_smo_balanced_predicts_like_svc_and_reaches_its_dual_optimum():
    X, y = _imbalanced()
    m = SVMClassifier(solver="smo", kernel="rbf", gamma=0.5, class_weight="balanced",
                      solver_params={"tol": 1e-5}).fit(X, y)
    ref = SVC(gamma=0.5, class_weight="balanced", tol=1e-5).fit(X, y)
    agree = np.mean(m.predict(X) == ref.predict(X))
    assert agree >= 0.99, agree
    c = ref.dual_coef_[0]
    svc_dual = np.abs(c).sum() - 0.5 * c @ rbf_kernel(ref.support_vectors_, gamma=0.5) @ c
    ours = m.solver_.dual_objective_C()
    assert abs(ours - svc_dual) / abs(svc_dual) <= 1e-6, (ours, svc_dual)
    # the balanced bounds: C·n/(2·n_c) per class, and some α of the minority class sit there
    w = m.solver_.Cv
    np.testing.assert_allclose(np.unique(w), sorted([500 / (2 * 440), 500 / (2 * 60)]))
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_integer_weights_give_the_model_of_repeated_rows():
    X, y = _imbalanced(300, 60, seed=1)
    sw = np.random.default_rng(0).integers(0, 4, size=y.shape[0])
    kw = dict(solver="smo", kernel="rbf", gamma=0.5, solver_params={"tol": 1e-6})
    weighted = SVMClassifier(**kw).fit(X, y, sample_weight=sw).decision_function(X)
    repeated = SVMClassifier(**kw).fit(np.repeat(X, sw, axis=0),
                                       np.repeat(y, sw)).decision_function(X)
    rel = np.abs(weighted - repeated).max() / np.abs(repeated).max()
    assert rel <= 1e-4, rel


def test_weights_multiply_class_weights_as_in_svc():
    X, y = _imbalanced(200, 40, seed=2)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, size=y.shape[0])
    cw = {0.0: 1.0, 1.0: 3.0}
    m = SVMClassifier(solver="smo", kernel="rbf", gamma=0.5, class_weight=cw,
                      solver_params={"tol": 1e-6}).fit(X, y, sample_weight=sw)
    ref = SVC(gamma=0.5, class_weight=cw, tol=1e-6).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_all_ones_weights_change_nothing():
    X, y = _imbalanced(200, 40)
    for solver, kernel in (("pegasos", "linear"), ("norma", "rbf"), ("smo", "rbf")):
        a = SVMClassifier(solver=solver, kernel=kernel, random_state=0).fit(X, y)
        b = SVMClassifier(solver=solver, kernel=kernel, random_state=0).fit(
            X, y, sample_weight=np.ones(y.shape[0]))
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_weighted_sampling_draws_in_proportion_to_the_weights():
    w = np.array([1.0, 2.0, 0.0, 5.0])
    idx = SampleStream(4, seed=0, mode="iid", weights=w).take(80_000)
    freq = np.bincount(idx, minlength=4) / idx.size
    np.testing.assert_allclose(freq, w / w.sum(), atol=0.005)
    perm = SampleStream(4, seed=0, mode="permutation", weights=w).take(8)
    assert 2 not in perm                       # weight 0: never visited


@pytest.mark.parametrize("solver, kernel, before, after", [
    ("pegasos", "linear", 0.72, 0.80), ("pegasos", "rbf", 0.72, 0.80),
    ("norma", "rbf", 0.50, 0.70), ("pegaz", "rbf", 0.70, 0.80),
    ("olsvm", "rbf", 0.54, 0.80), ("asset", "rbf", 0.75, 0.82),
    ("sfw", "rbf", 0.75, 0.81), ("msfw", "rbf", 0.75, 0.84),
])
def test_balanced_weights_raise_the_balanced_accuracy(solver, kernel, before, after):
    """On an 88 / 12 set every stochastic solver's balanced accuracy rises with
    class_weight="balanced" (λ = 1/(C·Σw), example i drawn with probability ∝ w_i; SFW and
    MSFW: the diagonal term 1/(2C·w_i))."""
    X, y = _imbalanced()
    ba = []
    for cw in (None, "balanced"):
        m = SVMClassifier(solver=solver, kernel=kernel, gamma=0.5, class_weight=cw,
                          random_state=0).fit(X, y)
        ba.append(balanced_accuracy_score(y, m.predict(X)))
    assert ba[0] <= before + 0.005 and ba[1] >= after, ba


def test_linear_pegasos_balanced_is_as_good_as_sgdclassifiers():
    X, y = _imbalanced()
    ours = SVMClassifier(class_weight="balanced", random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sgd = SGDClassifier(loss="hinge", class_weight="balanced", random_state=0).fit(X, y)
    assert (balanced_accuracy_score(y, ours.predict(X))
            >= balanced_accuracy_score(y, sgd.predict(X)) - 0.03)


def test_sfw_integer_weights_predict_like_repeated_rows():
    X, y = _imbalanced()
    sw = np.random.default_rng(0).integers(1, 4, size=y.shape[0])
    kw = dict(solver="sfw", kernel="rbf", gamma=0.5, epochs=5, random_state=0)
    a = SVMClassifier(**kw).fit(X, y, sample_weight=sw)
    b = SVMClassifier(**kw).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert np.mean(a.predict(X) == b.predict(X)) >= 0.99            # measured 0.998
    with pytest.raises(ValueError, match="sfw: sample weights must be > 0"):
        SVMClassifier(**kw).fit(X, y, sample_weight=np.r_[0.0, np.ones(y.shape[0] - 1)])


def test_weights_that_leave_one_class_are_refused():
    X, y = _imbalanced(100, 20)
    with pytest.raises(ValueError, match="two classes with a positive weight"):
        SVMClassifier(solver="smo").fit(X, y, sample_weight=(y == 0).astype(float))


@pytest.mark.parametrize("sampling, before, after, agree", [
    ("linear", 0.73, 0.82, 0.99), ("constant", 0.752, 0.83, 0.98)])
def test_cpsp_weighted_slacks_approach_svc_balanced(sampling, before, after, agree):
    X, y = _imbalanced()
    ba = []
    for cw in (None, "balanced"):
        m = SVMClassifier(solver="cpsp", kernel="rbf", gamma=0.5, class_weight=cw,
                          random_state=0, solver_params={"sampling": sampling}).fit(X, y)
        ba.append(balanced_accuracy_score(y, m.predict(X)))
    assert ba[0] <= before + 0.005 and ba[1] >= after, ba
    ref = SVC(gamma=0.5, class_weight="balanced").fit(X, y)
    assert np.mean(m.predict(X) == ref.predict(X)) >= agree


def test_a_solver_without_weighting_refuses_weights_by_name(monkeypatch):
    from svmcore.solvers.pegasos import PegasosSolver
    monkeypatch.setattr(PegasosSolver, "weighting", "")
    X, y = _imbalanced(100, 20)
    with pytest.raises(ValueError, match="solver 'pegasos' cannot honour sample weights"):
        SVMClassifier(solver="pegasos").fit(X, y, sample_weight=np.arange(100.0))
    with pytest.raises(ValueError, match="solver 'pegasos' cannot honour"):
        SVMClassifier(solver="pegasos", class_weight="balanced").fit(X, y)
    SVMClassifier(solver="pegasos").fit(X, y)                      # no weights: fine
