"""SMO with WSS 2 (svmcore.solvers.smo) against scikit-learn's SVC (LIBSVM), closed-form cases
and the slow NumPy reference in tests/reference.py."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

from reference import (ShrinkingSMOReference, smo_kkt_bias, smo_pair_update, smo_wss2_reference,
                       smo_wss2_select)
from svmcore import solvers
from svmcore.solvers.objectives import primal_objective
from svmcore.runs.run import TrainingRun
from svmcore.solvers import smo
from svmcore.solvers.smo import SMOSolver

DATASETS = {          # name: (file, n_features)
    "heart": ("heart/heart_scale.xz", 13),
    "breast-cancer": ("breast-cancer/breast-cancer_scale.xz", 10),
    "diabetes": ("diabetes/diabetes_scale.xz", 8),
}


@pytest.fixture(scope="module")
def real(data_folder):
    from svmcore.data import read_libsvm
    out = {}
    for name, (f, d) in DATASETS.items():
        X, y = read_libsvm(data_folder / f, n_features=d)
        out[name] = (X.toarray(), np.where(y == y.max(), 1.0, -1.0))
    return out


def _fit(X, y, **params):
    s = SMOSolver(**params)
    s.init(X, y)
    while not s.converged:
        assert s.step(1 << 20) > 0 or s.converged
    return s


def _gram(X, kernel, gamma):
    return rbf_kernel(X, X, gamma=gamma) if kernel == "rbf" else linear_kernel(X, X)


def _f32(A):
    """A rounded to float32 as the solver's row cache holds Q (LIBSVM's Qfloat): G = Qα − e is
    kept with these values, so the lockstep references run on them too."""
    return A.astype(np.float32).astype(np.float64)


def _svc_dual(m, K):
    """D_C = Σα − ½ Σ (y α)_i (y α)_j K_ij from SVC's dual_coef_ (= y_i α_i up to one sign)."""
    c = np.asarray(m.dual_coef_).ravel()
    sv = m.support_
    return np.abs(c).sum() - 0.5 * c @ K[np.ix_(sv, sv)] @ c


# --------------------------------------------------------------------------- against SVC


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("name", list(DATASETS))
def test_matches_svc_on_real_data(real, name, kernel):
    X, y = real[name]
    perm = np.random.default_rng(0).permutation(len(y))
    ntr = int(0.7 * len(y))
    tr, te = perm[:ntr], perm[ntr:]
    gamma = 1.0 / X.shape[1]
    s = _fit(X[tr], y[tr], C=1.0, kernel=kernel, gamma=gamma, tol=1e-3)
    m = SVC(C=1.0, kernel=kernel, gamma=gamma, tol=1e-3).fit(X[tr], y[tr])
    K = _gram(X[tr], kernel, gamma)
    d_svc = _svc_dual(m, K)
    d_smo = s.dual_objective_C()
    # α in the box, yᵀα = 0, D from G equals D from the Gram matrix
    assert s.alpha.min() >= 0.0 and s.alpha.max() <= 1.0
    assert abs(s.alpha @ y[tr]) < 1e-10
    beta = s.alpha * y[tr]
    # (G is kept with Q's float32 rows: D agrees with the exact Gram to their rounding)
    assert d_smo == pytest.approx(s.alpha.sum() - 0.5 * beta @ _f32(K) @ beta, rel=1e-10)
    assert d_smo == pytest.approx(s.alpha.sum() - 0.5 * beta @ K @ beta, rel=1e-6)
    assert abs(d_smo - d_svc) <= 1e-5 * abs(d_svc)            # measured ≤ 7e-8 relative
    sup, sup_svc = set(s.snapshot().support), set(m.support_)
    assert len(sup ^ sup_svc) <= max(2, len(sup_svc) // 100)  # measured 0 (1 on diabetes-linear)
    # b is pinned down only to about the stopping tolerance (m − M ≤ 1e-3) on each side
    assert abs(s.intercept_ - m.intercept_[0]) <= 3e-3        # measured ≤ 1.5e-3
    agree = np.mean(np.sign(s.decision_function(X[te])) == np.sign(m.decision_function(X[te])))
    assert agree >= 0.995
    assert s.snapshot().extra["max_violation"] <= 1e-3


def test_svmguide1_reference_numbers(data_folder):
    """REFERENCE.md: SVC with C=1, σ=20 has 97.00% test accuracy and 513 SVs on svmguide1."""
    from svmcore.data import read_libsvm
    X, y = read_libsvm(data_folder / "svmguide1" / "svmguide1.xz", n_features=4)
    Xt, yt = read_libsvm(data_folder / "svmguide1" / "svmguide1.t.xz", n_features=4)
    y, yt = np.where(y > 0, 1.0, -1.0), np.where(yt > 0, 1.0, -1.0)
    s = _fit(X, y, C=1.0, kernel="rbf", gamma=1.0 / (2 * 20.0**2))
    acc = np.mean(np.where(s.decision_function(Xt) >= 0, 1.0, -1.0) == yt)
    assert abs(acc - 0.97) <= 0.0025                          # measured 0.9700
    assert abs(s.snapshot().n_sv - 513) <= 10                 # measured 510


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_every_step_follows_the_numpy_reference(real, kernel):
    """Lockstep against the slow NumPy WSS 2 (full Q, no cache): from the solver's state before
    each step, the reference picks the same pair (or one tied to 1e-12 in its criterion: free
    α share −y_t G_t = b at the optimum, so near-ties are normal late in a run) and its update
    gives the same α and G."""
    from svmcore.solvers.kernels import kernel_matrix
    X, y = real["heart"]
    gamma = 1.0 / X.shape[1]
    K = kernel_matrix(X, kernel=kernel, gamma=gamma)   # the bits the solver sees
    np.testing.assert_allclose(K, _gram(X, kernel, gamma), atol=1e-12)
    s = SMOSolver(C=1.0, kernel=kernel, gamma=gamma, shrinking=False)
    s.init(X, y)
    np.testing.assert_allclose(s.QD, np.diag(K), rtol=1e-14)
    Q, QD = _f32(np.outer(y, y) * K), s.QD.copy()   # K_ii from kernel_value, as the solver has it
    ties = 0
    while True:
        a0, G0 = s.alpha.copy(), s.G.copy()
        sel = smo_wss2_select(Q, QD, y, 1.0, a0, G0, tol=1e-3)
        done = s.step(1)
        if sel is None:
            assert done == 0 and s.converged
            break
        assert done == 1
        i, j = s.snapshot().extra["working_pair"]
        if (i, j) != sel[:2]:
            ties += 1
            v = sel[2][0]
            assert abs(v[i] - v[sel[0]]) <= 1e-12         # i: a maximal violator too
            _, jr, (_, score) = smo_wss2_select(Q, QD, y, 1.0, a0, G0, tol=1e-3, i=i)
            assert abs(score[j] - score[jr]) <= 1e-12 * abs(score[jr])
        a1, G1 = smo_pair_update(Q, QD, y, 1.0, a0, G0, i, j)
        np.testing.assert_allclose(s.alpha, a1, rtol=0, atol=1e-14)
        np.testing.assert_allclose(s.G, G1, rtol=0, atol=1e-12)
    assert s.t > 100 and ties <= s.t // 20             # measured: 162 / 0 ties (rbf), 1023 / 0 (linear)
    assert s.intercept_ == pytest.approx(smo_kkt_bias(y, 1.0, s.alpha, s.G), abs=1e-14)


# --------------------------------------------------------------------------- shrinking


SHRINK_CASES = [("heart", "linear", 1.0), ("heart", "rbf", 10.0), ("heart", "rbf", 100.0),
                ("diabetes", "linear", 10.0), ("breast-cancer", "rbf", 100.0)]


def _Q(X, y, kernel, gamma):
    from svmcore.solvers.kernels import kernel_matrix
    K = kernel_matrix(X, kernel=kernel, gamma=gamma)
    return K, np.outer(y, y) * K


@pytest.mark.parametrize("name,kernel,C", SHRINK_CASES)
def test_shrinking_follows_the_libsvm_style_reference(real, name, kernel, C):
    """Lockstep against ShrinkingSMOReference (tests/reference.py: LIBSVM's Solve loop with
    physical swaps on a full Q). Before each step the reference takes the solver's α, G and Ḡ;
    both must then shrink the same variables in the same order (the permutation, the active
    size, the countdown, the one-time unshrink), pick the same pair (or one tied to 1e-12) and
    reach the same α, active gradient and Ḡ. A cache of a few rows makes rows partial, completed
    and evicted throughout."""
    X, y = real[name]
    gamma = 1.0 / X.shape[1]
    K, _ = _Q(X, y, kernel, gamma)
    s = SMOSolver(C=C, kernel=kernel, gamma=gamma, shrinking=True, cache_mb=0.01)
    s.init(X, y)
    assert 2 < s.slots < 20
    r = ShrinkingSMOReference(_f32(K), y, C, QD=s.QD)
    ic = s.ic
    ties, min_active = 0, s.n
    while True:
        for dst, src in ((r.a, s.alpha), (r.G, s.G), (r.Gbar, s.Gbar)):
            dst[:] = src[r.perm]
        done = s.step(1)
        picked = {}

        def pick(sel, picked=picked):
            i, j = (int(np.flatnonzero(r.perm == v)[0]) for v in (ic[smo.IC_PI], ic[smo.IC_PJ]))
            picked["tie"] = (i, j) != tuple(sel[:2])
            if picked["tie"]:
                v = sel[2][0]
                assert abs(v[i] - v[sel[0]]) <= 1e-12          # i: a maximal violator too
                _, jr, (_, score) = r.select(i=i)
                assert abs(score[j] - score[jr]) <= 1e-12 * abs(score[jr])
            return i, j

        ij = r.step(pick)
        np.testing.assert_array_equal(r.perm, s.active)
        assert (r.active, r.counter, r.unshrink) == (s.active_size, ic[smo.IC_COUNTER],
                                                      bool(ic[smo.IC_UNSHRUNK]))
        if ij is None:
            assert done == 0 and s.converged
            break
        assert done == 1
        ties += picked["tie"]
        act = s.active[:s.active_size]
        np.testing.assert_allclose(s.alpha, r.in_caller_order(r.a), rtol=0, atol=1e-13 * C)
        np.testing.assert_allclose(s.G[act], r.G[:r.active], rtol=0, atol=1e-12 * C)
        np.testing.assert_allclose(s.Gbar, r.in_caller_order(r.Gbar), rtol=0, atol=1e-12 * C)
        min_active = min(min_active, s.active_size)
    # the runs really shrank, had their gradient rebuilt and converged on the whole set
    assert min_active < s.n // 2 and ic[smo.IC_GEN] >= 1 and s.active_size == s.n
    assert ties <= s.t // 20
    Qfull = np.outer(y, y) * K
    np.testing.assert_allclose(s.G, _f32(Qfull) @ s.alpha - 1.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(s.G, Qfull @ s.alpha - 1.0, rtol=0, atol=1e-5 * C)
    from svmcore.solvers.smo import max_violation
    assert max_violation(s.alpha, _f32(Qfull) @ s.alpha - 1.0, y, C) <= 1e-3 + 1e-9


@pytest.mark.parametrize("name,kernel,C", SHRINK_CASES[:3])
def test_shrinking_state_holds_its_invariants(real, name, kernel, C):
    """Every 50 iterations: the shrunk variables sit at a bound; G is exact on the active set;
    Ḡ = C Σ_{α_t = C} Q_:t; every cached entry marked valid equals Q; full_gradient() is exact
    everywhere and observing it changes nothing (same trajectory and kernel count as a run that
    is never looked at)."""
    X, y = real[name]
    gamma = 1.0 / X.shape[1]
    _, Q = _Q(X, y, kernel, gamma)
    Q = _f32(Q)                                   # the cached rows' values
    kw = dict(C=C, kernel=kernel, gamma=gamma, shrinking=True, cache_mb=0.01)
    s, blind = SMOSolver(**kw), SMOSolver(**kw)
    s.init(X, y)
    blind.init(X, y)
    valid = s._rc[6]
    seen_partial, min_active = False, s.n
    while not s.converged:
        s.step(50)
        blind.step(50)
        min_active = min(min_active, s.active_size)
        act, out = s.active[:s.active_size], s.active[s.active_size:]
        assert np.array_equal(np.sort(s.active), np.arange(s.n))
        assert np.all((s.alpha[out] <= 0.0) | (s.alpha[out] >= C))
        truth = Q @ s.alpha - 1.0
        np.testing.assert_allclose(s.G[act], truth[act], rtol=0, atol=1e-10)
        np.testing.assert_allclose(s.Gbar, C * Q[:, s.alpha >= C].sum(axis=1), rtol=0, atol=1e-9)
        for slot, row in enumerate(s.row_of):
            if row >= 0:
                whole = s.row_state[slot] == -1        # ``valid`` is kept for partial rows only
                held = np.ones(s.n, bool) if whole else valid[slot]
                np.testing.assert_allclose(s.cache[slot][held], Q[row][held], rtol=0, atol=1e-14)
                seen_partial |= not held.all()
        # shrunk entries are rebuilt with exact kernel values, kept ones with float32 rows
        np.testing.assert_allclose(s.full_gradient(), truth, rtol=0, atol=1e-6 * C)
        snap = s.snapshot()
        assert snap.extra["active_size"] == s.active_size
        assert snap.extra["max_violation"] == pytest.approx(
            smo.max_violation(s.alpha, truth, y, C), abs=1e-5 * C)
    # a row is computed whole while a third or more of the variables are active (dense X)
    assert seen_partial or 3 * min_active >= s.n
    blind.step(1 << 20)
    np.testing.assert_array_equal(blind.alpha, s.alpha)
    assert blind.kernel_evals == s.kernel_evals and blind.t == s.t


def test_shrinking_reaches_libsvm_optimum_with_fewer_kernel_values(real):
    """Against SVC (LIBSVM, shrinking on): the same dual optimum, on every data set and kernel;
    with a cache far smaller than Q, fewer kernel values than the same SMO without shrinking;
    chunking does not matter."""
    for name, (X, y) in real.items():
        for kernel in ("rbf", "linear"):
            gamma = 1.0 / X.shape[1]
            K, _ = _Q(X, y, kernel, gamma)
            plain = _fit(X, y, C=10.0, kernel=kernel, gamma=gamma, cache_mb=0.025,
                         shrinking=False)
            shr = _fit(X, y, C=10.0, kernel=kernel, gamma=gamma, cache_mb=0.025, shrinking=True)
            m = SVC(C=10.0, kernel=kernel, gamma=gamma, tol=1e-3, shrinking=True).fit(X, y)
            ref = _svc_dual(m, K)
            for s in (plain, shr):
                assert s.dual_objective_C() == pytest.approx(ref, rel=1e-4, abs=1e-3), \
                    (name, kernel)
            if shr.t > len(y):                  # shrinking only starts after min(n, 1000) steps
                assert shr.kernel_evals < plain.kernel_evals, (name, kernel)
    X, y = real["heart"]
    runs = _chunked_runs(X, y, ([1] * 1500, [1500], [7] * 214 + [2], [3, 999, 498]),
                         C=10.0, kernel="linear", cache_mb=0.01, shrinking=True)
    assert runs[0].t == 1500 and runs[0].active_size < len(y)
    for s in runs[1:]:
        np.testing.assert_array_equal(s.active, runs[0].active)
        np.testing.assert_array_equal(s.Gbar, runs[0].Gbar)


def test_non_psd_kernel_uses_tau_and_terminates():
    """Polynomial kernel with coef0 < 0 is indefinite: a_ij ≤ 0 happens, τ keeps steps finite."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    K = polynomial_kernel(X, X, degree=3, gamma=1.0, coef0=-2.0)
    a_all = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    assert (a_all <= 0).sum() > 0 and np.linalg.eigvalsh(K).min() < 0
    s = _fit(X, y, C=1.0, kernel="poly", gamma=1.0, coef0=-2.0, degree=3, max_iter=100_000)
    a, _, b, pairs = smo_wss2_reference(K, y, 1.0)
    assert s.converged and s.t == len(pairs)
    np.testing.assert_allclose(s.alpha, a, atol=1e-8)
    assert np.all((s.alpha >= 0) & (s.alpha <= 1.0)) and abs(s.alpha @ y) < 1e-10


# --------------------------------------------------------------------------- closed form


def test_two_points_closed_form():
    """x = 3 (y=+1), x = 1 (y=−1), linear: w = 1, b = −2, α = (½, ½), one SMO step."""
    X = np.array([[3.0], [1.0]])
    y = np.array([1.0, -1.0])
    s = SMOSolver(C=10.0, kernel="linear")
    s.init(X, y)
    assert s.step(1) == 1 and not s.converged
    np.testing.assert_allclose(s.alpha, [0.5, 0.5], atol=1e-15)
    assert s.intercept_ == pytest.approx(-2.0, abs=1e-14)
    assert s.step(5) == 0 and s.converged
    snap = s.snapshot()
    assert snap.extra["working_pair"] == (0, 1)
    assert snap.extra["max_violation"] == pytest.approx(0.0, abs=1e-14)
    # λ-form: P = D = D_C / (C n) = 0.5 / 20
    assert snap.objective == pytest.approx(0.5 / 20, abs=1e-15)
    assert snap.dual_objective == pytest.approx(0.5 / 20, abs=1e-15)
    np.testing.assert_allclose(s.decision_function(np.array([[2.0], [5.0]])), [0.0, 3.0],
                               atol=1e-14)


def test_two_points_box_bound_and_midpoint_bias():
    """Same points, C = 0.2 < ½: α = (C, C), no free α: b is the midpoint of [−1.4, −0.2]."""
    X = np.array([[3.0], [1.0]])
    y = np.array([1.0, -1.0])
    s = _fit(X, y, C=0.2, kernel="linear")
    np.testing.assert_allclose(s.alpha, [0.2, 0.2], atol=1e-15)
    assert s.intercept_ == pytest.approx(-0.8, abs=1e-14)
    snap = s.snapshot()
    assert snap.gap == pytest.approx(0.0, abs=1e-14)           # P_C = D_C = 0.32
    assert snap.objective == pytest.approx(0.32 / 0.4, abs=1e-14)
    assert snap.extra["n_free"] == 0 and snap.n_sv == 2


def test_four_points_separable():
    """SVs (1,1) and (1,−1): w = (0, 1), b = 0, α = ½ on them and 0 elsewhere, D_C = ½."""
    X = np.array([[1.0, 1.0], [-2.0, 2.0], [1.0, -1.0], [0.0, -3.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    for Xin in (X, sp.csr_matrix(X)):
        s = _fit(Xin, y, C=100.0, kernel="linear", tol=1e-12)
        np.testing.assert_allclose(s.alpha, [0.5, 0, 0.5, 0], atol=1e-12)
        assert s.intercept_ == pytest.approx(0.0, abs=1e-12)
        assert s.dual_objective_C() == pytest.approx(0.5, abs=1e-12)
        assert list(s.snapshot().support) == [0, 2]
        sup, coef, b = s.support_coef()
        np.testing.assert_allclose(coef, [0.5, -0.5], atol=1e-12)


# --------------------------------------------------------------------------- engine properties


def _chunked_runs(X, y, chunkings, **params):
    """One SMOSolver per way of cutting the run into step() calls; all must agree bit for bit
    (α, G, the integer state, kernel evaluations). Returns the solvers."""
    runs = []
    for chunks in chunkings:
        s = SMOSolver(**params)
        s.init(X, y)
        for c in chunks:
            s.step(c)
        runs.append(s)
    for s in runs[1:]:
        np.testing.assert_array_equal(s.alpha, runs[0].alpha)
        np.testing.assert_array_equal(s.G, runs[0].G)
        np.testing.assert_array_equal(s.ic, runs[0].ic)
        assert s.kernel_evals == runs[0].kernel_evals
    return runs


def test_chunking_is_bit_identical(real):
    X, y = real["diabetes"]
    runs = _chunked_runs(X, y, ([1] * 400, [400], [7] * 57 + [1], [3, 100, 297]),
                         C=1.0, kernel="rbf", gamma=0.125, cache_mb=0.05, tol=1e-6)  # 17 slots
    assert runs[0].t == 400 and not runs[0].converged
    for s in runs[1:]:
        np.testing.assert_array_equal(s.cache, runs[0].cache)


def test_cache_bound_changes_cost_not_result(real):
    X, y = real["diabetes"]
    n = len(y)
    big = _fit(X, y, C=1.0, kernel="rbf", gamma=0.125, cache_mb=200)
    assert big.slots == n                       # the whole Q fits: each row computed once
    misses = big.snapshot().extra["cache_misses"]
    assert big.kernel_evals == n + n * misses and misses <= n
    for mb in (1e-6, 0.05):
        small = _fit(X, y, C=1.0, kernel="rbf", gamma=0.125, cache_mb=mb)
        assert small.cache.nbytes <= max(mb * 2**20, 2 * 4 * n)      # float32 rows
        assert small.slots == max(2, int(mb * 2**20 // (4 * n)))
        np.testing.assert_array_equal(small.alpha, big.alpha)
        np.testing.assert_array_equal(small.G, big.G)
        assert small.t == big.t
        assert small.kernel_evals > big.kernel_evals
    assert small.snapshot().extra["cache_hits"] > 0


def test_gap_and_violation_go_down_and_converged_fires(real):
    X, y = real["heart"]
    s = SMOSolver(C=1.0, kernel="rbf", gamma=1.0 / 13)
    s.init(X, y)
    first = s.snapshot()
    assert first.objective == pytest.approx(1.0) and first.dual_objective == 0.0
    assert first.gap == pytest.approx(1.0) and first.extra["max_violation"] == pytest.approx(2.0)
    duals, gaps, viols = [], [], []
    while True:
        done = s.step(1)
        snap = s.snapshot()
        if done == 0:
            break
        assert not snap.converged
        duals.append(snap.dual_objective)
        gaps.append(snap.gap)
        viols.append(snap.extra["max_violation"])
    assert snap.converged and s.converged and snap.extra["max_violation"] <= 1e-3
    assert viols[-2] > 1e-3                       # it fired as soon as m − M ≤ tol
    assert np.all(np.diff(duals) > 0)             # every SMO step increases the dual strictly
    assert min(gaps) >= -1e-12                    # weak duality
    assert gaps[-1] < 1e-3 * first.gap
    q = len(gaps) // 4                            # decreasing trend, quarter by quarter
    assert max(gaps[q:2 * q]) < max(gaps[:q]) and max(gaps[3 * q:]) < max(gaps[q:2 * q])
    assert max(viols[3 * q:]) < max(viols[:q])
    assert s.step(10) == 0 and s.t == len(gaps)   # converged: nothing more to do


def test_snapshot_matches_explicit_objectives(real):
    X, y = real["breast-cancer"]
    C, gamma = 2.0, 0.1
    s = SMOSolver(C=C, kernel="rbf", gamma=gamma)
    s.init(X, y)
    s.step(30)
    n = len(y)
    K = rbf_kernel(X, X, gamma=gamma)
    K32 = _f32(K)                  # the snapshot reads G, kept with float32 rows of Q
    beta = s.alpha * y
    b = s.intercept_
    f, f32 = K @ beta + b, K32 @ beta + b
    snap = s.snapshot()
    wsq = beta @ K32 @ beta
    assert snap.objective == pytest.approx(primal_objective(f32, y, wsq, C=C) / (C * n), rel=1e-10)
    assert snap.dual_objective == pytest.approx((s.alpha.sum() - 0.5 * wsq) / (C * n), rel=1e-10)
    assert snap.dual_objective == pytest.approx(
        (s.alpha.sum() - 0.5 * beta @ K @ beta) / (C * n), rel=1e-6)
    assert snap.gap == pytest.approx(snap.objective - snap.dual_objective)
    np.testing.assert_allclose(s.decision_function(X), f, atol=1e-10)
    np.testing.assert_allclose(s.train_scores(), f32, atol=1e-10)
    np.testing.assert_allclose(s.train_scores(), f, atol=1e-6)
    f = f32
    assert snap.extra["train_error"] == np.mean(np.where(f >= 0, 1, -1) != y)
    assert snap.extra["b"] == b and snap.n_sv == np.count_nonzero(s.alpha)
    assert snap.kernel_evals == s.kernel_evals and snap.t == 30


def test_kernel_eval_counting_and_sparse_input(real):
    X, y = real["heart"]
    n = len(y)
    s = SMOSolver(C=1.0, kernel="rbf", gamma=0.1)
    s.init(X, y)
    assert s.kernel_evals == n                   # the diagonal
    s.step(1)
    assert s.kernel_evals == 3 * n               # rows i and j
    d = _fit(X, y, C=1.0, kernel="rbf", gamma=0.1)
    c = _fit(sp.csr_matrix(X), y, C=1.0, kernel="rbf", gamma=0.1)
    assert abs(d.dual_objective_C() - c.dual_objective_C()) <= 1e-6 * d.dual_objective_C()
    np.testing.assert_allclose(c.decision_function(sp.csr_matrix(X)), d.decision_function(X),
                               atol=1e-3)


def test_max_iter_and_params():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    s = SMOSolver(C=1e3, kernel="rbf", gamma=1.0, max_iter=5, tol=1e-9)
    s.init(X, y)
    assert s.horizon == 5
    assert s.step(100) == 5 and s.step(1) == 0 and s.t == 5 and not s.converged
    run = TrainingRun(SMOSolver(C=1.0, kernel="linear", max_iter=7, tol=1e-9), X, y)
    run.run()
    assert run.status == "finished" and run.t == 7
    for bad in ({"cache_mb": 0.0}, {"tol": -1.0}, {"max_iter": 0}, {"shrinking": 1},
                {"shrink": True}):
        with pytest.raises(ValueError):
            SMOSolver(**bad)
    assert SMOSolver.stochastic is False and SMOSolver.kernelized is True
    assert SMOSolver.name == "smo" and "Fan" in SMOSolver.paper
    assert SMOSolver.__doc__.lstrip().startswith("SMO")


def test_training_run_and_estimator(monkeypatch, real):
    monkeypatch.setitem(solvers.REGISTRY, "smo", SMOSolver)
    from svmcore.estimators import SVMClassifier
    X, y = real["breast-cancer"]
    labels = np.where(y > 0, 4, 2)               # the file's own labels
    run = TrainingRun("smo", X, y, C=1.0, kernel="rbf", gamma=0.1).run()
    assert run.status == "converged"
    its = [r.iteration for r in run.trace]
    assert its == sorted(set(its)) and its[-1] == run.t
    m = SVMClassifier(solver="smo", kernel="rbf", gamma=0.1, C=1.0).fit(X, labels)
    ref = SVC(kernel="rbf", gamma=0.1, C=1.0).fit(X, labels)
    assert np.mean(m.predict(X) == ref.predict(X)) >= 0.995
    assert abs(m.intercept_[0] - ref.intercept_[0]) < 3e-3
    assert set(m.support_) == set(ref.support_)
    order = np.argsort(m.support_)
    ref_coef = dict(zip(ref.support_, ref.dual_coef_.ravel()))
    np.testing.assert_allclose(m.dual_coef_.ravel()[order],
                               [ref_coef[i] for i in np.sort(m.support_)], atol=5e-3)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=5e-3)


def test_estimator_contract(monkeypatch):
    from sklearn.utils.estimator_checks import check_estimator
    from svmcore.estimators import expected_failed_checks
    from svmcore.estimators import SVMClassifier
    monkeypatch.setitem(solvers.REGISTRY, "smo", SMOSolver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SVMClassifier(solver="smo", kernel="rbf")
        results = check_estimator(est, on_fail=None,
                                  expected_failed_checks=expected_failed_checks(est))
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert not failed


def test_smo_benchmark_reaches_svcs_optimum(data_folder):
    """``python -m svmcore.bench smo`` on svmguide1: three rows (SVC, SMO, SMO shrinking), the
    same dual optimum (to the stopping tolerance) and the same test accuracy."""
    from svmcore.bench.solvers import smo as bench
    rows = bench.bench_dataset("svmguide1", log=lambda *a: None)
    assert [r[2] for r in rows] == list(bench.SOLVERS)
    duals = [float(r[9]) for r in rows]
    assert max(duals) - min(duals) <= 1e-5 * abs(duals[0])
    assert len({r[8] for r in rows}) == 1 and float(rows[0][8]) >= 96.5
    assert rows[0][4] == 1.0 and all(r[3] > 0 for r in rows)


def test_the_cache_is_zeros_in_small_pages_and_survives_a_copy(monkeypatch):
    """The row cache and its marks: zeros of the asked shape and type, writable, from anonymous
    memory past 4 MB (NumPy's allocation below); a solver holding them pickles and runs on."""
    import pickle
    monkeypatch.setattr(smo, "SMALL_MAX", 0)          # the row cache, not the dense Q

    from svmcore.solvers.smo_parts import zeros_small_pages
    for shape, dtype in (((3, 5), np.float32), ((1100, 1000), np.float32), ((2000, 3000), np.bool_)):
        a = zeros_small_pages(shape, dtype)
        assert a.shape == shape and a.dtype == dtype and a.flags.writeable and not a.any()
        assert (a.nbytes >= 4 << 20) == (a.base is not None)
        a[-1, -1] = 1
        assert a.sum() == 1
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(1100, 2)), np.where(rng.random(1100) < 0.5, -1.0, 1.0)
    s = SMOSolver(C=1.0, kernel="rbf", gamma=1.0, cache_mb=20.0)
    s.init(X, y, seed=0)
    assert s.cache.base is not None                 # 1,100 rows of 1,100: 4.8 MB, mapped
    s.step(50)
    c = pickle.loads(pickle.dumps(s))
    s.step(50)
    c.step(50)
    np.testing.assert_array_equal(c.alpha, s.alpha)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("shrinking", [True, False])
def test_small_problems_take_the_dense_q_with_the_same_iterates(real, monkeypatch, shrinking,
                                                                 regression):
    """Up to SMALL_MAX variables Q is one dense matrix (no row cache): the same pairs, α, G,
    t and kernel evaluations as through the row cache, bit for bit (the hard C = 1e4 cell)."""
    X, y = real["heart"]
    kw = dict(C=1e4, kernel="rbf", gamma=0.05, shrinking=shrinking, cache_mb=400.0)
    if regression:
        y, kw = X[:, 0] + 0.3 * y, dict(kw, loss="epsilon_insensitive", C=10.0)
    dense = _fit(X, y, **kw)
    monkeypatch.setattr(smo, "SMALL_MAX", 0)
    cached = _fit(X, y, **kw)
    assert dense.small and not cached.small and dense.t == cached.t > 100
    np.testing.assert_array_equal(dense.alpha, cached.alpha)
    np.testing.assert_array_equal(dense.full_gradient(), cached.full_gradient())
    if not shrinking:     # with shrinking the cache computes partial rows, the dense Q whole ones
        assert dense.kernel_evals == cached.kernel_evals


def test_fresh_copy_trains_as_a_new_solver(real):
    """``fresh()`` (the estimators' one solver per binary problem): the class and validated
    parameters, none of the state; the copy trains exactly as a newly built solver, and a
    solver already initialised is not copied."""
    X, y = real["heart"]
    kw = dict(C=3.0, kernel="rbf", gamma=0.1, shrinking=False, loss="epsilon_insensitive")
    proto = SMOSolver(**kw)
    a = proto.fresh()
    assert type(a) is SMOSolver and a.p == proto.p and a.p is not proto.p
    assert a.regression and a.notes == [] and a.notes is not proto.notes
    y_reg = X[:, 0] + 0.3 * y
    a.init(X, y_reg)
    a.step(1 << 20)
    b = SMOSolver(**kw)
    b.init(X, y_reg)
    b.step(1 << 20)
    assert a.t == b.t and a.converged and b.converged
    np.testing.assert_array_equal(a.alpha, b.alpha)
    with pytest.raises(RuntimeError, match="before init"):
        a.fresh()
    c = proto.fresh()                         # the prototype is untouched by its copies' runs
    assert not c._ready and c.t == 0 and c.p == proto.p
