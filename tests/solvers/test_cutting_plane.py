"""CPSP against the dense NumPy versions of Algorithms 2 and 3, its cut QP against an exact
active-set enumeration, its ε guarantee, and the L1-SVM optimum computed independently."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from reference import cpsp_constant_reference, cpsp_linear_reference, cut_dual_bruteforce
from svmcore import solvers
from svmcore.solvers.objectives import primal_objective
from svmcore.runs.run import TrainingRun
from svmcore.solvers.cutting_plane import CuttingPlaneSolver, solve_cut_dual


def _moons(n=120, noise=0.25, seed=0):
    X, y = make_moons(n, noise=noise, random_state=seed)
    return X, 2.0 * y - 1.0


def test_cut_qp_matches_active_set_enumeration():
    rng = np.random.default_rng(0)
    worst = 0.0
    for T in (1, 2, 3, 5, 8):
        for trial in range(6):
            k = T + 2 if trial % 2 == 0 else max(1, T - 1)          # full rank / rank-deficient
            B = rng.normal(size=(T, k))
            G = B @ B.T * rng.uniform(0.01, 1.0)
            c = rng.uniform(0.0, 1.0, T)
            Cp = [0.1, 1.0, 10.0, 1000.0][trial % 4]
            a = solve_cut_dual(G, c, Cp)
            a_ref, v_ref = cut_dual_bruteforce(G, c, Cp)
            v = -0.5 * a @ G @ a + c @ a
            assert a.min() >= 0.0 and a.sum() <= Cp * (1 + 1e-12)
            assert v >= v_ref - 1e-12 * max(1.0, abs(v_ref)), (T, trial, v, v_ref)
            worst = max(worst, abs(v - v_ref) / max(abs(v_ref), 1e-300))
    assert worst < 1e-12


@pytest.mark.parametrize("sampling,ref", [("linear", cpsp_linear_reference),
                                          ("constant", cpsp_constant_reference)])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_matches_reference(sampling, ref, fit_intercept, sparse):
    X, y = _moons()
    C, gamma, r, eps = 2.0, 1.0, 30, 1e-3
    s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=gamma, sampling=sampling, sample_size=r,
                           epsilon=eps, fit_intercept=fit_intercept, max_inactive=5)
    s.init(sp.csr_matrix(X) if sparse else X, y, seed=4)
    s.step(10_000)
    beta, t, conv, log = ref(rbf_kernel(X, gamma=gamma), y, C, r, eps, 4, solve_cut_dual,
                             add_one=float(fit_intercept), max_inactive=5)
    assert s.converged and conv and s.t == t
    support, coef, b = s.support_coef()
    mine = np.zeros(len(y))
    mine[support] = coef
    np.testing.assert_allclose(mine, beta, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(s.alpha, log[-1][2], rtol=1e-8, atol=1e-9 * s.Cp)
    assert s.n_cuts == len(log[-1][2]) and s.n_cuts_added == len(log)
    assert b == (pytest.approx(coef.sum()) if fit_intercept else 0.0)
    assert s.n_removed > 0                                  # max_inactive=5 pruned some cuts


def test_linear_epsilon_guarantee_and_snapshot():
    """At termination the primal objective is within ε of the final cut model (Algorithm 3 uses
    the exact cut as its stopping test); every reported number is recomputed from scratch."""
    X, y = _moons(300)
    C, gamma, eps = 1.0, 1.0, 1e-3
    s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=gamma, sample_size=100, epsilon=eps)
    s.init(X, y, seed=0)
    s.step(10_000)
    snap = s.snapshot()
    assert s.converged and snap.converged
    assert snap.gap is None and not snap.dual_is_bound and "not a bound" in snap.dual_name
    assert snap.extra["model_gap"] <= eps
    support, coef, _ = s.support_coef()
    K = rbf_kernel(X, gamma=gamma)
    f = K[:, support] @ coef
    np.testing.assert_allclose(s.decision_function(X), f, atol=1e-10)
    wsq = coef @ K[np.ix_(support, support)] @ coef
    lam = 1.0 / (C * len(y))
    assert snap.objective == pytest.approx(primal_objective(f, y, wsq, lam=lam), rel=1e-10)
    # the model value: ½λ‖w‖² + max(0, max_t c_t + ⟨w, g_t⟩); the QP's own dual value is equal
    gs = [np.zeros(len(y)) for _ in range(s.n_cuts)]
    for g, pts, cf in zip(gs, s.pts, s.coef):
        g[pts] = cf
    xi = max(0.0, max(c + g @ K @ (np.bincount(support, coef, len(y))) for c, g in zip(s.c, gs)))
    assert snap.extra["xi"] == pytest.approx(xi, rel=1e-9)
    assert snap.dual_objective == pytest.approx(0.5 * lam * wsq + xi, rel=1e-10)
    assert snap.extra["cut_model"] == snap.dual_objective
    assert snap.extra["qp_dual"] == pytest.approx(snap.dual_objective, rel=1e-8)
    assert snap.extra["model_gap"] == pytest.approx(snap.extra["mean_hinge"] - xi, abs=1e-12)
    assert snap.extra["n_cuts"] == s.n_cuts and snap.kernel_evals == s.kernel_evals > 0
    assert "λ-form" in snap.objective_name


def _svm_optimum_no_bias(K, y, C):
    """P*_λ of the L1-SVM without bias: its dual max Σα − ½αᵀQα, 0 ≤ α ≤ C, by Clarabel."""
    import clarabel
    n = len(y)
    Q = np.outer(y, y) * K
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-12
    Acon = sp.csc_matrix(np.vstack([-np.eye(n), np.eye(n)]))
    b = np.concatenate([np.zeros(n), C * np.ones(n)])
    a = np.array(clarabel.DefaultSolver(sp.csc_matrix(np.triu(Q)), -np.ones(n), Acon, b,
                                        [clarabel.NonnegativeConeT(2 * n)], st).solve().x)
    f = K @ (a * y)
    return primal_objective(f, y, a @ Q @ a, lam=1.0 / (C * n))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_close_to_the_svm_optimum(fit_intercept):
    """Sampled cuts are not exact lower bounds, so CPSP is close to, not at, the optimum
    (Theorem 2: the excess shrinks like 1/√r). Measured on 300 moons, 5 seeds, ε = 1e-3:
    P − P* ≈ 0.016 (r = 30) and 0.003 (r = 300) with P* = 0.180."""
    X, y = _moons(300)
    C, gamma = 1.0, 1.0
    K = rbf_kernel(X, gamma=gamma) + float(fit_intercept)
    p_star = _svm_optimum_no_bias(K, y, C)
    excess = {}
    for r in (30, 300):
        out = []
        for seed in range(3):
            s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=gamma, sample_size=r,
                                   fit_intercept=fit_intercept)
            s.init(X, y, seed=seed)
            s.step(10_000)
            assert s.converged
            out.append(s.snapshot().objective - p_star)
        excess[r] = float(np.mean(out))
        assert min(out) >= -1e-9
    assert excess[300] < 0.05 * p_star and excess[300] < excess[30], excess


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_at_the_papers_r_within_8_and_30_percent_of_the_optimum(fit_intercept):
    """The paper's sample sizes (Sec. 6: r = 400 for linear-time cuts, r = 1000 for constant-time
    cuts) against the exact optimum P* of the same λ-form (no bias; a regularised bias is the
    kernel + 1), 300 moons, C = 10, γ = 2, seeds 0-2: linear-time within 8 % of P* (measured
    2.4–4.8 %), constant-time within 30 % (measured 6.9–14 %); never below P*."""
    X, y = _moons(300, noise=0.3)
    C, gamma = 10.0, 2.0
    p_star = _svm_optimum_no_bias(rbf_kernel(X, gamma=gamma) + float(fit_intercept), y, C)
    for sampling, r, bound in (("linear", 400, 0.08), ("constant", 1000, 0.30)):
        rel = []
        for seed in range(3):
            s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=gamma, sampling=sampling,
                                   sample_size=r, fit_intercept=fit_intercept)
            s.init(X, y, seed=seed)
            s.step(10_000)
            assert s.converged
            rel.append((s.snapshot().objective - p_star) / p_star)
        assert min(rel) >= -1e-9 and max(rel) < bound, (sampling, rel)


def test_constant_time_does_not_touch_all_points():
    """Algorithm 2 evaluates kernels only between sampled points and the cuts' points."""
    X, y = _moons(2000, noise=0.3)
    s = CuttingPlaneSolver(C=1.0, kernel="rbf", gamma=1.0, sampling="constant", sample_size=50)
    s.init(X, y, seed=1)
    s.step(10_000)
    assert s.converged
    # per iteration at most r·|U| + r² kernel values, |U| ≤ r·(cuts added)
    assert s.kernel_evals <= s.t * (50 * 50 * s.n_cuts_added + 50 * 50)
    assert s.kernel_evals < s.t * s.n * 50                  # far below the linear-time cost
    snap = s.snapshot()
    assert snap.extra["newest_cut_violation"] <= s.eps     # the last p draws were not violated
    acc = np.mean(np.where(s.decision_function(X) >= 0, 1.0, -1.0) == y)
    assert acc > 0.85


def test_chunking_seed_and_max_iter():
    X, y = _moons(200)
    kw = dict(C=1.0, kernel="rbf", gamma=1.0, sample_size=40)
    a, b = CuttingPlaneSolver(**kw), CuttingPlaneSolver(**kw)
    a.init(X, y, seed=2)
    b.init(X, y, seed=2)
    a.step(1000)
    while b.step(3):
        pass
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.t == b.t and a.kernel_evals == b.kernel_evals
    c = CuttingPlaneSolver(**kw, max_iter=5)
    c.init(X, y, seed=2)
    assert c.step(1000) == 5 and c.t == 5 and not c.converged
    d = CuttingPlaneSolver(**kw)
    d.init(X, y, seed=3)
    d.step(1000)
    assert not np.array_equal(a.support_coef()[1], d.support_coef()[1])


def test_first_cut_and_initial_state():
    X, y = _moons(50)
    s = CuttingPlaneSolver(C=1.0, kernel="rbf", gamma=1.0, sample_size=20)
    s.init(X, y, seed=0)
    snap = s.snapshot()
    assert snap.t == 0 and snap.objective == 1.0 and snap.extra["model_gap"] == 1.0
    assert snap.n_sv == 0 and snap.gap is None and snap.extra["dual_lower_bound"] == 0.0
    assert not s.converged and s.intercept_ == 0.0
    s.step(1)
    # at w = 0 every point is a violator: c = 1 and the single cut's α = min(C n, c / G_11)
    assert s.c[0] == 1.0
    assert s.alpha[0] == pytest.approx(min(s.Cp, 1.0 / s.G[0, 0]), rel=1e-9)
    assert s.kernel_evals == len(np.unique(s.pts[0])) * 50


def test_a_failed_qp_stops_the_run_with_a_message(monkeypatch):
    import svmcore.solvers.cutting_plane as cp
    X, y = _moons(60)
    s = CuttingPlaneSolver(C=1.0, kernel="rbf", gamma=1.0, sample_size=20)
    s.init(X, y, seed=0)
    s.step(2)
    before = s.decision_function(X)

    def broken(G, c, Cp, warm=None):
        raise RuntimeError("the cut QP failed (NumericalError)")
    monkeypatch.setattr(cp, "solve_cut_dual", broken)
    assert s.step(5) == 1 and s.diverged and "QP failed" in s.message
    assert s.step(5) == 0 and not s.converged
    np.testing.assert_allclose(s.decision_function(X), before)   # the new cut has α = 0
    assert s.snapshot().diverged and np.isfinite(s.snapshot().objective)


def test_parameter_guards():
    with pytest.raises(ValueError, match="sampling"):
        CuttingPlaneSolver(sampling="quadratic")
    with pytest.raises(ValueError, match="sample_size"):
        CuttingPlaneSolver(sample_size=0)
    with pytest.raises(ValueError, match="epsilon"):
        CuttingPlaneSolver(epsilon=0.0)
    with pytest.raises(ValueError, match="patience"):
        CuttingPlaneSolver(patience=0)


def test_training_run_and_estimator(monkeypatch):
    monkeypatch.setitem(solvers.REGISTRY, "cpsp", CuttingPlaneSolver)
    from sklearn.utils.estimator_checks import check_estimator
    from svmcore.estimators import expected_failed_checks

    from svmcore.estimators import SVMClassifier
    X, y = _moons(400, noise=0.3)
    run = TrainingRun("cpsp", X[:300], y[:300], X[300:], y[300:], C=1.0, kernel="rbf",
                      gamma=1.0, sample_size=100).run()
    assert run.status == "converged" and run.trace[-1].iteration == run.t
    svc = SVC(C=1.0, gamma=1.0).fit(X[:300], y[:300]).score(X[300:], y[300:])
    m = SVMClassifier(solver="cpsp", kernel="rbf", gamma=1.0, C=1.0,
                      solver_params={"sample_size": 100}, random_state=0).fit(X[:300], y[:300])
    assert m.solver_.p["fit_intercept"] is True          # SVMClassifier's default is passed on
    assert m.score(X[300:], y[300:]) >= svc - 0.03
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SVMClassifier(solver="cpsp", kernel="rbf")
        results = check_estimator(est, on_fail=None,
                                  expected_failed_checks=expected_failed_checks(est))
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert not failed


@pytest.mark.slow
def test_a9a_linear_time_r400_close_to_svc(data_folder):
    """CPSP (linear-time cuts, r = 400) on a9a with SVC's parameters (C = 1.5, σ = 10): test
    accuracy within 1 point of SVC's 84.92% (REFERENCE.md).

    Run to ε = 3e-3 (99 cuts, 84.98 %) rather than the default 1e-3 (~140 cuts, 84.74 %): each
    cut's exact-cut test is a decision over all 32,561 rows against the growing basis (≈ 0.25 s
    a cut here), and the accuracy is there by 3e-3. The 1e-3 run is the report's CPSP row
    (``python -m svmcore.bench report --suites papers``)."""
    from svmcore.data import load_dataset
    ds = load_dataset("a9a")
    s = CuttingPlaneSolver(C=1.5, kernel="rbf", gamma=0.005, sample_size=400,
                           fit_intercept=True, epsilon=3e-3)
    s.init(ds.X_train, ds.y_train, seed=0)
    s.step(s.horizon)
    snap = s.snapshot()
    assert s.converged and snap.extra["model_gap"] <= 3e-3
    acc = np.mean(np.where(s.decision_function(ds.X_test) >= 0, 1.0, -1.0) == ds.y_test)
    assert acc >= 0.8492 - 0.01, acc


class _FirstRows:
    """A generator whose integers(0, n, r) draw from the first ``m`` rows only, whatever n."""

    def __init__(self, seed, m):
        self.g, self.m = np.random.default_rng(seed), m

    def integers(self, low, high, size):
        return self.g.integers(low, self.m, size)


def test_constant_time_kernel_evaluations_per_iteration_do_not_depend_on_n():
    """Algorithm 2 on n = 500 and on the same 500 points plus 1,500 others, the draws confined to
    the common 500 and C·n the same (the cut QP's C_p): every iteration costs the same kernel
    evaluations and gives the same model (no pass over the n points). Algorithm 3's cut costs
    n per distinct sampled point."""
    X, y = _moons(2000, noise=0.3)
    per_iter, models = [], []
    for n in (500, 2000):
        s = CuttingPlaneSolver(C=500.0 / n, kernel="rbf", gamma=1.0, sampling="constant",
                               sample_size=40, fit_intercept=True)
        s.init(X[:n], y[:n], seed=0)
        s.rng = _FirstRows(7, 500)
        counts = []
        while s.step(1):
            counts.append(s.kernel_evals)
        assert s.converged and len(counts) > 20
        per_iter.append(np.diff([0] + counts))
        support, coef, b = s.support_coef()
        models.append((support, coef, b))
    np.testing.assert_array_equal(per_iter[0], per_iter[1])
    np.testing.assert_array_equal(models[0][0], models[1][0])
    np.testing.assert_allclose(models[0][1], models[1][1], rtol=1e-9)
    assert per_iter[1].max() < 2000 * 40                 # below one linear-time cut
    for n in (500, 2000):
        s = CuttingPlaneSolver(C=1.0, kernel="rbf", gamma=1.0, sampling="linear", sample_size=40)
        s.init(X[:n], y[:n], seed=0)
        s.step(1)
        assert s.kernel_evals == n * s.pts[0].size
