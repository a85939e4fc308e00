"""SFW / MSFW against the line-by-line NumPy reference (Algorithms 1-4), against independent optima
of (aD) and of the L2-SVM (Clarabel + exact KKT polish, liblinear), and their own invariants."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_moons
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.svm import LinearSVC

from reference import sfw_reference, simplex_qp_optimum
from svmcore import solvers
from svmcore.runs.run import TrainingRun
from svmcore.solvers.base import SampleStream
from svmcore.solvers.frank_wolfe import MSFWSolver, SFWSolver

CLASSES = {"sfw": SFWSolver, "msfw": MSFWSolver}


def _moons(n=300, noise=0.2, seed=0):
    X, y = make_moons(n, noise=noise, random_state=seed)
    return X, 2.0 * y - 1.0


def _A(K, y, C):
    return np.outer(y, y) * (K + 1.0) + np.eye(len(y)) / (2.0 * C)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
@pytest.mark.parametrize("kernel,sparse", [("rbf", False), ("rbf", True), ("linear", False),
                                           ("linear", True)])
def test_matches_reference_step_by_step(name, kernel, sparse):
    X, y = make_classification(150, 6, n_informative=4, random_state=2)
    X[np.random.default_rng(0).random(X.shape) < 0.3] = 0.0
    y = 2.0 * y - 1.0
    C, gamma, epochs = 2.0, 0.3, 4
    s = CLASSES[name](C=C, kernel=kernel, gamma=gamma, epochs=epochs)
    s.init(sp.csr_matrix(X) if sparse else X, y, seed=3)
    s.record_dual = True
    s.step(s.horizon)
    K = rbf_kernel(X, gamma=gamma) if kernel == "rbf" else linear_kernel(X)
    stream = SampleStream(len(y), 3, "permutation").take(s.horizon)
    a, g, q, S, log = sfw_reference(K, y, C, s.p0, stream, away=s.away)
    np.testing.assert_allclose(s.alpha, a, rtol=1e-9, atol=1e-13)
    assert list(s.working_set) == list(S)
    np.testing.assert_allclose(s.gradient, g, rtol=1e-9, atol=1e-12)
    assert s.q == pytest.approx(q, rel=1e-10)
    np.testing.assert_allclose(np.concatenate(s.dual_trace), [e[3] for e in log], rtol=1e-10)
    snap = s.snapshot()
    assert snap.extra["vertex"] == log[-1][0] and snap.extra["step"] == log[-1][1]
    kinds = {e[1] for e in log}
    assert kinds == ({"toward", "away"} if name == "msfw" else {"toward"})
    # the maintained g and q are −2Aα and αᵀAα computed from scratch
    A = _A(K, y, C)
    np.testing.assert_allclose(s.gradient, (-2.0 * A @ s.alpha)[s.working_set], rtol=1e-9,
                               atol=1e-12)
    assert s.q == pytest.approx(s.alpha @ A @ s.alpha, rel=1e-10)
    assert s.alpha.sum() == pytest.approx(1.0, abs=1e-12) and s.alpha.min() >= 0.0
    if name == "msfw":
        assert snap.extra["away_steps"] > 0


@pytest.mark.parametrize("name", ["sfw", "msfw"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_csr_rows_from_the_dense_block_equal_the_pairwise_rows(monkeypatch, name, kernel):
    """CSR data: the kernel rows against S come from the working set's dense transposed block
    (BT, d·n ≤ BT_MAX) or, beyond it, from the pairwise sparse rows. Same iterates either way:
    the same working set in the same order, α and g to 1e-12; the block holds S's rows."""
    from svmcore.solvers import frank_wolfe as fw
    X, y = make_classification(200, 12, n_informative=6, random_state=4)
    X[np.random.default_rng(1).random(X.shape) < 0.6] = 0.0
    y = 2.0 * y - 1.0
    runs = []
    for bt_max in (fw.BT_MAX, 0):
        monkeypatch.setattr(fw, "BT_MAX", bt_max)
        s = CLASSES[name](C=2.0, kernel=kernel, gamma=0.2, epochs=3)
        s.init(sp.csr_matrix(X), y, seed=7)
        s.step(s.horizon)
        runs.append(s)
    a, b = runs
    assert a.BT.shape == (12, 200) and b.BT.shape == (0, 0)
    np.testing.assert_array_equal(a.BT[:, :len(a.working_set)].T, X[a.working_set])
    assert list(a.working_set) == list(b.working_set)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.gradient, b.gradient, rtol=1e-12, atol=1e-12)
    assert a.kernel_evals == b.kernel_evals
    # the memory estimate counts the block exactly when it is kept
    assert a.memory_bytes(200, 12, a.X) - fw.data_bytes(200, 12, a.X) == 96 * 200   # BT_MAX 0
    monkeypatch.setattr(fw, "BT_MAX", 1 << 25)
    assert a.memory_bytes(200, 12, a.X) - fw.data_bytes(200, 12, a.X) == 8 * 12 * 200 + 96 * 200
    assert a.memory_bytes(200, 12, None) - fw.data_bytes(200, 12, None) == 8 * 12 * 200 + 96 * 200


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_dense_rows_from_the_block_equal_the_pairwise_rows(monkeypatch, kernel):
    """Dense data: the same block BT (the working set's columns, read contiguously) or the
    pairwise rows give the same working set in the same order and α to rounding (the inner
    products add the same products in another order)."""
    from svmcore.solvers import frank_wolfe as fw
    X, y = make_classification(200, 12, n_informative=6, random_state=4)
    y = 2.0 * y - 1.0
    runs = []
    for bt_max in (fw.BT_MAX, 0):
        monkeypatch.setattr(fw, "BT_MAX", bt_max)
        s = CLASSES["msfw"](C=2.0, kernel=kernel, gamma=0.2, epochs=3)
        s.init(X, y, seed=7)
        s.step(s.horizon)
        runs.append(s)
    a, b = runs
    assert a.BT.shape == (12, 200) and b.BT.shape == (0, 0)
    np.testing.assert_array_equal(a.BT[:, :len(a.working_set)].T, X[a.working_set])
    assert list(a.working_set) == list(b.working_set)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-9, atol=1e-12)
    assert a.kernel_evals == b.kernel_evals


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_dual_objective_never_decreases(name):
    X, y = _moons()
    s = CLASSES[name](C=1.0, kernel="rbf", gamma=0.5, epochs=30)
    s.init(X, y, seed=1)
    s.record_dual = True
    f0 = s.dual_value
    s.step(s.horizon)
    f = np.concatenate([[f0], *s.dual_trace])
    assert f.shape[0] == 9001
    assert np.min(np.diff(f)) >= -1e-14 * abs(f[-1]), np.min(np.diff(f))
    assert f[-1] > f[0]


@pytest.fixture(scope="module")
def aD_optimum():
    X, y = _moons()
    C, gamma = 1.0, 0.5
    A = _A(rbf_kernel(X, gamma=gamma), y, C)
    a_star, q_star = simplex_qp_optimum(A)
    return X, y, C, gamma, A, a_star, q_star


def _first_hit(f, f_star, rel):
    gap = (f_star - f) / abs(f_star)
    hit = np.flatnonzero(gap <= rel)
    return int(hit[0]) + 1 if hit.size else None


def test_msfw_converges_linearly_to_the_optimum_of_aD(aD_optimum):
    """MSFW reaches 1e-6 relative accuracy on (aD); measured: 1e-3 at 1,018 iterations,
    1e-6 at 1,644, 1e-8 at 2,312 (away steps give the linear rate of Theorem 4.2)."""
    X, y, C, gamma, A, a_star, q_star = aD_optimum
    s = MSFWSolver(C=C, kernel="rbf", gamma=gamma, epochs=20)
    s.init(X, y, seed=3)
    s.record_dual = True
    s.step(s.horizon)
    f = np.concatenate(s.dual_trace)
    it3, it6, it8 = (_first_hit(f, -q_star, r) for r in (1e-3, 1e-6, 1e-8))
    assert it6 is not None and it6 <= 3000, (it3, it6, it8)
    assert it8 is not None and (it8 - it6) < 1.5 * (it6 - it3), (it3, it6, it8)
    assert f.max() <= -q_star * (1 - 1e-12)            # never above the optimum
    np.testing.assert_allclose(s.alpha, a_star, atol=1e-4)
    # the snapshot's Frank-Wolfe gap bounds the true suboptimality
    snap = s.snapshot()
    assert snap.gap >= (-q_star - snap.objective) - 1e-15
    assert snap.objective == pytest.approx(-s.alpha @ A @ s.alpha, rel=1e-12)


def test_sfw_reaches_1e3_with_the_sublinear_rate(aD_optimum):
    """SFW (toward steps only) reaches 1e-3 relative accuracy; measured: 1e-2 at 12,235
    iterations, 1e-3 at 221,834 (Theorem 4.1's O(1/k)), versus 1,018 for MSFW."""
    X, y, C, gamma, A, a_star, q_star = aD_optimum
    s = SFWSolver(C=C, kernel="rbf", gamma=gamma, epochs=800)
    s.init(X, y, seed=3)
    s.record_dual = True
    s.step(s.horizon)
    f = np.concatenate(s.dual_trace)
    it2, it3 = _first_hit(f, -q_star, 1e-2), _first_hit(f, -q_star, 1e-3)
    assert it3 is not None, (f[-1] + q_star) / q_star
    assert 10_000 < it3 <= 240_000 and it2 < it3 / 5, (it2, it3)
    assert np.min(np.diff(f)) >= -1e-14 * q_star


def test_rescaled_model_is_the_l2_svm_with_regularised_bias():
    """(w/q, b/q) at the optimum of (aD) solves ½(‖w‖² + b²) + C Σ max(0, 1 − y f)², which is
    liblinear's squared-hinge problem with fit_intercept (intercept_scaling = 1)."""
    X, y = make_classification(200, 5, n_informative=3, random_state=4)
    y = 2.0 * y - 1.0
    C = 0.5
    s = MSFWSolver(C=C, kernel="linear", epochs=200)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    support, coef, b = s.support_coef()
    w = coef @ X[support]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # liblinear's dual CD stops at max_iter here, and where it stops depends on its random
        # order (random_state=4 ends at a primal 6e-4 relative above the optimum): fix it
        ref = LinearSVC(loss="squared_hinge", C=C, fit_intercept=True, intercept_scaling=1.0,
                        dual=True, tol=1e-12, max_iter=1_000_000, random_state=0).fit(X, y)

    def primal(w, b):
        return 0.5 * (w @ w + b * b) + C * np.sum(np.maximum(0.0, 1.0 - y * (X @ w + b)) ** 2)

    assert primal(w, b) <= primal(ref.coef_.ravel(), ref.intercept_[0]) * (1 + 1e-12)
    np.testing.assert_allclose(w, ref.coef_.ravel(), rtol=1e-5, atol=1e-6)
    assert b == pytest.approx(ref.intercept_[0], rel=1e-5, abs=1e-6)
    np.testing.assert_allclose(s.decision_function(X), ref.decision_function(X), atol=1e-5)
    snap = s.snapshot()
    assert snap.extra["l2svm_primal"] == pytest.approx(snap.extra["l2svm_dual"], rel=1e-8)
    assert s.intercept_ == pytest.approx(b)


def test_scaling_trick_reset_and_renormalisation():
    """λ = 1 resets α to a vertex exactly; α = c·β survives many rescalings."""
    X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = np.array([1.0, -1.0, -1.0])
    s = SFWSolver(C=1e6, kernel="rbf", gamma=5.0, epochs=100)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    A = _A(rbf_kernel(X, gamma=5.0), y, 1e6)
    a_star, q_star = simplex_qp_optimum(A)
    assert s.q == pytest.approx(q_star, rel=1e-3)
    assert s.alpha.sum() == pytest.approx(1.0, abs=1e-12)
    assert s.sc[0] > 0.0                                  # the scale c never hit 0


@pytest.mark.parametrize("name,averaging", [("sfw", 0.5), ("msfw", 0.5), ("sfw", 37)])
def test_averaging_is_the_mean_of_the_iterates(name, averaging):
    """averaging: the model is the plain mean of the α iterates in the window (kept in O(1) per
    step as U + B·β), the iterates themselves are untouched, and the decision function is the
    L2-SVM model of ᾱ rescaled by ρ = ᾱᵀAᾱ, like the last iterate's."""
    X, y = _moons(120)
    C, gamma = 1.0, 1.0
    plain = CLASSES[name](C=C, kernel="rbf", gamma=gamma, epochs=2)
    avg = CLASSES[name](C=C, kernel="rbf", gamma=gamma, epochs=2, averaging=averaging)
    plain.init(X, y, seed=4)
    avg.init(X, y, seed=4)
    iterates = []
    for _ in range(avg.horizon):
        avg.step(1)
        iterates.append(avg.alpha)
    plain.step(plain.horizon)
    np.testing.assert_array_equal(avg.alpha, plain.alpha)
    window = 120 if averaging == 0.5 else 37
    abar = np.mean(iterates[-window:], axis=0)
    assert not np.allclose(abar, avg.alpha)
    np.testing.assert_allclose(avg.model_alpha, abar, rtol=1e-10, atol=1e-15)
    assert avg.model_alpha.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(plain.model_alpha, plain.alpha)
    # the model: f(x) = (Σ ᾱ_m y_m k(x_m, x) + yᵀᾱ) / ᾱᵀAᾱ, and the snapshot reports f(ᾱ)
    K = rbf_kernel(X, gamma=gamma)
    A = _A(K, y, C)
    rho = abar @ A @ abar
    np.testing.assert_allclose(avg.decision_function(X), (K @ (abar * y) + abar @ y) / rho,
                               rtol=1e-9, atol=1e-12)
    assert avg.intercept_ == pytest.approx(abar @ y / rho, rel=1e-9, abs=1e-12)
    snap = avg.snapshot()
    assert snap.objective == pytest.approx(-rho, rel=1e-10)
    # ρ of the model is maintained (−½ ᾱᵀḡ from the running sum of the gradients, O(|S|)):
    # it agrees with the one from scratch
    assert snap.extra["averaging_active"] and abs(snap.extra["q_drift"]) <= 1e-10 * rho
    assert snap.objective >= np.mean([-(a @ A @ a) for a in iterates[-window:]]) - 1e-15
    assert snap.n_sv == np.count_nonzero(abar)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_the_last_iterates_bias_jumps_and_the_mean_iterates_does_not(name):
    """Why the time-to-accuracy suite averages SFW from half an epoch on: a step toward p moves
    yᵀα by λ(y_p − yᵀα), and since ρ = αᵀAα is of the order of λ, the last iterate's bias
    yᵀα/ρ jumps by O(1) in margin units from one step to the next; the mean iterate's bias
    moves by 1/(window length) of that."""
    from svmcore.bench.solvers.tta import solver_params
    from svmcore.solvers.params import averaging_start
    X, y = make_classification(600, 6, n_informative=4, weights=[0.85], flip_y=0.02,
                               random_state=3)
    y = 2.0 * y - 1.0
    p = solver_params(name, "ijcnn1")
    s = CLASSES[name](**p)
    s.init(X, y, seed=0)
    start = averaging_start(p["averaging"], s.horizon)
    assert start <= len(y) // 2 + 1                     # the window opens within epoch one
    s.step(start + 50)
    last, mean = [], []
    for _ in range(200):
        s.step(1)
        last.append(float(y @ s.alpha) / s.q)
        mean.append(s.intercept_)
    jumps_last = np.abs(np.diff(last))
    jumps_mean = np.abs(np.diff(mean))
    assert np.median(jumps_last) > 0.05                 # O(1) steps of the bias
    assert np.sum(jumps_mean) < 0.1 * np.sum(jumps_last)


def test_averaging_survives_resets_to_a_vertex():
    """λ = 1 (a step all the way to a vertex: the scale c becomes 0 and β is reset) inside the
    averaging window. Linear kernel, positives on a ray: a shorter positive x_p with
    (Aα)_p ≥ A_pp takes the whole step."""
    X = np.array([[10.0, 0.0], [8.0, 0.0], [6.0, 0.0], [4.0, 0.0], [2.0, 0.0], [1.0, 0.0],
                  [-1.0, 0.5]])
    y = np.array([1.0] * 6 + [-1.0])
    s = SFWSolver(C=1.0, kernel="linear", epochs=3, averaging=1.0)
    s.init(X, y, seed=6)
    iterates, lams = [], []
    for _ in range(s.horizon):
        s.step(1)
        iterates.append(s.alpha)
        lams.append(s.sc[2])
    assert [t for t, lam in enumerate(lams) if lam == 1.0] == [0, 1, 3]   # resets at t > 1 too
    np.testing.assert_allclose(s.model_alpha, np.mean(iterates, axis=0), rtol=1e-10,
                               atol=1e-15)


def test_folding_the_scale_keeps_the_average():
    """Folding c into β (done when c leaves [1e-100, 1e100]) leaves α, ᾱ and the rest of the run
    unchanged (checked by forcing it mid-window)."""
    from svmcore.solvers import frank_wolfe as fw
    X, y = _moons(100)
    runs = [SFWSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=2, averaging=0.5) for _ in "ab"]
    for r in runs:
        r.init(X, y, seed=2)
        r.step(150)
    a, b = runs
    fw._renorm(b.betaS, int(b.ic[fw._NS]), b.sc)
    assert b.sc[fw._C] == 1.0 and a.sc[fw._C] != 1.0
    np.testing.assert_allclose(b.model_alpha, a.model_alpha, rtol=1e-12)
    for r in runs:
        r.step(50)
    np.testing.assert_allclose(b.alpha, a.alpha, rtol=1e-10, atol=1e-16)
    np.testing.assert_allclose(b.model_alpha, a.model_alpha, rtol=1e-10, atol=1e-16)


@pytest.mark.parametrize("averaging", [None, 0.5])
def test_large_evaluations_by_matrix_products_agree(monkeypatch, averaging):
    """Above MATMUL_MIN_EVALS the model is evaluated by matrix products over X (not the
    working-set copy B): same decision values and snapshot (1e-12)."""
    from svmcore.solvers import frank_wolfe as fw
    X, y = _moons(150)
    s = SFWSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=1, averaging=averaging)
    s.init(sp.csr_matrix(X), y, seed=1)
    s.step(s.horizon)
    loop_f, loop_snap = s.decision_function(X), s.snapshot()
    monkeypatch.setattr(fw, "MATMUL_MIN_EVALS", 1)
    s._snap_cache, s._qbar = None, None
    np.testing.assert_allclose(s.decision_function(X), loop_f, rtol=1e-12, atol=1e-13)
    snap = s.snapshot()
    assert snap.objective == pytest.approx(loop_snap.objective, rel=1e-12)
    assert snap.gap == pytest.approx(loop_snap.gap, rel=1e-9, abs=1e-15)


def test_chunking_and_seed():
    X, y = _moons(200)
    runs = []
    for chunks in ([600], [1, 99, 250, 250]):
        s = MSFWSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=3)
        s.init(X, y, seed=5)
        for c in chunks:
            s.step(c)
        runs.append(s)
    a, b = runs
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.kernel_evals == b.kernel_evals and a.t == b.t == 600
    c = MSFWSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=3)
    c.init(X, y, seed=6)
    c.step(600)
    assert not np.array_equal(a.alpha, c.alpha)


def test_snapshot_contract_and_costs():
    X, y = _moons(200)
    s = SFWSolver(C=1.0, kernel="rbf", gamma=1.0, epochs=1.5)
    s.init(X, y, seed=0)
    snap0 = s.snapshot()
    assert snap0.t == 0 and snap0.n_sv == 1 and snap0.kernel_evals == 1
    assert "(aD)" in snap0.objective_name and "L1" in snap0.objective_name
    assert s.horizon == 300 and not s.converged
    s.step(299)
    assert not s.converged
    s.step(1)
    assert s.converged
    snap = s.snapshot()
    assert snap.dual_objective == snap.objective + snap.gap and snap.dual_is_bound
    assert "upper bound" in snap.dual_name and "Frank-Wolfe gap" in snap.gap_name
    assert snap.gap >= 0.0 and snap.extra["step"] == "toward"
    assert snap.extra["working_set_size"] == len(s.working_set) >= snap.n_sv
    assert abs(snap.extra["q_drift"]) < 1e-12
    # two kernel rows of length |S| per iteration at most, plus one K_ii per joining sample
    assert s.kernel_evals <= 1 + 300 * 2 * len(s.working_set) + len(s.working_set)


def test_lost_precision_is_reported_as_divergence():
    """Two copies of one point with opposite labels and a huge polynomial kernel: in float64
    K + 1 + 1/(2C) = K, so q = αᵀAα (= 1/(4C) exactly) rounds to 0; the run stops, says why,
    and the model stays finite."""
    X = np.full((2, 4), 5.0)
    y = np.array([1.0, -1.0])
    s = SFWSolver(C=80.0, kernel="poly", gamma=951.0, degree=4, coef0=1.2, epochs=5)
    s.init(X, y, seed=0)
    s.step(10)
    assert s.diverged and "precision" in s.message
    assert s.step(5) == 0
    assert np.all(np.isfinite(s.decision_function(X)))
    assert np.isfinite(s.snapshot().objective) and s.snapshot().diverged


def test_parameter_guards():
    with pytest.raises(ValueError, match=r"C must be in \[1e-12, 1e\+12\], got -1\.0"):
        SFWSolver(C=-1.0)
    with pytest.raises(ValueError, match="epochs"):
        MSFWSolver(epochs=0)
    with pytest.raises(ValueError, match="unknown parameter"):
        SFWSolver(batch_size=2)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_training_run_and_estimator(monkeypatch, name):
    monkeypatch.setitem(solvers.REGISTRY, name, CLASSES[name])
    from sklearn.utils.estimator_checks import check_estimator
    from svmcore.estimators import expected_failed_checks

    from svmcore.estimators import SVMClassifier
    X, y = _moons(300, noise=0.25)
    run = TrainingRun(name, X[:200], y[:200], X[200:], y[200:], C=1.0, kernel="rbf", gamma=1.0,
                      epochs=2).run()
    assert run.status == "converged" and run.t == 400
    assert run.trace[-1].test_error < 0.15
    m = SVMClassifier(solver=name, kernel="rbf", gamma=1.0, epochs=2, random_state=0)
    m.fit(X[:200], np.where(y[:200] > 0, "b", "a"))
    assert m.score(X[200:], np.where(y[200:] > 0, "b", "a")) > 0.85
    assert m.n_iter_ == 400 and m.dual_coef_.shape[1] == m.support_.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SVMClassifier(solver=name, kernel="rbf")
        results = check_estimator(est, on_fail=None,
                                  expected_failed_checks=expected_failed_checks(est))
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert not failed


# ------------------------------------------------------------------------------ real data (slow)


def _sfw_accuracy(ds, sigma, C, epochs, seeds, dense, averaging=None, last=False):
    """Test accuracy of SFW after ``epochs`` for each seed: of the reported model, or with
    ``last`` a pair (last iterate, reported model) from the same run (averaging does not change
    the iterates, so one run gives both)."""
    Xtr, Xte = ds.X_train, ds.X_test
    if dense:
        Xtr, Xte = Xtr.toarray(), Xte.toarray()

    def acc(f):
        return float(np.mean(np.where(f >= 0, 1.0, -1.0) == ds.y_test))
    out = []
    for seed in seeds:
        s = SFWSolver(C=C, kernel="rbf", gamma=1.0 / (2.0 * sigma ** 2), epochs=epochs,
                      averaging=averaging)
        s.init(Xtr, ds.y_train, seed=seed)
        s.step(s.horizon)
        model = acc(s.decision_function(Xte))
        out.append((acc(s.decision_function(Xte, iterate="last")), model) if last else model)
    return out


@pytest.mark.slow
def test_sfw_one_epoch_svmguide1_and_w3a(data_folder):
    """Paper Table 3, SFW after 1 epoch: svmguide1 96.85%, w3a 98.13% (targets 96.5, 98.0).
    Last iterate, median over seeds 0-2; measured: svmguide1 96.80 / 96.95 / 96.95, w3a
    97.94 / 98.18 / 98.04. Mean of the last half epoch, every seed: svmguide1 96.92 / 97.10 /
    96.95, w3a 98.18 / 98.12 / 98.18 (averaging changes no iterate: one run gives both)."""
    from svmcore.data import load_dataset
    guide, w3a = load_dataset("svmguide1"), load_dataset("w3a")
    g_last, g = zip(*_sfw_accuracy(guide, 20.0, 0.4, 1, range(3), dense=True, averaging=0.5,
                                   last=True))
    w_last, w = zip(*_sfw_accuracy(w3a, 4.0, 5.0, 1, range(3), dense=False, averaging=0.5,
                                   last=True))
    assert np.median(g_last) >= 0.965, g_last
    assert np.median(w_last) >= 0.980, w_last
    assert min(g) >= 0.965, g
    assert min(w) >= 0.980, w


@pytest.mark.slow
def test_sfw_two_epochs_ijcnn1(data_folder):
    """Paper Table 3, SFW after 2 epochs on ijcnn1 (35,000 train / 91,701 test): 98.58%
    (target 98.3). Seed 0: the mean of the last epoch 98.66 %, the last iterate 97.88 (seeds
    1 and 2: 98.58 / 98.54 and 98.45 / 98.53; the median of the last iterates, 98.45, is the
    paper's row — the seeds are measured by ``python -m svmcore.bench frank-wolfe``, the row by
    ``bench report --suites papers``). One run of 2 epochs gives both models; each costs a
    decision over 91,701 × ~3,700 kernel values (~4 s here)."""
    from svmcore.data import load_dataset
    ds = load_dataset("ijcnn1", max_train=35000)
    [(last, avg)] = _sfw_accuracy(ds, 0.61, 5.0, 2, [0], dense=True, averaging=0.5, last=True)
    assert avg >= 0.983, avg
    assert last >= 0.975, last


@pytest.mark.slow
def test_sfw_a9a_after_one_epoch(data_folder):
    """Paper Table 3, SFW on a9a: 85.24% after 1 epoch (target 84.5).

    The paper's last iterate after one pass is a lottery on a9a: each step moves the bias
    yᵀα/ρ by about λ/ρ, still O(1) in margin units, so the test accuracy swings between ≈ 60 and
    85% within the last tenth of the epoch. Measured over seeds 0-9 at the end of epoch 1:
    median 83.37%, min 57.99, max 84.92 (2 of 10 ≥ 84.5); the mean of the iterates of the last
    half epoch (``averaging=0.5``) gives 85.04 / 84.90 / 85.13 for seeds 0-2 (SVC 84.92).
    Checked here for seed 0, in one run (averaging changes no iterate, so the run gives both
    models): the last iterate ≥ 84.0 % (84.28), the mean ≥ 84.5 % (85.04). One epoch over the
    32,561 rows is ~325 M sparse kernel values (~4 s here, from the dense block BT); the second epoch (84.55 / 84.96 /
    84.95 for seeds 0-2), and the other seeds are measured by the benchmarks, not here
    (``python -m svmcore.bench report --suites papers``, ``bench frank-wolfe``)."""
    from svmcore.data import load_dataset
    ds = load_dataset("a9a")
    [(last, avg)] = _sfw_accuracy(ds, 10.0, 0.5, 1, [0], dense=False, averaging=0.5, last=True)
    assert last >= 0.84, last
    assert avg >= 0.845, avg
