"""The Step-through page (pages/step_through.py) through AppTest, and its kit parts.

* every registered solver (``?solver=NAME``): 5 steps and 2 backs leave t = 3 and exactly the
  model of a fresh solver stepped 3 times with ``step(1)`` (decision values equal); the field
  frame marks the record and the pseudocode highlights the executed lines;
* Run to t goes forward, back through the history and beyond it; the history keeps ≥ 100 states;
* data that are not a small 2-D set (a real dataset with 30 features, a toy set of 400 points)
  get one clear message and an offer of the toy default; the session goes on;
* the landscape figure (svmcore.viz.landscape) and the frame's optional segments.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.lessons import step_through
from svmcore.runs.config import RunConfig
from svmcore.data import make_toy
from svmcore.data.upload import parse_upload
from svmcore.runs.rundata import build_data
from svmcore.solvers import get_solver, list_solvers
from svmcore.ui import step_through as stk
from svmcore.viz.frame import field_frame
from svmcore.viz.landscape import landscape_figure
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "step_through.py")
TIMEOUT = 120


def _ok(at: AppTest) -> AppTest:
    """No exception and no error message on the page."""
    assert not (at.exception or at.error), [e.value for e in [*at.exception, *at.error]]
    return at


def _page(query: dict) -> AppTest:
    """The page opened with the link ``?query``."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update(query)
    return _ok(at.run())


def _press(at: AppTest, key: str, times: int = 1) -> None:
    for _ in range(times):
        at.button(key=key).click().run()
        _ok(at)


def _field(at: AppTest) -> dict:
    views = {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
             for c in at.get("bidi_component")}
    return views["st_field"]


def _reference(cfg: RunConfig, k: int):
    """A fresh solver of the page's configuration stepped k times with step(1)."""
    data = build_data(cfg)
    s = get_solver(cfg.solver)(**cfg.param_dict)
    s.init(data.X_train, data.y_train, seed=int(cfg.seed))
    for _ in range(k):
        s.step(1)
    return s, data


@pytest.mark.parametrize("name", list_solvers())
def test_five_steps_two_backs_is_three_steps(name):
    at = _page({"solver": name})
    stp = at.session_state["st_stepper"]
    assert stp is not None and stp.t == 0 and stp.cfg.solver == name
    _press(at, "st_step", 5)
    assert at.session_state["st_stepper"].t == 5
    frame = _field(at)
    rec = at.session_state["st_stepper"].rec
    assert frame["t"] == 5 and rec.t == 5
    if rec.roles:                        # the picked points of the record are ringed
        assert frame["marks"], rec.roles
    executed = "".join(m.value for m in at.markdown).count(stk.EXECUTED_BG)
    assert executed == len(set(rec.lines))
    _press(at, "st_back", 2)
    stp = at.session_state["st_stepper"]
    assert stp.t == 3 and _field(at)["t"] == 3
    ref, data = _reference(stp.cfg, 3)
    assert ref.t == 3
    np.testing.assert_array_equal(stp.solver.decision_function(data.X_train),
                                  ref.decision_function(data.X_train))
    # the state we came back to steps on exactly like the reference
    _press(at, "st_step")
    ref.step(1)
    np.testing.assert_array_equal(at.session_state["st_stepper"].solver.decision_function(
        data.X_train), ref.decision_function(data.X_train))
    q = at.query_params["solver"]
    assert (q if isinstance(q, str) else q[-1]) == name


def test_a_solver_without_a_record_steps_through_without_a_page_edit(monkeypatch):
    from .test_kit import ThrowawaySolver

    from svmcore.solvers import REGISTRY
    monkeypatch.setitem(REGISTRY, ThrowawaySolver.name, ThrowawaySolver)
    at = _page({"solver": "throwaway"})
    _press(at, "st_step", 3)
    _press(at, "st_back")
    stp = at.session_state["st_stepper"]
    assert isinstance(stp.solver, ThrowawaySolver) and stp.t == 2 and stp.rec.generic
    assert any("no line-by-line record" in c.value for c in at.caption)


def test_pegasos_page_draws_arrows_and_the_landscape():
    at = _page({"solver": "pegasos"})
    _press(at, "st_step", 3)
    frame = _field(at)
    heads = [g for g in frame["segments"] if g["head"]]
    assert {g["legend"] for g in heads} >= {"w before", "w after", "update"}
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 1
    names = [tr.get("name") for tr in charts[0]["data"]]
    assert "iterates w_t" in names and "current w" in names and "ball ‖w‖ ≤ 1/√λ" in names
    path = next(tr for tr in charts[0]["data"] if tr.get("name") == "iterates w_t")
    xs = path["x"]
    if isinstance(xs, dict):                           # plotly's typed-array encoding
        xs = np.frombuffer(base64.b64decode(xs["bdata"]), dtype=xs["dtype"])
    assert len(xs) == 4                                # w_0 … w_3


def test_reset_and_run_to_t():
    at = _page({"solver": "pegasos"})
    at.number_input(key="st_to_t").set_value(40).run()
    _press(at, "st_run_to")
    stp = at.session_state["st_stepper"]
    assert stp.t == 40 and len(stp.frames) == 41
    ref, data = _reference(stp.cfg, 40)
    np.testing.assert_array_equal(stp.solver.decision_function(data.X_train),
                                  ref.decision_function(data.X_train))
    at.number_input(key="st_to_t").set_value(12).run()
    _press(at, "st_run_to")                            # back through the history
    assert at.session_state["st_stepper"].t == 12
    _press(at, "st_reset")
    stp = at.session_state["st_stepper"]
    assert stp.t == 0 and len(stp.frames) == 1
    assert at.button(key="st_back").disabled
    keys = {k: at.button(key=f"st_{k}").proto.shortcut for k in ("step", "back", "reset")}
    assert keys == {"step": "right", "back": "left", "reset": "home"}


def test_history_keeps_a_hundred_states_and_run_to_beyond_it():
    cfg = RunConfig(solver="pegasos", n=120)          # stochastic: it never stops by itself
    data = build_data(cfg)
    stp = stk.Stepper(cfg, cfg, data, None)
    stp.frames.append(stk._fresh(cfg, data))
    stk.run_to(stp, 150)
    assert stp.t == 150 and len(stp.frames) == stk.HISTORY >= 101
    assert [f.solver.t for f in stp.frames] == list(range(150 - stk.HISTORY + 1, 151))
    for _ in range(100):
        stk.back(stp)
    assert stp.t == 50
    ref, _ = _reference(cfg, 50)
    np.testing.assert_array_equal(stp.solver.decision_function(data.X_train),
                                  ref.decision_function(data.X_train))
    stk.run_to(stp, 10)                                # before the history: from t = 0
    assert stp.t == 10 and len(stp.frames) == 11
    stk.run_to(stp, 400)                               # past the history: plain steps first
    assert stp.t == 400 and len(stp.frames) == stk.HISTORY
    assert stp.frames[0].rec is None and stp.frames[-1].rec.t == 400
    ref, _ = _reference(cfg, 400)
    np.testing.assert_array_equal(stp.solver.decision_function(data.X_train),
                                  ref.decision_function(data.X_train))


@pytest.mark.parametrize("query, needle", [
    ({"src": "real", "ds": "breast_cancer", "maxn": "200", "solver": "smo"}, "30 features"),
    ({"src": "toy", "n": "400", "solver": "pegasos"}, "has 400"),
])
def test_unsuitable_data_get_a_message_and_the_toy_default(query, needle):
    at = _page(query)
    assert at.session_state["st_stepper"] is None
    assert len(at.warning) == 1 and needle in at.warning[0].value
    assert not at.get("bidi_component")
    _press(at, "st_toy_default")
    stp = at.session_state["st_stepper"]
    assert stp is not None and stp.cfg.source == "toy" and stp.cfg.n == 200
    assert stp.cfg.solver == query["solver"]
    _press(at, "st_step", 2)
    assert at.session_state["st_stepper"].t == 2 and not at.warning


def test_an_upload_with_fifty_features_is_refused_with_a_reason():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 50))
    rows = [",".join(f"{v:.3f}" for v in x) + f",{int(x[0] > 0)}" for x in X]
    up = parse_upload(("\n".join(rows) + "\n").encode(), "wide.csv")
    cfg = RunConfig(source="upload", dataset="wide.csv", solver="pegasos")
    why = stk.unsuitable(cfg, build_data(cfg, up))
    assert "50 features" in why and "2-D" in why
    assert stk.unsuitable(RunConfig(n=300)) is None
    assert "301" in stk.unsuitable(RunConfig(n=301))


def test_added_points_restart_the_solver_on_the_edited_data():
    at = _page({"solver": "olsvm"})
    _press(at, "st_step", 2)
    n = at.session_state["st_stepper"].solver.n
    at.session_state["st"].added = [(0.25, -0.5, 1), (-0.75, 0.5, -1)]
    at.run()
    _ok(at)
    stp = at.session_state["st_stepper"]
    assert stp.t == 0 and stp.solver.n == n + 2
    np.testing.assert_array_equal(stp.data.X_train[-2:], [[0.25, -0.5], [-0.75, 0.5]])
    q = at.query_params["add"]
    assert "0.25,-0.5,1" in (q if isinstance(q, str) else q[-1])
    _press(at, "st_clear")
    assert at.session_state["st_stepper"].solver.n == n


def test_bad_link_value_is_a_warning_and_the_page_works():
    at = _page({"solver": "pegasos", "p.eta0": "-1"})
    assert any("eta0" in w.value for w in at.warning)
    _press(at, "st_step")
    assert at.session_state["st_stepper"].t == 1


# ------------------------------------------------------------------------------ pure parts


def test_segments_are_optional_and_drawn_when_given():
    X, y = make_toy("gaussians", n=40, seed=1)
    xs = ys = np.linspace(-3, 3, 5)
    z = np.zeros((5, 5))
    plain = field_frame(X, y, z, xs, ys)
    assert "segments" not in plain
    seg = {"x0": 0, "y0": 0, "x1": 1, "y1": 1, "color": "#f00", "width": 2, "dash": True,
           "head": True, "legend": "update"}
    with_seg = field_frame(X, y, z, xs, ys, segments=[seg])
    assert with_seg["segments"] == [seg]
    assert {k: v for k, v in with_seg.items() if k not in ("segments", "legend")} == \
        {k: v for k, v in plain.items() if k != "legend"}
    assert with_seg["legend"][-1]["name"] == "update" and with_seg["legend"][-1]["line"]


def test_landscape_figure_matches_the_explain_numbers():
    X, y = make_toy("gaussians", n=60, seed=2)
    s = get_solver("pegasos")()
    s.init(X, y, seed=0)
    recs = []
    for _ in range(4):
        recs.append(s.step_through())
    path = step_through.iterate_path(recs)
    land = step_through.landscape(s, paths=[path], size=21)
    fig = landscape_figure(land, path, step_through.weight_step(recs[-1]))
    traces = {tr.name: tr for tr in fig.data}
    np.testing.assert_allclose(np.asarray(traces["objective"].z, dtype=float), land.P,
                               rtol=1e-6)
    ball = traces["ball ‖w‖ ≤ 1/√λ"]
    r = np.hypot(np.asarray(ball.x, dtype=float), np.asarray(ball.y, dtype=float))
    np.testing.assert_allclose(r, 1 / np.sqrt(s.lam), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(traces["iterates w_t"].x, dtype=float), path[:, 0],
                               rtol=1e-6)
    step = traces["step −η_t∇_t"]
    q = recs[-1].quantities
    np.testing.assert_allclose([step.x[0], step.x[1]], [q["w_t"][0], q["w_half"][0]], rtol=1e-6)
    np.testing.assert_allclose(traces["current w"].x[0], s.linear_weights()[0][0])


def test_overlay_and_pseudocode_of_an_smo_step():
    X, y = make_toy("gaussians", n=60, seed=3)
    s = get_solver("smo")(kernel="rbf")
    s.init(X, y, seed=0)
    rec = s.step_through()
    marks, segments, _ = stk.overlay(s, rec)
    i, j = rec.roles["i"][0], rec.roles["j"][0]
    pair = [g for g in segments if g["legend"] == "pair"]
    assert len(pair) == 1
    np.testing.assert_allclose([pair[0]["x0"], pair[0]["y0"], pair[0]["x1"], pair[0]["y1"]],
                               [X[i, 0], X[i, 1], X[j, 0], X[j, 1]])
    colours = {m["color"] for m in marks}
    assert any(m["legend"] == f"i x_{i}" for m in marks)
    assert {step_through.ROLE_COLOURS["i"], step_through.ROLE_COLOURS["j"]} <= colours
    table = stk.pseudocode_html(s, rec)
    assert table.count(stk.EXECUTED_BG) == len(set(rec.lines))
    assert table.count("<tr") == len(s.pseudocode_lines())
    assert stk.overlay(s, None) == ([], [], "")
