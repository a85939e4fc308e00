"""The Sweep page through Streamlit's AppTest, and its heatmap figure.

AppTest never fires ``run_every``: a full rerun of the page runs the polling fragment once, so
the tests rerun the page until the sweep is done. Runs go to real worker processes (the local
backend), so the grids stay tiny (toy data, a few cells).
"""
from __future__ import annotations

import json
import math
import time
from urllib.parse import urlencode
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.runs.config import RunConfig
from svmcore.ui import live
from svmcore.solvers.objectives import error_rate
from svmcore.runs.rundata import build_data
from svmcore.runs.run import TrainingRun, warmup
from svmcore.solvers import get_solver
from svmcore.runs.sweep import best_cell, heatmap
from svmcore.viz.heatmaps import sweep_heatmap

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = str(ROOT / "pages" / "sweep.py")
TIMEOUT = 120
STATE = "_sweep_sw"

# one worker runs the module: its finished 3 × 3 sweep (``finished``) is built once, not once per
# xdist worker, and its server and sweeps, which mostly wait, are not the run's last tests
pytestmark = pytest.mark.xdist_group("test_sweep_page")


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    for name in ("smo", "sfw"):
        warmup(get_solver(name)(kernel="rbf"))


@pytest.fixture(scope="module", autouse=True)
def _one_worker_process():
    """The page's sweeps run on one local worker process (SVMCORE_SWEEP_JOBS): each new worker
    loads numpy and the solvers' compiled code (~2.4 CPU-s), and these tests check what the page
    shows of a sweep, not how it spreads (tests/runs/test_sweep.py runs pools of two, kills workers)."""
    from svmcore.runs.sweep import JOBS_ENV
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(JOBS_ENV, "1")
        yield


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def _grid(at: AppTest, n_C: int, n_g: int, solver: str | None = None) -> AppTest:
    at.slider(key="sw_nC").set_value(n_C)
    at.slider(key="sw_ng").set_value(n_g)
    if solver:
        at.selectbox(key="sw_solver").set_value(solver)
    at.run()
    _ok(at)
    return at


def _finish(at: AppTest, limit: float = 60.0):
    """Rerun the page (each run polls the sweep once) until the sweep is done."""
    sweep = at.session_state[STATE].sweep
    t0 = time.monotonic()
    while not sweep.done and time.monotonic() - t0 < limit:
        time.sleep(0.2)
        at.run()
        _ok(at)
    assert sweep.done, f"{sweep.n_done} of {sweep.n_runs} runs after {limit} s"
    at.run()                                  # one more: the page as it stays
    _ok(at)
    return sweep


def _charts(at: AppTest) -> dict:
    return {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.spec)
            for c in at.get("plotly_chart")}


def _z(spec: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in spec["data"][0]["z"]])


@pytest.fixture(scope="module")
def finished():
    """A 3 × 3 SMO sweep (rbf) on 200 toy points, run to the end on the page."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert at.selectbox(key="sw_solver").value == "smo"
    assert at.selectbox(key="sw_p_smo_kernel").value == "rbf"
    _grid(at, 3, 3)
    at.button(key="sw_start").click().run()
    _ok(at)
    sweep = _finish(at)
    return at, sweep


def test_page_starts_without_a_sweep():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert not _errors(at)
    assert [t.value for t in at.title] == ["Sweep"]
    assert at.button(key="sw_stop").disabled          # nothing to stop
    assert not at.get("plotly_chart")
    from svmcore.ui.sweep import sweep_solvers
    names = sweep_solvers()
    assert names and all("C" in get_solver(s).params for s in names)
    assert at.selectbox(key="sw_solver").options == [get_solver(s).title or s for s in names]
    keys = {w.key for kind in ("slider", "select_slider", "number_input", "selectbox")
            for w in at.get(kind)}
    assert "sw_p_smo_tol" in keys and not {"sw_p_smo_C", "sw_p_smo_gamma"} & keys  # swept


def test_heatmaps_equal_the_sweep_table(finished):
    at, sweep = finished
    assert sweep.n_done == sweep.n_runs == 9 and not sweep.stopped
    table = sweep.table()
    assert set(table["status"]) <= {"converged", "finished"}
    assert list(table["kernel"].unique()) == ["rbf"]
    charts = _charts(at)
    for value in ("test_accuracy", "n_sv"):
        spec = charts[f"sw_map_{value}"]
        rows, cols, Z = heatmap(table, value, axes=sweep.grid.axes)
        assert spec["data"][0]["y"] == [f"{v:g}" for v in rows]
        assert spec["data"][0]["x"] == [f"{v:g}" for v in cols]
        np.testing.assert_array_equal(_z(spec), Z)
        assert np.isfinite(Z).all()
        best = best_cell(table, "test_accuracy")
        star = spec["data"][2]
        assert star["customdata"] == [[best["params"]["C"], best["params"]["gamma"]]]
    assert at.get("progress")[0].proto.value == 100
    # the other accuracy on the same map
    at.segmented_control(key="sw_acc").set_value("train_accuracy").run()
    _ok(at)
    np.testing.assert_array_equal(_z(_charts(at)["sw_map_train_accuracy"]),
                                  heatmap(table, "train_accuracy", axes=sweep.grid.axes)[2])


def test_a_cell_is_the_playground_run_of_its_configuration(finished):
    """The configuration a click opens trains, on the Playground's own data, to the same model
    as the sweep's run of that cell (the data panel's seed is the sweep's first seed)."""
    at, sweep = finished
    from svmcore.ui.sweep import cell_config
    state = at.session_state[STATE]
    table = sweep.table()
    row = table.iloc[4]                              # the middle cell
    cfg = cell_config(state, row["C"], row["gamma"])
    assert cfg.param_dict["C"] == row["C"] and cfg.param_dict["gamma"] == row["gamma"]
    assert cfg.solver == "smo" and cfg.param_dict["kernel"] == "rbf" and cfg.seed == row["seed"]
    data = build_data(cfg)
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, seed=cfg.seed,
                      **cfg.param_dict).run()
    acc = 1.0 - error_rate(run.solver.decision_function(data.X_test), data.y_test)
    assert acc == row["test_accuracy"]
    assert run.solver.snapshot().n_sv == row["n_sv"]
    best = best_cell(table, "test_accuracy")
    link = urlencode(cell_config(state, best["params"]["C"], best["params"]["gamma"]).to_query())
    assert any(f"/?{link}" in c.value for c in at.caption)        # the best cell's link
    assert RunConfig is type(cfg)


def test_clicking_a_cell_opens_it_on_the_playground():
    """Through the app's navigation: the sweep page, a 2 × 2 SFW sweep, a cell clicked (what
    the chart's selection callback records), and the Playground opens with that C and γ."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    _ok(at)
    at.switch_page("pages/sweep.py").run()
    _ok(at)
    assert [t.value for t in at.title] == ["Sweep"]
    _grid(at, 2, 2, solver="sfw")
    at.button(key="sw_start").click().run()
    _ok(at)
    sweep = _finish(at)
    C, gamma = sweep.grid.axes["C"][1], sweep.grid.axes["gamma"][0]
    at.session_state[STATE].clicked = (C, gamma)
    at.run()
    _ok(at)
    assert [t.value for t in at.title] == ["Playground"]
    cfg = at.session_state["pg"].live.cfg
    assert cfg.solver == "sfw" and cfg.param_dict["C"] == C and cfg.param_dict["gamma"] == gamma
    assert cfg.param_dict["kernel"] == "rbf"
    q = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert q["p.C"] == repr(C) and q["p.gamma"] == repr(gamma) and q["solver"] == "sfw"


def test_stop_keeps_the_finished_cells():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.slider(key="sw_n").set_value(2000)
    _grid(at, 8, 8, solver="sfw")
    at.button(key="sw_start").click().run()
    _ok(at)
    sweep = at.session_state[STATE].sweep
    assert not sweep.done and not at.button(key="sw_stop").disabled
    at.button(key="sw_stop").click().run()
    _ok(at)
    assert sweep.stopped and not _errors(at)
    n = sweep.n_done
    assert n < 64 and n + sweep.n_cancelled == 64
    Z = _z(_charts(at)["sw_map_test_accuracy"])
    assert np.isfinite(Z).sum() == n                     # finished cells drawn, the rest blank
    np.testing.assert_array_equal(Z, heatmap(sweep.table(), "test_accuracy",
                                             axes=sweep.grid.axes)[2])
    assert "stopped" in at.get("progress")[0].proto.text
    at.run()                                             # the session goes on
    _ok(at)
    assert at.session_state[STATE].sweep is sweep and sweep.n_done == n


def test_a_linear_kernel_cannot_sweep_gamma():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.selectbox(key="sw_p_smo_kernel").set_value("linear")
    _grid(at, 2, 2)
    at.button(key="sw_start").click().run()
    _ok(at)
    errors = _errors(at)
    assert len(errors) == 1 and "Cannot start this sweep" in errors[0]
    assert "'gamma' has no effect with kernel='linear'" in errors[0]
    assert at.session_state[STATE].sweep is None


def test_an_unreachable_scheduler_is_one_message(monkeypatch):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                        # free: nothing listens there
    monkeypatch.setenv("SVMCORE_DASK_SCHEDULER", f"tcp://127.0.0.1:{port}")
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _grid(at, 2, 2)
    at.button(key="sw_start").click().run()
    _ok(at)
    errors = _errors(at)
    assert len(errors) == 1 and f"could not reach the Dask scheduler at tcp://127.0.0.1:{port}" \
        in errors[0]
    monkeypatch.delenv("SVMCORE_DASK_SCHEDULER")
    at.button(key="sw_start").click().run()              # the session goes on: local this time
    _ok(at)
    assert not _errors(at) and _finish(at).n_done == 4


_TOO_LARGE = """
from svmcore import ui
import streamlit as st
sw = ui.instance("sw")
data = {"cfg": {"source": "toy", "dataset": "moons", "n": 100, "seed": 0}, "upload": None,
        "errors": []}
ui.start_sweep(sw, data, "smo", {"kernel": "rbf"}, 9, 8, 1)
st.error(ui.sweep_state(sw).error)
"""


def test_a_grid_over_8_values_is_one_message():
    at = AppTest.from_string(_TOO_LARGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert _errors(at) == ["Cannot start this sweep: n_C must be an integer from 1 to 8 (a "
                           "heatmap of at most 8 × 8 cells), got 9"]


def test_sweep_heatmap_figure():
    Z = np.array([[0.5, np.nan, 0.7], [0.9, 0.8, np.nan]])
    fig = sweep_heatmap([0.1, 10.0], [0.01, 1.0, 100.0], Z, best=(1, 0), zmin=0, zmax=1)
    heat, cells, star = fig.data
    assert list(heat.y) == ["0.1", "10"] and list(heat.x) == ["0.01", "1", "100"]
    assert heat.z[0][1] is None and heat.z[1][0] == 0.9
    assert [tuple(c) for c in cells.customdata] == [(0.1, 0.01), (0.1, 1.0), (0.1, 100.0),
                                                    (10.0, 0.01), (10.0, 1.0), (10.0, 100.0)]
    assert list(cells.x) == ["0.01", "1", "100"] * 2 and cells.marker.opacity == 0
    assert list(star.customdata[0]) == [10.0, 0.01] and (star.x, star.y) == (("0.01",), ("10",))
    assert len(sweep_heatmap([1.0], [1.0], [[math.nan]]).data) == 2      # no best yet
    with pytest.raises(ValueError, match="shape"):
        sweep_heatmap([1.0], [1.0, 2.0], Z)


def test_without_a_held_out_part_the_best_cell_is_by_train_accuracy():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.slider(key="sw_test").set_value(0.0)
    _grid(at, 2, 2)
    at.button(key="sw_start").click().run()
    _ok(at)
    table = _finish(at).table()
    assert table["test_accuracy"].isna().all() and table["train_accuracy"].notna().all()
    assert any("no held-out part" in c.value for c in at.caption)
    best = best_cell(table, "train_accuracy")
    star = _charts(at)["sw_map_n_sv"]["data"][2]
    assert star["customdata"] == [[best["params"]["C"], best["params"]["gamma"]]]
    assert not _errors(at)


@pytest.mark.slow
def test_on_a_real_server_the_timer_polls_and_a_click_opens_the_playground(tmp_path):
    """``streamlit run app.py`` and a protocol-level client (svmcore.server.protocol_client): Start makes
    the server ask for a 0.5 s fragment timer, the fragment polls until the sweep is done, then
    a full run drops the timer; a plotly selection event on a cell (the frontend's string
    value, with customdata) opens the Playground with that C and γ, in the URL too."""
    import asyncio
    from urllib.parse import parse_qsl

    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit_server import streamlit_server

    from svmcore.bench.app.classroom import warm_up_over
    from svmcore.server.protocol_client import Session
    from svmcore.runs.sweep import default_axes

    Cs, gs = default_axes(build_data(RunConfig(solver="smo")).X_train)   # the page's default
    C, gamma = Cs[2], gs[5]

    async def drive(url):
        # the server's warm-up over first: its end reruns every page, and a full run that meets
        # the fragment's timer tick can drop the timer (the tick finds no fragment to run)
        await warm_up_over(url)
        s = Session(url, page="sweep", name="sweep")
        await s.open()
        assert await s.wait(lambda: "sw_start" in s.widgets, 120), s.errors
        assert await s.idle(30) and not s.errors
        await s.press("sw_start")
        # (the server's warm-up note polls with a timer of its own, 2 s, while it runs)
        polls = lambda: [v for v in s.timers.values() if v != live.WARM_NOTE_S]  # noqa: E731
        assert await s.wait(lambda: bool(polls()), 30), "no fragment timer while running"
        assert polls() == [0.5]
        # done: a full run drew the page without the timer and with Stop disabled (the warm-up
        # note's own full rerun also clears the timers for a moment while the sweep runs, and
        # draws a live Stop: only the three together, after a finished run, mean the end)
        finished = lambda: (not polls() and s.fragment_runs > 0 and not s.running  # noqa: E731
                            and "sw_stop" in s.widgets and not s.enabled("sw_stop"))
        assert await s.wait(finished, 120), (s.timers, s.enabled("sw_stop"), s.errors)
        assert not s.errors
        point = {"curve_number": 1, "point_number": 21, "point_index": 21, "x": f"{gamma:g}",
                 "y": f"{C:g}", "customdata": [C, gamma]}
        sel = {"selection": {"points": [point], "point_indices": [21], "box": [], "lasso": []}}
        key = "sw_map_test_accuracy"
        before = s.page_hash
        await s.rerun([WidgetState(id=s.widgets[key][0], string_value=json.dumps(sel))],
                      fragment_id=s.widget_fragments.get(key, ""))
        assert await s.wait(lambda: s.page_hash != before and bool(s.frames), 60)
        assert await s.idle(30) and not s.errors
        await s.close()
        return dict(parse_qsl(s.query))

    with streamlit_server(tmp_path / "server.log") as url:
        q = asyncio.run(drive(url))
    assert q["solver"] == "smo" and q["p.kernel"] == "rbf"
    assert float(q["p.C"]) == C and float(q["p.gamma"]) == gamma


def test_real_and_uploaded_data():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.radio(key="sw_src").set_value("real").run()
    _ok(at)
    assert at.selectbox(key="sw_real").value == "breast_cancer"
    _grid(at, 2, 2, solver="sfw")
    at.button(key="sw_start").click().run()
    _ok(at)
    table = _finish(at).table()
    expect = build_data(RunConfig(source="real", dataset="breast_cancer"))
    assert set(table["dataset"]) == {"breast_cancer"} and not _errors(at)
    assert set(table["n_train"]) == {expect.X_train.shape[0]}
    assert table["test_accuracy"].notna().all()

    at.radio(key="sw_src").set_value("upload").run()
    at.button(key="sw_start").click().run()             # no file yet: one message
    _ok(at)
    errors = _errors(at)
    assert len(errors) == 1 and "upload it again" in errors[0]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    lab = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "yes", "no")
    text = "a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{c}\n" for r, c in zip(X, lab))
    at.file_uploader(key="sw_upload").set_value(("d.csv", text.encode(), "text/csv")).run()
    at.button(key="sw_start").click().run()
    _ok(at)
    table = _finish(at).table()
    assert not _errors(at) and set(table["dataset"]) == {"d.csv"} and len(table) == 4
    assert (table["n_train"] + table["n_test"] == 80).all()
