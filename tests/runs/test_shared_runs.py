"""Shared runs (svmcore.server.pacing.SHARED): sessions that play one configuration compute each frame
once, read the same moments, and leave with their own run at exactly that moment."""
from __future__ import annotations

import numpy as np

from svmcore.server import pacing
from svmcore.runs.config import RunConfig
from svmcore.runs.run import TrainingRun
from svmcore.runs.rundata import build_data


def _make(cfg):
    d = build_data(cfg)
    return lambda: TrainingRun(cfg.solver, d.X_train, d.y_train, d.X_test, d.y_test,
                               seed=cfg.seed, per_decade=pacing.LIVE_PER_DECADE, **cfg.param_dict)


def test_one_computation_for_every_session_and_the_same_run_after():
    cfg = RunConfig(dataset="moons", n=200, seed=2, solver="pegasos",
                    params=(("kernel", "rbf"), ("gamma", 2.0)))
    store = pacing.SharedRuns(max_runs=4)
    frames = []

    def frame_of(run, snap, scores):
        frames.append(run.t)
        return {"t": run.t}

    a = store.timeline(("k", 1.1), _make(cfg))
    b = store.timeline(("k", 1.1), _make(cfg))
    assert a is b                                       # one timeline for the link
    ms = [a.moment(i, 1.1, frame_of) for i in range(25)]
    assert [m.t for m in ms[:12]] == list(range(12))    # ×1.1 per frame: +1 up to t = 10
    again = [b.moment(i, 1.1, frame_of) for i in range(25)]
    assert all(x is y for x, y in zip(ms, again))       # read, not computed again
    assert frames == [m.t for m in ms]                  # each frame built once
    # a session leaves the timeline at moment 20: its own run, replayed there, has the curves
    # the shared moment showed (every column but the wall time) and the model's numbers
    own = _make(cfg)()
    own.advance_iters(ms[20].t)
    mine, shown = own.trace_columns(), ms[20].trace_columns()
    for k in ("iteration", "objective", "train_error", "test_error", "n_sv", "kernel_evals"):
        np.testing.assert_array_equal(mine[k], shown[k], err_msg=k)
    assert own.t == ms[20].t and own.kernel_evals == ms[20].kernel_evals
    assert ms[20].snap.t <= ms[20].t and ms[20].trace_columns()["iteration"][-1] <= ms[20].t
    assert pacing.join_index(a, ms[15].t, 1.1, frame_of) == 15
    assert pacing.join_index(a, ms[15].t + 1, 1.1, frame_of) in (None, 16)


def test_the_store_is_bounded():
    store = pacing.SharedRuns(max_runs=2)
    cfgs = [RunConfig(dataset="gaussians", n=60, seed=s, solver="pegasos") for s in range(3)]
    tls = [store.timeline(("k", c.seed), _make(c)) for c in cfgs]
    assert len(store._timelines) == 2 and ("k", 0) not in store._timelines
    assert store.timeline(("k", 2), _make(cfgs[2])) is tls[2]
