"""probability=True (Platt scaling on a 5-fold internal cross-validation, as SVC) and
multi_class="ovo" with SVC's voting and decision shapes, against scikit-learn's SVC."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, make_blobs
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmcore.estimators import SVMClassifier
from svmcore.estimators._proba import couple_pairs, platt_fit, platt_proba


# SVC(probability=True), the reference, is deprecated in favour of CalibratedClassifierCV
pytestmark = pytest.mark.filterwarnings("ignore:The `probability` parameter:FutureWarning")


def _svc_proba(**kw):
    return SVC(probability=True, random_state=0, **kw)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), ytr, sc.transform(Xte), yte


def test_smo_log_loss_on_breast_cancer_within_ten_percent_of_svc(cancer):
    Xtr, ytr, Xte, yte = cancer
    m = SVMClassifier(solver="smo", kernel="rbf", probability=True, random_state=0).fit(Xtr, ytr)
    ours = log_loss(yte, m.predict_proba(Xte))
    ref = log_loss(yte, _svc_proba().fit(Xtr, ytr).predict_proba(Xte))
    assert ours <= 1.1 * ref, (ours, ref)                 # 0.1115 against 0.1102
    assert ours < 0.13
    P = m.predict_proba(Xte)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(m.predict_log_proba(Xte), np.log(P))
    again = SVMClassifier(solver="smo", kernel="rbf", probability=True,
                          random_state=0).fit(Xtr, ytr).predict_proba(Xte)
    np.testing.assert_array_equal(P, again)               # the CV folds follow random_state


def test_smo_log_loss_on_a9a_within_ten_percent_of_svc(data_folder):
    from svmcore.data import read_libsvm
    X, y = read_libsvm(data_folder / "a9a" / "a9a.xz", n_features=123)
    Xt, yt = read_libsvm(data_folder / "a9a" / "a9a.t.xz", n_features=123)
    rng = np.random.default_rng(0)
    i = rng.choice(X.shape[0], 2000, replace=False)
    j = rng.choice(Xt.shape[0], 4000, replace=False)
    m = SVMClassifier(solver="smo", kernel="rbf", probability=True, random_state=0).fit(X[i], y[i])
    ours = log_loss(yt[j], m.predict_proba(Xt[j]))
    ref = log_loss(yt[j], _svc_proba().fit(X[i], y[i]).predict_proba(Xt[j]))
    assert ours <= 1.1 * ref, (ours, ref)                 # 0.3604 against 0.3606


def test_predict_proba_exists_only_with_probability():
    assert not hasattr(SVMClassifier(solver="smo"), "predict_proba")
    assert hasattr(SVMClassifier(solver="smo", probability=True), "predict_proba")


def test_platt_fit_recovers_a_known_sigmoid():
    rng = np.random.default_rng(0)
    f = rng.normal(0.0, 2.0, 20_000)
    y = np.where(rng.random(f.size) < platt_proba(f, -1.5, 0.3), 1.0, -1.0)
    A, B = platt_fit(f, y)
    assert A == pytest.approx(-1.5, abs=0.06) and B == pytest.approx(0.3, abs=0.06)


def test_pairwise_coupling_of_consistent_pairs_gives_the_class_probabilities():
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    r = np.column_stack([p[:, i] / (p[:, i] + p[:, j]) for i, j in ((0, 1), (0, 2), (1, 2))])
    np.testing.assert_allclose(couple_pairs(r, 3), p, atol=1e-9)


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("data", ["iris", "blobs"])
def test_one_vs_one_predicts_like_svc(data):
    if data == "iris":
        X, y = _iris()
    else:
        X, y = make_blobs(300, centers=4, cluster_std=2.5, random_state=0)
    m = SVMClassifier(solver="smo", kernel="rbf", multi_class="ovo").fit(X, y)
    ref = SVC().fit(X, y)
    assert np.mean(m.predict(X) == ref.predict(X)) == 1.0
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-3)
    k = len(np.unique(y))
    ovo = SVMClassifier(solver="smo", kernel="rbf", multi_class="ovo",
                        decision_function_shape="ovo").fit(X, y)
    assert ovo.decision_function(X).shape == (X.shape[0], k * (k - 1) // 2)
    ref_ovo = SVC(decision_function_shape="ovo").fit(X, y)
    np.testing.assert_allclose(ovo.decision_function(X), ref_ovo.decision_function(X), atol=1e-3)


def test_one_vs_one_probabilities_on_iris():
    X, y = _iris()
    m = SVMClassifier(solver="smo", kernel="rbf", multi_class="ovo", probability=True,
                      random_state=0).fit(X, y)
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    ref = _svc_proba().fit(X, y).predict_proba(X)
    assert np.mean(P.argmax(1) == ref.argmax(1)) >= 0.97
    assert log_loss(y, P) <= 1.2 * log_loss(y, ref)


def test_stochastic_solver_one_vs_one_agrees_with_svc_on_iris():
    X, y = _iris()
    m = SVMClassifier(solver="pegasos", kernel="rbf", multi_class="ovo", random_state=0).fit(X, y)
    assert np.mean(m.predict(X) == SVC().fit(X, y).predict(X)) >= 0.95
