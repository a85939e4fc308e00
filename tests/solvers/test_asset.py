"""ASSET (Lee & Wright 2012): Algorithm 1 against the line-by-line NumPy reference on features
built independently from the exact kernel, against the SVC / SVR optima (s = n: exact kernel),
against Pegasos (ASSET* on explicit features), its invariants (chunking, determinism, cache,
feasible set, cost counters), and the scikit-learn estimators. Real-data acceptance checks
(a9a, ijcnn1) are marked slow."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes, make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from sklearn.utils.estimator_checks import check_estimator

import svmcore.solvers as solvers_pkg
from reference import asset_reference, nystroem_reference, rff_reference
from svmcore.estimators import SVMClassifier, SVMRegressor, expected_failed_checks
from svmcore.solvers.kernels import kernel_matrix
from svmcore.solvers.objectives import lam_from_C
from svmcore.runs.run import TrainingRun
from svmcore.solvers.asset import ASSETSolver
from svmcore.solvers.base import SampleStream, averaging_start
from svmcore.solvers.pegasos import PegasosSolver


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The lead registers the solver; until then the tests add it to the registry themselves."""
    monkeypatch.setitem(solvers_pkg.REGISTRY, "asset", ASSETSolver)


def _classification(n=120, d=5, seed=0):
    X, y = make_classification(n + 60, d, n_informative=3, random_state=seed, flip_y=0.05)
    y = 2.0 * y - 1.0
    return X[:n], y[:n], X[n:], y[n:]


def _regression(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 6, size=(n + 60, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.2 * rng.normal(size=n + 60)
    return X[:n], y[:n], X[n:], y[n:]


def _reference_features(s, X, Xt):
    """V (train) and V (test) built independently of svmcore.solvers.feature_maps: Nyström from svmcore's
    compiled kernel matrix and eq. 7, RFF from eq. 8 with the solver's ν and ω."""
    p = s.p
    if p["approx"] == "nystroem":
        kw = dict(kernel=p["kernel"], gamma=p["gamma"], coef0=p["coef0"], degree=p["degree"])
        S = s.fmap.landmark_indices_
        V, D, Q = nystroem_reference(kernel_matrix(X, **kw), S, p["eig_threshold"])
        Vt = kernel_matrix(Xt, X[S], **kw) @ Q @ np.diag(1.0 / np.sqrt(D))
        return V, Vt
    return (rff_reference(X, s.fmap.weights_, s.fmap.offset_),
            rff_reference(Xt, s.fmap.weights_, s.fmap.offset_))


CASES = [
    # approx, loss, variant, fit_intercept, averaging, cache_mb, block_rows, sparse
    ("nystroem", "hinge", "asset", True, 100, 512.0, 4096, False),
    ("nystroem", "hinge", "asset", False, 0.5, 0.0, 37, True),
    ("nystroem", "hinge", "star", True, None, 512.0, 50, False),
    ("rff", "hinge", "asset", True, None, 0.0, 4096, False),
    ("rff", "hinge", "asset", True, 0.3, 512.0, 64, True),
    ("rff", "hinge", "star", False, 100, 0.0, 29, False),
    ("nystroem", "epsilon_insensitive", "asset", True, 0.5, 512.0, 4096, False),
    ("nystroem", "epsilon_insensitive", "star", True, None, 0.0, 41, False),
    ("rff", "epsilon_insensitive", "asset", True, 50, 0.0, 4096, False),
]


@pytest.mark.parametrize("approx,loss,variant,fit_b,averaging,cache_mb,block,sparse", CASES)
def test_matches_reference(approx, loss, variant, fit_b, averaging, cache_mb, block, sparse):
    reg = loss != "hinge"
    X, y, Xt, yt = _regression() if reg else _classification()
    C, eps, seed = (3.0, 0.2, 5) if reg else (2.0, 0.0, 7)
    s = ASSETSolver(C=C, kernel="rbf", gamma=0.3, approx=approx, n_components=24, loss=loss,
                    epsilon=eps, variant=variant, fit_intercept=fit_b, averaging=averaging,
                    epochs=3, cache_mb=cache_mb, block_rows=block, dg_samples=50)
    s.init(sp.csr_matrix(X) if sparse else X, y, seed=seed)
    s.step(s.horizon)
    V, Vt = _reference_features(s, X, Xt)
    n = len(y)
    lam = lam_from_C(C, n)
    idx = SampleStream(n, seed, "iid").take(s.horizon)
    dg_idx = SampleStream(n, seed, "iid").take(50)
    star = variant == "star"
    avg0 = None if averaging is None else averaging_start(averaging, s.horizon)
    g, b, DG, DX = asset_reference(V, y, lam, idx, dg_idx, loss=loss, eps=eps,
                                   fit_intercept=fit_b, star=star, avg_start=avg0,
                                   bias_bound=s.bmax, travelled=s.travelled)
    assert s.t == s.horizon == 3 * n
    assert s.DG == pytest.approx(DG, rel=1e-10)
    assert s.DX == pytest.approx(DX, rel=1e-12)
    gs, bs = s.model()
    assert bs == pytest.approx(b, rel=1e-8, abs=1e-10)
    assert np.linalg.norm(gs) == pytest.approx(np.linalg.norm(g), rel=1e-8)
    # the features are fixed up to column signs: compare what the model predicts
    np.testing.assert_allclose(s.decision_function(Xt), Vt @ g + b, rtol=1e-8, atol=1e-9)
    if star or not fit_b:
        assert bs == 0.0


def test_automatic_bounds_and_step_constant():
    X, y, _, _ = _classification()
    n = len(y)
    lam = lam_from_C(2.0, n)
    ny = ASSETSolver(C=2.0, gamma=0.5, n_components=30)
    ny.init(X, y, seed=0)
    assert ny.gmax == pytest.approx(1 / np.sqrt(lam))                 # Shalev-Shwartz Thm 1
    assert ny.bmax == pytest.approx(1 + ny.gmax)                      # R = 1 for the rbf kernel
    assert ny.DX == pytest.approx(np.hypot(ny.gmax, ny.bmax))
    assert ny.step0 == pytest.approx(ny.DX / ny.DG)
    rf = ASSETSolver(C=2.0, gamma=0.5, approx="rff", n_components=30, fit_intercept=False)
    rf.init(X, y, seed=0)
    assert rf.bmax == 0.0 and rf.DX == pytest.approx(rf.gmax)
    lin = ASSETSolver(C=2.0, kernel="linear", n_components=30, bias_bound=3.0)
    lin.init(X, y, seed=0)
    assert lin.bmax == 3.0
    auto = ASSETSolver(C=2.0, kernel="linear", n_components=30)
    auto.init(X, y, seed=0)
    assert auto.bmax == pytest.approx(1 + np.sqrt(np.max((X ** 2).sum(1))) * auto.gmax)
    Xr, yr, _, _ = _regression()
    r = ASSETSolver(C=3.0, gamma=0.5, loss="epsilon_insensitive", epsilon=0.2,
                    n_components=30)
    r.init(Xr, yr, seed=0)
    lam = lam_from_C(3.0, len(yr))
    assert r.gmax == pytest.approx(np.sqrt(2 * (np.abs(yr).max() - 0.2) / lam))
    assert r.bmax == pytest.approx(np.abs(yr).max() + r.gmax)


def test_iterates_stay_in_the_feasible_set():
    X, y, _, _ = _classification(200)
    s = ASSETSolver(C=1e4, gamma=0.5, n_components=40, bias_bound=0.05, averaging=None,
                    epochs=2)
    s.init(X, y, seed=1)
    for _ in range(40):
        s.step(10)
        assert np.linalg.norm(s.g) <= s.gmax * (1 + 1e-12)
        assert abs(s.sc[0]) <= 0.05
    assert abs(s.intercept_) == pytest.approx(0.05)                  # the bound is active


@pytest.mark.parametrize("loss", ["hinge", "epsilon_insensitive"])
def test_exact_kernel_reaches_the_svc_svr_optimum(loss):
    """s = n landmarks: VVᵀ is the kernel matrix, so (PL) is the SVM problem itself."""
    reg = loss != "hinge"
    if reg:
        X, y, _, _ = _regression(100)
    else:
        X, y, _, _ = _classification(100)
    n, C, g, eps = len(y), 1.0, 0.2, 0.1
    lam = lam_from_C(C, n)
    K = rbf_kernel(X, gamma=g)
    peer = (SVR(C=C, gamma=g, epsilon=eps, tol=1e-10) if reg
            else SVC(C=C, gamma=g, tol=1e-10)).fit(X, y)
    a = np.zeros(n)
    a[peer.support_] = peer.dual_coef_[0]
    f = peer.decision_function(X) if not reg else peer.predict(X)
    loss_v = (np.maximum(0, np.abs(y - f) - eps) if reg else np.maximum(0, 1 - y * f))
    p_opt = 0.5 * lam * a @ K @ a + loss_v.mean()
    gaps = []
    for epochs in (30, 300):
        s = ASSETSolver(C=C, gamma=g, n_components=n, loss=loss, epsilon=eps, averaging=0.5,
                        epochs=epochs)
        s.init(X, y, seed=0)
        s.step(s.horizon)
        gaps.append(s.snapshot().objective / p_opt - 1)
    # measured on seed 0: classification 3.9% → 1.1%, regression 1.25% → 0.77%; the ratio over
    # seeds 0-5 of the regression: 1.6-3.6 (O(1/√N) predicts ÷3.2 asymptotically)
    assert -1e-6 < gaps[1] < 0.03 and gaps[1] < gaps[0] / 1.5, gaps


def test_star_is_pegasos_on_the_features():
    """ASSET* = Pegasos (η = 1/(λj), projection, no bias) run on the rows V_i·."""
    X, y, _, _ = _classification(150)
    s = ASSETSolver(C=0.5, gamma=0.4, n_components=30, variant="star", epochs=4)
    s.init(X, y, seed=3)
    s.step(s.horizon)
    V = s.fmap.transform(X)
    p = PegasosSolver(C=0.5, kernel="linear", projection=True, fit_intercept=False, epochs=4)
    p.init(V, y, seed=3)
    p.step(p.horizon)
    np.testing.assert_allclose(s.coef_, p.model()[0], rtol=1e-8, atol=1e-10)


def test_chunking_and_seeds():
    X, y, Xt, _ = _classification(200)

    def run(seed, chunk):
        s = ASSETSolver(C=1.0, gamma=0.3, n_components=32, epochs=3, averaging=0.5,
                        block_rows=64)
        s.init(X, y, seed=seed)
        while s.t < s.horizon:
            s.step(min(chunk, s.horizon - s.t))
        return s

    a, b, c = run(1, 10**6), run(1, 37), run(2, 10**6)
    for attr in ("g", "gavg", "sc"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert a.kernel_evals == b.kernel_evals
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
    assert not np.array_equal(a.decision_function(Xt), c.decision_function(Xt))


@pytest.mark.parametrize("cache_mb", [512.0, 0.0])
def test_snapshots_do_not_change_the_run(cache_mb):
    X, y, _, _ = _classification(300)

    def run(look):
        s = ASSETSolver(C=1.0, gamma=0.3, n_components=32, epochs=2, block_rows=64,
                        cache_mb=cache_mb)
        s.init(X, y, seed=3)
        while s.t < s.horizon:
            s.step(25)
            if look:
                s.snapshot()
        return s

    a, b = run(True), run(False)
    np.testing.assert_array_equal(a.g, b.g)
    np.testing.assert_array_equal(a.gavg, b.gavg)
    assert a.kernel_evals == b.kernel_evals


def test_trace_does_not_depend_on_chunking():
    X, y, Xt, yt = _classification(150)
    kw = dict(C=1.0, gamma=0.3, n_components=32, epochs=4, averaging=0.5, block_rows=100)
    strip = lambda r: [{k: v for k, v in row.items() if k != "time"} for row in r.trace_dicts()]
    a = TrainingRun(ASSETSolver(**kw), X, y, Xt, yt, seed=4).run()
    b = TrainingRun(ASSETSolver(**kw), X, y, Xt, yt, seed=4)
    while not b.done:
        b.advance_iters(53)
    np.testing.assert_equal(strip(a), strip(b))
    assert a.trace[-1].iteration == 600 and a.trace[-1].test_error < 0.2


@pytest.mark.parametrize("approx", ["nystroem", "rff"])
def test_cache_and_float32_do_not_change_the_model(approx):
    X, y, Xt, _ = _classification(200)
    kw = dict(C=1.0, gamma=0.3, approx=approx, n_components=32, epochs=3, averaging=0.5,
              block_rows=50)
    outs = {}
    for name, extra in [("cache", {}), ("nocache", dict(cache_mb=0.0)),
                        ("f32", dict(feature_dtype="float32"))]:
        s = ASSETSolver(**kw, **extra)
        s.init(X, y, seed=0)
        s.step(s.horizon)
        outs[name] = s.decision_function(Xt)
    np.testing.assert_allclose(outs["cache"], outs["nocache"], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(outs["f32"], outs["cache"], rtol=1e-3, atol=1e-3)


def test_kernel_evals_are_counted_per_transformed_row():
    X, y, _, _ = _classification(300)
    n, s_, blk, M = len(y), 20, 64, 40
    for cache_mb in (512.0, 0.0):
        s = ASSETSolver(C=1.0, gamma=0.3, n_components=s_, epochs=1, block_rows=blk,
                        dg_samples=M, cache_mb=cache_mb)
        s.init(X, y, seed=2)
        s.step(150)                               # three blocks of 64 drawn
        dg = SampleStream(n, 2).take(M)            # D_G: the stream's first M draws
        drawn = SampleStream(n, 2).take(3 * blk).reshape(3, blk)
        if cache_mb:     # whole cache chunks of block_rows consecutive rows
            chunks = np.union1d(dg // blk, drawn.ravel() // blk)
            rows = sum(min(n, (k + 1) * blk) - k * blk for k in chunks)
        else:
            rows = np.unique(dg).size + sum(np.unique(b).size for b in drawn)
        assert s.kernel_evals == s_ * s_ + s_ * rows
    r = ASSETSolver(C=1.0, gamma=0.3, approx="rff", n_components=16, epochs=1, block_rows=blk,
                    dg_samples=M, cache_mb=0.0)
    r.init(X, y, seed=2)
    r.step(64)
    drawn = SampleStream(n, 2).take(blk)
    assert r.kernel_evals == 16 * (np.unique(dg).size + np.unique(drawn).size)


def test_snapshot_reports_the_approximate_primal():
    X, y, _, _ = _classification(150)
    for approx in ("nystroem", "rff"):
        s = ASSETSolver(C=1.0, gamma=0.3, approx=approx, n_components=25, epochs=2,
                        averaging=0.5)
        s.init(X, y, seed=0)
        s.step(s.horizon)
        snap = s.snapshot()
        gv, b = s.model()
        f = s.fmap.transform(X) @ gv + b
        obj = 0.5 * s.lam * gv @ gv + np.maximum(0, 1 - y * f).mean()
        assert snap.objective == pytest.approx(obj, rel=1e-10)
        np.testing.assert_allclose(s.train_scores(), f, rtol=1e-9, atol=1e-10)
        assert "approximate features" in snap.objective_name
        assert snap.extra["train_error"] == pytest.approx(np.mean(np.sign(f) != y))
        assert snap.t == s.horizon and snap.kernel_evals == s.kernel_evals > 0
        if approx == "nystroem":
            assert snap.n_sv == 25 and snap.extra["support_kind"] == "landmarks"
            np.testing.assert_array_equal(snap.support, np.sort(s.fmap.landmark_indices_))
        else:
            assert snap.n_sv == snap.extra["n_margin_sv"] == int(np.sum(y * f <= 1.0))


def test_bad_input_names_the_parameter():
    X, y, _, _ = _classification()
    with pytest.raises(ValueError, match="approx='rff' needs kernel='rbf'"):
        ASSETSolver(approx="rff", kernel="poly")
    for bad in (dict(n_components=0), dict(variant="fast"), dict(eig_threshold=0.0),
                dict(epsilon=-1.0), dict(averaging=0), dict(cache_mb=-1.0), dict(loss="log")):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ASSETSolver(**bad)
    with pytest.raises(ValueError, match="eig_threshold"):
        ASSETSolver(eig_threshold=1e3).init(X, y)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        ASSETSolver().init(X, y * 2.5)
    with pytest.raises(ValueError, match="NaN"):
        ASSETSolver(loss="epsilon_insensitive").init(X, np.where(y > 0, np.nan, 1.0))
    with pytest.raises(RuntimeError, match="init"):
        ASSETSolver().decision_function(X)


# ------------------------------------------------------------------------------ estimators


@pytest.mark.parametrize("est", [
    SVMClassifier(solver="asset", kernel="rbf", averaging=0.5, random_state=0,
                  solver_params={"n_components": 64}),
    SVMClassifier(solver="asset", kernel="rbf", averaging=0.5, random_state=0,
                  solver_params={"approx": "rff", "n_components": 64}),
    SVMRegressor(random_state=0, solver_params={"n_components": 64}),
    SVMRegressor(random_state=0, solver_params={"approx": "rff", "n_components": 128}),
], ids=["clf-nystroem", "clf-rff", "reg-nystroem", "reg-rff"])
def test_check_estimator(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None,
                                  expected_failed_checks=expected_failed_checks(est))
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert not failed
    assert len(results) > 40


def test_estimator_exports_the_expansion():
    X, y, Xt, _ = _classification(150)
    m = SVMClassifier(solver="asset", kernel="rbf", gamma=0.3, averaging=0.5, random_state=0,
                      solver_params={"n_components": 30}).fit(X, y)
    K = rbf_kernel(Xt, m.support_vectors_, gamma=0.3)
    np.testing.assert_allclose(m.decision_function(Xt), K @ m.dual_coef_[0] + m.intercept_[0],
                               rtol=1e-9, atol=1e-10)
    assert m.support_.shape == (30,)
    r = SVMRegressor(solver_params={"approx": "rff", "n_components": 40},
                     random_state=0).fit(X, y)
    assert r.coef_.shape == (1, 40)
    with pytest.raises(ValueError, match="does not support regression"):
        SVMRegressor(solver="pegasos").fit(X, y)


def _svr_rmse_ratio(X, y, Xt, yt, C, gamma, eps, epochs, **sp_):
    ref = SVR(C=C, gamma=gamma, epsilon=eps).fit(X, y)
    rmse = lambda f: float(np.sqrt(np.mean((f - yt) ** 2)))
    ours = SVMRegressor(C=C, gamma=gamma, epsilon=eps, epochs=epochs, random_state=0,
                        solver_params={"n_components": 512, **sp_}).fit(X, y)
    return rmse(ours.predict(Xt)) / rmse(ref.predict(Xt)), rmse(ref.predict(Xt))


def test_svr_diabetes_rmse_within_10_percent_of_sklearn():
    X, y = load_diabetes(return_X_y=True)
    Xt, yt, X, y = X[331:], y[331:], X[:331], y[:331]
    sc = StandardScaler().fit(X)
    X, Xt = sc.transform(X), sc.transform(Xt)
    # C, γ, ε: the 5-fold CV choice of SVR on this split's training part (C=100, γ=0.01, ε=30)
    ratio, base = _svr_rmse_ratio(X, y, Xt, yt, 100.0, 0.01, 30.0, 50)
    assert ratio < 1.10, (ratio, base)                    # measured 1.007 (SVR: 52.97)
    ratio_f, _ = _svr_rmse_ratio(X, y, Xt, yt, 100.0, 0.01, 30.0, 50, approx="rff")
    assert ratio_f < 1.10, ratio_f                        # measured 1.002


def test_svr_noisy_sine_rmse_within_10_percent_of_sklearn():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 2 * np.pi, size=(600, 1))
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=600)
    ratio, base = _svr_rmse_ratio(X[:400], y[:400], X[400:], y[400:], 10.0, 1.0, 0.1, 100)
    assert ratio < 1.10, (ratio, base)                    # measured 1.002 (SVR: 0.200)
    ratio_s, _ = _svr_rmse_ratio(X[:400], y[:400], X[400:], y[400:], 1.0, 1.0, 0.1, 100,
                                 variant="star")          # Pegasos-style SGD
    assert ratio_s < 1.10, ratio_s                        # measured 1.015


# ------------------------------------------------------------------------------ real data


@pytest.fixture(scope="module")
def a9a(data_folder):
    from svmcore.data import load_dataset
    return load_dataset("a9a")


def _fit_test_error(X, y, Xt, yt, **kw):
    s = ASSETSolver(kernel="rbf", **kw)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    return float(np.mean(np.where(s.decision_function(Xt) >= 0, 1, -1) != yt))


@pytest.mark.slow
def test_a9a_asset_m_512_and_star_agree(a9a):
    """ASSET_M with s = 512, γ = 0.005, C = 1.5 (λ = 1/(C n) = 2.05e-5), 5 epochs: test error
    ≤ 15.5%; ASSET*_M within 0.5 points of it (the paper's observation)."""
    kw = dict(C=1.5, gamma=0.005, n_components=512, epochs=5)
    data = (a9a.X_train, a9a.y_train, a9a.X_test, a9a.y_test)
    e_asset = _fit_test_error(*data, **kw)
    e_star = _fit_test_error(*data, variant="star", **kw)
    assert e_asset <= 0.155, e_asset                     # measured 14.96%
    assert abs(e_asset - e_star) <= 0.005, (e_asset, e_star)   # measured ASSET* 15.16%


@pytest.mark.slow
def test_ijcnn1_asset_m_1024_within_half_a_point_of_nystroem_linearsvc(data_folder):
    """ijcnn1, first 35,000 rows / ijcnn1.t, γ = 1.344, C = 7 (λ = 1/(C n) = 4.08e-6), s = 1024:
    ASSET_M (20 epochs, averaging ρ = 0.5) against scikit-learn's Nystroem(1024, random_state
    = 0) + LinearSVC(C = 7): measured 1.70 % test error vs the pipeline's 1.494 %.

    The pipeline is deterministic and takes ~22 s here (LinearSVC on 35,000 × 1,024 features:
    14 s) against ASSET's 6 s, so its error is the number it gave on this machine (scikit-learn
    1.9.1); the report measures the pair in one run at s = 512 (``python -m svmcore.bench report
    --suites approx``: 98.01 vs 97.98 % accuracy), and ``bench asset --parts accept`` at s = 1024."""
    from svmcore.data import load_dataset
    ds = load_dataset("ijcnn1", max_train=35000)
    X, Xt = ds.X_train.toarray(), ds.X_test.toarray()
    e_asset = _fit_test_error(X, ds.y_train, Xt, ds.y_test, C=7.0, gamma=1.344,
                              n_components=1024, epochs=20, averaging=0.5)
    e_sk = 0.01494                          # Nystroem(1024) + LinearSVC(7) on the same split
    assert e_asset <= e_sk + 0.005, (e_asset, e_sk)      # measured 1.70% vs 1.494%
