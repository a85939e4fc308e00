"""What the lesson checks measure, on the engine the app plays (no streamlit, no plotly).

* :func:`build` — a configuration's driver as the app builds it (a
  :class:`~svmcore.runs.run.TrainingRun` or a :class:`~svmcore.runs.race.Race`, the app's trace
  density, its time cap, stream mode and scheduled mid-run changes) and its data;
* :func:`play_to` — advance a driver to iteration t through the engine, applying a step's
  mid-run changes at their t the way the app applies a setting changed while playing
  (``TrainingRun.change`` / ``Race.change_each`` at the run's current t);
* :func:`grid_of` / :func:`sign_flips` — the decision function on the picture's grid and the
  fraction of it whose sign changed between two moments (how far a boundary moved);
* :func:`play_seconds` — how long a run plays at the default speed: the live tick's rule
  (:func:`svmcore.server.pacing.advance_tick`: t grows by the default pace per tick, within
  :data:`~svmcore.server.pacing.LIVE_BUDGET_S` of solver time; a stream by a number of points
  per tick) applied to the run's own trace of iterations against solver time, extrapolated to
  the run's end at the last measured cost per iteration; one tick is one keyframe
  (:data:`~svmcore.server.pacing.KEY_S`) of a shared run, one frame
  (:data:`~svmcore.server.pacing.FRAME_S`) of a race. The app's ticks also pay for snapshots
  and drawing, so a run plays at least this long.

Results are cached per configuration and iteration within a process (:data:`CACHE`), so steps
that share a configuration share its computation.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..runs.config import RaceConfig, RunConfig
from ..runs.race import Race
from ..runs.rundata import build_data
from ..runs.run import TrainingRun
from ..runs.stream import Stream, stream_of
from ..server import pacing

#: (kind, configuration, …) -> a computed value, shared by the steps of one process
CACHE: dict = {}


def cached(key, make):
    if key not in CACHE:
        CACHE[key] = make()
    return CACHE[key]


def data_of(cfg: RunConfig):
    return cached(("data", cfg.data_key()), lambda: build_data(cfg))


def build(cfg: RunConfig | RaceConfig, per_decade: int = pacing.LIVE_PER_DECADE):
    """``(driver, data)`` of a configuration, built as the app builds it (its mid-run changes
    scheduled)."""
    if isinstance(cfg, RaceConfig):
        data = data_of(cfg.data)
        race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                    seed=cfg.seed, budget=cfg.budget, per_decade=per_decade,
                    max_seconds=pacing.MAX_RUN_S, stream=stream_of(cfg.data, data))
        race.schedule_changes(cfg.changes)
        return race, data
    data = data_of(cfg)
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                      seed=int(cfg.seed), per_decade=per_decade, max_seconds=pacing.MAX_RUN_S,
                      stream=stream_of(cfg, data), **cfg.param_dict)
    run.schedule_changes((t, dict(c)) for t, c in cfg.changes)
    return run, data


def with_changes(cfg, changes):
    """The configuration with a step's mid-run changes ``(t, entrant or None, pairs)``."""
    if not changes:
        return cfg
    if isinstance(cfg, RaceConfig):
        return replace(cfg, changes=cfg.changes + tuple((t, k, c) for t, k, c in changes))
    return replace(cfg, changes=cfg.changes + tuple((t, c) for t, _, c in changes))


def runs_of(driver) -> list[TrainingRun]:
    return list(driver.runs) if isinstance(driver, Race) else [driver]


def play_to(driver, t: int) -> None:
    """Advance every run of the driver to iteration t (or its end), applying its scheduled
    changes on the way."""
    for run in runs_of(driver):
        if run.t < t:
            run.advance_iters(t - run.t)


# --------------------------------------------------------------------------- the picture

def picture_box(X, margin: float = 0.1):
    """The 2-D box of the training points with a margin, as the field shows them."""
    X = np.asarray(X, dtype=np.float64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * (hi - lo)
    return lo - pad, hi + pad


def grid_points(X, size: int = 60):
    lo, hi = picture_box(X)
    xs = np.linspace(lo[0], hi[0], size)
    ys = np.linspace(lo[1], hi[1], size)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def grid_of(solver, X, size: int = 60) -> np.ndarray:
    """f on a size × size grid over the training points' box (row-major, y down the rows)."""
    _, _, G = grid_points(X, size)
    return np.asarray(solver.decision_function(G), dtype=np.float64).reshape(size, size)


def sign_flips(f_a: np.ndarray, f_b: np.ndarray) -> float:
    """The fraction of the grid whose predicted class differs between two moments."""
    return float(np.mean((f_a >= 0) != (f_b >= 0)))


def local_extrema(F: np.ndarray, rel: float = 1e-3) -> tuple[list, list]:
    """Strict local maxima and minima of a grid (8 neighbours, interior cells), ignoring
    differences below ``rel`` of the grid's range (flat plateaus are not bumps)."""
    eps = rel * float(np.ptp(F) or 1.0)
    c = F[1:-1, 1:-1]
    nb = [F[1 + di:F.shape[0] - 1 + di, 1 + dj:F.shape[1] - 1 + dj]
          for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0)]
    is_max = np.all([c > v + eps for v in nb], axis=0)
    is_min = np.all([c < v - eps for v in nb], axis=0)
    to_idx = lambda m: [(int(i) + 1, int(j) + 1) for i, j in zip(*np.nonzero(m))]  # noqa: E731
    return to_idx(is_max), to_idx(is_min)


# --------------------------------------------------------------------------- play time

def _ticks_of_trace(iters, times, start: int, end: int, pace: float, budget: float,
                    rate: float) -> int:
    """Ticks from t = start to t = end under the live rule: each tick t → min(max(t + 1,
    ⌈pace·t⌉), the t reached after ``budget`` more solver time); solver time against t
    interpolated on the trace, beyond it ``rate`` seconds per iteration."""
    iters = np.asarray(iters, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    last_t = float(iters[-1]) if iters.size else 0.0
    last_s = float(times[-1]) if times.size else 0.0

    def secs(t):
        return float(np.interp(t, iters, times)) if t <= last_t else last_s + (t - last_t) * rate

    def t_at(s):
        if s <= last_s and iters.size:
            return float(np.interp(s, times, iters))
        return last_t + (s - last_s) / max(rate, 1e-15)

    t, ticks = start, 0
    while t < end:
        by_pace = max(t + 1, math.ceil(t * pace))
        by_budget = max(t + 1, int(t_at(secs(t) + budget)))
        t = min(end, by_pace, by_budget)
        ticks += 1
        if ticks > 10 ** 6:
            break
    return ticks


def cost_per_iteration(run: TrainingRun, tail: float = 0.5) -> float:
    """Solver seconds per iteration over the last part of the run's trace (the recent cost)."""
    cols = run.trace_columns()
    it, tm = cols.get("iteration", np.array([])), cols.get("time", np.array([]))
    if it.size < 2 or it[-1] <= 0:
        return run.solver_time / max(run.t, 1)
    i0 = int(np.searchsorted(it, it[-1] * tail))
    i0 = min(i0, it.size - 2)
    dt, di = tm[-1] - tm[i0], it[-1] - it[i0]
    return float(dt / di) if di > 0 and dt > 0 else run.solver_time / max(run.t, 1)


def play_seconds(driver, end: int | None = None) -> tuple[float, int, str]:
    """``(seconds, ticks, how)``: how long the driver plays at the default speed from t = 0
    to its end (``end``: the iteration it stops at when that is known, e.g. a convergence;
    else its planned end), from its trace so far (see the module docstring)."""
    pace = pacing.PACES[pacing.DEFAULT_PACE]
    race = isinstance(driver, Race)
    runs = runs_of(driver)
    per_tick = pacing.FRAME_S if race else pacing.KEY_S
    stream = getattr(runs[0], "stream", None) if not race else driver.stream
    ends = [r.t if r.done else (end if end is not None else r.end_t) for r in runs]
    if stream is not None:
        steps = Stream.steps_per_tick(pace, runs[0].solver)
        t_end = max(e for e in ends if e is not None)
        ticks = math.ceil(t_end / steps)
        return ticks * per_tick, ticks, f"{steps} points per tick"
    if race and driver.budget == "time":
        from ..runs.race import LIVE_TICK_S, MIN_TIME_STEP
        budget = LIVE_TICK_S / len(runs)
        need = 0.0                      # the solver time the slowest entrant needs to its end
        for r, e in zip(runs, ends):
            left = 0 if r.done or e is None else max(0, int(e) - r.t)
            need = max(need, r.solver_time + left * cost_per_iteration(r))
        T, ticks = 0.0, 0
        while T < need and ticks < 10 ** 6:
            T = min(max(T * pace, T + MIN_TIME_STEP), T + budget)
            ticks += 1
        return ticks * per_tick, ticks, f"pace {pacing.DEFAULT_PACE} on solver time"
    ticks_all = []
    for r, e in zip(runs, ends):
        if e is None:
            continue
        cols = r.trace_columns()
        budget = pacing.LIVE_BUDGET_S
        if race:
            from ..runs.race import LIVE_TICK_S
            budget = LIVE_TICK_S / len(runs)
        ticks_all.append(_ticks_of_trace(cols["iteration"], cols["time"], 0, int(e), pace,
                                         budget, cost_per_iteration(r)))
    ticks = max(ticks_all) if ticks_all else 0
    return ticks * per_tick, ticks, f"pace {pacing.DEFAULT_PACE}"


# --------------------------------------------------------------------------- shared drivers

class Played:
    """A configuration's driver played forward through the engine, shared by the checks of a
    process: :meth:`at` advances it to t (rebuilding it when t is in its past) and returns it;
    :meth:`grids` the decision function of each run on the picture's grid at several t's
    (cached)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.driver, self.data = build(cfg)
        self._grids: dict = {}

    def at(self, t: int):
        if any(r.t > t for r in runs_of(self.driver)):
            self.driver, self.data = build(self.cfg)
        play_to(self.driver, t)
        return self.driver

    def grids(self, ts, size: int = 60) -> list[list[np.ndarray]]:
        out = []
        for t in ts:
            if t not in self._grids:
                drv = self.at(t)
                self._grids[t] = [grid_of(r.solver, self.data.X_train, size)
                                  for r in runs_of(drv)]
            out.append(self._grids[t])
        return out


def played(cfg) -> Played:
    return cached(("played", cfg), lambda: Played(cfg))


def jitter(cfg, t1: int, t2: int, frames: int = 6) -> list[float]:
    """Per run: the mean fraction of the field that changes class between successive moments
    of ``frames`` evenly spaced from t1 to t2 (how much its boundary still moves there)."""
    ts = [int(round(v)) for v in np.linspace(t1, t2, frames)]
    G = played(cfg).grids(ts)
    k = len(G[0])
    return [float(np.mean([sign_flips(G[i][j], G[i + 1][j]) for i in range(len(ts) - 1)]))
            for j in range(k)]
