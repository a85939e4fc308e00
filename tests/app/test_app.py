"""The app through Streamlit's AppTest, and the pure figure functions of svmcore.viz.

AppTest never fires ``run_every``, so the live loop is driven with the Step / +1 buttons (and one
tick through Play). Its default timeout (3 s) is shorter than a cold numba compile: the module
fixture warms the cache first and every run gets a generous timeout.
"""
from __future__ import annotations

import base64
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.server import pacing
from svmcore import viz
from svmcore.data import TOY_GENERATORS, make_toy, scale, train_test_split
from svmcore.runs.presets import available_presets
from svmcore.runs.config import RunConfig
from svmcore.runs.rundata import build_data
from svmcore.runs.run import TrainingRun, checkpoints_after, warmup
from svmcore.solvers import get_solver, list_solvers
from svmcore.ui.canvas import decode
from svmcore.viz.frame import dequantize_field

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 120
SOLVERS = list_solvers()


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    for kernel in ("linear", "rbf"):
        warmup(get_solver("pegasos")(kernel=kernel))


def _page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
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


def _views(at: AppTest) -> dict:
    """The live canvas views (field, curves) on the page by key: {key: frame (dict)}."""
    return {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
            for c in at.get("bidi_component")}


def _field_shape(at: AppTest) -> str:
    nx, ny = _views(at)["pg_field"]["grid"]
    return f"{ny}, {nx}"


def _step(at: AppTest, times: int = 1, key: str = "pg_step") -> AppTest:
    for _ in range(times):
        at.button(key=key).click().run()
        _ok(at)
    return at


def _run(at: AppTest) -> TrainingRun:
    return at.session_state["pg"].live.run


def _query(at: AppTest) -> dict:
    """The page's URL query string as {key: value}."""
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def _trace_equal(ca: dict, cb: dict, n: int | None = None):
    keys = ("iteration", "objective", "train_error", "test_error", "n_sv", "kernel_evals")
    m = min(len(ca["iteration"]), len(cb["iteration"])) if n is None else n
    for key in keys:
        np.testing.assert_array_equal(ca[key][:m], cb[key][:m], err_msg=key)


# ----------------------------------------------------------------------------- app / page


@pytest.mark.smoke
def test_app_renders_playground_by_default():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert any(t.value == "Playground" for t in at.title)
    assert _t(at) == 0
    assert _metric(at, "status") == "ready"          # t = 0: nothing has run yet
    assert at.selectbox(key="pg_toy").value == "gaussians"
    views = _views(at)
    assert {"pg_field", "pg_curves", "pg_eta"} <= set(views)
    assert not _charts(at)          # no Plotly chart on the first page: no Plotly.js to load
    field = views["pg_field"]
    z = dequantize_field(field["z"], *field["grid"], field["clip"])   # f, one byte a node
    assert np.all(z == 0) and field["ring"]                     # t = 0: f ≡ 0, no line yet
    _step(at)
    field = _views(at)["pg_field"]
    z = dequantize_field(field["z"], *field["grid"], field["clip"])
    assert (z > 0).any() and (z < 0).any()                      # a boundary for the browser
    assert len(json.dumps(field)) <= 40_000                      # a small frame
    assert _query(at)["solver"] == "pegasos"                  # the URL holds the configuration


def test_step_and_plus_one():
    at = _page()
    ts = [_t(at)]
    for _ in range(4):
        _step(at)
        ts.append(_t(at))
    assert ts[0] == 0
    assert all(b > a for a, b in zip(ts, ts[1:])), ts
    before = _t(at)
    _ok(at.button(key="pg_plus1").click().run())
    assert _t(at) == before + 1
    assert not at.error
    assert _metric(at, "status") == "paused"         # stepped, not ended, not playing


def test_change_dataset_and_kernel_then_step():
    at = _page()
    at.selectbox(key="pg_toy").set_value("moons").run()
    _ok(at)
    at.selectbox(key="pg_p_pegasos_kernel").set_value("rbf").run()
    _ok(at)
    # gamma only appears for kernels that use it (ParamSpec.when)
    assert at.select_slider(key="pg_p_pegasos_gamma").value == 1.0
    assert _t(at) == 0
    _step(at, 4)
    assert _t(at) > 0
    assert _metric(at, "kernel evals") not in ("0", "")
    assert _run(at).solver.p["kernel"] == "rbf"
    field = _views(at)["pg_field"]
    sizes = np.frombuffer(base64.b64decode(field["size"]), dtype=np.uint8)
    ring = np.frombuffer(base64.b64decode(field["ring"]), dtype=np.uint8)
    assert (ring > 0).any(), "support vectors are drawn"
    assert (sizes > 7).sum() == _run(at).solver.snapshot().n_sv   # sized by |coefficient|
    assert not at.error


def viz_decode(v):
    if isinstance(v, dict) and "bdata" in v:
        import base64
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v)


def test_kernel_choice_is_limited_to_the_solver_kernels():
    at = _page()
    for name in SOLVERS:
        at.selectbox(key="pg_solver").set_value(name).run()
        _ok(at)
        cls = get_solver(name)
        if "kernel" in cls.params:
            assert set(at.selectbox(key=f"pg_p_{name}_kernel").options) <= set(cls.kernels)


def test_reset_goes_back_to_zero():
    at = _page()
    _step(at, 3)
    assert _t(at) > 0
    at.button(key="pg_reset_btn").click().run()
    _ok(at)
    assert _t(at) == 0


def test_config_change_rebuilds_the_run():
    at = _page()
    _step(at, 3)
    at.number_input(key="pg_seed").set_value(3).run()
    _ok(at)
    assert _t(at) == 0
    assert at.session_state["pg"].live.cfg.seed == 3
    at.button(key="pg_regen").click().run()
    _ok(at)
    assert at.session_state["pg"].live.cfg.seed == 4


def test_bad_parameter_shows_error_and_session_goes_on():
    at = _page()
    at.slider(key="pg_n").set_value(20).run()
    _ok(at)
    at.select_slider(key="pg_p_pegasos_batch_size").set_value(256).run()
    _ok(at)                                   # no traceback ...
    assert at.error, "expected an st.error for batch_size > n"       # ... but an error element
    assert "batch_size" in at.error[0].value
    assert not at.metric                      # no run to show
    at.select_slider(key="pg_p_pegasos_batch_size").set_value(4).run()
    _ok(at)
    assert not at.error
    _step(at, 2)
    assert _t(at) > 0


def test_play_ticks_and_pause_stops():
    at = _page()
    at.button(key="pg_play").click().run()   # the fragment ticks once inside this run
    _ok(at)
    assert at.session_state["pg"].playing is True
    # one message carries the next keyframes, each with its own tiles (the browser shows a
    # keyframe's tiles with its field); the page's tiles are where the browser stands
    keys = [decode(c.proto.json, every=True) for c in at.get("bidi_component")
            if c.proto.id.endswith("pg_field")][0]
    ts = [f["t"] for f in keys]
    assert len(ts) == pacing.BATCH_KEYS and ts == sorted(ts) and ts[0] >= 1
    for f in keys:
        tiles = dict(f["tiles"]["items"])
        assert tiles["iteration t"] == f"{f['t']:,}" and tiles["status"] == "running"
        assert f"t = {f['t']:,}" in f["title"]
    assert len({f["seq"] for f in keys}) == len(keys)
    assert _t(at) == 0                          # where the browser stands: the t = 0 frame
    assert _field_shape(at) == "100, 100"       # coarser field while playing
    at.button(key="pg_pause").click().run()
    _ok(at)
    assert at.session_state["pg"].playing is False
    assert _t(at) in [0] + ts                   # paused on a keyframe the browser played
    assert _views(at)["pg_field"]["t"] == _t(at)
    assert _field_shape(at) == "150, 150"       # full resolution when paused


def test_run_to_the_end_shows_status_and_disables_play():
    at = _page()
    at.select_slider(key="pg_pace").set_value("max").run()
    _ok(at)
    for _ in range(60):
        if _metric(at, "status") not in ("running", "ready", "paused"):
            break
        _step(at)
    assert _metric(at, "status") == "finished"
    assert at.info and any("Finished" in i.value for i in at.info)
    assert at.button(key="pg_play").disabled
    assert at.button(key="pg_step").disabled
    at.button(key="pg_reset_btn").click().run()
    _ok(at)
    assert _t(at) == 0 and not at.button(key="pg_play").disabled


@pytest.mark.skipif("smo" not in SOLVERS, reason="smo not registered")
def test_converged_signal_and_dual_curves():
    at = _page({"src": "toy", "ds": "moons", "n": "100", "solver": "smo", "p.kernel": "rbf",
                "p.gamma": "2.0"})
    at.select_slider(key="pg_pace").set_value("max").run()
    for _ in range(30):
        if _metric(at, "status") not in ("running", "ready", "paused"):
            break
        _step(at)
    assert _metric(at, "status") == "Converged ✓"
    assert any("Converged" in s.value for s in at.success)
    assert float(_metric(at, "gap")) < 1e-2
    names = [sr["name"] for pn in _views(at)["pg_curves"]["panels"] for sr in pn["series"]]
    # the curves carry the solver's own names (what each is: a bound, a gap)
    assert any(n.startswith("dual") and "lower bound" in n for n in names)
    assert any(n.startswith("duality gap") for n in names)
    assert at.button(key="pg_play").disabled


def test_schedule_option_and_eta_plot():
    at = _page()
    eta = _views(at)["pg_eta"]["panels"][0]
    assert eta["title"].startswith("η_t = 1/(λt) (pegasos)") and len(eta["series"]) == 1
    at.selectbox(key="pg_p_pegasos_schedule").set_value("sqrt").run()
    _ok(at)
    assert at.select_slider(key="pg_p_pegasos_eta0").value == 1.0   # eta0 appears for sqrt
    assert _views(at)["pg_eta"]["panels"][0]["title"].startswith("η_t = η0/√t (sqrt)")
    at.selectbox(key="pg_p_pegasos_averaging_mode").set_value("fraction").run()
    _ok(at)
    _step(at, 3)
    assert _t(at) > 0
    assert _run(at).solver.p["averaging"] == 0.5


def test_formulation_and_paper_shown():
    at = _page()
    cls = get_solver("pegasos")
    assert not at.latex                  # built only while its expander is open
    at.session_state["pg_info_open"] = True
    at.run()
    assert any(cls.formulation in lx.value for lx in at.latex)
    assert any(cls.update_rule in lx.value for lx in at.latex)
    assert any(cls.paper in c.value for c in at.caption)


def test_same_configuration_gives_the_same_trace():
    a, b = _page(), _page()
    _step(a, 6)
    _step(b, 6)
    ca, cb = _run(a).trace_columns(), _run(b).trace_columns()
    assert len(ca["iteration"]) > 5
    _trace_equal(ca, cb)
    # and the page drives the engine faithfully: a direct run on the same data agrees
    X, y = make_toy("gaussians", n=200, noise=0.35, imbalance=0.5, seed=0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, seed=0)
    X_tr, X_te, _ = scale("standard", X_tr, X_te)   # a new session standardises
    direct = TrainingRun("pegasos", X_tr, y_tr, X_te, y_te, seed=0, per_decade=pacing.LIVE_PER_DECADE)
    direct.advance_iters(_run(a).t)
    _trace_equal(direct.trace_columns(), ca)


# ----------------------------------------------------------------------------- every solver


@pytest.mark.parametrize("name", SOLVERS)
def test_every_solver_on_every_toy(name):
    """Every solver on every toy, through the page's own calls (the toy's configuration, its
    data, the page's driver, two live ticks at the default pace, the drawn model's scores); then
    in the page: the solver selected on a toy other than the default, two Step presses, its rbf
    kernel, its field and its state line. (Switching the toy in the page does not depend on the
    solver: test_playground_in_browser and the URL tests switch it.)"""
    from svmcore.ui.live_controls import build_driver
    for toy in TOY_GENERATORS:
        cfg = RunConfig(source="toy", dataset=toy, solver=name)
        run, _ = build_driver(cfg, build_data(cfg))
        for _ in range(2):
            pacing.tick(run, pacing.PACES[pacing.DEFAULT_PACE])
        snap, scores = pacing.model_state(run, fresh=True, scores=True)
        assert run.t > 0 and snap.t == run.t, toy
        assert np.isfinite(scores).all() and math.isfinite(snap.objective), toy
    at = _page()
    at.selectbox(key="pg_solver").set_value(name).run()
    at.selectbox(key="pg_toy").set_value("moons").run()
    _ok(at)
    _step(at, 2)
    assert _t(at) > 0 and not at.error, [e.value for e in at.error]
    if "rbf" in get_solver(name).kernels and "kernel" in get_solver(name).params:
        at.selectbox(key=f"pg_p_{name}_kernel").set_value("rbf").run()
        _step(at, 2)
        assert _t(at) > 0 and not at.error
    assert _views(at)["pg_field"]["kind"] == "field"
    title = get_solver(name).title
    assert [c.value for c in at.caption if c.value.startswith(f"**{title}** — ")]  # state line


@pytest.mark.parametrize("name", SOLVERS)
def test_every_solver_on_real_data(name, data_folder):
    at = _page()
    at.selectbox(key="pg_solver").set_value(name).run()
    at.radio(key="pg_src").set_value("real").run()
    _ok(at)
    for ds in ("breast_cancer", "a9a"):          # dense 30-D (bundled) and sparse 123-D (LIBSVM)
        at.selectbox(key="pg_real").set_value(ds).run()
        _ok(at)
        assert not at.error, (ds, [e.value for e in at.error])
        _step(at, 2)
        assert _t(at) > 0 and not at.error
        assert any("Projection" in c.value for c in at.caption)     # honest about the slice
        run = _run(at)
        assert run.solver.d == (30 if ds == "breast_cancer" else 123)
    assert any("max_train" in c.value for c in at.caption)           # a9a was cut to 2,000
    assert _run(at).solver.n == 2000


def test_feature_view_for_real_data():
    at = _page({"src": "real", "ds": "breast_cancer", "solver": "pegasos", "view": "features",
                "fx": "2", "fy": "5"})
    _ok(at)
    view = at.session_state["pg"].live.view
    assert view.plane.kind == "features" and view.plane.xlabel == "x3"
    assert any("Slice" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- URL / presets


def test_url_round_trip_reproduces_the_run():
    a = _page()
    a.selectbox(key="pg_toy").set_value("circles").run()
    a.selectbox(key="pg_p_pegasos_kernel").set_value("rbf").run()
    a.select_slider(key="pg_p_pegasos_gamma").set_value(2.0).run()
    a.number_input(key="pg_seed").set_value(7).run()
    _ok(a)
    _step(a, 5)
    query = _query(a)
    assert query["ds"] == "circles" and query["p.gamma"] == "2.0" and query["seed"] == "7"
    assert query["t"] == str(_run(a).t)       # the link carries the moment
    b = _page(query)                          # a new session opened from the copied link
    assert b.selectbox(key="pg_toy").value == "circles"
    assert b.session_state["pg"].live.cfg == a.session_state["pg"].live.cfg
    assert _run(b).t == _run(a).t             # replayed to the same t, paused
    _step(a, 3)
    _step(b, 3)
    assert _run(b).t == _run(a).t
    _trace_equal(_run(a).trace_columns(), _run(b).trace_columns())
    assert not b.warning


def test_bad_link_gives_warnings_not_errors():
    at = _page({"src": "toy", "ds": "nope", "n": "abc", "solver": "does-not-exist",
                "p.C": "-1"})
    assert len(at.warning) >= 3
    assert any("nope" in w.value for w in at.warning)
    assert _t(at) == 0 and not at.error


def test_presets_load_and_run():
    at = _page()
    for preset in available_presets():
        at.selectbox(key="pg_preset").set_value(preset.key).run()
        at.button(key="pg_preset_load").click().run()
        _ok(at)
        cfg = at.session_state["pg"].live.cfg
        assert cfg.solver == preset.config.solver and cfg.dataset == preset.config.dataset
        for k, v in preset.config.params:
            assert cfg.param_dict[k] == v, (preset.key, k)
        # its title on one line above the run, its paragraph folded under it
        assert any(preset.title in e.label and preset.text in e.markdown[0].value
                   for e in at.expander)
        _step(at, 1)
        assert _t(at) > 0 and not at.error, preset.key


def test_export_snippet_reproduces_the_page():
    at = _page({"src": "toy", "ds": "xor", "solver": "pegasos", "p.kernel": "rbf"})
    _step(at, 4)
    assert not at.code                   # the export panel is built only while it is open
    at.session_state["pg_export_open"] = True
    at.run()
    code = [c.value for c in at.code if "TrainingRun" in c.value]
    assert len(code) == 1
    ns: dict = {}
    exec(compile(code[0], "reproduce.py", "exec"), ns)
    _trace_equal(ns["run"].trace_columns(), _run(at).trace_columns())
    assert ns["run"].t == _run(at).t
    dl = {b.proto.label for b in at.get("download_button")}
    assert {"trace.csv", "trace.json", "reproduce.py"} <= dl
    # the buttons' files are text built with the panel, not callables that Streamlit revokes
    # when the button is drawn again (a click during a redraw then failed with a traceback)
    from svmcore.ui.export import _files
    files, _ = _files(at.session_state["pg"].live)
    assert all(isinstance(text, str) for _, text, _, _ in files)
    doc = json.loads(dict((label, text) for label, text, _, _ in files)["trace.json"])
    assert doc["t"] == _run(at).t and len(doc["trace"]) == len(_run(at).trace_dicts())


# ----------------------------------------------------------------------------- uploads / edits


def test_upload_good_file_then_three_classes():
    at = _page()
    at.radio(key="pg_src").set_value("upload").run()
    _ok(at)
    assert not at.metric                      # nothing to train on yet
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    lab = np.where(X[:, 0] > 0, "yes", "no")
    text = "a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{c}\n" for r, c in zip(X, lab))
    at.file_uploader(key="pg_upload").set_value(("d.csv", text.encode(), "text/csv")).run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    _step(at, 2)
    assert _t(at) > 0 and _run(at).solver.d == 3
    lab3 = np.array(["a", "b", "c"])[rng.integers(0, 3, 60)]
    text3 = "".join(f"{r[0]},{r[1]},{c}\n" for r, c in zip(X, lab3))
    at.file_uploader(key="pg_upload").set_value(("e.csv", text3.encode(), "text/csv")).run()
    _ok(at)
    assert at.selectbox(key="pg_pos").options and at.selectbox(key="pg_neg").options
    at.selectbox(key="pg_pos").set_value("c").run()
    at.selectbox(key="pg_neg").set_value("a").run()
    _ok(at)
    assert not at.error
    cfg = at.session_state["pg"].live.cfg
    assert (cfg.positive, cfg.negative) == ("c", "a")
    _step(at, 1)
    assert _t(at) > 0


@pytest.mark.parametrize("content,needle", [
    (b"", "empty"),
    (b"x,y,label\n", "header row but no data"),
    (b"1,2,1\n1,oops,0\n3,4,1\n5,6,0\n", "not a number"),
    (b"1,2,1\n1,nan,0\n3,4,1\n5,6,0\n", "NaN"),
    (b"1,2,1\n3,4,1\n5,6,1\n7,8,1\n", "two classes"),
    (b"1,2,1\n1,2\n3,4,1\n5,6,0\n", "cells"),
    (b"+1 1:1\n-1 x:2\n+1 2:1\n-1 1:1\n", "whole number"),
])
def test_bad_uploads_give_a_message(content, needle):
    at = _page()
    at.radio(key="pg_src").set_value("upload").run()
    at.file_uploader(key="pg_upload").set_value(("bad.csv" if b":" not in content else
                                                 "bad.libsvm", content, "text/plain")).run()
    _ok(at)
    assert at.error and needle in at.error[0].value, [e.value for e in at.error]


def test_upload_warnings_are_shown():
    text = b"a,b,label\n0,1,1\n0,1,1\n1,1,0\n2,1,0\n3,1,1\n4,1,0\n"
    at = _page()
    at.radio(key="pg_src").set_value("upload").run()
    at.file_uploader(key="pg_upload").set_value(("w.csv", text, "text/csv")).run()
    _ok(at)
    joined = " ".join(w.value for w in at.warning)
    assert "duplicate" in joined and "Constant feature b" in joined


_EDIT_SCRIPT = """
from svmcore import ui
from svmcore.runs.config import RunConfig
ed = ui.instance("ed")
ui.ensure_live(ed, RunConfig(**CFG))
for mode, x, y, cd in CLICKS:
    ui.handle_click(ed, mode, x, y, cd)
"""


def test_click_edits_add_and_remove_points():
    cfg = dict(dataset="gaussians", n=40, solver="pegasos")
    n_tr = build_data(RunConfig(**cfg)).X_train.shape[0]
    clicks = [("add +1", 0.123456, -0.5, None), ("add −1", 1.0, 1.0, None),
              ("remove", None, None, [3]), ("remove", None, None, [n_tr + 1]),
              ("view", 0.0, 0.0, None), ("remove", None, None, None)]
    head = f"CFG = {cfg!r}\nCLICKS = {clicks!r}\n"
    at = AppTest.from_string(head + _EDIT_SCRIPT, default_timeout=TIMEOUT).run()
    _ok(at)
    assert at.session_state["ed"].added == [(0.1235, -0.5, 1), (1.0, 1.0, -1)]
    assert at.session_state["ed"].removed == [3, n_tr + 1]


_MOVE_SCRIPT = """
from svmcore import ui
from svmcore.runs.config import RunConfig
ed = ui.instance("ed")
ui.ensure_live(ed, RunConfig(**CFG))
ed.live.run.advance_iters(10)
for index, x, y in MOVES:
    ed.edited = False
    assert ui.handle_move(ed, index, x, y)
    ui.ensure_live(ed, RunConfig(**CFG, added=tuple(ed.added), removed=tuple(ed.removed)))
"""


def test_a_dragged_point_moves_with_its_class_and_the_run_goes_on_from_its_t():
    cfg = dict(dataset="gaussians", n=40, solver="pegasos")
    data = build_data(RunConfig(**cfg))
    n_tr = data.X_train.shape[0]
    label = 1 if data.y_train[3] > 0 else -1
    # a point of the data, then the point it became (the last training row: added points
    # come after the kept training points), moved again
    moves = [(3, 0.5, -0.25), (n_tr - 1, 1.0, 1.5)]
    head = f"CFG = {cfg!r}\nMOVES = {moves!r}\n"
    at = AppTest.from_string(head + _MOVE_SCRIPT, default_timeout=TIMEOUT).run()
    _ok(at)
    ed = at.session_state["ed"]
    assert ed.removed == [3] and ed.added == [(1.0, 1.5, label)]     # one point, moved twice
    run = ed.live.run
    assert run.t == 10 and run.solver.n == n_tr      # the same count, the edited data's run at t
    assert ed.notice.startswith("Point moved at t = 10: the run goes on from here")
    X = ed.live.data.X_train
    assert np.allclose(X[-1], [1.0, 1.5]) and ed.live.data.y_train[-1] == label
    assert not np.any(np.all(np.isclose(X, data.X_train[3]), axis=1))  # gone from its place


def test_an_edit_while_playing_goes_on_from_the_runs_t_and_plays_on():
    """A click while the Playground plays (on the link's shared timeline): the run on the
    edited data goes on from the t the page had reached, not from t = 0, still playing; one line
    says so; a kernel switch after it is a new run from t = 0."""
    at = _page({"src": "toy", "ds": "moons", "n": "120", "solver": "pegasos"})
    at.button(key="pg_play").click().run()
    _ok(at)
    pg = at.session_state["pg"]
    t = max(pg.live.run.t, pg.moment.t if pg.moment is not None else 0)
    assert pg.playing and t >= 3
    pg.added = [(0.25, 0.5, 1)]
    at.run()
    _ok(at)
    assert pg.live.cfg.added == ((0.25, 0.5, 1),) and pg.live.run.solver.n == 91
    assert pg.playing and pg.live.run.t >= t                  # went on from t (and ticked)
    assert any(f"Point added at t = {t:,}: the run goes on from here" in i.value
               for i in at.info), [i.value for i in at.info]
    at.selectbox(key="pg_p_pegasos_kernel").set_value("rbf").run()
    _ok(at)
    assert pg.live.run.t <= 1 and pg.live.cfg.added == ((0.25, 0.5, 1),)
    assert any("new run from t = 0" in i.value for i in at.info)


def test_the_line_after_an_edit_names_it():
    from svmcore.ui.live_edits import edit_words
    a, b = (0.25, 0.5, 1), (-0.3, 0.1, -1)
    old = RunConfig(added=(a,), removed=(3,))
    assert edit_words(old, replace(old, added=(a, b))) == "Point added"
    assert edit_words(old, replace(old, added=(a, b), removed=(3, 7))) == "Point moved"
    assert edit_words(old, replace(old, added=((0.5, 0.5, 1),))) == "Point moved"
    assert edit_words(old, replace(old, added=())) == "Point removed"
    assert edit_words(old, replace(old, removed=(3, 9))) == "Point removed"
    assert edit_words(old, replace(old, added=(), removed=())) == "Edits cleared"
    assert edit_words(old, replace(old, added=(b,), removed=(4,))) == "The data changed"


def test_edits_rebuild_the_run_and_go_into_the_link():
    at = _page()
    at.session_state["pg"].added = [(0.25, 0.5, 1), (-0.3, 0.1, -1)]
    at.session_state["pg"].removed = [0, 5]
    at.run()
    _ok(at)
    cfg = at.session_state["pg"].live.cfg
    assert cfg.added == ((0.25, 0.5, 1), (-0.3, 0.1, -1)) and cfg.removed == (0, 5)
    assert _run(at).solver.n == 150 - 2 + 2
    q = _query(at)
    assert q["add"] == "0.25,0.5,1;-0.3,0.1,-1" and q["rm"] == "0,5"
    b = _page(q)
    assert b.session_state["pg"].live.cfg == cfg
    at.segmented_control(key="pg_edit").set_value("add +1").run()
    _ok(at)
    assert _views(at)["pg_field"]["mode"] == "add +1"            # clicks go to the page
    at.button(key="pg_clear").click().run()
    _ok(at)
    assert at.session_state["pg"].live.cfg.added == ()


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


def test_level_lines_of_a_circle_and_a_saddle():
    from svmcore.viz.raster import level_lines
    xs = np.linspace(-2, 2, 81)
    ys = np.linspace(-1.5, 1.5, 61)
    Z = xs[None, :] ** 2 + ys[:, None] ** 2 - 1.0
    x, y = level_lines(Z, xs, ys)
    r = np.hypot(x, y)
    assert np.isfinite(x).sum() > 100 and np.all(np.abs(r[np.isfinite(r)] - 1.0) < 5e-3)
    assert np.isnan(x).sum() == 0 and (x[0], y[0]) == (x[-1], y[-1])   # one closed loop
    # a saddle z = x·y: the two axes, nowhere else
    x2, y2 = level_lines(xs[None, :] * ys[:, None], xs, ys)
    f = np.isfinite(x2)
    assert f.sum() > 100 and np.all(np.minimum(np.abs(x2[f]), np.abs(y2[f])) < 1e-9)
    ex, ey = level_lines(Z + 10.0, xs, ys)
    assert ex.size == 0 and ey.size == 0


def _all_arrays(fig):
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
    coef = np.abs(snap.coef)
    mis = np.where(solver.decision_function(X) >= 0, 1.0, -1.0) != y
    X_te, y_te = X[90:], y[90:]
    fig = viz.boundary_figure(X, y, F, xs, ys, support=snap.support, sv_size=coef,
                              misclassified=mis, X_test=X_te, y_test=y_te, title="t")
    images = [tr for tr in fig.data if tr.type == "image"]
    assert len(images) == 1 and images[0].source.startswith("data:image/png;base64,")
    assert not [tr for tr in fig.data if tr.type in ("contour", "heatmap")]
    names = [tr.name for tr in fig.data]
    boundary = fig.data[names.index("boundary f = 0")]
    bx, by = np.asarray(boundary.x, dtype=float), np.asarray(boundary.y, dtype=float)
    assert np.isfinite(bx).sum() > 10 and boundary.line.dash is None
    # the boundary passes through f = 0 (the field, interpolated at its points)
    from scipy.interpolate import RegularGridInterpolator
    f_at = RegularGridInterpolator((ys, xs), F.astype(float), bounds_error=False, fill_value=None)
    ok = np.isfinite(bx)
    assert np.abs(f_at(np.c_[by[ok], bx[ok]])).max() < 0.05
    margins = fig.data[names.index("margins f = ±1")]
    assert margins.line.dash == "dash"
    mx, my = np.asarray(margins.x, dtype=float), np.asarray(margins.y, dtype=float)
    ok = np.isfinite(mx)
    assert np.allclose(np.abs(f_at(np.c_[my[ok], mx[ok]])), 1.0, atol=0.05)
    # support vectors and mistakes restyle the class traces: one byte per point, not a copy
    pos = fig.data[names.index("class +1 (train)")]
    neg = fig.data[names.index("class −1 (train)")]
    ring = np.zeros(len(y), dtype=int)
    ring[np.flatnonzero(y == 1)] = np.asarray(pos.marker.line.color)
    ring[np.flatnonzero(y == -1)] = np.asarray(neg.marker.line.color)
    expect = np.zeros(len(y), dtype=int)
    expect[snap.support] = 1
    expect[mis] = 2
    np.testing.assert_array_equal(ring, expect)
    assert "support vectors" in names and ("misclassified" in names) == bool(mis.any())
    assert any("(test)" in n for n in names)
    assert pos.customdata is None                               # only in edit mode
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
    assert fig.data[0].type == "image"
    with pytest.raises(ValueError):
        viz.boundary_figure(X, y, np.zeros((3, 4)), xs, ys)
    grid = viz.edit_grid(xs, ys, 2)
    fig2 = viz.boundary_figure(X, y, F, xs, ys, click_grid=grid)
    assert fig2.layout.clickmode == "event+select" and fig2.layout.dragmode is False
    pos = fig2.data[[tr.name for tr in fig2.data].index("class +1 (train)")]
    np.testing.assert_array_equal(np.asarray(pos.customdata), np.flatnonzero(y == 1))


def test_view_plane_pca_and_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) * np.array([5.0, 1.0, 0.1, 0.1, 0.1])
    plane = viz.view_plane(X, "pca")
    assert plane.kind == "pca" and not plane.exact
    assert abs(abs(plane.e1[0]) - 1.0) < 0.01 and plane.e1[0] > 0      # the big axis first
    assert abs(plane.e1 @ plane.e2) < 1e-12
    P = plane.project(X)
    np.testing.assert_allclose(P.mean(axis=0), 0.0, atol=1e-12)
    f = viz.view_plane(X, "features", 2, 4)
    np.testing.assert_allclose(f.project(X), X[:, [2, 4]])
    assert "Slice" in f.describe() and "Projection" in plane.describe()
    d2 = viz.view_plane(X[:, :2], "pca")
    assert d2.exact and d2.describe() == ""
    with pytest.raises(ValueError):
        viz.view_plane(X, "features", 1, 1)


def test_curves_figure():
    run_cols = {
        "iteration": np.array([0, 1, 2, 5, 10.0]),
        "time": np.array([0, 1e-6, 2e-6, 5e-6, 1e-5]),
        "kernel_evals": np.array([0, 0, 3, 10, 40.0]),
        "objective": np.array([1.0, 0.8, 0.5, 0.4, 0.3]),
        "train_error": np.array([0.5, 0.3, 0.2, 0.1, 0.1]),
        "test_error": np.full(5, np.nan),
        "n_sv": np.array([0, 1, 2, 3, 3.0]),
        "gap": np.array([np.nan, 1.0, 0.1, 0.01, 0.0]),
    }
    fig = viz.curves_figure(run_cols, x="iteration", log_x=True)
    names = [tr.name for tr in fig.data]
    assert names == ["primal objective", "train error", "# support vectors"]  # NaN test skipped
    for tr in fig.data:
        assert np.asarray(tr.x).min() > 0                # t = 0 dropped on a log axis
        assert np.asarray(tr.x).dtype == np.float32
    assert fig.layout.xaxis.type == "log"
    assert fig.data[1].xaxis == "x2" and fig.data[1].yaxis == "y2"
    fig2 = viz.curves_figure(run_cols, x="kernel_evals", y=["objective"], log_x=False)
    assert len(fig2.data) == 1 and len(fig2.data[0].x) == 5
    fig3 = viz.curves_figure(run_cols, y=["objective", "gap"], log_y=[False, True], cols=1)
    assert fig3.layout.yaxis2.type == "log" and len(fig3.data[1].x) == 3   # gap 0 dropped
    with pytest.raises(ValueError):
        viz.curves_figure(run_cols, x="epochs")
    assert len(viz.curves_figure({}, y=["objective"]).data) == 0


def test_schedule_figure():
    t = np.arange(1, 101)
    fig = viz.schedule_figure(t, 1.0 / t, current_t=10)
    assert len(fig.data) == 2 and fig.layout.xaxis.type == "log"


def test_advance_tick_and_model_state():
    X, y = make_toy("gaussians", n=200, seed=0)
    run = TrainingRun("pegasos", X, y, seed=0, kernel="rbf", per_decade=pacing.LIVE_PER_DECADE)
    ts = [run.t]
    for _ in range(40):
        pacing.advance_tick(run, 1.1, budget_s=10.0)
        ts.append(run.t)
    assert all(b == max(a + 1, math.ceil(a * 1.1)) for a, b in zip(ts, ts[1:]))
    # between checkpoints: the last checkpoint's numbers, the current support vectors
    if run.trace[-1].iteration != run.t:
        snap, _ = pacing.model_state(run, fresh=False, scores=False)
        assert snap.t == run.trace[-1].iteration
        support, coef, _ = run.solver.support_coef()
        np.testing.assert_array_equal(snap.support, support)
        np.testing.assert_array_equal(snap.coef, coef)
    exact, scores = pacing.model_state(run, fresh=True, scores=True)
    assert exact.t == run.t
    np.testing.assert_allclose(scores, run.solver.decision_function(X))
    run.advance_iters(checkpoints_after(run.t, run.per_decade) - run.t)
    on, _ = pacing.model_state(run, fresh=True, scores=False)
    assert on is run.last_snapshot                      # the run's own: no second snapshot


def test_app_tick_benchmark_smoke(capsys):
    from svmcore.bench.app import app_tick

    r = app_tick.bench_solver(SOLVERS[0], n=200, target_sv=20, reps=3, gamma=2.0, C=1.0,
                              max_prep_s=5.0)
    assert r["n"] == 200 and r["active"] + r["idle"] == 3
    assert r["bytes"] > 10_000 and r["paused_bytes"] > r["bytes"] / 4
    app_tick.main(["--solvers", SOLVERS[0], "--n", "200", "--target-sv", "10", "--reps", "2"])
    out = capsys.readouterr().out
    assert "| " + SOLVERS[0] + " |" in out and "tick median ms" in out


def test_stream_mode_in_the_playground():
    """The stream toggle of a toy: n grows to a few turns, the curves go linear, NORMA steps
    through the points in order, the field shows the recent ones, the tiles say what they
    measure, the link carries stream=1; a batch solver is refused with the reason."""
    at = _page()
    at.selectbox(key="pg_toy").set_value("drift").run()
    at.selectbox(key="pg_solver").set_value("norma").run()
    at.toggle(key="pg_stream").set_value(True).run()
    _ok(at)
    assert at.slider(key="pg_n").value == 2000 and at.toggle(key="pg_logx").value is False
    _step(at, 2)
    run = _run(at)
    assert run.stream is not None and run.t > 0 and not at.error
    field = _views(at)["pg_field"]
    labels = np.frombuffer(base64.b64decode(field["labels"]), dtype=np.int8)
    assert 0 < labels.size <= run.stream.window and "fade" in field
    assert np.array_equal(labels, run.solver.y[run.stream.window_rows(run.solver)])
    assert _metric(at, "test error now").endswith("%")
    assert _query(at)["stream"] == "1"
    at.selectbox(key="pg_solver").set_value("smo").run()
    assert any("batch solver" in e.value for e in at.error)
