"""The Step sizes page: the schedules against their closed forms, the lockstep as a race (the
same runs as the Race page's: same seed, same curves), the extra columns against an independent
solver, the fitted slopes against theory, and the page through AppTest."""
from __future__ import annotations

import base64
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.runs.config import RunConfig
from svmcore.solvers.objectives import error_rate
from svmcore.runs.race import Race, build_race
from svmcore.server.pacing import LIVE_PER_DECADE
from svmcore.runs.run import warmup
from svmcore.solvers.step_sizes import SCHEDULE_CODES
from svmcore.solvers import get_solver
from svmcore.lessons.step_sizes import (Extras, asset_ratio, averaging_summary, commentary,
                                fitted_slope, lockstep_config, model_size, schedule_curves,
                                slope_fits, switch_commentary, switch_fits, switch_values,
                                switches)
from svmcore.viz.step_sizes import averaging_frame, lockstep_frame, schedules_figure
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "step_sizes.py")
RACE_PAGE = str(ROOT / "pages" / "race.py")
TIMEOUT = 120
TRACE_KEYS = ("iteration", "objective", "train_error", "test_error", "n_sv", "kernel_evals")


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    warmup(get_solver("pegasos")(fit_intercept=True))
    warmup(get_solver("norma")(kernel="rbf"))


# ------------------------------------------------------------------------------ schedules


def test_schedule_curves_are_the_closed_forms():
    eta0, lam, C, ratio = 0.3, 1e-3, 2.0, 4.0
    curves = {c.name: c for c in schedule_curves(eta0, lam, C, ratio, T=10**4)}
    assert set(curves) == set(SCHEDULE_CODES) | {"asset"}
    t = curves["pegasos"].t.astype(float)
    assert t[0] == 1 and t[-1] == 10**4
    expect = {"pegasos": 1 / (lam * t), "sqrt": eta0 / np.sqrt(t), "kecman": C * np.sqrt(2 / t),
              "constant": np.full_like(t, eta0), "invscaling": eta0 / (1 + eta0 * lam * t),
              "asset": ratio / np.sqrt(t)}
    for name, v in expect.items():
        np.testing.assert_allclose(curves[name].eta, v, rtol=1e-12, err_msg=name)
    assert "1/(λt)" in curves["pegasos"].label and "D_X/(D_G √t)" in curves["asset"].label
    # the slopes on log-log axes: −1 and −½
    assert fitted_slope(t, curves["pegasos"].eta, decades=4)[0] == pytest.approx(-1.0)
    assert fitted_slope(t, curves["sqrt"].eta, decades=4)[0] == pytest.approx(-0.5)
    fig = schedules_figure(list(curves.values()))
    assert [d.name for d in fig.data] == [c.label for c in curves.values()]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


@pytest.mark.parametrize("kw, needle", [({"eta0": 0.0}, "η0"), ({"lam": -1.0}, "λ"),
                                        ({"C": float("nan")}, "C"), ({"dx_dg": 0}, "D_X/D_G"),
                                        ({"T": 1}, "T must be")])
def test_bad_constants_get_a_clear_message(kw, needle):
    with pytest.raises(ValueError, match=needle):
        schedule_curves(**kw)


def test_fitted_slope():
    t = np.geomspace(1, 1e4, 41)
    assert fitted_slope(t, 3 * t ** -0.7)[0] == pytest.approx(-0.7)
    fit = fitted_slope(t, 3 * t ** -0.7, decades=1)
    assert (fit.t_from, fit.t_to, fit.points) == (pytest.approx(1e3), pytest.approx(1e4), 11)
    assert fit.intercept == pytest.approx(math.log10(3))
    ends, v = fit.line()
    np.testing.assert_allclose(v, 3 * ends ** -0.7, rtol=1e-10)
    assert fitted_slope(t[:3], t[:3] ** -1.0) is None           # too few points
    assert fitted_slope(t, np.zeros_like(t)) is None            # nothing positive


def test_lockstep_config_makes_one_entrant_per_schedule():
    data = RunConfig(dataset="gaussians", n=100)
    cfg = lockstep_config(data, "pegasos", {"C": 2.0, "schedule": "kecman", "eta0": 5.0},
                          ["pegasos", "sqrt", "pegasos"], eta0=0.2)
    assert cfg.budget == "iterations" and cfg.seed == 0
    assert [e.param_dict for e in cfg.entrants] == [
        {"C": 2.0, "schedule": "pegasos"}, {"C": 2.0, "schedule": "sqrt", "eta0": 0.2}]
    with pytest.raises(ValueError, match="2 to 4 different schedules"):
        lockstep_config(data, "pegasos", {}, ["sqrt"])
    with pytest.raises(ValueError, match="2 to 4 different schedules"):
        lockstep_config(data, "pegasos", {}, list(SCHEDULE_CODES))
    with pytest.raises(ValueError, match="no step-size schedule"):
        lockstep_config(data, "smo", {}, ["sqrt", "pegasos"])
    with pytest.raises(ValueError, match="unknown schedule"):
        lockstep_config(data, "pegasos", {}, ["sqrt", "adam"])


# ------------------------------------------------------------------------------ lockstep engine


@pytest.fixture(scope="module")
def lockstep():
    """The page's default lockstep, run to the end with its extra columns."""
    cfg = lockstep_config(RunConfig(dataset="gaussians", n=600), "pegasos",
                          {"epochs": 50.0, "fit_intercept": True, "averaging": 0.5},
                          ["pegasos", "sqrt", "constant"], eta0=0.1)
    race, data = build_race(cfg, per_decade=10)
    extras = Extras(race)
    race.reference()
    while not race.done:
        race.advance_iters(5000)
    return cfg, race, data, extras


def test_extras_leave_the_race_unchanged(lockstep):
    cfg, race, data, _ = lockstep
    plain, _ = build_race(cfg, per_decade=10)          # the same race, no extras attached
    plain.advance_iters(race.t)
    for a, b in zip(race.runs, plain.runs):
        ca, cb = a.trace_columns(), b.trace_columns()
        for key in TRACE_KEYS:
            np.testing.assert_array_equal(ca[key], cb[key], err_msg=key)


def test_extras_match_an_independent_solver(lockstep):
    """‖w‖ of the reported model and the last iterate's test error at a checkpoint equal those
    of the same solver run alone to that iteration."""
    cfg, race, data, extras = lockstep
    for k in (0, 1):
        cols = extras.columns(k)
        assert not np.isnan(cols["size"]).any() and not np.isnan(cols["last_error"]).any()
        for j in (len(cols["iteration"]) // 2, len(cols["iteration"]) - 1):
            t = int(cols["iteration"][j])
            s = get_solver("pegasos")(**cfg.entrants[k].param_dict)
            s.init(data.X_train, data.y_train, seed=cfg.seed)
            s.step(t)
            assert cols["size"][j] == pytest.approx(np.linalg.norm(s.coef_), rel=1e-12)
            last = error_rate(s.decision_function(data.X_test, iterate="last"), data.y_test)
            assert cols["last_error"][j] == last
            assert cols["averaged"][j] == s.averaging_active
    # after the averaging window opened, the two errors are of different models
    assert cols["averaged"][-1] and not cols["averaged"][0]
    t0 = int(cols["iteration"][cols["averaged"]][0])
    assert t0 >= 22_500 // 2                        # averaging = 0.5 of 50 epochs × 450 rows
    line = averaging_summary(race, extras)[1]
    assert f"{100 * cols['last_error'][-1]:.2f} % test error" in line
    assert f"average {100 * cols['model_error'][-1]:.2f} %" in line and f"t = {t0:,}" in line


def test_kernel_model_size_is_the_sum_of_coefficients():
    cfg = lockstep_config(RunConfig(dataset="moons", n=120), "norma",
                          {"kernel": "rbf", "gamma": 2.0, "epochs": 2.0}, ["kecman", "sqrt"])
    race, _ = build_race(cfg, per_decade=10)
    extras = Extras(race)
    race.advance_iters(158)                  # a trace checkpoint (10 per decade)
    solver = race.runs[0].solver
    support, coef, _ = solver.support_coef()
    assert support.size > 0
    assert model_size(solver) == ("Σ|α_i|", pytest.approx(float(np.abs(coef).sum())))
    assert extras.size_name == "Σ|α_i|"
    cols = extras.columns(0)
    assert cols["iteration"][-1] == solver.t == 158
    assert all("averaging is off" in line for line in averaging_summary(race, extras))
    np.testing.assert_array_equal(cols["last_error"], cols["model_error"])   # same model
    assert cols["size"][-1] == pytest.approx(np.abs(coef).sum())


def test_fitted_slopes_show_the_predicted_rates(lockstep):
    """On the page's default lockstep the last iterate's P − P* falls like 1/t under 1/(λt)
    and like 1/√t under η0/√t (fitted over t = 1,000…10,000): the commentary says so."""
    cfg, race, data, extras = lockstep
    lines = commentary(race, extras)
    assert len(lines) == 3
    avg = extras.columns(0)["averaged"]
    its = np.array([r.iteration for r in race.runs[0].trace], dtype=float)
    slopes = [fitted_slope(its[~avg], race.suboptimality(k)[~avg])[0] for k in (0, 1)]
    assert -1.25 <= slopes[0] <= -0.75, slopes
    assert -0.75 <= slopes[1] <= -0.25, slopes
    assert f"slope {slopes[0]:+.2f}" in lines[0] and "shows the predicted rate" in lines[0]
    assert f"slope {slopes[1]:+.2f}" in lines[1] and "shows the predicted rate" in lines[1]
    assert "O(log T / (λT))" in lines[0] and "O(1/√T)" in lines[1]
    assert "constant" in lines[2] and "η0" in lines[2]


def _decode(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), dtype="<f4")


def test_frames_hold_the_race_columns(lockstep):
    cfg, race, data, extras = lockstep
    fits = slope_fits(race, extras)
    fr = lockstep_frame(race, extras, fits=fits)
    assert [p["title"] for p in fr["panels"]] == ["P − P*  (P* from SMO)", "test error %", "‖w‖"]
    lines = fr["panels"][0]["series"][3:]                  # the fitted lines after the curves
    drawn = [(k, f) for k, per in enumerate(fits) for f in per.values() if f is not None]
    assert len(lines) == len(drawn) >= 3
    for s, (k, f) in zip(lines, drawn):
        assert s["name"].startswith(f"{'ABC'[k]} fit {f.slope:+.2f}")
        np.testing.assert_array_equal(_decode(s["y"]), f.line()[1].astype(np.float32))
    assert len(lockstep_frame(race, extras, x="time", fits=fits)["panels"][0]["series"]) == 3
    for k in range(3):
        cols = extras.columns(k)
        np.testing.assert_array_equal(_decode(fr["panels"][0]["series"][k]["y"]),
                                      race.suboptimality(k).astype(np.float32))
        np.testing.assert_array_equal(_decode(fr["panels"][2]["series"][k]["y"]),
                                      cols["size"].astype(np.float32))
    av = averaging_frame(race, extras)
    last = _decode(av["panels"][0]["series"][0]["y"])
    np.testing.assert_array_equal(last, (100 * extras.columns(0)["last_error"]).astype("f4"))
    with pytest.raises(ValueError, match="x must be"):
        lockstep_frame(race, extras, x="epochs")


# ------------------------------------------------------------------------------ the page


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _views(at: AppTest) -> dict:
    return {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
            for c in at.get("bidi_component")}


@pytest.fixture(scope="module")
def page():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    return at


def test_page_renders_every_part(page):
    at = page
    assert not at.error, [e.value for e in at.error]
    views = _views(at)
    assert {"steps_curves", "steps_averaging"} <= set(views)
    legend = [item["name"] for item in views["steps_curves"]["legend"]]
    assert legend == ["A · pegasos (schedule=pegasos)", "B · pegasos (schedule=sqrt, eta0=0.1)"]
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [d["name"] for d in fig["data"]]
    assert len(names) == len(SCHEDULE_CODES) + 1 and any("D_X/(D_G √t)" in n for n in names)
    assert not at.info                                  # (e) is there: no "not yet" note
    assert at.button(key="steps_sw_go") is not None
    race = at.session_state["steps"].live.driver
    assert isinstance(race, Race) and race.budget == "iterations" and race.main_group
    assert race.X.shape[0] == 450                                  # 600 points, 25 % test


def test_lockstep_is_the_race_pages_race(page):
    """Step the page's lockstep; open the same race (its link) on the Race page and step it:
    the traces, and so the curves, are identical (up to the common iterations)."""
    at = page
    at.select_slider(key="steps_pace").set_value("×4").run()
    at.button(key="steps_plus1").click().run()
    race = at.session_state["steps"].live.driver
    for _ in range(10):                     # a tick's reach depends on the machine's speed:
        if race.t >= 300:                   # on a loaded machine the engine finishes the way
            break
        at.button(key="steps_step").click().run()
        _ok(at)
    if race.t < 300:
        race.advance_iters(300 - race.t)
        at.button(key="steps_plus1").click().run()      # and the page draws that moment
        _ok(at)
    live = at.session_state["steps"].live
    assert live.driver is race and min(r.t for r in race.runs) >= 300
    other = AppTest.from_file(RACE_PAGE, default_timeout=TIMEOUT)
    other.query_params.update(live.cfg.to_query())
    other.run()
    _ok(other)
    other.select_slider(key="race_pace").set_value("×4").run()
    twin = other.session_state["race"].live.driver
    for _ in range(10):
        if twin.t >= 300:
            break
        other.button(key="race_step").click().run()
        _ok(other)
    if twin.t < 300:
        twin.advance_iters(300 - twin.t)
    assert twin.budget == "iterations" and [r.t for r in twin.runs] != [0, 0]
    for a, b in zip(race.runs, twin.runs):
        assert a.solver.p == b.solver.p
        ca, cb = a.trace_columns(), b.trace_columns()
        m = min(len(ca["iteration"]), len(cb["iteration"]))
        assert m >= 20
        for key in TRACE_KEYS:
            np.testing.assert_array_equal(ca[key][:m], cb[key][:m], err_msg=key)
    # and the page draws exactly those numbers
    views = _views(at)
    for k, run in enumerate(race.runs):
        err = _decode(views["steps_curves"]["panels"][1]["series"][k]["y"])
        np.testing.assert_array_equal(err, (100 * run.trace_columns()["test_error"]).astype("f4"))


def test_changing_the_schedules_rebuilds_the_lockstep(page):
    at = page
    at.multiselect(key="steps_schedules").set_value(["pegasos", "sqrt", "constant"]).run()
    _ok(at)
    race = at.session_state["steps"].live.driver
    assert [r.solver.p["schedule"] for r in race.runs] == ["pegasos", "sqrt", "constant"]
    assert all(r.t == 0 for r in race.runs)
    assert len(_views(at)["steps_averaging"]["panels"][0]["series"]) == 3
    at.multiselect(key="steps_schedules").set_value(["sqrt"]).run()
    _ok(at)
    assert any("2 to 4 different schedules" in e.value for e in at.error)
    at.multiselect(key="steps_schedules").set_value(["pegasos", "invscaling"]).run()
    _ok(at)
    assert not at.error


def test_bad_constant_in_the_explorer_gets_a_message(page):
    at = page
    at.number_input(key="steps_x_eta0").set_value(0.0).run()
    _ok(at)
    assert any("η0 must be a finite number > 0" in e.value for e in at.error)
    at.number_input(key="steps_x_eta0").set_value(0.5).run()
    _ok(at)
    assert not at.error
    assert math.isfinite(at.session_state["steps_x_eta0"])


def test_asset_ratio_is_the_eta0_asset_runs(page):
    """The button puts ASSET's own η0 = D_X/D_G on these data into the plot's D_X/D_G."""
    at = page
    data = at.session_state["steps"].live.data
    dx, dg = asset_ratio(data.X_train, data.y_train, C=1.0, seed=0, kernel="linear")
    s = get_solver("asset")(C=1.0, kernel="linear")
    s.init(data.X_train, data.y_train, seed=0)
    assert s.step_rule().schedule.eta0 == pytest.approx(dx / dg, rel=1e-12)
    at.button(key="steps_x_est").click().run()
    _ok(at)
    assert at.session_state["steps_x_ratio"] == float(f"{dx / dg:.4g}")
    assert any("D_X = " in i.value for i in at.info)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    asset = next(d for d in fig["data"] if d["name"].startswith("ASSET"))
    assert f"{dx / dg:.3g}" in asset["name"]


# ------------------------------------------------------------------------------ (e) a switch


SWITCH = {"schedule": "constant", "eta0": 0.05}


def test_switch_values_and_a_switched_config():
    assert switch_values("pegasos", 0.3) == {"schedule": "pegasos"}      # 1/(λt) reads no η0
    assert switch_values("sqrt", 0.3) == {"schedule": "sqrt", "eta0": 0.3}
    with pytest.raises(ValueError, match="η0 must be a finite number > 0"):
        switch_values("constant", 0.0)
    with pytest.raises(ValueError, match="unknown schedule"):
        switch_values("adam", 1.0)
    data = RunConfig(dataset="gaussians", n=100)
    cfg = lockstep_config(data, "pegasos", {"C": 2.0}, ["pegasos", "sqrt"], eta0=0.1,
                          switched={1: SWITCH})
    assert [e.param_dict for e in cfg.entrants] == [
        {"C": 2.0, "schedule": "pegasos"}, {"C": 2.0, "schedule": "constant", "eta0": 0.05}]
    with pytest.raises(ValueError, match="entrant 2"):
        lockstep_config(data, "pegasos", {}, ["pegasos", "sqrt"], switched={2: SWITCH})


@pytest.fixture(scope="module")
def switched():
    """The page's default lockstep, B switched from 0.1/√t to 1/(λt) at t = 1,000 through the
    engine (Race.change_each), run to the end; and its configuration with the change."""
    cfg = lockstep_config(RunConfig(dataset="gaussians", n=600), "pegasos",
                          {"epochs": 50.0, "fit_intercept": True, "averaging": 0.5},
                          ["pegasos", "sqrt"], eta0=0.1)
    race, data = build_race(cfg, per_decade=10)
    extras = Extras(race)
    race.advance_iters(1000)
    assert race.change_each([{}, switch_values("pegasos")]) == [
        {}, {"schedule": ("sqrt", "pegasos")}]
    race.reference()
    race.advance_iters(30_000)
    assert race.done
    return replace(cfg, changes=((1000, 1, (("schedule", "pegasos"),)),)), race, extras


def test_switch_is_described_with_its_numbers(switched):
    """Before/after parameters, the step sizes either side of the switch (closed forms), the
    slopes before and after it (fitted here on the trace directly) and the commentary."""
    cfg, race, extras = switched
    (sw,) = switches(cfg)
    assert (sw.k, sw.t, sw.until) == (1, 1000, math.inf)
    assert sw.changed == {"schedule": ("sqrt", "pegasos")} and sw.before["eta0"] == 0.1
    its = np.array([r.iteration for r in race.runs[1].trace], dtype=float)
    sub = race.suboptimality(1)
    last = ~extras.columns(1)["averaged"]
    before = fitted_slope(its[(its <= 1000) & last], sub[(its <= 1000) & last])
    after = fitted_slope(its[(its >= 1000) & last], sub[(its >= 1000) & last])
    assert before.t_to <= 1000 <= after.t_from
    ((sw2, f0, fa),) = switch_fits(race, extras, cfg)
    assert sw2 == sw and f0 == before and fa["last iterate"] == after
    assert slope_fits(race, extras)[1]["last iterate"] == after     # since the last switch
    assert -0.75 <= before.slope <= -0.25 and after.slope < -0.75, (before, after)
    (line,) = switch_commentary(race, extras, cfg)
    lam = 1 / (1.0 * 450)                                # λ = 1/(C n)
    assert f"is {1 / (lam * 1001):.3g} instead of {0.1 / math.sqrt(1001):.3g}" in line
    assert "from η_t = 0.1/√t to η_t = 1/(λt)" in line and "where sqrt predicts -0.5" in line
    assert f"before the switch slope {before.slope:+.2f}" in line
    assert f"after it (last iterate) slope {after.slope:+.2f}" in line
    at = sub[its <= 1000][-1]
    assert f"P − P* was {at:.3g} at the switch (checkpoint t = {int(its[its <= 1000][-1]):,})" \
        in line


def test_switch_is_marked_on_every_panel(switched):
    cfg, race, extras = switched
    mark = [{"x": 1000.0, "label": "B: schedule sqrt→pegasos"}]
    for fr in (lockstep_frame(race, extras), averaging_frame(race, extras)):
        assert fr["marks"] == mark and len(fr["panels"]) >= 2     # one line on every panel
    t_fr = lockstep_frame(race, extras, x="time")
    cols = race.runs[1].trace_columns()
    assert t_fr["marks"][0]["x"] == pytest.approx(np.interp(1000, cols["iteration"], cols["time"]))


def test_a_configured_switch_replays_the_live_one(switched):
    """The configuration with the change (what the page keeps) rebuilds the same race: the
    change applied at its t whatever the chunking, the same numbers."""
    cfg, race, _ = switched
    twin, _ = build_race(cfg, per_decade=10)
    twin.schedule_changes(cfg.changes)
    while not twin.done:
        twin.advance_iters(7000)
    assert twin.marks == race.marks
    for a, b in zip(race.runs, twin.runs):
        ca, cb = a.trace_columns(), b.trace_columns()
        for key in TRACE_KEYS:
            np.testing.assert_array_equal(ca[key], cb[key], err_msg=key)


def _step_until(at, t: int) -> None:
    """Press Step (speed ×4: a press aims at 4·t) until the race is at t, never past it: a
    press that could pass t is not made, the engine goes the rest of the way. (A tick's reach
    depends on the machine's speed: a short tick followed by a full one once ended past 256,
    and then 16·t_s lay beyond the run's end, where +1 is disabled. A tick whose time budget
    ends between two entrants leaves them at different t, so each is taken to t on its own.)"""
    race = at.session_state["steps"].live.driver
    for _ in range(8):
        if race.t >= t or max(race.t + 1, 4 * race.t) > t:
            break
        at.button(key="steps_step").click().run()
        _ok(at)
    for run in race.runs:
        run.advance_iters(max(0, t - run.t))


def test_switch_on_the_page_goes_on_at_t():
    """Switch B to a constant step while playing: every entrant keeps its t, the race object
    goes on (playing), the configuration records the change, both curve frames mark it, and
    B's trace after the switch equals a Race with the same change applied through the engine."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    at.button(key="steps_sw_go").click().run()              # t = 0: refused, said
    assert any("No switch at t = 0" in i.value for i in at.info)
    assert not at.session_state["steps"].live.cfg.changes
    at.select_slider(key="steps_pace").set_value("×4").run()
    _step_until(at, 256)
    inst = at.session_state["steps"]
    race = inst.live.driver
    t_s = [r.t for r in race.runs]
    assert min(t_s) >= 256 and len(set(t_s)) == 1
    at.selectbox(key="steps_sw_entrant").set_value(1)
    at.selectbox(key="steps_sw_schedule").set_value("constant").run()
    at.number_input(key="steps_sw_eta0").set_value(0.05)
    inst.playing = True                     # as if playing (AppTest never fires run_every)
    at.button(key="steps_sw_go").click().run()
    _ok(at)
    assert not at.error
    # the switch happened at t_s for B, A untouched; playing went on (the page ticked after)
    assert inst.live.driver is race and inst.playing
    assert inst.live.cfg.changes == ((t_s[0], 1, (("eta0", 0.05), ("schedule", "constant"))),)
    label = "schedule sqrt→constant, η₀ 0.1→0.05"
    assert race.runs[1].marks == [{"t": t_s[0], "label": label}] and not race.runs[0].marks
    # the tick after the switch went on from t_s; within one tick an entrant that got
    # little CPU time may lag (it catches up on the next ticks: the lockstep is slowed, never
    # broken), so the test brings them level through the engine instead of timing a tick
    assert min(r.t for r in race.runs) >= t_s[0]
    lead = max(r.t for r in race.runs)
    for r in race.runs:
        r.advance_iters(lead - r.t)
    assert any(f"at t = {t_s[0]:,}" in i.value for i in at.info)
    views = _views(at)
    for name in ("steps_curves", "steps_averaging"):
        assert views[name]["marks"] == [{"x": float(t_s[0]), "label": "B: " + label}], name
    # paused: a second switch (A to 0.5/√t) keeps every entrant exactly at its t
    inst.playing = False
    at.button(key="steps_plus1").click().run()
    t2 = [r.t for r in race.runs]
    at.selectbox(key="steps_sw_entrant").set_value(0)
    at.selectbox(key="steps_sw_schedule").set_value("sqrt").run()
    at.number_input(key="steps_sw_eta0").set_value(0.5)
    at.button(key="steps_sw_go").click().run()
    _ok(at)
    assert [r.t for r in race.runs] == t2 and not inst.playing
    assert inst.live.cfg.changes[1] == (t2[0], 0, (("eta0", 0.5), ("schedule", "sqrt")))
    assert len(_views(at)["steps_averaging"]["marks"]) == 2
    _step_until(at, 16 * t_s[0])
    at.button(key="steps_plus1").click().run()             # draw this moment
    _ok(at)
    T = race.t
    assert [r.t for r in race.runs] == [T, T] and T >= 16 * t_s[0]
    assert [r.solver.p["schedule"] for r in race.runs] == ["sqrt", "constant"]
    # the same changes applied through the engine: the same numbers, before and after them
    twin, _ = build_race(replace(inst.live.cfg, changes=()), per_decade=LIVE_PER_DECADE)
    twin.advance_iters(t_s[0])
    twin.change_each([{}, SWITCH])
    twin.advance_iters(t2[0] - t_s[0])
    twin.change_each([{"schedule": "sqrt", "eta0": 0.5}, {}])
    twin.advance_iters(T - t2[0])
    for a, b in zip(race.runs, twin.runs):
        ca, cb = a.trace_columns(), b.trace_columns()
        assert (ca["iteration"] > t_s[0]).sum() >= 10
        for key in TRACE_KEYS:
            np.testing.assert_array_equal(ca[key], cb[key], err_msg=key)
    views = _views(at)
    err = _decode(views["steps_curves"]["panels"][1]["series"][1]["y"])
    np.testing.assert_array_equal(err, (100 * twin.runs[1].trace_columns()["test_error"])
                                  .astype("f4"))
    text = " ".join(m.value for m in at.markdown)
    assert f"switched at t = {t_s[0]:,} from η_t = 0.1/√t to η_t = 0.05" in text
    assert "before the switch slope" in text and "after it (last iterate) slope" in text
    # Reset: t = 0 with the sidebar's schedules, no switch
    at.button(key="steps_reset_btn").click().run()
    _ok(at)
    new = inst.live
    assert new.driver is not race and new.driver.t == 0 and not new.cfg.changes
    assert [r.solver.p["schedule"] for r in new.driver.runs] == ["pegasos", "sqrt"]
