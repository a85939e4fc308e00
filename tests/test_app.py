"""The app through Streamlit's AppTest, and the pure figure functions of svmcore.viz.

AppTest never fires ``run_every``, so the live loop is driven with the Step button (and one tick
through Play). Its default timeout (3 s) is shorter than a cold numba compile: the module fixture
warms the cache first and every run gets a generous timeout.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from svmcore import viz
from svmcore.data import make_toy, train_test_split
from svmcore.run import TrainingRun, warmup
from svmcore.solvers import get_solver

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 60


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    for kernel in ("linear", "rbf"):
        warmup(get_solver("pegasos")(kernel=kernel))


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}; have {[m.label for m in at.metric]}")


def _t(at: AppTest) -> int:
    return int(_metric(at, "iteration t").replace(",", ""))


def _charts(at: AppTest) -> dict:
    """Plotly charts on the page by key: {key: figure spec (dict)}."""
    return {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _field_shape(at: AppTest) -> str:
    z = _charts(at)["pg_field"]["data"][0]["z"]
    assert z["dtype"] == "f4"                   # float32 on the wire
    return z["shape"]


def _step(at: AppTest, times: int = 1) -> AppTest:
    for _ in range(times):
        at.button(key="pg_step").click().run()
        _ok(at)
    return at


# ----------------------------------------------------------------------------- app / page


def test_app_renders_playground_by_default():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert any(t.value == "Playground" for t in at.title)
    assert _t(at) == 0
    assert _metric(at, "status") == "running"
    assert at.selectbox(key="pg_toy").value == "gaussians"
    charts = _charts(at)
    assert {"pg_field", "pg_curves", "pg_eta"} <= set(charts)
    assert [tr["type"] for tr in charts["pg_field"]["data"][:2]] == ["contour", "contour"]


def test_step_increases_iterations():
    at = _page()
    ts = [_t(at)]
    for _ in range(5):
        _step(at)
        ts.append(_t(at))
    assert ts[0] == 0
    assert all(b > a for a, b in zip(ts, ts[1:])), ts
    assert not at.error


def test_change_dataset_and_kernel_then_step():
    at = _page()
    at.selectbox(key="pg_toy").set_value("moons").run()
    _ok(at)
    at.selectbox(key="pg_p_pegasos_kernel").set_value("rbf").run()
    _ok(at)
    # gamma only appears for kernels that use it
    assert at.select_slider(key="pg_p_pegasos_gamma").value == 1.0
    assert _t(at) == 0
    _step(at, 4)
    assert _t(at) > 0
    assert int(_metric(at, "kernel evals").replace(",", "")) > 0
    run = at.session_state["pg_data"]["run"]
    assert run.solver.p["kernel"] == "rbf"
    assert not at.error


def test_reset_goes_back_to_zero():
    at = _page()
    _step(at, 3)
    assert _t(at) > 0
    at.button(key="pg_reset").click().run()
    _ok(at)
    assert _t(at) == 0


def test_config_change_rebuilds_the_run():
    at = _page()
    _step(at, 3)
    at.number_input(key="pg_seed").set_value(3).run()
    _ok(at)
    assert _t(at) == 0
    assert at.session_state["pg_cfg"][0][4] == 3


def test_bad_parameter_shows_error_and_session_goes_on():
    at = _page()
    at.slider(key="pg_n").set_value(20).run()
    _ok(at)
    at.select_slider(key="pg_p_pegasos_batch_size").set_value(256).run()
    _ok(at)                                   # no traceback ...
    assert at.error, "expected an st.error for batch_size > n"       # ... but an error element
    assert "batch_size" in at.error[0].value
    assert not at.metric                      # no run to show
    # the session goes on: a valid value brings the run back
    at.select_slider(key="pg_p_pegasos_batch_size").set_value(4).run()
    _ok(at)
    assert not at.error
    _step(at, 2)
    assert _t(at) > 0


def test_play_ticks_and_pause_stops():
    at = _page()
    at.button(key="pg_play").click().run()   # the fragment ticks once inside this run
    _ok(at)
    assert at.session_state["pg_playing"] is True
    assert _t(at) >= 1
    assert _field_shape(at) == "100, 100"       # coarser field while playing
    at.button(key="pg_pause").click().run()
    _ok(at)
    assert at.session_state["pg_playing"] is False
    assert _field_shape(at) == "150, 150"       # full resolution when paused


def test_run_to_the_end_shows_status_and_disables_play():
    at = _page()
    at.select_slider(key="pg_pace").set_value("full speed").run()
    _ok(at)
    for _ in range(50):
        if _metric(at, "status") != "running":
            break
        _step(at)
    assert _metric(at, "status") == "finished"
    assert at.success and "Finished" in at.success[0].value
    assert at.button(key="pg_play").disabled
    assert at.button(key="pg_step").disabled
    at.button(key="pg_reset").click().run()
    _ok(at)
    assert _t(at) == 0 and not at.button(key="pg_play").disabled


def test_schedule_option_and_eta_plot():
    at = _page()
    eta = _charts(at)["pg_eta"]["data"][0]
    assert eta["type"] == "scatter"
    at.selectbox(key="pg_p_pegasos_schedule").set_value("sqrt").run()
    _ok(at)
    assert at.select_slider(key="pg_p_pegasos_eta0").value == 1.0   # eta0 appears for sqrt
    at.selectbox(key="pg_p_pegasos_averaging_mode").set_value("fraction").run()
    _ok(at)
    _step(at, 3)
    assert _t(at) > 0
    assert at.session_state["pg_data"]["run"].solver.p["averaging"] == 0.5


def test_same_configuration_gives_the_same_trace():
    a, b = _page(), _page()
    _step(a, 6)
    _step(b, 6)
    ra, rb = a.session_state["pg_data"]["run"], b.session_state["pg_data"]["run"]
    ca, cb = ra.trace_columns(), rb.trace_columns()
    m = min(len(ca["iteration"]), len(cb["iteration"]))
    assert m > 5
    for key in ("iteration", "objective", "train_error", "test_error", "n_sv"):
        np.testing.assert_array_equal(ca[key][:m], cb[key][:m])
    # and the page drives the engine faithfully: a direct run on the same data agrees
    X, y = make_toy("gaussians", n=200, noise=0.35, imbalance=0.5, seed=0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, seed=0)
    direct = TrainingRun("pegasos", X_tr, y_tr, X_te, y_te, seed=0)
    direct.advance_iters(ra.t)
    cd = direct.trace_columns()
    np.testing.assert_array_equal(cd["objective"], ca["objective"])


# ----------------------------------------------------------------------------- svmcore.viz


@pytest.fixture(scope="module")
def fitted():
    X, y = make_toy("moons", n=120, seed=1)
    run = TrainingRun("pegasos", X, y, seed=1, kernel="rbf", gamma=2.0)
    run.advance_iters(400)
    return X, y, run.solver


def test_field_grid_covers_the_data():
    X = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, -1.0]])
    xs, ys = viz.field_grid(X, resolution=50, pad=0.1)
    assert xs.shape == (50,) and ys.shape == (50,)
    assert xs[0] < 0.0 and xs[-1] > 2.0 and ys[0] < -1.0 and ys[-1] > 1.0
    assert np.all(np.diff(xs) > 0) and np.all(np.diff(ys) > 0)
    # one point: still a proper box
    xs1, ys1 = viz.field_grid(np.zeros((1, 2)), resolution=5)
    assert xs1[-1] > xs1[0] and ys1[-1] > ys1[0]
    with pytest.raises(ValueError):
        viz.field_grid(np.zeros((3, 3)))


def test_decision_field_matches_decision_function(fitted):
    X, y, solver = fitted
    xs, ys = viz.field_grid(X, resolution=40)
    F = viz.decision_field(solver, xs, ys)
    assert F.shape == (len(ys), len(xs)) and F.dtype == np.float32
    assert np.all(np.isfinite(F))
    j, i = 7, 31                          # row = y, column = x
    ref = solver.decision_function(np.array([[xs[i], ys[j]]]))[0]
    assert math.isclose(F[j, i], ref, rel_tol=1e-5, abs_tol=1e-5)


def _all_arrays(fig: go.Figure):
    for tr in fig.data:
        for name in ("x", "y", "z"):
            v = getattr(tr, name, None)
            if v is not None and not isinstance(v, str):
                yield tr, name, np.asarray(v)


def test_boundary_figure_structure(fitted):
    X, y, solver = fitted
    xs, ys = viz.field_grid(X, resolution=60)
    F = viz.decision_field(solver, xs, ys)
    snap = solver.snapshot()
    coef = np.abs(solver.model()[0][snap.support])
    mis = np.where(solver.decision_function(X) >= 0, 1.0, -1.0) != y
    X_tr, X_te, y_tr, y_te = X[:90], X[90:], y[:90], y[90:]
    fig = viz.boundary_figure(X, y, F, xs, ys, support=snap.support, sv_size=coef,
                              misclassified=mis, X_test=X_te, y_test=y_te, title="t")
    contours = [tr for tr in fig.data if isinstance(tr, go.Contour)]
    assert len(contours) == 2
    field, boundary = contours
    assert np.asarray(field.z).shape == (len(ys), len(xs))
    assert field.contours.coloring == "heatmap"
    # dashed margins at ±1 on the field, the solid boundary at 0
    assert (field.contours.start, field.contours.end, field.contours.size) == (-1.0, 1.0, 2.0)
    assert field.line.dash == "dash"
    assert (boundary.contours.start, boundary.contours.end) == (0.0, 0.0)
    assert boundary.line.dash in (None, "solid")
    assert field.zmin == -field.zmax                        # centred at 0
    names = [tr.name for tr in fig.data]
    assert "support vectors" in names
    sv = fig.data[names.index("support vectors")]
    assert len(sv.x) == len(snap.support) and np.ptp(np.asarray(sv.marker.size)) > 0
    assert any("(test)" in n for n in names)
    assert ("misclassified" in names) == bool(mis.any())
    for tr, name, arr in _all_arrays(fig):
        assert arr.dtype == np.float32, (tr.name, name, arr.dtype)
        assert np.all(np.isfinite(arr)), (tr.name, name)
    assert fig.layout.uirevision == "boundary"
    assert tuple(fig.layout.xaxis.range) == (float(xs[0]), float(xs[-1]))
    assert tuple(fig.layout.yaxis.range) == (float(ys[0]), float(ys[-1]))


def test_boundary_figure_without_extras_and_with_bad_values():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    xs, ys = viz.field_grid(X, resolution=10)
    F = np.zeros((10, 10), dtype=np.float32)
    F[0, 0], F[1, 1], F[2, 2] = np.nan, np.inf, -np.inf
    fig = viz.boundary_figure(X, y, F, xs, ys)
    names = [tr.name for tr in fig.data]
    assert "support vectors" not in names and "misclassified" not in names
    for _, _, arr in _all_arrays(fig):
        assert np.all(np.isfinite(arr))
    assert np.asarray(fig.data[0].z).max() <= 2.0
    with pytest.raises(ValueError):
        viz.boundary_figure(X, y, np.zeros((3, 4)), xs, ys)


def test_curves_figure():
    run_cols = {
        "iteration": np.array([0, 1, 2, 5, 10.0]),
        "time": np.array([0, 1e-6, 2e-6, 5e-6, 1e-5]),
        "kernel_evals": np.array([0, 0, 3, 10, 40.0]),
        "objective": np.array([1.0, 0.8, 0.5, 0.4, 0.3]),
        "train_error": np.array([0.5, 0.3, 0.2, 0.1, 0.1]),
        "test_error": np.full(5, np.nan),
        "n_sv": np.array([0, 1, 2, 3, 3.0]),
    }
    fig = viz.curves_figure(run_cols, x="iteration", log_x=True)
    names = [tr.name for tr in fig.data]
    assert names == ["primal objective", "train error", "# support vectors"]  # NaN test skipped
    for tr in fig.data:
        assert np.asarray(tr.x).min() > 0                # t = 0 dropped on a log axis
        assert np.asarray(tr.x).dtype == np.float32
    assert fig.layout.xaxis.type == "log"
    fig2 = viz.curves_figure(run_cols, x="kernel_evals", y=["objective"], log_x=False)
    assert len(fig2.data) == 1 and len(fig2.data[0].x) == 5
    with pytest.raises(ValueError):
        viz.curves_figure(run_cols, x="epochs")
    assert len(viz.curves_figure({}, y=["objective"]).data) == 0


def test_schedule_figure():
    t = np.arange(1, 101)
    fig = viz.schedule_figure(t, 1.0 / t, current_t=10)
    assert len(fig.data) == 2 and fig.layout.xaxis.type == "log"
