"""Stream mode (svmcore.runs.stream): rows in time order, the drifting gaussians, the URL key."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from svmcore.data import DRIFT_PERIOD
from svmcore.runs.config import RaceConfig, RunConfig, config_from_query, race_config_from_query
from svmcore.runs.race import build_race
from svmcore.runs.rundata import build_data
from svmcore.runs.run import TrainingRun
from svmcore.runs.stream import STREAM_EVERY, STREAM_POINTS_PER_TICK, Stream
from svmcore.server import pacing
from svmcore.solvers import get_solver
from svmcore.solvers.base import SampleStream
from svmcore.solvers.objectives import error_rate


def test_order_stream_visits_row_t_mod_n():
    s = SampleStream(5, seed=0, mode="order")
    assert s.take(3).tolist() == [0, 1, 2]
    assert s.take(9).tolist() == [3, 4, 0, 1, 2, 3, 4, 0, 1]


@pytest.mark.parametrize("name, params", [("norma", {}), ("pegasos", {"kernel": "linear"}),
                                          ("pegasos", {"kernel": "rbf"})])
def test_stream_run_visits_rows_in_order(name, params):
    """Stepping a stream run (13 + 20 iterations on 25 rows, across the wrap) leaves the solver
    where visiting rows 0, 1, …, 24, 0, …, 7 one by one does."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=25) > 0, 1.0, -1.0)
    run = TrainingRun(name, X, y, seed=4, stream=Stream(), trace=None, max_iter=100, **params)
    run.advance_iters(13)
    run.advance_iters(20)
    ref = get_solver(name)(**params)
    ref.init(X, y, seed=4)
    ref.visit(np.arange(33) % 25)
    assert run.t == ref.t == 33
    grid = rng.normal(size=(40, 2))
    assert np.array_equal(run.solver.decision_function(grid), ref.decision_function(grid))
    plain = TrainingRun(name, X, y, seed=4, trace=None, **params)   # sampled: another model
    plain.advance_iters(33)
    assert not np.array_equal(plain.solver.decision_function(grid), ref.decision_function(grid))


def test_stream_refuses_a_batch_solver():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.sign(X[:, 0])
    with pytest.raises(ValueError, match="SMO.*batch solver.*norma"):
        TrainingRun("smo", X, y, stream=Stream())


def test_norma_follows_the_drift_a_frozen_model_does_not():
    """NORMA fed two turns of the drifting gaussians, one point per step: over the last turn
    its error on fresh points of each moment stays low; the model it had after 100 points,
    frozen there, is right only while the classes are near where it saw them (a coin's
    accuracy on average over a turn)."""
    n = 2 * DRIFT_PERIOD
    data = build_data(RunConfig(dataset="drift", n=n, seed=0, stream=True, solver="norma"))
    assert data.X_test is None and data.probe is not None
    run = TrainingRun("norma", data.X_train, data.y_train, seed=0,
                      stream=Stream(probe=data.probe))
    run.advance_iters(100)
    frozen = copy.deepcopy(run.solver)
    last_turn, frozen_acc = [], []
    while not run.done:
        run.advance_iters(STREAM_EVERY)
        if run.t > n - DRIFT_PERIOD:
            last_turn.append(1.0 - run.trace[-1].test_error)
            Xp, yp = data.probe(run.t)
            frozen_acc.append(1.0 - error_rate(frozen.decision_function(Xp), yp))
    assert run.t == n and len(last_turn) == DRIFT_PERIOD // STREAM_EVERY
    assert [r.iteration for r in run.trace[:4]] == [0, 20, 40, 60]   # linear checkpoints
    assert np.mean(last_turn) > 0.93 and min(last_turn) > 0.8
    assert 0.40 < np.mean(frozen_acc) < 0.60 and min(frozen_acc) < 0.1
    assert run.trace[-1].train_error < 0.15          # the recent points, not the whole stream


def test_stream_pace_is_points_per_tick():
    X = np.random.default_rng(1).normal(size=(300, 2))
    y = np.sign(X[:, 1])
    run = TrainingRun("pegasos", X, y, stream=Stream(), kernel="linear")
    pacing.advance_tick(run, 1.1, 10.0)
    pacing.advance_tick(run, 1.1, 10.0)
    assert run.t == 2 * STREAM_POINTS_PER_TICK
    pacing.advance_tick(run, 2.0, 10.0)
    assert run.t == 2 * STREAM_POINTS_PER_TICK + 10 * STREAM_POINTS_PER_TICK
    assert run.stream.window_rows(run.solver).tolist() == list(range(96 - 80, 96))


def test_stream_url_round_trip():
    cfg = RunConfig(dataset="drift", n=2000, stream=True, solver="norma", scale="standard")
    q = cfg.to_query()
    assert q["stream"] == "1"
    back, problems = config_from_query(q)
    assert back == cfg and back.stream and not problems
    off, _ = config_from_query({k: v for k, v in q.items() if k != "stream"})
    assert not off.stream and "stream" not in off.to_query()       # old links: no stream
    assert not config_from_query({**q, "stream": "0"})[0].stream
    bad, problems = config_from_query({**q, "stream": "sometimes"})
    assert not bad.stream and any("stream" in p for p in problems)
    real, problems = config_from_query({"src": "real", "ds": "breast_cancer", "stream": "1"})
    assert not real.stream and any("toy problem only" in p for p in problems)
    assert cfg.data_key() != RunConfig(dataset="drift", n=2000, solver="norma",
                                      scale="standard").data_key()
    race = RaceConfig(cfg, (("norma", ()), ("pegasos", ())))
    assert race.data.stream and race.to_query()["stream"] == "1"
    assert race_config_from_query(race.to_query()) == (race, [])


def test_a_stream_race_feeds_every_entrant_the_same_points():
    cfg = RaceConfig(RunConfig(dataset="drift", n=400, stream=True),
                     (("norma", ()), ("pegasos", (("kernel", "rbf"),))))
    race, data = build_race(cfg)
    assert race.main_group is None and "yardstick" in race.notes()[-1]   # no P* for a stream
    for _ in range(3):
        race.tick(1.1)
    assert [r.t for r in race.runs] == [3 * STREAM_POINTS_PER_TICK] * 2
    assert race.reached()["iterations"] == 3 * STREAM_POINTS_PER_TICK
    assert all(r.stream is not None and r.trace[-1].iteration % STREAM_EVERY == 0
               for r in race.runs)
    with pytest.raises(ValueError, match="entrant B .smo.: stream mode"):
        build_race(RaceConfig(cfg.data, (("norma", ()), ("smo", ()))))


def test_the_reproduction_script_replays_a_stream():
    from svmcore.runs.export import reproduce_snippet
    cfg = RunConfig(dataset="drift", n=400, stream=True, solver="norma", scale="standard",
                    added=((0.1, 0.2, 1),))                # a stream ignores clicked edits
    d = build_data(cfg)
    run = TrainingRun("norma", d.X_train, d.y_train, d.X_test, d.y_test, seed=0,
                      stream=Stream(probe=d.probe))
    run.advance_iters(140)
    code = reproduce_snippet(cfg, run.t)
    assert "stream=Stream(probe=probe)" in code and "drift_probe" in code
    ns: dict = {}
    exec(compile(code, "reproduce.py", "exec"), ns)
    other = ns["run"]
    a, b = run.trace_columns(), other.trace_columns()
    assert other.t == 140 and np.array_equal(a["iteration"], b["iteration"])
    assert np.array_equal(a["test_error"], b["test_error"])
    assert np.array_equal(a["train_error"], b["train_error"])
