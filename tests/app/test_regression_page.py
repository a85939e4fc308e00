"""The Regression page (pages/regression.py) through AppTest, its data and its figures.

* the solver picker lists exactly the registered solvers whose ``tasks`` include "regression";
* +1 and Step drive the run through the kit's live loop; the tiles and the figure are the
  numbers of the run's model (test RMSE, points outside the tube recomputed here);
* a finished run on sinc ends near SVR; a classification set gets one clear message; a
  10-feature set is drawn as prediction against target;
* the toy regression generators: determinism, shapes, bad input.
"""
from __future__ import annotations

import base64

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.data.toy_regression import (REG_GENERATORS, make_regression, regression_problem,
                                         sinc, svr_reference)
from svmcore.solvers import REGISTRY
from svmcore.solvers.asset import ASSETSolver
from svmcore.ui.canvas import decode
from svmcore.viz.regression import fit_frame, regression_curves_frame, regression_view

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "regression.py")
TIMEOUT = 120


def _ok(at: AppTest) -> AppTest:
    assert not (at.exception or at.error), [e.value for e in [*at.exception, *at.error]]
    return at


@pytest.fixture(scope="module")
def page():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    return _ok(at.run())


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_picker_lists_the_regression_solvers(page):
    able = [n for n, c in REGISTRY.items() if "regression" in c.tasks]
    opts = [o.split(" — ")[0] for o in page.selectbox(key="rg_solver").options]
    assert able and opts == able
    text = " ".join(c.value for c in page.caption)
    assert "Supports loss='epsilon_insensitive'" in text and all(n in text for n in able)


def test_steps_and_numbers_of_the_drawn_model(page):
    at = page
    at.button(key="rg_plus1").click().run()
    _ok(at)
    run = at.session_state["rg"].live.run
    assert run.t == 1
    at.button(key="rg_step").click().run()
    _ok(at)
    live = at.session_state["rg"].live
    run, data = live.run, live.data
    assert run.t > 1
    f_test = run.solver.decision_function(data.X_test)
    rmse = float(np.sqrt(np.mean((f_test - data.y_test) ** 2)))
    assert _metric(at, "test RMSE") == f"{rmse:.4f}"
    f = run.solver.decision_function(data.X_train)
    outside = int(np.sum(np.abs(data.y_train - f) >= 0.1))
    assert _metric(at, "outside the tube") == f"{outside} / {len(data.y_train)}"
    # the views the page drew: the fit (its red points are the tile's count) and the curves
    views = {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
             for c in at.get("bidi_component")}
    fit = views["rg_fit"]["panels"][0]["series"]
    assert len(_xy(fit[3])[0]) == outside and len(_xy(fit[2])[0]) == len(data.y_train) - outside
    rmse = views["rg_curves"]["panels"][1]["series"][0]
    assert _xy(rmse)[1][-1] == pytest.approx(run.trace[-1].test_error, rel=1e-6)
    # the trace's test column is an RMSE (not a classification error)
    assert run.trace[-1].test_error == pytest.approx(
        np.sqrt(np.mean((run.solver.decision_function(data.X_test) - data.y_test) ** 2)))


def test_finished_run_is_close_to_svr(page):
    at = page
    live = at.session_state["rg"].live
    live.run.advance_iters(10**7)
    at.run()
    _ok(at)
    svr = float(_metric(at, "SVR test RMSE"))
    test = float(_metric(at, "test RMSE"))
    assert live.run.done and test <= 1.1 * svr, (test, svr)


def test_classification_set_gets_a_clear_message():
    at = _ok(AppTest.from_file(PAGE, default_timeout=TIMEOUT).run())
    at.selectbox(key="rg_dataset").set_value("moons (classification)").run()
    assert not at.exception
    msg = " ".join(e.value for e in at.error)
    assert "classification set" in msg and "sinc" in msg
    at.selectbox(key="rg_dataset").set_value("diabetes (10 features)").run()
    _ok(at)
    assert at.session_state["rg"].live.data.X_train.shape[1] == 10


def test_changed_epsilon_starts_a_new_run():
    at = _ok(AppTest.from_file(PAGE, default_timeout=TIMEOUT).run())
    at.button(key="rg_step").click().run()
    assert at.session_state["rg"].live.run.t > 0
    at.slider(key="rg_epsilon").set_value(0.2).run()
    _ok(at)
    live = at.session_state["rg"].live
    assert live.run.t == 0 and live.run.solver.eps == 0.2


def test_a_link_opens_the_same_run():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update({"ds": "step", "n": "300", "noise": "0.25", "seed": "4",
                            "p.C": "100.0", "p.variant": "star", "p.epsilon": "0.2"})
    _ok(at.run())
    cfg = at.session_state["rg"].live.cfg
    assert (cfg.dataset, cfg.n, cfg.noise, cfg.seed) == ("step", 300, 0.25, 4)
    p = cfg.param_dict
    assert (p["C"], p["variant"], p["epsilon"]) == (100.0, "star", 0.2)
    again = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    again.query_params.update(cfg.to_query())
    _ok(again.run())
    assert again.session_state["rg"].live.cfg == cfg
    bad = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    bad.query_params.update({"p.C": "7", "ds": "nope"})
    bad.run()
    assert not bad.exception and not bad.error
    warned = " ".join(w.value for w in bad.warning)
    assert "p.C='7'" in warned and "ds='nope' is not one of sinc" in warned
    assert bad.session_state["rg"].live.cfg.param_dict["C"] == 1.0


# ------------------------------------------------------------------------------ figures, data


def _xy(series) -> tuple[np.ndarray, np.ndarray]:
    return (np.frombuffer(base64.b64decode(series["x"]), dtype="<f4"),
            np.frombuffer(base64.b64decode(series["y"]), dtype="<f4"))


def test_fit_frame_shows_the_model_and_its_tube():
    X, y = sinc(60, 0.1, 0)
    s = ASSETSolver(loss="epsilon_insensitive", epsilon=0.1, n_components=20, epochs=5)
    s.init(X, y, seed=0)
    s.step(s.horizon)
    v = regression_view(s, X, y, 0.1, n_grid=50)
    np.testing.assert_allclose(v.f_grid, s.decision_function(v.grid[:, None]))
    assert v.grid[0] < X.min() and v.grid[-1] > X.max()
    np.testing.assert_array_equal(v.outside, np.abs(y - s.decision_function(X)) >= 0.1)
    frame = fit_frame(v)
    assert frame["kind"] == "curves" and not frame["log_x"] and frame["x_title"] == "x"
    tube, fit, inside, outside = frame["panels"][0]["series"]
    assert tube["fill"] and tube["name"] == "ε-tube f ± 0.1"
    tx, ty = _xy(tube)                  # the polygon: upper edge left to right, lower back
    np.testing.assert_allclose(tx[:50], v.grid, rtol=1e-6)
    np.testing.assert_allclose(ty[:50], v.f_grid + 0.1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ty[50:], (v.f_grid - 0.1)[::-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_xy(fit)[1], v.f_grid, rtol=1e-5, atol=1e-6)
    assert fit["dots"] is False and inside["line"] is False and outside["line"] is False
    # every training point once, the outside ones red, with their counts in the legend
    ix, iy = _xy(inside)
    ox, oy = _xy(outside)
    assert len(ix) + len(ox) == len(y) and len(ox) == int(v.outside.sum())
    np.testing.assert_allclose(np.sort(ox), np.sort(X[v.outside, 0]), rtol=1e-6)
    assert f"outside the tube (support vectors): {len(ox)}" in [it["name"]
                                                                for it in frame["legend"]]
    # more than one input: prediction against target, the band around the diagonal
    X2, y2 = sinc(40, 0.0, 1, dim=2)
    s2 = ASSETSolver(loss="epsilon_insensitive", epsilon=0.1, n_components=20, epochs=2)
    s2.init(X2, y2, seed=0)
    s2.step(s2.horizon)
    f2 = fit_frame(regression_view(s2, X2, y2, 0.1))
    assert f2["x_title"] == "prediction f(x)" and f2["panels"][0]["title"] == "target y"
    _, _, a, b = f2["panels"][0]["series"]
    xs = np.concatenate([_xy(a)[0], _xy(b)[0]])
    ys = np.concatenate([_xy(a)[1], _xy(b)[1]])
    np.testing.assert_allclose(np.sort(ys), np.sort(y2), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.sort(xs), np.sort(s2.decision_function(X2)), rtol=1e-5,
                               atol=1e-6)


def test_curves_frame_holds_the_trace_and_the_references():
    frame = regression_curves_frame([0, 1, 2, 4], [5.0, 3.0, 2.0, 1.5], [0.9, 0.5, 0.4, 0.3],
                                    svr_rmse=0.25, constant_rmse=float("nan"))
    objective, rmse = frame["panels"]
    assert frame["log_x"] and frame["cols"] == 1             # stacked: the column is narrow
    t, obj = _xy(objective["series"][0])
    np.testing.assert_array_equal(t, [1, 2, 4])             # t = 0 has no place on a log axis
    np.testing.assert_allclose(obj, [3.0, 2.0, 1.5])
    assert [s["name"] for s in rmse["series"]] == ["test RMSE", "SVR (same C, γ, ε): 0.25"]
    # the reference at every trace row: a keyframe's cut at its t cuts it there too
    ref_t, ref = _xy(rmse["series"][1])
    np.testing.assert_array_equal(ref_t, [1, 2, 4])
    np.testing.assert_allclose(ref, [0.25, 0.25, 0.25])


def test_toy_regression_sets():
    for name in REG_GENERATORS:
        X, y = make_regression(name, n=50, seed=3)
        X2, y2 = make_regression(name, n=50, seed=3)
        assert X.shape == (50, 1) and y.shape == (50,) and np.array_equal(y, y2)
        assert X.min() >= -3 and X.max() <= 3
    X, y = sinc(40, 0.0, 1, dim=2)
    np.testing.assert_allclose(y, np.sinc(X[:, 0]) * np.sinc(X[:, 1]))
    for bad in (dict(n=1), dict(noise=-1.0), dict(seed=-2)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_regression("line", **bad)
    with pytest.raises(ValueError, match="unknown regression toy"):
        make_regression("nope")
    d = regression_problem("diabetes (bmi)", seed=1)
    assert d.X_train.shape[1] == 1 and d.X_train.shape[0] + d.X_test.shape[0] == 442
    ref = svr_reference(d, 1.0, 1.0, 0.1)
    assert ref["svr"] < ref["constant"]
