"""Races (svmcore.runs.race, svmcore.runs.presets.RACES, svmcore.snippet) and the Race page through AppTest.

The engine tests drive :class:`svmcore.runs.race.Race` directly on small toy data; the page tests use
Streamlit's AppTest, which never fires ``run_every``: the live loop is driven with Step (and one
tick through Play). Traces are compared on every column except ``time`` (the solver's own
time, which no two runs share).
"""
from __future__ import annotations

import base64

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVC
from streamlit.testing.v1 import AppTest

from svmcore.runs import race as race_mod
from svmcore.server import pacing
from svmcore import viz
from svmcore.data import make_toy, train_test_split
from svmcore.solvers.objectives import primal_objective
from svmcore.runs.presets import RACES, available_races, get_race
from svmcore.runs.config import Entrant, RaceConfig, RunConfig, race_config_from_query
from svmcore.runs.rundata import build_data
from svmcore.runs.race import L1_NAME, Race, build_race, reference_optimum
from svmcore.viz.race import curve_panels, race_curves_figure, race_field_figures, race_grid_figure
from svmcore.ui.panels import (PRESENT_CURVES_HEIGHT, PRESENT_LEGEND_H, PRESENT_RACE_HEIGHT,
                               PRESENT_RACE_KEEP)
from svmcore.runs.export import race_csv, race_json, race_rows
from svmcore.runs.run import TrainingRun, warmup
from svmcore.runs.export import reproduce_race_snippet
from svmcore.solvers import REGISTRY, get_solver
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = str(ROOT / "pages" / "race.py")
TIMEOUT = 120
KEYS = ("iteration", "objective", "train_error", "test_error", "n_sv", "kernel_evals")
SOLVERS = list(REGISTRY)


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    for name in ("pegasos", "smo", "norma", "olsvm"):
        if name in REGISTRY:
            for kernel in ("linear", "rbf"):
                warmup(get_solver(name)(kernel=kernel))


def _data(n=240, toy="moons", seed=0, noise=0.2):
    X, y = make_toy(toy, n=n, noise=noise, seed=seed)
    return train_test_split(X, y, test_size=0.25, seed=seed)


def _same_trace(a: TrainingRun, b: TrainingRun, msg=""):
    ca, cb = a.trace_columns(), b.trace_columns()
    assert len(ca["iteration"]) == len(cb["iteration"]), msg
    for k in KEYS:
        np.testing.assert_array_equal(ca[k], cb[k], err_msg=f"{msg} {k}")


def _settle(race: Race, step=None, limit: int = 200) -> None:
    """Tick until no entrant is catching up with the clock (on a loaded machine an entrant can
    miss the target within its time allowance; it catches up while the clock waits)."""
    for _ in range(limit):
        if not race.lagging():
            return
        (step or (lambda: race.tick(1.3, 0.01)))()
    raise AssertionError(f"entrants still lagging: {race.lagging()}")


def _solo(run: TrainingRun, X, y, Xt, yt, seed, per_decade) -> TrainingRun:
    """The same solver run alone to where ``run`` got (to its end if it ended)."""
    solo = TrainingRun(type(run.solver)(**run.solver.p), X, y, Xt, yt, seed=seed,
                       per_decade=per_decade)
    if run.done and run.status in ("converged", "finished"):
        solo.run()
    else:
        solo.advance_iters(run.t)
    return solo


RBF = {"C": 1.0, "kernel": "rbf", "gamma": 2.0}


# ====================================================================================== engine


@pytest.mark.parametrize("budget", ["time", "iterations", "kernel_evals"])
def test_same_solver_twice_draws_identical_curves(budget):
    X, Xt, y, yt = _data()
    params = {**RBF, "epochs": 3.0}
    race = Race([("pegasos", params), ("pegasos", params)], X, y, Xt, yt, seed=3,
                budget=budget, per_decade=10)
    for _ in range(25):
        race.tick(1.3, 0.01)
    _settle(race)
    a, b = race.runs
    assert a.t > 10
    # equal time gives each its own (measured) time: compare the common prefix there
    n = min(len(a.trace), len(b.trace))
    ca, cb = a.trace_columns(), b.trace_columns()
    for k in KEYS:
        np.testing.assert_array_equal(ca[k][:n], cb[k][:n], err_msg=k)
    if budget != "time":
        assert a.t == b.t
        fig = race_curves_figure(race, x="iteration")
        by = {}
        for tr in fig.data:
            by.setdefault((tr.xaxis, tr.yaxis), []).append(tr)
        for traces in by.values():
            assert len(traces) == 2
            np.testing.assert_array_equal(np.asarray(traces[0].x), np.asarray(traces[1].x))
            np.testing.assert_array_equal(np.asarray(traces[0].y), np.asarray(traces[1].y))
    assert race.labels == ["A · pegasos", "B · pegasos"]


def test_equal_iterations_trace_equals_solo_run():
    X, Xt, y, yt = _data(300)
    entrants = [("pegasos", {**RBF, "epochs": 4.0}), ("smo", RBF),
                ("norma", {**RBF, "c_scale": "svc", "epochs": 4.0}),
                ("olsvm", {**RBF, "epochs": 4.0})]
    entrants = [e for e in entrants if e[0] in REGISTRY]
    race = Race(entrants, X, y, Xt, yt, seed=5, budget="iterations", per_decade=10)
    ticks = 0
    while not race.done and ticks < 400:
        race.tick(1.25, 0.01)
        ticks += 1
        lag = set(race.lagging())
        for k, r in enumerate(race.runs):             # lockstep: one iteration count
            if not r.done:
                assert (r.t < race.clock["iterations"]) if k in lag else \
                    (r.t == race.clock["iterations"]), (k, r.t, race.clock)
    assert race.done and ticks > 20
    for k, run in enumerate(race.runs):
        _same_trace(run, _solo(run, X, y, Xt, yt, 5, 10), race.labels[k])


@pytest.mark.parametrize("budget", ["iterations", "time"])
def test_the_shown_clock_is_a_moment_an_entrant_reached(budget):
    """At full speed the last tick of a race sets its clock past every entrant's end; what the
    pages show (Race.reached) stops where the furthest entrant stopped, and is the clock itself
    while the entrants keep up."""
    X, Xt, y, yt = _data(200)
    race = Race([("pegasos", {**RBF, "epochs": 2.0}), ("pegasos", {**RBF, "epochs": 1.0})],
                X, y, Xt, yt, seed=1, budget=budget, per_decade=10)
    race.tick(1.1, 0.01)
    if budget == "iterations":
        assert race.reached() == race.clock and race.clock["iterations"] == race.t > 0
    while not race.done:
        race.tick(None, 0.05)                                   # 'max': the whole budget
    shown, far = race.reached(), max(r.t for r in race.runs)
    assert far == race.runs[0].t
    if budget == "iterations":
        assert race.clock["iterations"] > far                   # the target went past the end
        assert shown["iterations"] == far
    else:
        assert shown["time"] == pytest.approx(max(r.solver_time for r in race.runs))
        assert shown["time"] <= race.clock["time"]


@pytest.mark.parametrize("budget", ["iterations", "time", "kernel_evals"])
def test_plus_one_moves_the_race_clock_with_the_fields(budget):
    """+1 (``Race.advance_iters(1)``) moves every entrant by one iteration outside a tick: the
    clock the caption reads follows them (the least reading among the running entrants), so
    under equal iterations it says the fields' t, and the next tick goes on from there."""
    X, Xt, y, yt = _data(200)
    race = Race([("pegasos", {**RBF, "epochs": 5.0}), ("norma", {**RBF, "epochs": 5.0})],
                X, y, Xt, yt, seed=1, budget=budget, per_decade=10)
    for _ in range(12):
        race.tick(1.2, 0.01)
    _settle(race)
    unit = budget
    before = dict(race.reached())
    for _ in range(3):
        ts = [r.t for r in race.runs]
        race.advance_iters(1)
        assert [r.t for r in race.runs] == [t + 1 for t in ts]
        shown, now = race.reached(), [race.units(k, unit) for k in range(2)]
        assert min(now) <= shown[unit] <= max(now) and shown[unit] >= before[unit], (shown, now)
        before = dict(shown)
    if budget == "iterations":
        t = race.runs[0].t
        assert race.runs[1].t == t and race.reached()["iterations"] == t
        assert f"race clock: t = {t:,} iterations" in race.clock_text()
    race.tick(1.2, 0.01)
    assert race.reached()[unit] >= before[unit]                 # never back


def test_equal_kernel_evals_lockstep_and_kernel_free_fallback():
    X, Xt, y, yt = _data(300)
    n = X.shape[0]
    race = Race([("pegasos", {**RBF, "epochs": 5.0}),
                 ("norma", {**RBF, "c_scale": "svc", "epochs": 5.0}),
                 ("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 5.0})],
                X, y, Xt, yt, seed=1, budget="kernel_evals", per_decade=10)
    assert race.kernel_free(2) and not race.kernel_free(0)
    for _ in range(40):
        race.tick(1.2, 0.01)
        K = race.clock["kernel_evals"]
        for k in (0, 1):
            run = race.runs[k]
            if run.done or k in race.lagging():
                continue
            # the target is reached, overshooting by at most one iteration's evaluations
            assert K <= run.solver.kernel_evals <= K + n, (k, K, run.solver.kernel_evals)
        lin = race.runs[2]
        if not lin.done and 2 not in race.lagging():
            assert lin.t == race.clock["iterations"] and lin.solver.kernel_evals == 0
    assert race.runs[0].solver.kernel_evals > 1000
    assert any("raced by iterations" in note for note in race.notes())


def test_equal_time_waits_for_the_laggard(monkeypatch):
    """The time clock (timing-free: a fake advance spends exactly the wall allowance it is
    given as solver time, B only half of it — an entrant that gets little CPU time in its
    allowance): each entrant is asked for what it lacks of the common target (at most
    CATCH_UP allowances), and the clock is never more than one pace step (or 0.2 ms) ahead of
    the laggard, so A never leads B by more than that; the race still moves on at B's pace."""
    X, Xt, y, yt = _data()
    race = Race([("pegasos", RBF), ("smo", RBF)], X, y, Xt, yt, seed=0, budget="time")
    asked = {0: [], 1: []}

    def fake(k):
        run = race.runs[k]

        def advance(budget_s=0.1, max_iters=None):
            asked[k].append(budget_s)
            run.solver_time += budget_s * (0.5 if k == 1 else 1.0)
            return 1
        return advance

    for k in (0, 1):
        monkeypatch.setattr(race.runs[k], "advance", fake(k))
    pace, budget, MIN = 1.5, 0.01, race_mod.MIN_TIME_STEP
    targets = []
    for _ in range(60):
        a0, b0 = race.runs[0].solver_time, race.runs[1].solver_time
        race.tick(pace, budget)
        T = race.clock["time"]
        targets.append(T)
        assert T <= max(b0 * pace, b0 + MIN, a0) + 1e-15       # one step ahead of the laggard
        assert race.runs[0].solver_time == pytest.approx(T)    # A reaches every target
        assert race.runs[1].solver_time <= T
        if b0 < T:                                             # B is given its deficit
            assert asked[1][-1] == pytest.approx(min(T - b0, race_mod.CATCH_UP * budget))
    steps = np.diff([0.0] + targets)
    assert np.all(steps >= 0.0) and np.all(steps <= budget + 1e-15)
    assert race.runs[1].solver_time > 20 * MIN                 # the race went on at B's pace


def test_a_run_on_the_cpu_clock_does_not_count_waiting():
    """``TrainingRun(clock="cpu")`` counts the CPU time of the stepping thread: a step that
    waits 20 ms (for the GIL, a lock, a core: here a sleep) adds its wait to ``wall_time`` but
    not to ``solver_time``; the run's time cap still holds in wall time."""
    import time as _time
    X, Xt, y, yt = _data()
    runs = {}
    for clock in ("wall", "cpu"):
        run = TrainingRun(get_solver("pegasos")(**RBF), X, y, Xt, yt, seed=0, clock=clock,
                          max_seconds=0.07)
        step = run.solver.step

        def waiting_step(n, step=step):
            _time.sleep(0.02)
            return step(n)
        run.solver.step = waiting_step
        for _ in range(3):
            run.advance_iters(1)
        runs[clock] = run
    for run in runs.values():
        assert run.wall_time >= 0.06
        assert run.trace[-1].time == run.solver_time
    assert runs["wall"].solver_time == runs["wall"].wall_time
    # the three 20-ms sleeps are not CPU time
    assert runs["cpu"].solver_time < runs["cpu"].wall_time - 0.05
    runs["cpu"].advance_iters(5)                          # the wall-time cap ends it early
    assert runs["cpu"].status == "time cap" and runs["cpu"].t < 8
    with pytest.raises(ValueError, match="clock"):
        TrainingRun("pegasos", X, y, clock="thread")


def test_a_chunk_is_sized_by_its_steps_not_by_its_trace_snapshots():
    """A race asks an entrant for a fraction of a millisecond at a time; its chunk of
    iterations grows while the steps themselves are cheap, whatever the trace snapshots at the
    checkpoints cost (sized by the time around them, a race's Pegasos stayed at one or two
    iterations per call in the app server: each call's overhead then was its whole time)."""
    import time as _time
    X, Xt, y, yt = _data()
    run = TrainingRun(get_solver("pegasos")(**RBF), X, y, Xt, yt, seed=0, clock="cpu")
    record = run._record

    def costly_record():                       # a snapshot: 2 ms of CPU
        c0 = _time.thread_time()
        while _time.thread_time() - c0 < 0.002:
            pass
        record()
    run._record = costly_record
    for _ in range(12):
        run.advance(5e-4)
    assert run._chunk >= 32, run._chunk


def test_equal_time_does_not_count_an_entrants_waiting():
    """The same solver entered twice, one of them waiting 2 ms at every step call (as a step
    waits for the GIL beside another session's Python thread): its waits are not its solver
    time, and the two stay level in solver time (the clock waits for the slower one). Counting
    wall time, the waiting twin reached t = 2-3 while the other reached 1,800 at a 3.6-ms clock;
    counting CPU time, t = 19-28 (what is left is the CPU cost of resuming after
    each wait — cold caches — which is the twin's own work)."""
    import time as _time
    X, Xt, y, yt = _data()
    race = Race([("pegasos", RBF), ("pegasos", RBF)], X, y, Xt, yt, seed=0, budget="time")
    assert all(r.clock == "cpu" for r in race.runs)
    step, calls = race.runs[1].solver.step, []

    def waiting_step(n):
        calls.append(n)
        _time.sleep(0.002)
        return step(n)
    race.runs[1].solver.step = waiting_step
    for _ in range(400):
        if race.reached()["time"] >= 3e-3:
            break
        race.tick(1.2)
    A, B = race.runs
    assert race.reached()["time"] >= 3e-3
    assert B.wall_time >= 0.002 * len(calls)              # it did wait ...
    assert B.solver_time <= B.wall_time - 0.0015 * len(calls)   # ... and the waits are not counted
    assert B.solver_time >= A.solver_time / 1.2 - race_mod.MIN_TIME_STEP   # level with A
    assert B.t >= 10 and A.t >= 100, (A.t, B.t)


def test_beside_a_python_thread_smo_still_converges_within_the_clock():
    """``python -m svmcore.bench race-fairness``'s worst condition: beside a thread running
    Python code, the first curated race to a 15-ms clock. SMO converges at t = 72 alone within
    ~1 ms; counting wall time (GIL waits included) it stood at t = 13-16 at a 5-ms clock."""
    from svmcore.bench.app import race_fairness as rf
    preset = get_race("pegasos-vs-smo")
    cfg = RaceConfig(preset.data(), preset.entrants(), "time")
    alone = rf.measure(cfg, 0.015, "alone")
    busy = rf.measure(cfg, 0.015, "beside a Python thread")
    assert alone["t"][1] == busy["t"][1] == 72
    assert busy["wall"][1] > busy["solver"][1]          # it did wait; the wait was not counted
    assert busy["t"][0] > 100


def test_reference_optimum_matches_sklearn_and_is_cached():
    X, Xt, y, yt = _data(200, toy="xor", noise=0.3)
    n = X.shape[0]
    C, gamma = 2.0, 1.5
    lam = 1.0 / (C * n)
    ref = reference_optimum(X, y, lam, ("rbf", gamma), tol=1e-6)
    assert ref.converged and ref.lower <= ref.value and ref.value - ref.lower < 1e-6
    svc = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-9).fit(X, y)
    scores = svc.decision_function(X)
    coef = svc.dual_coef_.ravel()
    K = np.exp(-gamma * ((X[svc.support_][:, None, :] - X[svc.support_][None, :, :]) ** 2)
               .sum(-1))
    p_sk = primal_objective(scores, y, float(coef @ K @ coef), lam=lam)
    assert ref.value == pytest.approx(p_sk, rel=1e-6, abs=1e-9)
    assert reference_optimum(X, y, lam, ("rbf", gamma), tol=1e-6) is ref      # cached


def test_objective_groups_and_main_group():
    X, Xt, y, yt = _data()
    entrants = [("pegasos", RBF), ("smo", RBF), ("smo", {**RBF, "C": 10.0})]
    if "olsvm" in REGISTRY:
        entrants.append(("olsvm", {**RBF, "variant": "hinge"}))
    race = Race(entrants, X, y, Xt, yt, seed=0, budget="iterations")
    assert race.main_group == (L1_NAME, float(f"{1 / X.shape[0]:.12g}"), ("rbf", 2.0))
    assert [race.in_main_group(k) for k in range(len(entrants))][:3] == [True, True, False]
    assert race.reference() is not None
    for _ in range(10):
        race.tick(1.5, 0.01)
    assert race.suboptimality(0) is not None and race.suboptimality(2) is None
    assert np.all(race.suboptimality(1) >= -1e-9)          # P* is the minimum
    assert "b = 0" in race.note_of(0)                       # Pegasos' default: no bias
    assert race.note_of(2).startswith("own objective")
    panels = curve_panels(race)
    kinds = [p["kind"] for p in panels]
    assert kinds[:2] == ["error", "subopt"] and panels[1]["members"] == [0, 1]
    own = [p for p in panels if p["kind"] == "objective"]
    assert {m for p in own for m in p["members"]} == set(range(2, len(entrants)))
    assert all(p["title"].startswith("own objective") for p in own)
    # the P − P* panel draws only the main group
    fig = race_curves_figure(race)
    sub = [tr for tr in fig.data if tr.yaxis == "y2"]
    assert {tr.name for tr in sub} == {race.labels[0], race.labels[1]}


def test_objective_families_of_other_solvers():
    """NORMA in paper scaling, OL SVM's hinge, and (when written) SFW, ASSET and CPSP with a bias
    are not the L1-SVM λ-form with the race's λ: never on the P − P* axis."""
    from svmcore.solvers import cutting_plane, frank_wolfe
    X, Xt, y, yt = _data()
    entrants = [get_solver("smo")(**RBF)]
    others = []
    if "norma" in REGISTRY:
        others.append(get_solver("norma")(**RBF, c_scale="paper"))
    others.append(frank_wolfe.SFWSolver(**RBF))
    others.append(cutting_plane.CuttingPlaneSolver(**RBF, fit_intercept=True))
    race = Race(entrants + others[:3], X, y, Xt, yt, seed=0, budget="iterations")
    assert race.in_main_group(0)
    for k in range(1, len(race.runs)):
        assert not race.in_main_group(k), race.labels[k]
        assert race.note_of(k).startswith("own objective")
    assert race.groups[-1][0] != L1_NAME                     # "(with regularised bias …)"


def test_bad_races_raise_with_the_entrant_named():
    X, Xt, y, yt = _data()
    with pytest.raises(ValueError, match=r"entrant B \(smo\): C must be"):
        Race([("pegasos", {}), ("smo", {"C": -1.0})], X, y, Xt, yt)
    with pytest.raises(ValueError, match="2 to 4 entrants"):
        Race([("pegasos", {})], X, y, Xt, yt)
    with pytest.raises(ValueError, match="budget"):
        Race([("pegasos", {}), ("smo", {})], X, y, Xt, yt, budget="energy")
    with pytest.raises(ValueError, match="2 to 4 entrants"):
        RaceConfig(RunConfig(), (Entrant("pegasos"),) * 5)
    race = Race([("pegasos", {}), ("smo", {})], X, y, Xt, yt)
    with pytest.raises(ValueError, match="pace"):
        race.tick(0.9)


def test_labels_name_what_differs():
    X, Xt, y, yt = _data()
    race = Race([("pegasos", {"schedule": "pegasos", "eta0": 3.0}),
                 ("pegasos", {"schedule": "constant", "eta0": 0.5}), ("smo", {})], X, y, Xt, yt)
    assert race.labels[0] == "A · pegasos (schedule=pegasos)"          # eta0 unused there
    assert race.labels[1] == "B · pegasos (schedule=constant, eta0=0.5)"
    assert race.labels[2] == "C · smo"


def test_exports_hold_every_trace_row():
    X, Xt, y, yt = _data()
    race = Race([("pegasos", RBF), ("smo", RBF)], X, y, Xt, yt, seed=2, budget="iterations",
                per_decade=10)
    race.reference()
    for _ in range(20):
        race.tick(1.3, 0.01)
    rows = race_rows(race)
    assert len(rows) == sum(len(r.trace) for r in race.runs)
    text = race_csv(race)
    header = text.splitlines()[0].split(",")
    assert header[:3] == ["entrant", "label", "solver"] and "suboptimality" in header
    assert len(text.splitlines()) == len(rows) + 1
    doc = json.loads(race_json(race, {"budget": "iterations"}))
    assert doc["reference"]["converged"] and doc["budget"] == "iterations"
    assert [e["entrant"] for e in doc["entrants"]] == ["A", "B"]
    b = doc["entrants"][1]
    assert len(b["trace"]) == len(race.runs[1].trace)
    assert b["clock"] == "cpu" and b["wall_time"] >= 0.0   # what its times count
    assert b["trace"][-1]["suboptimality"] == pytest.approx(
        race.runs[1].trace[-1].objective - race.reference_value.value)


def test_grid_figure_merges_the_fields():
    X, Xt, y, yt = _data()
    race = Race([("pegasos", RBF), ("smo", RBF), ("pegasos", {"C": 1.0})], X, y, Xt, yt)
    race.tick(None, 0.005)
    view = viz.make_view(X, y, Xt, yt)
    models = [pacing.model_state(r, fresh=True, scores=True) for r in race.runs]
    figs = race_field_figures(race, view, 40, models, height=300)
    assert [f.data[0].type for f in figs] == ["image"] * 3
    scale = [next(tr for tr in f.data if tr.name == "f(x) scale") for f in figs]
    assert [bool(tr.marker.showscale) for tr in scale] == [False, False, True]
    grid = race_grid_figure(figs, cols=3)
    assert sum(tr.type == "image" for tr in grid.data) == 3
    assert {tr.xaxis for tr in grid.data} == {"x", "x2", "x3"}


# ====================================================================================== presets


def test_curated_races_are_valid_and_hidden_until_registered(monkeypatch,
                                                             solver_classes):
    classes = solver_classes
    assert len({r.key for r in RACES}) == len(RACES) >= 3
    for r in RACES:
        assert r.title and len(r.text) > 200, r.key
        assert 2 <= len(r.config.entrants) <= 4
        for e in r.config.entrants:
            cls = classes.get(e.solver)
            if cls is not None:
                cls(**e.param_dict)               # raises on an unknown or invalid parameter
    shown = {r.key for r in available_races()}
    for r in RACES:
        if any(e.solver not in REGISTRY for e in r.config.entrants):
            assert r.key not in shown
    assert len(shown) >= 3                        # pegasos, smo, norma and olsvm are registered
    monkeypatch.setattr("svmcore.runs.presets.REGISTRY", {k: v for k, v in classes.items()})
    every = {r.key for r in available_races()}
    assert "pegasos-vs-asset" in every or "asset" not in classes
    monkeypatch.setattr("svmcore.runs.presets.REGISTRY", {"smo": REGISTRY["smo"]})
    assert available_races() == []
    with pytest.raises(ValueError, match="unknown race"):
        get_race("nope")


@pytest.mark.parametrize("key", [r.key for r in available_races()])
def test_curated_race_engine_runs(key):
    cfg = get_race(key).config
    race, data = build_race(cfg, per_decade=10)
    if race.main_group is not None:
        assert race.reference() is not None, race.reference_error
    for k in range(200):           # SMO waits at t = 0 while the others spend its start-up's
        race.tick(1.5, 0.01)       # kernel evaluations (n diagonal values): ~15 ticks, or more
        if k >= 15 and all(r.t > 0 for r in race.runs):     # when the machine is busy
            break
    assert all(r.t > 0 for r in race.runs), [(r.solver.name, r.t) for r in race.runs]
    assert all(r.status != "diverged" for r in race.runs)


def test_hidden_curated_races_run_once_their_solvers_are_registered(monkeypatch,
                                                                    solver_classes):
    """Races waiting for a colleague's solver (SFW, …) work as soon as it is registered."""
    classes = solver_classes
    hidden = [r for r in RACES if r.key not in {a.key for a in available_races()}]
    for name, cls in classes.items():
        monkeypatch.setitem(REGISTRY, name, cls)
    for r in hidden:
        if r.key not in {a.key for a in available_races()}:
            continue                       # data not present here, or a solver not written
        race, _ = build_race(r.config, per_decade=10)
        if race.main_group is not None:
            assert race.reference() is not None, race.reference_error
        for _ in range(200):               # SMO starts with n kernel values (its diagonal)
            race.tick(1.5, 0.01)
            if all(run.t > 0 for run in race.runs):
                break
        assert all(run.t > 0 for run in race.runs), r.key


def test_race_snippet_reproduces_the_race(capsys):
    cfg = get_race("pegasos-vs-smo").config
    race, _ = build_race(cfg, per_decade=10)
    race.reference()
    for _ in range(40):
        race.tick(1.2, 0.01)
    code = reproduce_race_snippet(cfg, [r.t for r in race.runs], [r.status for r in race.runs],
                                  per_decade=10)
    assert "np.random" not in code and "Race(" in code
    ns: dict = {}
    exec(compile(code, "reproduce_race.py", "exec"), ns)
    other = ns["race"]
    for k, (a, b) in enumerate(zip(race.runs, other.runs)):
        assert a.t == b.t and a.status == b.status
        _same_trace(a, b, race.labels[k])
    out = capsys.readouterr().out
    assert "P*" in out and "A · pegasos" in out


# ====================================================================================== page


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    _ok(at)
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _no_error(at: AppTest) -> None:
    _ok(at)
    assert not at.error, [e.value for e in at.error]


def _race(at: AppTest) -> Race:
    return at.session_state["race"].live.race


def _step(at: AppTest, times: int = 1) -> AppTest:
    for _ in range(times):
        at.button(key="race_step").click().run()
        _ok(at)
    return at


def _views(at: AppTest) -> dict:
    """The live canvas views (fields, curves) by key: {key: frame (dict)}."""
    return {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
            for c in at.get("bidi_component")}


def _load(at: AppTest, key: str) -> AppTest:
    at.selectbox(key="race_preset").set_value(key).run()
    at.button(key="race_preset_load").click().run()
    _ok(at)
    return at


def test_plus_one_on_the_paused_race_page_moves_its_clock_caption():
    """Paused, +1 moves every entrant's field by one iteration and the race clock's caption with
    them (equal iterations: the fields' t)."""
    at = _page()
    at.segmented_control(key="race_budget").set_value("iterations").run()
    _step(at, 3)
    race = _race(at)
    t = race.runs[0].t
    assert t > 0 and all(r.t == t for r in race.runs)
    at.button(key="race_plus1").click().run()
    _no_error(at)
    race = _race(at)
    assert all(r.t == t + 1 for r in race.runs)
    assert any(c.value.startswith(f"race clock: t = {t + 1:,} iterations") for c in at.caption), \
        [c.value for c in at.caption]


def test_page_renders_the_first_curated_race():
    at = _page()
    _no_error(at)
    assert any(t.value == "Race" for t in at.title)
    first = available_races()[0]
    assert any(first.title in e.label and first.text in e.markdown[0].value
               for e in at.expander)          # its title, its paragraph folded under it
    views = _views(at)
    K = len(first.config.entrants)
    assert {f"race_field{k}" for k in range(K)} | {"race_curves"} <= set(views)
    for k in range(K):
        nx, ny = views[f"race_field{k}"]["grid"]
        assert len(base64.b64decode(views[f"race_field{k}"]["z"])) == nx * ny   # f per node
    # one colour scale and one grid for every field
    scales = {(json.dumps(c["scale"]), c["clip"], tuple(c["x"]), tuple(c["y"]))
              for n, c in views.items() if n.startswith("race_field")}
    assert len(scales) == 1
    assert at.segmented_control(key="race_budget").value == first.config.budget
    # one legend for all fields, below them (narrow columns had 7 legend lines each)
    assert all(not c["legend"] for n, c in views.items() if n.startswith("race_field"))
    assert any(c.value.startswith(viz.race.FIELD_LEGEND) for c in at.caption)


def test_projector_mode_puts_the_race_fields_near_the_top():
    """In projector mode the race's fields come first: the curated race's paragraph stays
    folded under its title, the budget control and its caption give way (the clock's caption
    names the budget), the fields take the projector's height for their count and the curves
    (P − P*) stand beside two fields, or follow more, on the first screen; the budget chosen before is kept
    (through the router, app.py, whose keep_widgets holds a widget's value while it is not
    drawn)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/race.py").run()
    _no_error(at)
    first = available_races()[0]
    assert [e.label for e in at.expander if first.title in e.label]
    at.toggle(key="race_present").set_value(True).run()
    _no_error(at)
    assert [e.label for e in at.expander if first.title in e.label]
    assert not [w for w in at.segmented_control if w.key == "race_budget"]
    at.toggle(key="race_present").set_value(False).run()
    at.segmented_control(key="race_budget").set_value("iterations").run()
    at.toggle(key="race_present").set_value(True).run()
    _no_error(at)
    assert _race(at).budget == "iterations"
    assert any("equal iterations" in c.value for c in at.caption)    # the race clock says it
    views = _views(at)
    fields = [f for k, f in views.items() if k.startswith("race_field")]
    assert fields and all(f["height"] == PRESENT_RACE_HEIGHT[len(fields)] for f in fields)
    curves = [f for k, f in views.items() if k.startswith("race_curves")]
    # two fields: the curves stacked in a column beside them; more: below them, side by side
    beside = len(fields) == 2
    assert curves and curves[0]["height"] == (PRESENT_RACE_HEIGHT[2] - PRESENT_LEGEND_H
                                              if beside else PRESENT_CURVES_HEIGHT)
    assert (curves[0]["cols"] == 1) == beside
    # beside each other, the two fields and their curves fill the window's height down to the
    # key and the status line; more fields keep their height, so the curves below stay on screen
    keep = PRESENT_RACE_KEEP if beside else 0
    assert all(f["fit"] == beside and f["keep"] == keep for f in fields + curves[:1])
    at.toggle(key="race_present").set_value(False).run()
    _no_error(at)
    assert at.segmented_control(key="race_budget").value == "iterations"
    assert not any(f["fit"] for k, f in _views(at).items() if k.startswith("race_field"))


@pytest.mark.parametrize("key", [r.key for r in available_races()])
def test_each_curated_race_advances_on_the_page(key):
    at = _load(_page(), key)
    _no_error(at)
    race = _race(at)
    assert [r.solver.name for r in race.runs] == [e.solver for e in get_race(key).config.entrants]
    assert race.budget == get_race(key).config.budget
    ts = []
    for _ in range(5):
        _step(at)
        _no_error(at)
        ts.append(sum(r.t for r in _race(at).runs))
    assert all(b > a for a, b in zip(ts, ts[1:]) if not _race(at).done), ts
    # Under equal kernel evaluations the clock starts at SMO's start-up cost (n diagonal
    # values): SMO waits at t = 0 until the others have spent as much, which takes SFW ~100
    # iterations on svmguide1 — five ticks or more when each tick is ~25 ms of solver time and
    # the dense early trace (a checkpoint per iteration up to t = 10) is recorded within it.
    for _ in range(20):
        if all(r.t > 0 for r in _race(at).runs):
            break
        _step(at)
    assert all(r.t > 0 for r in _race(at).runs), [(r.solver.name, r.t) for r in _race(at).runs]
    names = {sr["name"] for pn in _views(at)["race_curves"]["panels"] for sr in pn["series"]}
    assert set(_race(at).labels) <= names


def test_page_same_solver_twice_identical_curves():
    at = _load(_page(), "pegasos-two-steps")
    at.selectbox(key="race_e1_p_pegasos_schedule").set_value("pegasos").run()
    _no_error(at)
    _step(at, 6)
    _settle(_race(at), lambda: _step(at))
    a, b = _race(at).runs
    assert a.t == b.t > 0
    _same_trace(a, b)
    for panel in _views(at)["race_curves"]["panels"]:
        assert len(panel["series"]) == 2
        a_, b_ = panel["series"]
        assert a_["x"] == b_["x"] and a_["y"] == b_["y"]          # identical curves


def test_page_equal_iterations_traces_equal_solo_runs():
    at = _load(_page(), "pegasos-vs-smo")
    at.segmented_control(key="race_budget").set_value("iterations").run()
    _no_error(at)
    _step(at, 8)
    _settle(_race(at), lambda: _step(at))
    live = at.session_state["race"].live
    race, cfg = live.race, live.cfg
    assert race.budget == "iterations"
    d = build_data(cfg.data)
    active = [r.t for r in race.runs if not r.done]
    assert len(set(active)) <= 1
    for k, run in enumerate(race.runs):
        _same_trace(run, _solo(run, d.X_train, d.y_train, d.X_test, d.y_test, cfg.seed,
                               race.per_decade), race.labels[k])


def test_page_four_entrants_play_pause_reset():
    at = _page()
    at.radio(key="race_count").set_value(4).run()
    _no_error(at)
    race = _race(at)
    assert len(race.runs) == 4
    assert len({r.solver.name for r in race.runs}) >= 3          # different default solvers
    at.button(key="race_play").click().run()                      # one tick inside this run
    _no_error(at)
    assert at.session_state["race"].playing is True
    assert any(r.t > 0 for r in _race(at).runs)
    assert _views(at)["race_field0"]["grid"] == [100, 100]        # playing resolution
    at.button(key="race_pause").click().run()
    _no_error(at)
    assert _views(at)["race_field3"]["grid"] == [150, 150]
    at.button(key="race_reset_btn").click().run()
    _no_error(at)
    assert all(r.t == 0 for r in _race(at).runs)


def test_page_kernel_eval_budget_and_the_results_table():
    at = _load(_page(), "norma-vs-olsvm")
    _step(at, 6)
    _no_error(at)
    race = _race(at)
    assert race.budget == "kernel_evals" and race.clock["kernel_evals"] > 0
    table = at.dataframe[0].value
    assert list(table["entrant"]) == race.labels
    assert {"test acc %", "solver time s", "kernel evals", "#SV", "objective",
            "P − P*"} <= set(table.columns)
    assert list(table["kernel evals"]) == [r.solver.kernel_evals for r in race.runs]
    for label, run in zip(race.labels, race.runs):               # each entrant's own quantities
        state = run.solver.state_line(run.solver.snapshot())
        assert state.startswith("step η_t = ") and "violations so far " in state, state
        assert f"**{label}** — {state}" in [c.value for c in at.caption]


def test_page_export_snippet_reproduces_the_page():
    at = _load(_page(), "pegasos-vs-smo")
    _step(at, 6)
    at.session_state["race_export_open"] = True          # the export panel, opened
    at.run()
    code = [c.value for c in at.code if "Race(" in c.value]
    assert len(code) == 1
    ns: dict = {}
    exec(compile(code[0], "reproduce_race.py", "exec"), ns)
    for a, b in zip(_race(at).runs, ns["race"].runs):
        _same_trace(a, b)
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"race.csv", "race.json", "reproduce_race.py"} <= labels


def test_page_bad_parameter_is_an_error_not_a_traceback():
    at = _page()
    at.slider(key="race_n").set_value(20).run()
    at.selectbox(key="race_e0_solver").set_value("pegasos").run()
    at.select_slider(key="race_e0_p_pegasos_batch_size").set_value(256).run()
    _ok(at)
    assert at.error and "entrant A (pegasos)" in at.error[0].value
    assert "batch_size" in at.error[0].value
    at.select_slider(key="race_e0_p_pegasos_batch_size").set_value(1).run()
    _no_error(at)
    _step(at, 2)
    assert _race(at).t > 0


def test_app_navigation_has_the_race_page():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    _ok(at)
    assert any(t.value == "Playground" for t in at.title)
    at.switch_page("pages/race.py").run()
    _no_error(at)
    assert any(t.value == "Race" for t in at.title)


def test_playground_runs_have_a_time_cap():
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT).run()
    _ok(at)
    run = at.session_state["pg"].live.run
    assert run.max_seconds == 300.0
    run.max_seconds = 1e-9                      # as if 300 s of training had been spent
    at.button(key="pg_step").click().run()
    _ok(at)
    run = at.session_state["pg"].live.run
    assert run.status == "time cap"
    assert any("at most" in w.value and "s of training" in w.value for w in at.warning)
    assert at.button(key="pg_play").disabled
    at.session_state["pg_export_open"] = True            # the export panel, opened
    at.run()
    code = [c.value for c in at.code if "TrainingRun" in c.value][0]
    assert f"advance_iters({run.t})" in code and "run.run()" not in code


def test_race_survives_a_visit_to_the_playground():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/race.py").run()
    _load(at, "pegasos-two-steps")
    at.radio(key="race_count").set_value(3).run()
    _step(at, 4)
    race = _race(at)
    ts = [r.t for r in race.runs]
    assert len(ts) == 3 and min(ts) > 0
    at.switch_page("pages/playground.py").run()
    _no_error(at)
    at.switch_page("pages/race.py").run()
    _no_error(at)
    assert _race(at) is race and [r.t for r in race.runs] == ts
    assert at.radio(key="race_count").value == 3


def test_page_on_real_and_uploaded_data():
    at = _page()
    at.radio(key="race_src").set_value("real").run()
    at.selectbox(key="race_real").set_value("breast_cancer").run()
    _no_error(at)
    _step(at, 2)
    race = _race(at)
    assert race.runs[0].solver.d == 30 and race.t > 0
    assert any("Projection" in c.value for c in at.caption)        # honest about the slice
    at.radio(key="race_src").set_value("upload").run()
    _no_error(at)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    text = "a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{'yes' if r[0] > 0 else 'no'}\n"
                                       for r in X)
    at.file_uploader(key="race_upload").set_value(("d.csv", text.encode(), "text/csv")).run()
    _no_error(at)
    _step(at, 2)
    race = _race(at)
    assert race.runs[0].solver.d == 3 and race.t > 0
    assert at.session_state["race"].live.cfg.data.source == "upload"


@pytest.mark.parametrize("budget", ["iterations", "kernel_evals"])
def test_lockstep_holds_when_the_allowance_is_too_small(budget):
    """A starved tick (1e-5 s per entrant) leaves entrants behind the clock: they catch up
    while the clock waits, and the traces still equal solo runs."""
    X, Xt, y, yt = _data(200)
    race = Race([("pegasos", {**RBF, "epochs": 2.0}), ("smo", RBF),
                 ("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 2.0})],
                X, y, Xt, yt, seed=7, budget=budget, per_decade=10)
    saw_lag = False
    for _ in range(3000):
        if race.done:
            break
        race.tick(1.5, 1e-5)
        lag = set(race.lagging())
        saw_lag |= bool(lag)
        for k, unit in race._units_of():
            r = race.runs[k]
            if r.done or k in lag or race._free[k]:
                continue
            if unit == "iterations":
                assert r.t == race.clock["iterations"]
            else:
                assert r.solver.kernel_evals >= race.clock["kernel_evals"]
    # (whether a tick actually left someone behind depends on the machine's speed at that moment;
    # the invariants above hold either way)
    assert race.done
    for k, run in enumerate(race.runs):
        _same_trace(run, _solo(run, X, y, Xt, yt, 7, 10), race.labels[k])


@pytest.mark.slow
def test_sfw_last_vs_averaged_race_shows_what_its_text_says(data_folder):
    """The curated race's commentary, checked: equal iterates, so equal curves until the
    window opens; then the averaged model settles near 15% while the last iterate jumps."""
    cfg = get_race("sfw-last-vs-averaged").config
    race, data = build_race(cfg, per_decade=10)
    for _ in range(2000):
        race.tick(1.5, 0.05)
        if all(r.status == "converged" for r in race.runs):
            break
    last, avg = race.runs
    assert last.status == avg.status == "converged" and last.t == avg.t == 10000
    n = data.X_train.shape[0]
    err = {r: {row.iteration: row.test_error for row in r.trace} for r in (last, avg)}
    first = [t for t in err[last] if t <= n]
    assert [err[last][t] for t in first] == [err[avg][t] for t in first]
    assert max(err[last][t] for t in first) > 0.5
    second = [t for t in err[last] if t > n]
    assert len(second) >= 3
    assert max(err[avg][t] for t in second) < 0.16
    assert max(err[last][t] for t in second) > 0.17
    assert np.array_equal(race.runs[0].solver.alpha, race.runs[1].solver.alpha)


def _url(at: AppTest) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_race_url_round_trip_and_a_shared_link():
    """The page writes its race into the URL; a new session opened on that link builds the
    same race (data, entrants, parameters, budget); a broken link says what it ignored."""
    for r in RACES:
        cfg, problems = race_config_from_query(r.config.to_query())
        if r.key in {a.key for a in available_races()}:
            assert cfg == r.config and not problems, (r.key, problems)
    at = _load(_page(), "norma-vs-olsvm")
    cfg = at.session_state["race"].live.cfg
    q = _url(at)
    assert q == cfg.to_query() and q["budget"] == "kernel_evals" and q["e1"] == "olsvm"
    other = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    other.query_params.update(q)
    other.run()
    _no_error(other)
    assert other.session_state["race"].live.cfg == cfg
    assert not other.warning
    # a link with a solver this server lacks and a bad value: the rest still loads
    bad = dict(q, e2="no-such-solver", **{"e0.C": "-3"})
    third = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    third.query_params.update(bad)
    third.run()
    _no_error(third)
    got = third.session_state["race"].live.cfg
    assert [e.solver for e in got.entrants] == ["norma", "olsvm"]
    norma_C = get_solver("norma").params["C"].default
    assert got.entrants[0].param_dict.get("C", norma_C) == norma_C
    texts = " ".join(w.value for w in third.warning)
    assert "no-such-solver" in texts and "C='-3'" in texts
    # one entrant left: the link is ignored with a message, the first curated race is shown
    fourth = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    fourth.query_params.update({"e0": "pegasos"})
    fourth.run()
    _no_error(fourth)
    first = available_races()[0].config
    shown = fourth.session_state["race"].live.cfg
    assert [e.solver for e in shown.entrants] == [e.solver for e in first.entrants]
    assert shown.data == first.data and shown.budget == first.budget
    assert any("at least 2 entrants" in w.value for w in fourth.warning)


def test_a_race_link_does_not_configure_the_playground():
    cfg = get_race("norma-vs-olsvm").config
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.query_params.update(cfg.to_query())
    at.run()
    _ok(at)
    assert not any("link:" in w.value for w in at.warning)
