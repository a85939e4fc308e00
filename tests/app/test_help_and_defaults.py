"""The pages' words and defaults: help a student can read, beginner-safe defaults and
numbers that agree with each other (tiles, status line, Race entrants and their table).

AppTest never fires ``run_every``: the runs are driven with Step at the "max" pace.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.runs.config import RunConfig
from svmcore.data.upload import parse_upload
from svmcore.runs.rundata import build_data
from svmcore.runs.run import TrainingRun, warmup
from svmcore.solvers import REGISTRY, get_solver
from svmcore.ui import panels
from svmcore.ui.params import INHERITED, PAGE_DEFAULTS, page_specs

ROOT = Path(__file__).resolve().parents[2]
PLAYGROUND = str(ROOT / "pages" / "playground.py")
RACE = str(ROOT / "pages" / "race.py")
TIMEOUT = 120

#: Options that say how an algorithm runs, not what it learns: never among the basic widgets.
INTERNAL = {"viol_rule", "c_scale", "dg_samples", "bias_bound", "feature_dtype", "cache_mb",
            "block_rows", "literal", "cache_outputs", "eig_threshold", "shrinking", "max_iter",
            "reshuffle", "projection", "dual", "patience", "max_inactive", "sampling"}
HELP = re.compile(r"^(?P<symbol>[^—]{1,24}?) — (?P<text>.+)$", re.S)


def _all_specs():
    return [(n, k, s) for n, c in REGISTRY.items() for k, s in c.params.items()]


@pytest.mark.parametrize("solver,name,spec", _all_specs(),
                         ids=[f"{n}.{k}" for n, k, _ in _all_specs()])
def test_every_parameter_has_a_symbol_and_one_plain_sentence(solver, name, spec):
    m = HELP.match(spec.help)
    assert m, f"{solver}.{name}: help must open with 'symbol — sentence': {spec.help!r}"
    first = re.split(r"(?<=[.)])\s(?=[A-Z])", m["text"])[0]
    assert 4 <= len(first.split()) <= 45, f"{solver}.{name}: {len(first.split())} words"
    if name in INTERNAL:
        assert spec.advanced, f"{solver}.{name} is a solver internal: it belongs in Advanced"


def test_basic_parameters_stay_few():
    for name, cls in REGISTRY.items():
        basic = [k for k, s in cls.params.items() if not s.advanced and k not in INHERITED]
        assert len(basic) <= 7, (name, basic)


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _page(path: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    at.query_params.update(query or {})
    return _ok(at.run())


def _keys(block, kind: str) -> set:
    return {w.key for w in block.get(kind)}


def _widget_keys(block) -> set:
    out = set()
    for kind in ("selectbox", "select_slider", "slider", "checkbox", "number_input"):
        out |= _keys(block, kind)
    return out


def test_advanced_options_render_inside_the_advanced_expander():
    at = _page(PLAYGROUND)
    at.selectbox(key="pg_solver").set_value("asset").run()
    _ok(at)
    adv = [e for e in at.sidebar.expander if e.label == "Advanced"]
    assert len(adv) == 1
    inside = _widget_keys(adv[0])
    everything = _widget_keys(at.sidebar)
    specs = get_solver("asset").params
    for name, spec in specs.items():
        key = f"pg_p_asset_{name}"
        if key not in everything:
            continue                           # hidden by its `when` condition
        assert (key in inside) == spec.advanced, name
    assert {"pg_p_asset_feature_dtype", "pg_p_asset_dg_samples",
            "pg_p_asset_bias_bound"} <= inside
    assert "pg_p_asset_C" in everything - inside
    # the help shown is the ParamSpec's sentence with its symbol
    assert at.select_slider(key="pg_p_asset_gamma").help.startswith("γ — ")


def test_pages_fit_an_intercept_by_default_and_the_engine_keeps_its_own():
    assert page_specs("pegasos", "upload")["fit_intercept"].default is True
    assert page_specs("pegasos", "real")["fit_intercept"].default is True
    assert page_specs("pegasos", "toy")["fit_intercept"].default is False     # centred data
    assert get_solver("pegasos").params["fit_intercept"].default is False   # estimators: as before
    at = _page(PLAYGROUND)                      # the default Playground: toy data, no b
    assert at.checkbox(key="pg_p_pegasos_fit_intercept").value is False
    at.radio(key="pg_src").set_value("upload").run()
    assert at.checkbox(key="pg_p_pegasos_fit_intercept").value is True       # follows the data
    at.checkbox(key="pg_p_pegasos_fit_intercept").uncheck().run()
    at.radio(key="pg_src").set_value("toy").run()
    at.radio(key="pg_src").set_value("upload").run()
    assert at.checkbox(key="pg_p_pegasos_fit_intercept").value is False      # the user's choice
    # a link keeps its meaning: the value it names, else the solver's own default (b = 0)
    at = _page(PLAYGROUND, {"solver": "pegasos", "p.fit_intercept": "true"})
    assert at.session_state["pg"].live.run.solver.p["fit_intercept"] is True
    at = _page(PLAYGROUND, {"src": "real", "ds": "breast_cancer", "solver": "pegasos",
                            "p.C": "2.0"})
    assert at.checkbox(key="pg_p_pegasos_fit_intercept").value is False
    # choosing a solver afresh on non-toy data gives the page default
    at.selectbox(key="pg_solver").set_value("cpsp").run()
    assert at.checkbox(key="pg_p_cpsp_fit_intercept").value is True
    for solver, extra in PAGE_DEFAULTS.items():
        assert set(extra) <= set(get_solver(solver).params)


# ------------------------------------------------------------------ a separable 12-row upload

#: 9 points of class 0 along a line, 3 of class 1 further along it: separable, but after
#: standardisation the boundary does not pass through the origin (9 against 3).
_TS = list(np.linspace(0, 1, 9)) + [2.0, 2.25, 2.5]
SEPARABLE = "height,weight,label\n" + "".join(
    f"{150 + 10 * t + 0.3 * ((i * 7) % 3):.1f},{50 + 20 * t - 0.4 * ((i * 5) % 3):.1f},"
    f"{int(t > 1.5)}\n" for i, t in enumerate(_TS))


def _engine_train_error(solver: str, params: dict, scale: str) -> float:
    up = parse_upload(SEPARABLE.encode(), "sep.csv")
    data = build_data(RunConfig(source="upload", dataset="sep.csv", scale=scale,
                                solver=solver), up)
    run = TrainingRun(solver, data.X_train, data.y_train, seed=0, **params).run()
    return run.solver.snapshot().extra["train_error"]


def test_separable_upload_needs_the_intercept():
    """Why the pages fit b: without it, the standardised upload is not separated (1 of 9)."""
    assert _engine_train_error("pegasos", {"fit_intercept": False}, "standard") == pytest.approx(1 / 9)
    assert _engine_train_error("pegasos", {"fit_intercept": True}, "standard") == 0.0
    assert _engine_train_error("cpsp", {"fit_intercept": False}, "standard") == pytest.approx(1 / 9)


@pytest.fixture(scope="module")
def uploaded():
    for kernel in ("linear", "rbf"):
        warmup(get_solver("pegasos")(kernel=kernel))
    at = _page(PLAYGROUND)
    at.radio(key="pg_src").set_value("upload").run()
    at.file_uploader(key="pg_upload").set_value(
        ("sep.csv", SEPARABLE.encode(), "text/csv")).run()
    if at.selectbox(key="pg_scale").value != "standard":   # the default scaling
        at.selectbox(key="pg_scale").set_value("standard").run()
    _ok(at)
    return at


def _metric(at: AppTest, label: str):
    for m in at.metric:
        if m.label == label:
            return m
    raise AssertionError(f"no metric {label!r}; have {[m.label for m in at.metric]}")


@pytest.mark.parametrize("solver", ["pegasos", "smo", "sfw", "olsvm"])
def test_separable_upload_reaches_zero_training_error_with_the_defaults(uploaded, solver):
    at = uploaded
    at.selectbox(key="pg_solver").set_value(solver).run()
    at.select_slider(key="pg_pace").set_value("max").run()
    _ok(at)
    run = at.session_state["pg"].live.run
    assert run.solver.p == {**get_solver(solver)().p, **PAGE_DEFAULTS.get(solver, {})}
    for _ in range(30):
        if run.done:
            break
        at.button(key="pg_step").click().run()
        _ok(at)
    assert run.done and run.status in ("finished", "converged")
    assert run.solver.snapshot().extra["train_error"] == 0.0
    assert _metric(at, "train error").value == "0.0 %"
    tile = _metric(at, "iteration t")
    assert tile.value == f"{run.t:,}"
    if run.t < run.max_iter:                    # stopped early: the tile says where and why
        assert f"stopped at t = {run.t:,} ({run.status})" in tile.help
    elif run.solver.stochastic:
        assert tile.help == f"of {run.max_iter:,} planned"


# ------------------------------------------------------------------ tiles agree with each other


def _tiles_of(snap, run) -> dict:
    """The tiles as {label: (value, help)}: what panels.tiles draws and a keyframe carries."""
    return {label: (value, help_text)
            for label, value, help_text in panels.tile_items(run, snap, float("nan"))}


def _toy_run(solver, **params):
    cfg = RunConfig(dataset="moons", n=120, solver=solver)
    data = build_data(cfg)
    return TrainingRun(solver, data.X_train, data.y_train, seed=0, **params)


def test_asset_sv_tile_counts_what_its_status_line_counts():
    run = _toy_run("asset", kernel="rbf", gamma=2.0, n_components=40)
    run.advance_iters(300)
    snap = run.solver.snapshot()
    n_margin = snap.extra["n_margin_sv"]
    assert snap.n_sv != n_margin                # landmarks vs margin points: two numbers
    value, _ = _tiles_of(snap, run)["# SV"]
    assert value == f"{n_margin:,}"
    assert f"points on or inside the margin {n_margin:,}" in run.solver.state_line(snap)


def test_dual_tile_only_when_it_is_another_function():
    sfw = _toy_run("sfw", kernel="rbf", gamma=2.0)
    sfw.advance_iters(100)
    snap = sfw.solver.snapshot()
    assert snap.dual_objective == pytest.approx(snap.objective + snap.gap)
    tiles = _tiles_of(snap, sfw)
    assert "dual bound" not in tiles and tiles["gap"][0] == f"{snap.gap:.2e}"
    smo = _toy_run("smo", kernel="rbf", gamma=2.0)
    smo.advance_iters(20)
    snap = smo.solver.snapshot()
    assert _tiles_of(snap, smo)["dual bound"][0] == f"{snap.dual_objective:.4g}"
    cpsp = _toy_run("cpsp")
    cpsp.advance_iters(3)
    assert "model (no bound)" in _tiles_of(cpsp.solver.snapshot(), cpsp)


def test_planned_tile_agrees_with_where_the_run_stops():
    run = _toy_run("cpsp")
    run.run()
    assert run.status == "converged" and run.t < run.max_iter
    value, help_text = _tiles_of(run.solver.snapshot(), run)["iteration t"]
    assert value == f"{run.t:,}"
    assert help_text.startswith(f"stopped at t = {run.t:,} (converged) — of "
                                f"{run.max_iter:,} at most (max_iter")
    peg = _toy_run("pegasos", epochs=1.0)
    assert _tiles_of(peg.solver.snapshot(), peg)["iteration t"][1] == f"of {peg.max_iter:,} planned"
    peg.run()
    assert _tiles_of(peg.solver.snapshot(), peg)["iteration t"][1] == f"of {peg.max_iter:,} planned"


# ------------------------------------------------------------------ Race entrants


def test_race_entrants_share_gamma():
    at = _page(RACE)
    race = at.session_state["race"].live.race
    gammas = {r.solver.p.get("gamma") for r in race.runs}
    assert gammas == {2.0}                      # the first curated race: γ = 2 for both
    at.radio(key="race_count").set_value(3).run()
    _ok(at)
    race = at.session_state["race"].live.race
    third = race.runs[2].solver
    assert third.p["kernel"] == "rbf" and third.p["gamma"] == 2.0
    # A's γ changes: the entrants that never changed theirs follow; one changed by hand stays
    at.select_slider(key="race_e1_p_smo_gamma").set_value(5.0).run()
    at.select_slider(key="race_e0_p_pegasos_gamma").set_value(0.5).run()
    _ok(at)
    race = at.session_state["race"].live.race
    assert [r.solver.p["gamma"] for r in race.runs] == [0.5, 5.0, 0.5]


def test_results_table_flags_entrants_whose_objectives_differ():
    at = _page(RACE)
    at.radio(key="race_count").set_value(3).run()
    at.selectbox(key="race_e2_solver").set_value("sfw").run()
    _ok(at)
    race = at.session_state["race"].live.race
    assert panels.objective_flags(race) == ["same", "same", "⚠ differs"]
    table = at.dataframe[0].value
    assert list(table["objective differs?"]) == ["same", "same", "⚠ differs"]
    assert table["P − P*"].iloc[2] == "—"          # not the table's "None"
    assert any("another objective" in c.value for c in at.caption)
    assert set(table["status"]) == {"ready"}        # t = 0: nothing has run yet
    at.button(key="race_step").click().run()
    _ok(at)
    table = at.dataframe[0].value
    assert set(table["status"]) <= {"paused", "converged", "finished"}, list(table["status"])


# ------------------------------------------------------------------ default speed


def test_default_pace_shows_the_default_run_for_ten_seconds():
    """10 s of Play are 50 ticks (the live loop's 5 frames a second): the default Playground
    run (Pegasos, 1,500 planned) is past t = 400 — two decades and more of its log axis — and
    still running, every tick a new t (a 10-s look sees 50 moments); the curated Pegasos race
    is past t = 400 too. Counted in ticks, not timed: each tick gets a time budget no loaded
    machine reaches, so the pace alone sets its iterations (how many a tick does in its real
    budget: ``python -m svmcore.bench app-tick``)."""
    SLACK_S = 60.0
    from svmcore.server import pacing
    from svmcore.runs.presets import get_race
    from svmcore.runs.race import build_race
    ticks = round(10 / pacing.FRAME_S)
    cfg = RunConfig()
    data = build_data(cfg)
    params = {k: s.default for k, s in page_specs(cfg.solver).items()}
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, seed=0,
                      per_decade=pacing.LIVE_PER_DECADE, **params)
    seen = []
    for _ in range(ticks):
        pacing.advance_tick(run, pacing.PACES[pacing.DEFAULT_PACE], SLACK_S)
        seen.append(run.t)
    assert seen[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]
    assert len(set(seen)) == ticks and 400 <= run.t < run.max_iter == 1500
    assert run.status == "running"
    race, _ = build_race(get_race("pegasos-two-steps").config, per_decade=pacing.LIVE_PER_DECADE)
    for _ in range(ticks):
        race.tick(pacing.PACES[pacing.DEFAULT_PACE], budget_s=SLACK_S)
    assert min(r.t for r in race.runs) >= 400
