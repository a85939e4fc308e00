"""Pegasos against the line-by-line NumPy reference, against scikit-learn's optima, and its
own invariants (dual = primal for the linear kernel, chunking, determinism, divergence)."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from reference import pegasos_kernel_reference, pegasos_linear_reference
from svmcore.solvers.objectives import lam_from_C
from svmcore.solvers.base import SampleStream, averaging_start
from svmcore.solvers.pegasos import PegasosSolver


def _problem(n=120, d=6, seed=0):
    X, y = make_classification(n, d, n_informative=4, random_state=seed)
    X[np.random.default_rng(seed).random(X.shape) < 0.3] = 0.0
    return X, 2.0 * y - 1.0


def _stream(n, seed, m):
    return SampleStream(n, seed, "iid").take(m)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("k,project,fit_intercept,averaging", [
    (1, True, False, None), (1, False, False, None), (4, True, True, None),
    (3, True, False, 0.5), (1, True, True, 50), (2, False, True, 1.0)])
@pytest.mark.smoke
def test_linear_matches_reference(sparse, k, project, fit_intercept, averaging):
    X, y = _problem()
    C, epochs = 0.5, 3
    s = PegasosSolver(C=C, batch_size=k, projection=project, fit_intercept=fit_intercept,
                      averaging=averaging, epochs=epochs)
    s.init(sp.csr_matrix(X) if sparse else X, y, seed=7)
    s.step(s.horizon)
    lam = lam_from_C(C, len(y))
    idx = _stream(len(y), 7, s.horizon * k)
    w_ref, b_ref = pegasos_linear_reference(
        X, y, lam, idx, k=k, project=project, fit_intercept=fit_intercept,
        avg_start=None if averaging is None else averaging_start(averaging, s.horizon))
    w, b = s.model()
    np.testing.assert_allclose(w, w_ref, rtol=1e-9, atol=1e-12)
    assert b == pytest.approx(b_ref, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_average_survives_many_rescalings_of_w(sparse):
    """w = a·v is rescaled whenever a falls below 1e-9; with a constant η and η·λ = 0.9 every
    step shrinks a tenfold, so a 3-epoch run rescales ~60 times while it averages: the average
    stays the reference's (the running sum folds B·v into U at each rescaling)."""
    X, y = _problem()
    n, eta0 = len(y), 1.0
    C = 1.0 / (0.9 * n * eta0)                   # λ = 1/(C n) = 0.9 / η0
    s = PegasosSolver(C=C, schedule="constant", eta0=eta0, epochs=3, projection=False,
                      averaging=1.0)
    s.init(sp.csr_matrix(X) if sparse else X, y, seed=2)
    s.step(s.horizon)
    lam = lam_from_C(C, n)
    w_ref, _ = pegasos_linear_reference(X, y, lam, _stream(n, 2, s.horizon), project=False,
                                        eta=lambda t: eta0, avg_start=1)
    w, _ = s.model()
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, w_ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("schedule", ["sqrt", "invscaling", "kecman"])
def test_linear_other_schedules_match_reference(schedule):
    X, y = _problem()
    C, eta0 = 2.0, 0.3
    s = PegasosSolver(C=C, schedule=schedule, eta0=eta0, epochs=2, projection=False)
    s.init(X, y, seed=1)
    s.step(s.horizon)
    lam = lam_from_C(C, len(y))
    eta = s.schedule.values
    w_ref, _ = pegasos_linear_reference(X, y, lam, _stream(len(y), 1, s.horizon), project=False,
                                        eta=lambda t: eta([t], lam, C)[0])
    np.testing.assert_allclose(s.model()[0], w_ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("k,project,averaging", [(1, False, None), (3, True, 0.5), (2, True, 40)])
def test_dual_form_with_linear_kernel_gives_the_primal_iterates(k, project, averaging):
    X, y = _problem()
    kw = dict(C=0.3, batch_size=k, projection=project, averaging=averaging, epochs=2)
    p = PegasosSolver(**kw)
    dl = PegasosSolver(dual=True, **kw)
    for s in (p, dl):
        s.init(X, y, seed=3)
        s.step(s.horizon)
    beta, b = dl.model()
    np.testing.assert_allclose((beta * y) @ X, p.model()[0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(dl.decision_function(X), p.decision_function(X), rtol=1e-8,
                               atol=1e-10)
    assert dl.kernel_evals > 0 and p.kernel_evals == 0


def test_kernel_matches_alpha_count_reference():
    X, y = make_moons(150, noise=0.2, random_state=0)
    y = 2.0 * y - 1.0
    C, gamma = 1.0, 2.0
    s = PegasosSolver(C=C, kernel="rbf", gamma=gamma, projection=False, epochs=4)
    s.init(X, y, seed=5)
    s.step(s.horizon)
    lam = lam_from_C(C, len(y))
    beta_ref, alpha_ref = pegasos_kernel_reference(rbf_kernel(X, gamma=gamma), y, lam,
                                                   _stream(len(y), 5, s.horizon))
    np.testing.assert_array_equal(s.alpha_counts, alpha_ref)
    np.testing.assert_allclose(s.model()[0], beta_ref, rtol=1e-9, atol=1e-14)
    # the cost counter: one kernel value per support vector per margin
    assert s.kernel_evals > 0
    snap = s.snapshot()
    assert snap.n_sv == np.count_nonzero(alpha_ref)
    np.testing.assert_array_equal(snap.support, np.flatnonzero(alpha_ref))


def test_kernel_projection_keeps_norm_in_the_ball():
    X, y = make_moons(100, noise=0.2, random_state=0)
    y = 2.0 * y - 1.0
    s = PegasosSolver(C=100.0, kernel="rbf", gamma=1.0, projection=True, batch_size=3, epochs=3)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    # the incrementally tracked ‖w‖² equals the exact one, and respects the ball
    assert s.sc[6] == pytest.approx(s.w_sqnorm(), rel=1e-8)
    assert s.w_sqnorm() * s.lam <= 1.0 + 1e-9


def test_chunking_does_not_change_the_run():
    X, y = _problem()
    a = PegasosSolver(C=1.0, kernel="rbf", gamma=0.5, batch_size=2)
    b = PegasosSolver(C=1.0, kernel="rbf", gamma=0.5, batch_size=2)
    a.init(X, y, seed=11)
    b.init(X, y, seed=11)
    a.step(1000)
    for _ in range(10):
        b.step(100)
    np.testing.assert_array_equal(a.model()[0], b.model()[0])
    assert a.kernel_evals == b.kernel_evals and a.t == b.t == 1000


def test_divergence_is_caught_and_explained():
    X, y = _problem()
    s = PegasosSolver(C=1.0, schedule="constant", eta0=1e12, projection=False)
    s.init(X, y, seed=0)
    done = s.step(10_000)
    assert s.diverged and done < 10_000
    assert "diverged" in s.message and "step size" in s.message
    assert s.step(10) == 0                     # a diverged solver does not go on


def test_parameter_guards_name_the_parameter():
    with pytest.raises(ValueError, match=r"C must be in \(0"):
        PegasosSolver(C=0.0)
    with pytest.raises(ValueError, match="batch_size"):
        s = PegasosSolver(batch_size=500)
        s.init(*_problem(), seed=0)
    with pytest.raises(ValueError, match="averaging"):
        PegasosSolver(averaging=1.5)
    with pytest.raises(ValueError, match="unknown parameter"):
        PegasosSolver(lam=0.1)
    with pytest.raises(ValueError, match="labels must be -1 or \\+1"):
        PegasosSolver().init(np.zeros((3, 2)), np.array([0.0, 1.0, 1.0]))


def test_averaging_window():
    assert averaging_start(None, 100) > 10**12
    assert averaging_start(0.5, 100) == 51
    assert averaging_start(1.0, 100) == 1
    assert averaging_start(0.01, 1000) == 991
    assert averaging_start(30, 100) == 71
    assert averaging_start(500, 100) == 1


def test_kernel_pegasos_accuracy_close_to_svc():
    """Kernel Pegasos on a toy set: test accuracy within 2 points of SVC (same kernel and C)."""
    X, y = make_moons(600, noise=0.25, random_state=1)
    y = 2.0 * y - 1.0
    Xtr, ytr, Xte, yte = X[:400], y[:400], X[400:], y[400:]
    svc = SVC(C=1.0, gamma=1.0).fit(Xtr, ytr).score(Xte, yte)
    s = PegasosSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=20)
    s.init(Xtr, ytr, seed=0)
    s.step(s.horizon)
    acc = np.mean(np.where(s.decision_function(Xte) >= 0, 1.0, -1.0) == yte)
    assert acc >= svc - 0.02, (acc, svc)


def test_snapshot_objective_uses_the_exact_norm():
    X, y = make_moons(120, noise=0.2, random_state=0)
    y = 2.0 * y - 1.0
    s = PegasosSolver(C=1.0, kernel="rbf", gamma=1.0, averaging=0.5, epochs=3)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    f = s.decision_function(X)
    want = 0.5 * s.lam * s.w_sqnorm() + np.maximum(0, 1 - y * f).mean()
    assert s.snapshot().objective == pytest.approx(want, rel=1e-10)
