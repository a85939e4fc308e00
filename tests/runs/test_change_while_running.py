"""Changing settings while a run plays: ``Solver.retune``, ``TrainingRun.change``,
``Race.change``.

The reference of a mid-run change is a *fresh* solver built with the new parameters (so every
quantity derived from them comes from its own ``init``), into which the state of a run stopped at
t1 is copied by hand; both then run to t2 and must agree exactly. Independent numbers: linear
Pegasos against the NumPy loop of tests/reference.py with the piecewise step size, SMO against
scikit-learn's SVC optimum for the new C.
"""
import copy
import math

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from reference import pegasos_linear_reference
from svmcore.runs.race import Race
from svmcore.runs.run import TrainingRun, change_label
from svmcore.solvers import REGISTRY, get_solver
from svmcore.solvers.base import SampleStream, averaging_start
from svmcore.ui.canvas import decode

N = 120


@pytest.fixture(scope="module")
def data():
    X, y = make_moons(N + 60, noise=0.25, random_state=0)
    y = 2.0 * y - 1.0
    return X[:N], y[:N], X[N:], y[N:]


#: attributes a fresh solver with the new parameters computes itself (never copied)
DERIVED = {"sparams", "viol", "vdot", "vmarg", "row", "kp", "p", "inv2C"}


def _transplant(src, dst):
    """Copy the run state of ``src`` (arrays, the sample stream, counters) into ``dst``, a fresh
    solver initialised on the same data and seed with other parameters: one deepcopy, so arrays
    that alias each other (ASSET's block of the feature cache) still do."""
    names = [k for k, v in vars(src).items() if k not in DERIVED and (
        isinstance(v, (np.ndarray, SampleStream)) or k in ("t", "kernel_evals", "_bat")
        or (isinstance(v, tuple) and v and all(isinstance(a, np.ndarray) for a in v)))]
    state = copy.deepcopy({k: getattr(src, k) for k in names})
    for k, v in state.items():
        setattr(dst, k, v)


def _equal(a, b, X):
    assert a.t == b.t
    assert a.kernel_evals == b.kernel_evals
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert np.array_equal(a.decision_function(X, iterate="last"),
                          b.decision_function(X, iterate="last"))
    sa, sb = a.snapshot(), b.snapshot()
    assert sa.objective == sb.objective and sa.n_sv == sb.n_sv


#: (solver, base parameters, the change, whether the averaging state is dropped by hand)
CASES = [
    ("pegasos", dict(C=1.0, epochs=3), dict(C=4.0)),
    ("pegasos", dict(C=1.0, epochs=3, schedule="sqrt", eta0=0.1), dict(eta0=0.5)),
    ("pegasos", dict(C=1.0, epochs=3), dict(schedule="invscaling", eta0=0.3)),
    ("pegasos", dict(C=1.0, epochs=3, kernel="rbf"), dict(C=0.25, schedule="sqrt")),
    ("pegasos", dict(C=1.0, epochs=3, averaging=None), dict(averaging=0.5)),
    ("pegasos", dict(C=1.0, epochs=3, kernel="rbf", averaging=1.0), dict(averaging=0.25)),
    ("pegasos", dict(C=1.0, epochs=3, batch_size=2, averaging=0.3), dict(batch_size=5)),
    ("norma", dict(C=1.0, epochs=3), dict(C=3.0)),
    ("pegaz", dict(C=1.0, epochs=3, averaging=1.0), dict(averaging=40)),
    ("olsvm", dict(C=1.0, epochs=3), dict(schedule="sqrt", eta0=0.2)),
    ("asset", dict(C=1.0, epochs=3, n_components=30, averaging=None), dict(C=5.0)),
    ("asset", dict(C=1.0, epochs=3, n_components=30, averaging=1.0), dict(averaging=50)),
    ("sfw", dict(C=1.0, epochs=3, kernel="rbf"), dict(C=5.0)),
    ("msfw", dict(C=1.0, epochs=3, kernel="rbf", averaging=1.0), dict(C=0.2)),
    ("sfw", dict(C=1.0, epochs=3, averaging=1.0), dict(averaging=0.25)),
]
AVG_SLOTS = {"pegasos": ("U", (3, 4, 5)), "norma": ("U", (2, 3, 4)), "pegaz": ("U", (2, 3, 4)),
             "olsvm": ("U", (2, 3, 4)), "asset": ("gavg", (1, 2)), "sfw": ("Uavg", (3, 4))}


def _sfw_C_by_hand(b, C_old):
    """SFW/MSFW after a C change, by hand: A's diagonal moves by δ = 1/(2C) − 1/(2C_old)."""
    ns = int(b.ic[2])
    delta = 1.0 / (2.0 * b.p["C"]) - 1.0 / (2.0 * C_old)
    alpha = b.sc[0] * b.betaS[:ns]
    b.sc[1] += delta * float(alpha @ alpha)
    b.gS[:ns] -= 2.0 * delta * alpha
    if b.sc[4] > 0:
        b.Gsum[:ns] -= 2.0 * delta * (b.Uavg[:ns] + b.sc[3] * b.betaS[:ns])


@pytest.mark.parametrize("name,base,change", CASES,
                         ids=[f"{c[0]}-{'-'.join(c[2])}" for c in CASES])
def test_retune_equals_a_fresh_solver_with_the_state_copied(data, name, base, change):
    X, y, _, _ = data
    t1, t2 = 90, 260
    cls = get_solver(name)
    assert set(change) <= set(cls.soft_params)
    a = cls(**base)
    a.init(X, y, seed=3)
    a.step(t1)
    was_averaging = a.averaging_active
    diff = a.retune(**change)
    assert set(diff) == set(change)
    a.step(t2 - t1)

    a0 = cls(**base)                           # the same run, stopped at t1
    a0.init(X, y, seed=3)
    a0.step(t1)
    b = cls(**{**base, **change})              # fresh, with the new parameters
    b.init(X, y, seed=3)
    _transplant(a0, b)
    # by hand: what a fresh init cannot know
    if "averaging" in change and was_averaging:
        arr, slots = AVG_SLOTS["sfw" if name == "msfw" else name]
        getattr(b, arr)[:] = 0.0
        b.sc[list(slots)] = 0.0
        if name in ("sfw", "msfw"):
            b.Gsum[:] = 0.0
    if name in ("sfw", "msfw") and "C" in change:
        _sfw_C_by_hand(b, base["C"])
    if "batch_size" in change:
        k0, k1 = base["batch_size"], change["batch_size"]
        b.horizon = t1 + math.ceil((base["epochs"] * N - t1 * k0) / k1)
        b.t_avg0 = averaging_start(b.p["averaging"], b.horizon)
    b.step(t2 - t1)
    _equal(a, b, X)
    assert a.p == b.p


def test_pegasos_eta0_change_matches_the_numpy_loop(data):
    """Independent numbers: linear Pegasos with η_t = η0/√t, η0 changed at t1, against the dense
    NumPy loop of tests/reference.py fed the same samples and the piecewise step size."""
    X, y, _, _ = data
    lam = 1.0 / N
    t1, t2 = 70, 300
    s = get_solver("pegasos")(C=1.0, schedule="sqrt", eta0=0.05, epochs=10)
    s.init(X, y, seed=5)
    s.step(t1)
    s.retune(eta0=0.8)
    s.step(t2 - t1)
    idx = SampleStream(N, 5).take(t2)
    w, b = pegasos_linear_reference(X, y, lam, idx, eta=lambda t: (0.05 if t <= t1 else 0.8)
                                    / math.sqrt(t))
    np.testing.assert_allclose(s.coef_, w, rtol=1e-10, atol=1e-12)
    # and the step sizes the solver reports are the new ones from t1 + 1 on
    np.testing.assert_allclose(s.step_sizes([t1 + 1, t2]), 0.8 / np.sqrt([t1 + 1, t2]))


def test_pegasos_batch_size_replans_the_horizon(data):
    X, y, _, _ = data
    s = get_solver("pegasos")(epochs=2, batch_size=4)
    s.init(X, y, seed=0)
    assert s.horizon == 60
    s.step(20)                                 # 80 of the 240 planned examples seen
    s.retune(batch_size=10)
    assert s.examples_seen == 80 and s.horizon == 20 + 16
    s.step(5)
    assert s.examples_seen == 130
    with pytest.raises(ValueError, match="batch_size"):
        s.retune(batch_size=N + 1)
    assert s.p["batch_size"] == 10 and s.k == 10      # a refused change changes nothing


@pytest.mark.parametrize("shrinking", [False, True])
def test_smo_C_change_rescales_alpha_and_reaches_the_new_optimum(data, shrinking):
    """α ← α·C_new/C_old stays feasible, G = Qα − e is recomputed (checked against Q from
    scikit-learn's rbf_kernel), the run continues to the optimum of SVC(C_new)."""
    X, y, _, _ = data
    C0, C1 = 1.0, 3.0
    s = get_solver("smo")(C=C0, kernel="rbf", gamma=1.0, tol=1e-6, shrinking=shrinking)
    s.init(X, y, seed=0)
    s.step(140)                                # n = 120: shrinking has set variables aside
    assert s.active_size < N if shrinking else s.active_size == N
    a_before = s.alpha.copy()
    s.retune(C=C1)
    expect = np.where(a_before >= C0, C1, a_before * (C1 / C0))
    assert np.array_equal(s.alpha, np.minimum(expect, C1))
    assert abs(float(s.alpha @ y)) < 1e-12 and s.alpha.max() <= C1
    Q = np.outer(y, y) * rbf_kernel(X, X, gamma=1.0)
    np.testing.assert_allclose(s.G, Q @ s.alpha - 1.0, atol=1e-12)
    assert not s.converged and s.active_size == N
    s.step(100_000)
    assert s.converged
    ref = SVC(C=C1, kernel="rbf", gamma=1.0, tol=1e-8).fit(X, y)
    dual = np.zeros(N)
    dual[ref.support_] = ref.dual_coef_[0]
    np.testing.assert_allclose(s.alpha * y, dual, atol=2e-3 * C1)
    assert s.dual_objective_C() == pytest.approx(
        float(np.abs(dual).sum() - 0.5 * dual @ rbf_kernel(X, X, gamma=1.0) @ dual), rel=1e-6)


def test_smo_C_change_equals_a_fresh_solver_given_the_rescaled_state(data):
    X, y, _, _ = data
    a = get_solver("smo")(C=1.0, kernel="rbf")
    a.init(X, y, seed=0)
    a.step(40)
    alpha = a.alpha.copy()
    a.retune(C=0.3)
    a.step(60)
    b = get_solver("smo")(C=0.3, kernel="rbf")
    b.init(X, y, seed=0)
    b.alpha[:] = np.minimum(np.where(alpha >= 1.0, 0.3, alpha * 0.3), 0.3)
    Q = np.outer(y, y) * rbf_kernel(X, X, gamma=1.0)
    b.G[:] = Q @ b.alpha - 1.0
    b.t = b.ic[0] = 40
    b.step(60)
    assert a.t == b.t > 40
    np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-10)


def test_solvers_without_a_faithful_continuation_refuse(data):
    X, y, _, _ = data
    for name, cls in REGISTRY.items():
        s = cls()
        s.init(X, y, seed=0)
        hard = [k for k in ("C", "kernel", "gamma") if k in cls.params and k not in
                cls.soft_params]
        for k in hard:
            with pytest.raises(ValueError, match="cannot change"):
                s.retune(**{k: s.p[k]})
        assert s.retune() == {}
    assert "kernel" not in set().union(*(c.soft_params for c in REGISTRY.values()))


def test_bad_values_leave_the_solver_unchanged(data):
    X, y, _, _ = data
    s = get_solver("pegasos")(schedule="sqrt")
    s.init(X, y, seed=0)
    s.step(10)
    p, sparams = dict(s.p), s.sparams.copy()
    with pytest.raises(ValueError, match="eta0"):
        s.retune(eta0=-1.0)
    assert s.p == p and np.array_equal(s.sparams, sparams)
    assert s.retune(eta0=1.0) == {}                   # the same value: no change at all


# ------------------------------------------------------------------------------ runs


def _rows(run):
    return [{k: v for k, v in r.items() if k != "time"} for r in run.trace_dicts()]


def test_run_change_marks_and_continues(data):
    X, y, Xt, yt = data
    run = TrainingRun("pegasos", X, y, Xt, yt, seed=1, schedule="sqrt", eta0=0.1, epochs=4)
    run.advance_iters(150)
    trace_before = _rows(run)
    diff = run.change(eta0=0.5)
    assert diff == {"eta0": (0.1, 0.5)}
    assert run.t == 150 and run.marks == [{"t": 150, "label": "η₀ 0.1→0.5"}]
    assert run.changes == [(150, {"eta0": 0.5})]
    assert run.change(eta0=0.5) == {} and len(run.marks) == 1
    run.advance_iters(250)
    assert _rows(run)[:len(trace_before)] == trace_before          # the trace continues
    # a run driven by other chunk sizes with the same change at the same t: the same trace
    other = TrainingRun("pegasos", X, y, Xt, yt, seed=1, schedule="sqrt", eta0=0.1, epochs=4)
    while other.t < 150:
        other.advance_iters(min(37, 150 - other.t))
    other.change(eta0=0.5)
    other.advance_iters(250)
    assert _rows(other) == _rows(run)


def test_no_change_path_is_bit_identical(data):
    """A run that never changes anything is what it was before mid-run changes existed: a
    retune with the current values is a no-op and leaves the trace bit-identical."""
    X, y, Xt, yt = data
    for name in ("pegasos", "smo", "norma", "asset"):
        kw = dict(n_components=30) if name == "asset" else {}
        a = TrainingRun(name, X, y, Xt, yt, seed=2, max_iter=300, **kw)
        b = TrainingRun(name, X, y, Xt, yt, seed=2, max_iter=300, **kw)
        a.advance_iters(100)
        b.advance_iters(100)
        assert b.change(**{k: b.solver.p[k] for k in b.solver.soft_params}) == {}
        a.advance_iters(200)
        b.advance_iters(200)
        assert _rows(a) == _rows(b) and b.marks == [] and b.changes == []
        assert np.array_equal(a.solver.decision_function(X), b.solver.decision_function(X))


def test_change_reopens_a_converged_smo_run(data):
    X, y, Xt, yt = data
    run = TrainingRun("smo", X, y, Xt, yt, kernel="rbf")
    run.run()
    assert run.status == "converged" and run.message
    t = run.t
    run.change(C=10.0)
    assert run.status == "running" and run.message == "" and run.t == t
    run.run()
    assert run.status == "converged" and run.t > t
    assert run.marks == [{"t": t, "label": "C 1→10"}]


def test_change_label():
    assert change_label({"eta0": (0.1, 0.5), "C": (1.0, 2.0)}) == "η₀ 0.1→0.5, C 1→2"
    assert change_label({"schedule": ("pegasos", "sqrt")}) == "schedule pegasos→sqrt"


def test_race_change(data):
    X, y, Xt, yt = data
    ents = [("pegasos", {"kernel": "rbf"}), ("smo", {"kernel": "rbf"}), ("norma", {})]
    race = Race(ents, X, y, Xt, yt, seed=0, budget="iterations")
    race.advance_iters(50)
    ts = [r.t for r in race.runs]
    diffs = race.change(C=2.0)
    assert [set(d) for d in diffs] == [{"C"}] * 3
    assert [r.t for r in race.runs] == ts
    assert [m[0]["label"] for m in race.marks] == ["C 1→2"] * 3
    assert race.runs[0].solver.lam == pytest.approx(1 / (2.0 * N))
    # eta0: only the entrants that have it
    diffs = race.change(eta0=0.3)
    assert [set(d) for d in diffs] == [{"eta0"}, set(), {"eta0"}]
    # an entrant that cannot take C mid-run: refused, nobody changed
    race2 = Race([("pegasos", {}), ("cpsp", {})], X, y, seed=0, budget="iterations")
    race2.advance_iters(5)
    with pytest.raises(ValueError, match="cpsp"):
        race2.change(C=3.0)
    assert race2.runs[0].solver.p["C"] == 1.0 and race2.runs[0].marks == []
    assert race2.soft_plan(["C"]) is None and race2.soft_plan(["eta0"]) == [["eta0"], []]
    race3 = Race([("norma", {}), ("pegasos", {})], X, y, seed=0, budget="iterations")
    with pytest.raises(ValueError, match="batch_size"):
        race3.change_each([{"C": 2.0}, {"batch_size": N + 1}])
    assert race3.runs[0].solver.p["C"] == 1.0 and race3.runs[0].marks == []


# ------------------------------------------------------------------------------ configurations

from svmcore.runs.config import (RaceConfig, RunConfig, config_from_query,  # noqa: E402
                            race_config_from_query, soft_change)
from svmcore.runs.rundata import build_data  # noqa: E402


def test_run_config_changes_round_trip_the_url():
    cfg = RunConfig(solver="pegasos", params=(("schedule", "sqrt"), ("eta0", 0.1)))
    cfg = cfg.with_change(300, eta0=0.5).with_change(800, C=2.0, averaging=None)
    q = cfg.to_query()
    assert q["ch"] == "300:p.eta0=0.5;800:p.C=2.0,p.averaging=none"
    back, problems = config_from_query(q)
    assert back == cfg and problems == []
    assert cfg.current().param_dict == {"schedule": "sqrt", "eta0": 0.5, "C": 2.0,
                                        "averaging": None}
    assert cfg.current().changes == () and "ch" not in cfg.current().to_query()
    # every other key is what it was: an old link (no ch) is read as before
    old = {k: v for k, v in q.items() if k != "ch"}
    assert config_from_query(old) == (replace_changes(cfg), [])


def replace_changes(cfg):
    import dataclasses
    return dataclasses.replace(cfg, changes=())


def test_bad_changes_in_a_link_are_reported_and_dropped():
    q = RunConfig(solver="smo").to_query()
    q["ch"] = "10:p.C=2.0;x:p.C=1;20:p.kernel=rbf;30:p.C=-1;40:p.nope=1"
    cfg, problems = config_from_query(q)
    assert cfg.changes == ((10, (("C", 2.0),)),)
    assert len(problems) == 4 and all(p.startswith("link: change") for p in problems)


def test_race_config_changes_round_trip_the_url():
    cfg = RaceConfig(RunConfig(), (("pegasos", {}), ("smo", {}), ("norma", {})), "iterations",
                     changes=((50, 1, {"C": 2.0}), (40, 0, {"eta0": 0.3, "schedule": "sqrt"})))
    q = cfg.to_query()
    assert q["ch"] == "40:e0.eta0=0.3,e0.schedule=sqrt;50:e1.C=2.0"
    back, problems = race_config_from_query(q)
    assert back == cfg and problems == []
    assert back.current().entrants[1].param_dict == {"C": 2.0}
    # an entrant that is not available here: its changes go, the others' indices follow
    q2 = dict(q, e0="nosuch")
    back2, problems2 = race_config_from_query(q2)
    assert back2.changes == ((50, 0, (("C", 2.0),)),)


def test_soft_change():
    peg = get_solver("pegasos")
    assert soft_change({"eta0": 0.1}, {"eta0": 0.5}, peg) == {"eta0": 0.5}
    assert soft_change({}, {"C": 1.0}, peg) == {}                        # the default
    assert soft_change({}, {"kernel": "rbf"}, peg) is None
    assert soft_change({"C": 1.0}, {"C": 2.0}, get_solver("cpsp")) is None


def test_a_link_replays_the_changes_at_their_t():
    """Live: play, change η₀ at t = 300 by hand, play on to 900. The link of that moment (the
    configuration with its change, t = 900) replays to the same numbers."""
    cfg = RunConfig(dataset="moons", n=300, solver="pegasos",
                    params=(("schedule", "sqrt"), ("eta0", 0.1), ("kernel", "rbf")))
    data = build_data(cfg)

    def make(c):
        run = TrainingRun(c.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                          seed=c.seed, per_decade=10, **c.param_dict)
        run.schedule_changes((t, dict(ch)) for t, ch in c.changes)
        return run

    live = make(cfg)
    while live.t < 300:                                   # ticks of a page, ×1.1
        live.advance(1.0, max_iters=max(1, min(int(live.t * 0.1) + 1, 300 - live.t)))
    live.change(eta0=0.5)
    while live.t < 900:
        live.advance(1.0, max_iters=max(1, min(int(live.t * 0.1) + 1, 900 - live.t)))
    linked = cfg.with_change(300, eta0=0.5)
    back, _ = config_from_query(dict(linked.to_query(), t="900"))
    replay = make(back)
    replay.advance_iters(900)
    assert replay.t == live.t == 900
    assert _rows(replay) == _rows(live)
    assert replay.marks == live.marks == [{"t": 300, "label": "η₀ 0.1→0.5"}]
    assert np.array_equal(replay.solver.decision_function(data.X_test),
                          live.solver.decision_function(data.X_test))


def test_race_replays_its_changes(data):
    X, y, Xt, yt = data
    ents = [("pegasos", {}), ("smo", {})]
    live_race = Race(ents, X, y, Xt, yt, seed=0, budget="iterations")
    live_race.advance_iters(30)
    live_race.change(C=2.0)
    live_race.advance_iters(40)
    replay = Race(ents, X, y, Xt, yt, seed=0, budget="iterations")
    replay.schedule_changes([(30, 0, {"C": 2.0}), (30, 1, {"C": 2.0})])
    replay.advance_iters(70)
    for a, b in zip(live_race.runs, replay.runs):
        assert a.t == b.t and _rows(a) == _rows(b) and a.marks == b.marks
    # the objective groups follow the new λ = 1/(2n) in both
    assert replay.groups == live_race.groups and replay.groups[0][1] == pytest.approx(1 / (2 * N))
    assert replay.curve_marks() == [{"x": 30.0, "label": "A, B: C 1→2"}]


# ------------------------------------------------------------------------------ the pages

APP_TIMEOUT = 120


def _app(page, query=None):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / page),
                           default_timeout=APP_TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    return at


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _tile(at) -> int:
    return int(next(m.value for m in at.metric if m.label == "iteration t").replace(",", ""))


def _frame(at, key):
    return next(decode(c.proto.json) for c in at.get("bidi_component")
                if c.proto.id.endswith(key))


def _query(at) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_playground_eta0_change_keeps_t_marks_it_and_the_link_reproduces_it():
    """AppTest: changing η₀ mid-run keeps t and marks the change on the curves; the
    link after the change opens the same moment (same t, same model, the same mark)."""
    at = _app("playground.py", {"src": "toy", "ds": "moons", "n": "200", "seed": "2",
                                "solver": "pegasos", "p.schedule": "sqrt", "p.eta0": "0.1"})
    for _ in range(3):
        at.button(key="pg_step").click().run()
    t = _tile(at)
    assert t >= 3
    at.select_slider(key="pg_p_pegasos_eta0").set_value(0.5).run()
    _ok(at)
    state = at.session_state["pg"]
    assert _tile(at) == t and state.live.run.t == t
    assert state.live.run.marks == [{"t": t, "label": "η₀ 0.1→0.5"}]
    assert state.live.run.solver.p["eta0"] == 0.5
    assert any("η₀ 0.1→0.5" in i.value for i in at.info)
    marks = _frame(at, "pg_curves")["marks"]
    assert marks == [{"x": float(t), "label": "η₀ 0.1→0.5"}]
    at.button(key="pg_step").click().run()
    t2 = _tile(at)
    assert t2 > t and state.live.run.marks[0]["t"] == t        # the run went on, not anew
    q = _query(at)
    assert q["ch"] == f"{t}:p.eta0=0.5" and q["t"] == str(t2) and q["p.eta0"] == "0.1"
    # the link of this moment
    other = _app("playground.py", q)
    _ok(other)
    run2 = other.session_state["pg"].live.run
    assert _tile(other) == t2 and run2.marks == state.live.run.marks
    assert other.select_slider(key="pg_p_pegasos_eta0").value == 0.5
    X = state.live.data.X_test
    np.testing.assert_array_equal(run2.solver.decision_function(X),
                                  state.live.run.solver.decision_function(X))
    assert _frame(other, "pg_curves")["marks"] == marks
    # a hard change still starts again at t = 0 and says so
    other.selectbox(key="pg_p_pegasos_kernel").set_value("rbf").run()
    assert _tile(other) == 0 and any("new run from t = 0" in i.value for i in other.info)


def test_playground_change_while_playing_shared_goes_on_on_its_own_copy():
    """A session that changes a setting while playing on a shared timeline goes on playing;
    once the setting has settled its own copy takes it at the moment it showed, still
    playing."""
    at = _app("playground.py", {"src": "toy", "ds": "moons", "n": "200", "seed": "3",
                                "solver": "pegasos"})
    at.button(key="pg_play").click().run()
    st_ = at.session_state["pg"]
    assert st_.shared is not None and st_.moment is not None and st_.moment.t > 0
    t = st_.moment.t
    at.select_slider(key="pg_p_pegasos_C").set_value(2.0).run()
    _ok(at)
    assert st_.playing is True and st_.live.run.marks == []    # held until the slider settles
    import time

    from svmcore.ui.live import SETTLE_S
    time.sleep(SETTLE_S)
    at.run()
    _ok(at)
    assert st_.shared is None and st_.playing is True
    (mark,) = st_.live.run.marks
    assert mark["label"] == "C 1→2" and mark["t"] >= t
    assert st_.live.run.t >= mark["t"] and st_.live.run.solver.p["C"] == 2.0


_GESTURE_SCRIPT = """
import time
from svmcore import ui
from svmcore.runs.config import RunConfig
from svmcore.ui.live import SETTLE_S, take_settled
pg = ui.instance("pg")
base = RunConfig(**CFG)
ui.ensure_live(pg, base)
pg.live.run.advance_iters(40)
pg.playing = True
def settle(*values):
    for C in values:                      # moves while playing: held, one setting
        ui.ensure_live(pg, base.with_params(C=C))
    assert pg.live.run.marks == marks and pg.pb.pending is not None
    # just past SETTLE_S after the last move ((a + b) - a may fall short of b in floating point)
    assert take_settled(pg, now=pg.pb.pending[2] + SETTLE_S + 0.01)
marks = []
settle(1.5, 2.0)                          # taken at t = 40
marks = list(pg.live.run.marks)
pg.live.run.advance_iters(25)             # the run plays on with it
time.sleep(WAIT)
settle(*SECOND)
"""


@pytest.mark.parametrize("wait, second, changes", [
    (0.0, (2.5, 3.0), ((40, (("C", 3.0),)),)),                   # the same gesture: one change
    (0.0, (1.0,), ()),                                           # back: no change at all
    (None, (3.0,), ((40, (("C", 2.0),)), (65, (("C", 3.0),))))])  # apart: two changes
def test_moves_of_one_slider_taken_apart_are_one_change(wait, second, changes):
    """A slider moved while playing is taken once it has rested (SETTLE_S); a busy server may
    see one gesture's moves with a longer gap between them and take its first moves alone. A
    move of the same parameter that comes within MERGE_S after that change was taken replaces
    it: one change, at that change's t, with the value chosen last (none when it is back to
    the value before), and the run is the one the link replays, bit for bit. Moves further
    apart are two changes."""
    from streamlit.testing.v1 import AppTest

    from svmcore.runs.config import RunConfig
    from svmcore.runs.rundata import build_data
    from svmcore.server import pacing
    from svmcore.ui.live import MERGE_S, SETTLE_S
    cfg = dict(dataset="moons", n=160, seed=2, solver="pegasos",
               params=(("kernel", "rbf"), ("gamma", 2.0)))
    # the first setting is taken SETTLE_S after its last move (the script's clock); a load
    # that slows the script down only moves the second move further away
    wait = SETTLE_S + MERGE_S + 0.1 if wait is None else wait
    head = f"CFG = {cfg!r}\nWAIT = {wait!r}\nSECOND = {second!r}\n"
    at = AppTest.from_string(head + _GESTURE_SCRIPT, default_timeout=APP_TIMEOUT).run()
    _ok(at)
    pg = at.session_state["pg"]
    live = pg.live
    assert live.cfg.changes == changes and live.run.t == 65 and pg.playing
    assert [m["t"] for m in live.run.marks] == [t for t, _ in changes]
    assert live.run.solver.p["C"] == second[-1]
    if wait == 0.0 and changes:
        assert live.run.marks[0]["label"] == "C 1→3"
        assert "one change with the move just before it" in pg.notice
    link = RunConfig(**{**cfg, "changes": changes})
    d = build_data(link)
    replay = TrainingRun("pegasos", d.X_train, d.y_train, d.X_test, d.y_test, seed=2,
                         per_decade=pacing.LIVE_PER_DECADE, **link.param_dict)
    replay.schedule_changes((t, dict(c)) for t, c in changes)
    replay.advance_iters(65)
    assert _rows(replay) == _rows(live.run)
    np.testing.assert_array_equal(replay.solver.decision_function(d.X_test),
                                  live.run.solver.decision_function(d.X_test))


def test_race_C_change_keeps_t():
    at = _app("race.py")
    for _ in range(2):
        at.button(key="race_step").click().run()
    race = at.session_state["race"].live.driver
    ts = [r.t for r in race.runs]
    assert min(ts) > 0
    name = at.session_state["race"].live.cfg.entrants[0].solver
    assert "C" in get_solver(name).soft_params
    at.select_slider(key=f"race_e0_p_{name}_C").set_value(2.0).run()
    _ok(at)
    assert at.session_state["race"].live.driver is race
    assert [r.t for r in race.runs] == ts
    assert race.runs[0].marks == [{"t": ts[0], "label": "C 1→2"}]
    assert _frame(at, "race_curves")["marks"][0]["label"] == "A: C 1→2"
    assert _query(at)["ch"] == f"{ts[0]}:e0.C=2.0"


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_sfw_C_change_keeps_q_and_g_exact(data, name):
    """After a C change, the maintained q and g_S equal αᵀAα and −2(Aα)_S of the new
    A = K∘yyᵀ + yyᵀ + I/(2C), computed from scratch with scikit-learn's rbf_kernel."""
    X, y, _, _ = data
    s = get_solver(name)(C=1.0, kernel="rbf", gamma=1.0, epochs=3)
    s.init(X, y, seed=1)
    s.step(150)
    s.retune(C=4.0)
    ns = int(s.ic[2])
    S = s.Sidx[:ns]
    alpha = np.zeros(N)
    alpha[S] = s.sc[0] * s.betaS[:ns]
    A = np.outer(y, y) * (rbf_kernel(X, X, gamma=1.0) + 1.0) + np.eye(N) / 8.0
    np.testing.assert_allclose(s.sc[1], alpha @ A @ alpha, rtol=1e-9)
    np.testing.assert_allclose(s.gS[:ns], -2.0 * (A @ alpha)[S], rtol=1e-9, atol=1e-12)
    s.step(200)
    assert not s.diverged


def test_the_exported_script_replays_the_changes():
    from svmcore.runs import export
    cfg = RunConfig(dataset="moons", n=200, seed=6, solver="pegasos",
                    params=(("schedule", "sqrt"), ("eta0", 0.1))).with_change(40, eta0=0.7)
    data = build_data(cfg)
    live = TrainingRun("pegasos", data.X_train, data.y_train, data.X_test, data.y_test, seed=6,
                       schedule="sqrt", eta0=0.1)
    live.advance_iters(40)
    live.change(eta0=0.7)
    live.advance_iters(80)
    code = export.reproduce_snippet(cfg, 120)
    assert "run.schedule_changes([(40, {'eta0': 0.7})])" in code
    ns = {}
    exec(compile(code.replace("print(", "(lambda *a, **k: None)("), "reproduce.py", "exec"), ns)
    assert _rows(ns["run"]) == _rows(live) and ns["run"].marks == live.marks
    rcfg = RaceConfig(cfg, (("pegasos", {}), ("smo", {})), "iterations",
                      changes=((10, 1, {"C": 2.0}),))
    rcode = export.reproduce_race_snippet(rcfg, [30, 30])
    assert "race.schedule_changes([(10, 1, {'C': 2.0})])" in rcode


def test_loading_a_preset_is_a_new_run_even_when_only_soft_settings_differ():
    """A preset (like a link) is a new run: loading it again after a soft change (which the
    run took mid-run) starts at t = 0 with the preset's values."""
    at = _app("playground.py")
    at.selectbox(key="pg_preset").set_value("smo-moons").run()
    at.button(key="pg_preset_load").click().run()
    for _ in range(3):
        at.button(key="pg_step").click().run()
    t = _tile(at)
    assert t > 0
    at.select_slider(key="pg_p_smo_C").set_value(2.0).run()
    inst = at.session_state["pg"]
    assert _tile(at) == t and inst.live.run.marks[0]["label"] == "C 1→2"
    at.button(key="pg_preset_load").click().run()
    _ok(at)
    assert _tile(at) == 0 and inst.live.run.marks == [] and inst.live.run.solver.p["C"] == 1.0


def test_a_hand_written_link_with_a_change_replays_it():
    """A link that names only some parameters (the defaults fill in the rest) still replays its
    changes: η₀ 1→0.5 at t = 5, opened at t = 20."""
    at = _app("playground.py", {"src": "toy", "ds": "moons", "n": "200", "solver": "pegasos",
                                "p.schedule": "sqrt", "ch": "5:p.eta0=0.5", "t": "20"})
    _ok(at)
    inst = at.session_state["pg"]
    assert _tile(at) == 20 and inst.live.run.marks == [{"t": 5, "label": "η₀ 1→0.5"}]
    assert at.select_slider(key="pg_p_pegasos_eta0").value == 0.5
    at.button(key="pg_plus1").click().run()
    assert _tile(at) == 21 and len(inst.live.run.marks) == 1
    assert _query(at)["ch"] == "5:p.eta0=0.5"
