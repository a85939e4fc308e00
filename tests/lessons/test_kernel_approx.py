"""The Kernel approximation page: its numbers (svmcore.lessons.kernel_approx) against independent
references (scikit-learn's rbf_kernel, numpy's eigvalsh, the ASSET solver's own maps, SVC), the
page's claims (Nyström at s = n reproduces K to 1e-8; the RFF error falls
like 1/√d), the figures, and the page through AppTest (defaults, s / d and γ changed, bad input).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel
from streamlit.testing.v1 import AppTest

from svmcore.lessons import kernel_approx as ka
from svmcore.data import load_dataset, make_toy
from svmcore.solvers.objectives import error_rate
from svmcore.solvers.asset import ASSETSolver
from svmcore.viz import kernel_approx as viz

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "kernel_approx.py")


@pytest.fixture(scope="module", autouse=True)
def _one_blas_thread():
    """BLAS on one thread, as the page's functions run (8× faster on a loaded 2-core box)."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def cancer():
    """A real dataset (scikit-learn's bundled breast cancer, standardised): 426 training rows,
    143 test rows, 30 features; γ = 1/30 (scikit-learn's "scale" on standardised data)."""
    ds = load_dataset("breast_cancer", scale="standard")
    return (np.ascontiguousarray(ds.X_train), ds.y_train, np.ascontiguousarray(ds.X_test),
            ds.y_test, 1.0 / ds.X_train.shape[1])


@pytest.fixture(scope="module")
def rff_sweep(cancer):
    """Kernel errors only (no ASSET runs) over d = 16…1024 and five seeds."""
    X, y, _, _, gamma = cancer
    return ka.sweep(X, y, None, None, gamma, sizes=ka.log_grid(16, 1024), seeds=range(5),
                    learn=False)


# ------------------------------------------------------------------------ acceptance
@pytest.mark.parametrize("gamma", [1.0 / 30, 0.3])
def test_nystroem_with_s_equal_n_reproduces_K(cancer, gamma):
    X, y, _, _, _ = cancer
    n = X.shape[0]
    K = rbf_kernel(X, gamma=gamma)                            # independent of svmcore
    V = ka.feature_map(X, "nystroem", n, gamma, seed=3).transform(X)
    err = np.linalg.norm(K - V @ V.T) / np.linalg.norm(K)
    assert err < 1e-8, err
    if gamma < 0.1:             # what the page shows at s = n is the same number
        a = ka.approximate(X, y, gamma, n, 8, seed=3)
        assert abs(a.errors["nystroem"] - err) < 1e-10


def test_nystroem_with_s_equal_n_on_toy_data_with_a_low_rank_kernel():
    """2-D data at γ = 1: K_SS has eigenvalues below ε_d that are dropped; still exact."""
    X, y = make_toy("spirals", n=400, seed=0)
    a = ka.approximate(X, y, 1.0, X.shape[0], 8, seed=0)
    assert a.features["nystroem"] < X.shape[0]                # ε_d dropped directions
    assert a.errors["nystroem"] < 1e-8, a.errors


def test_rff_error_falls_like_one_over_sqrt_d(rff_sweep):
    sw = rff_sweep
    d = sw.sizes["rff"]
    assert d.min() == 16 and d.max() == 1024
    slope = ka.loglog_slope(d, sw.band("rff")[0], 16, 1024)
    # measured: −0.48 (scikit-learn's RBFSampler: −0.49)
    assert -0.6 < slope < -0.4, slope
    # scikit-learn's RBFSampler draws the same distribution: the same rate
    sk = ka.loglog_slope(d, sw.band("sk_rff")[0], 16, 1024)
    assert -0.6 < sk < -0.4, sk


def test_nystroem_error_falls_and_matches_sklearn_nystroem(rff_sweep):
    sw = rff_sweep
    med, sk = sw.band("nystroem")[0], sw.band("sk_nystroem")[0]
    assert list(sw.sizes["nystroem"]) == [16, 32, 64, 128, 256, 426]     # ends at s = n
    assert np.all(np.diff(med) < 0) and med[-1] < 1e-8, med
    # same kind of estimate below s = n (sklearn keeps all s directions, we drop those < ε_d)
    assert np.all(np.abs(np.log(med[:-1] / sk[:-1])) < np.log(2.0)), (med, sk)


# ------------------------------------------------------------------------ the numbers
def test_relative_error_against_numpy(cancer):
    X, _, _, _, gamma = cancer
    rng = np.random.default_rng(0)
    V = rng.normal(size=(X.shape[0], 5))
    K = rbf_kernel(X, gamma=gamma)
    assert ka.relative_error(K, V) == pytest.approx(
        np.linalg.norm(K - V @ V.T) / np.linalg.norm(K), rel=1e-12)
    np.testing.assert_allclose(ka.exact_kernel(X, gamma), K, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("method,size", [("nystroem", 40), ("rff", 50)])
def test_feature_map_is_the_map_asset_trains_on(cancer, method, size):
    X, y, _, _, gamma = cancer
    solver = ASSETSolver(approx=method, n_components=size, gamma=gamma, epochs=0.01)
    solver.init(X, y, 7)
    fmap = ka.feature_map(X, method, size, gamma, seed=7)
    np.testing.assert_array_equal(fmap.transform(X), solver.fmap.transform(X))
    if method == "nystroem":
        np.testing.assert_array_equal(fmap.landmark_indices_, solver.fmap.landmark_indices_)


def test_asset_at_s_equal_n_matches_the_exact_kernel_svm(cancer):
    X, y, Xt, yt, gamma = cancer
    exact = ka.exact_svm_test_error(X, y, Xt, yt, gamma, C=1.0)
    asset = ka.asset_test_error(X, y, Xt, yt, "nystroem", X.shape[0], gamma, C=1.0, epochs=5,
                                seed=0)
    few = ka.asset_test_error(X, y, Xt, yt, "nystroem", 2, gamma, C=1.0, epochs=5, seed=0)
    # measured (143 test points): SVC 0.042, ASSET (s = n) 0.042, ASSET (s = 2) 0.119
    assert exact < 0.06 and abs(asset - exact) <= 0.03, (asset, exact)
    assert few > asset, (few, asset)


def test_spectrum_is_the_eigenvalues_of_the_sampled_block(cancer):
    X, _, _, _, gamma = cancer
    fmap = ka.feature_map(X, "nystroem", 60, gamma, seed=1, eig_threshold=0.1)
    spec = ka.spectrum(fmap)
    S = fmap.landmark_indices_
    ref = np.sort(np.linalg.eigvalsh(rbf_kernel(X[S], gamma=gamma)))[::-1]
    np.testing.assert_allclose(spec["eigenvalues"], ref, rtol=1e-9, atol=1e-12)
    assert spec["threshold"] == 0.1 and spec["s"] == 60
    assert spec["kept"] == int(np.sum(ref >= 0.1)) == fmap.n_features_out_ < 60


def test_approximation_sorted_by_class_and_deterministic(cancer):
    X, y, _, _, gamma = cancer
    a = ka.approximate(X, y, gamma, 32, 32, seed=5, display=100)
    b = ka.approximate(X, y, gamma, 32, 32, seed=5, display=100)
    assert a.errors == b.errors
    np.testing.assert_array_equal(a.K_rff, b.K_rff)
    assert a.rows_shown == a.K.shape[0] <= 100
    assert np.all(np.diff(a.labels) >= 0) and set(a.labels) == {-1.0, 1.0}
    order = ka.class_order(y, X)[ka.display_rows(X.shape[0], 100)]
    np.testing.assert_allclose(a.K, rbf_kernel(X[order], gamma=gamma), atol=1e-6)
    V = ka.feature_map(X, "rff", 32, gamma, seed=5).transform(X)[order]
    np.testing.assert_allclose(a.K_rff, V @ V.T, atol=1e-5)
    c = ka.approximate(X, y, gamma, 32, 32, seed=6, display=100)
    assert c.errors["rff"] != a.errors["rff"]


def test_class_order_groups_classes_then_follows_the_first_principal_component(cancer):
    from sklearn.decomposition import PCA
    X, y, _, _, _ = cancer
    order = ka.class_order(y, X)
    assert sorted(order) == list(range(len(y)))
    assert np.all(np.diff(y[order]) >= 0)
    pc = PCA(1).fit(X).transform(X)[:, 0]             # independent: scikit-learn's PCA
    steps = [np.diff(pc[order[y[order] == c]]) for c in (-1.0, 1.0)]
    assert all(np.all(d >= -1e-9) for d in steps) or all(np.all(d <= 1e-9) for d in steps)
    np.testing.assert_array_equal(ka.class_order(y), np.argsort(y, kind="stable"))


def test_eig_threshold_reaches_the_map_asset_and_the_sweep(cancer):
    X, y, Xt, yt, gamma = cancer
    sw = ka.sweep(X[:120], y[:120], Xt[:40], yt[:40], gamma, sizes=[64], seeds=(0,), epochs=1,
                  eig_threshold=0.5)
    fmap = ka.feature_map(X[:120], "nystroem", 64, gamma, seed=0, eig_threshold=0.5)
    assert sw.eig_threshold == 0.5 and fmap.n_features_out_ < 64
    K = rbf_kernel(X[:120], gamma=gamma)
    assert sw.error["nystroem"][0, 0] == pytest.approx(
        ka.relative_error(K, fmap.transform(X[:120])), rel=1e-10)
    solver = ASSETSolver(n_components=64, gamma=gamma, epochs=1, eig_threshold=0.5)
    solver.init(X[:120], y[:120], 0)
    solver.step(solver.horizon)
    assert sw.test_error["nystroem"][0, 0] == error_rate(solver.decision_function(Xt[:40]),
                                                         yt[:40])
    with pytest.raises(ValueError, match="ε_d must be a positive number"):
        ka.feature_map(X, "nystroem", 8, gamma, eig_threshold=0.0)


def test_sweep_bands_and_sizes(cancer):
    X, y, Xt, yt, gamma = cancer
    sw = ka.sweep(X[:100], y[:100], Xt[:60], yt[:60], gamma, sizes=[4, 32, 128], seeds=(0, 1),
                  epochs=2)
    assert list(sw.sizes["nystroem"]) == [4, 32, 100]          # s ≤ n, then s = n = 100
    assert np.all(sw.error["nystroem"][-1] < 1e-8)
    assert list(sw.sizes["rff"]) == [4, 32, 128]
    assert sw.error["nystroem"].shape == (3, 2) and sw.test_error["rff"].shape == (3, 2)
    med, lo, hi = sw.band("rff", test=True)
    A = sw.test_error["rff"]
    np.testing.assert_array_equal(med, np.median(A, axis=1))
    assert np.all(lo <= med) and np.all(med <= hi)
    assert sw.exact_test_error is not None and 0 <= sw.exact_test_error < 0.2
    # one cell recomputed by hand: the error of that seed's map, ASSET with that seed
    K = rbf_kernel(X[:100], gamma=gamma)
    V = ka.feature_map(X[:100], "rff", 32, gamma, seed=1).transform(X[:100])
    assert sw.error["rff"][1, 1] == pytest.approx(ka.relative_error(K, V), rel=1e-10)
    assert sw.test_error["rff"][1, 1] == ka.asset_test_error(
        X[:100], y[:100], Xt[:60], yt[:60], "rff", 32, gamma, 1.0, 2, 1)


def test_log_grid_and_slope():
    np.testing.assert_array_equal(ka.log_grid(4, 64), [4, 8, 16, 32, 64])
    x = np.array([16, 64, 256, 1024])
    assert ka.loglog_slope(x, 3.0 * x ** -0.5) == pytest.approx(-0.5)
    assert ka.loglog_slope(x, 3.0 * x ** -2.0, lo=64) == pytest.approx(-2.0)


def test_cap_rows_subsamples_and_says_so():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2500, 3)), np.sign(rng.normal(size=2500))
    Xc, yc, note = ka.cap_rows(X, y, 2000, seed=1)
    assert Xc.shape == (2000, 3) and yc.shape == (2000,) and "2,500 rows subsampled" in note
    rows = {tuple(r) for r in X}
    assert all(tuple(r) in rows for r in Xc[:50])
    assert ka.cap_rows(X[:300], y[:300])[2] is None
    Xs, _, _ = ka.cap_rows(sp.csr_matrix(X), y, 2000, seed=1)       # sparse in, dense out
    np.testing.assert_array_equal(Xs, Xc)
    with pytest.raises(ValueError, match="too wide for this page"):
        ka.cap_rows(sp.csr_matrix((10, ka.MAX_VALUES // 10 + 1)), np.ones(10))


@pytest.mark.parametrize("gamma", [0, 0.0, -1.0, float("nan"), "abc"])
def test_bad_gamma_says_so(cancer, gamma):
    X, y, _, _, _ = cancer
    with pytest.raises(ValueError, match="γ must be"):
        ka.approximate(X, y, gamma, 8, 8)


def test_bad_sizes_say_so(cancer):
    X, y, _, _, gamma = cancer
    with pytest.raises(ValueError, match=r"s = 1,000 landmarks but only n = 426"):
        ka.approximate(X, y, gamma, 1000, 8)
    with pytest.raises(ValueError, match="d ≥ 1"):
        ka.approximate(X, y, gamma, 8, 0)
    with pytest.raises(ValueError, match="at least one landmark"):
        ka.feature_map(X, "nystroem", 0, gamma)
    with pytest.raises(ValueError, match="whole number"):
        ka.feature_map(X, "rff", 2.5, gamma)


# ------------------------------------------------------------------------ figures
def test_figures(cancer, rff_sweep):
    X, y, _, _, gamma = cancer
    a = ka.approximate(X, y, gamma, 16, 16, seed=0, display=80)
    heat = viz.kernel_heatmaps(a)
    assert [t.type for t in heat.data] == ["heatmap"] * 3
    assert {t.coloraxis for t in heat.data} == {"coloraxis"}      # one colour scale
    ca = heat.layout.coloraxis
    assert ca.cmin <= min(float(m.min()) for m in (a.K, a.K_nystroem, a.K_rff))
    assert ca.cmax >= 1.0
    assert len(heat.layout.shapes) == 6                          # a class boundary, 2 lines each
    err = viz.error_figure(rff_sweep, 16, 64)
    names = [t.name for t in err.data if t.name]
    assert set(ka.LABELS.values()) <= set(names) and "∝ 1/√d" in names
    assert err.layout.xaxis.type == err.layout.yaxis.type == "log"
    spec = viz.spectrum_figure(a.spectrum)
    assert spec.layout.shapes[0].y0 == a.spectrum["threshold"]
    assert sum(len(t.x) for t in spec.data) <= a.spectrum["s"]
    times = viz.times_figure({"exact": 0.01, "nystroem": 0.002, "rff": 0.001}, 10)
    assert list(times.data[0].x) == [10.0, 2.0, 1.0]


# ------------------------------------------------------------------------ the page
def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_page_renders_and_follows_s_d_and_gamma():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()                                          # the defaults: spirals, n = 600, γ = 1
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Kernel approximation"
    charts = {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.spec)
              for c in at.get("plotly_chart")}
    assert set(charts) == {"ka_heatmaps", "ka_spectrum", "ka_times", "ka_errors",
                           "ka_test_errors"}
    assert _metric(at, "n (rows of K)") == "450"
    before = _metric(at, "RFF error"), _metric(at, "Nyström error")
    # s and d: only the heatmaps change (the sweep is cached)
    at.number_input(key="ka_s").set_value(16)
    at.number_input(key="ka_d").set_value(512)
    at.run()
    _ok(at)
    after = _metric(at, "RFF error"), _metric(at, "Nyström error")
    assert float(after[0]) < float(before[0]) and float(after[1]) > float(before[1])
    # γ (a new sweep: keep it small)
    at.slider(key="ka_seeds").set_value(1)
    at.select_slider(key="ka_top").set_value(128)
    at.number_input(key="ka_gamma").set_value(5.0)
    at.run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "Nyström error") != after[1]
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                if c.proto.id.endswith("ka_errors"))
    assert "γ = 5" in spec["layout"]["title"]["text"]


def test_page_bad_input_gets_a_message():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["ka_n"] = 100
    at.session_state["ka_seeds"] = 1
    at.session_state["ka_top"] = 128
    at.run()
    _ok(at)
    at.number_input(key="ka_s").set_value(500).run()
    _ok(at)
    assert any("s = 500 landmarks but only n = 75 training rows" in e.value for e in at.error)
    assert at.get("plotly_chart")                     # the sweep is still drawn
    for g in (0.0, -2.0):
        at.number_input(key="ka_gamma").set_value(g).run()
        _ok(at)
        assert [e.value for e in at.error] == [
            f"γ must be a positive number (the RBF kernel exp(−γ‖x − z‖²) needs γ > 0), got "
            f"γ = {g:g}"]
    at.button(key="ka_gamma_scale").click().run()     # back to a usable γ
    _ok(at)
    assert at.number_input(key="ka_gamma").value > 0
    assert not at.error or all("landmarks" in e.value for e in at.error)
    at.radio(key="ka_src").set_value("upload").run()   # no file yet: a prompt, no figures
    _ok(at)
    assert not at.error and any("Upload a CSV or LIBSVM file" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_page_on_real_data_and_a_subsampled_toy_set():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["ka_seeds"] = 1
    at.session_state["ka_top"] = 128
    at.session_state["ka_src"] = "real"
    at.session_state["ka_real"] = "breast_cancer"
    at.run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "n (rows of K)") == "426"                # its training part, all rows
    assert not any("subsampled" in c.value for c in at.caption)
    at.radio(key="ka_src").set_value("toy").run()
    at.slider(key="ka_n").set_value(3000)                       # 2,250 training rows
    at.run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "n (rows of K)") == "2,000"
    assert any("Training part: 2,250 rows subsampled to 2,000" in c.value for c in at.caption)
