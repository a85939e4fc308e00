"""The pacing of live training, shared by the pages and the tick benchmarks (no streamlit, no
plotly): how much solver time a tick spends, how far it moves t, what a frame draws.

A page playing alone ticks every :data:`FRAME_S` seconds, one playing a shared timeline
receives batches of keyframes :data:`KEY_S` apart; a tick grows t by the chosen pace
(:data:`PACES`: a constant factor per tick animates evenly on the curves' log axes) within
:data:`LIVE_BUDGET_S` of solver time (:func:`advance_tick`), and the frame is drawn from
:func:`model_state` (exact when paused, the last checkpoint's numbers while playing).
"""
from __future__ import annotations

import os
import threading
from dataclasses import replace

import numpy as np

from ..runs.slots import ServerBusy, heavy_work

FRAME_S = 0.22          # while playing, a frame at most every FRAME_S seconds (4.5 per second)
#: How many sessions of one server build a frame at the same time (the rest wait their turn):
#: without a limit thirty playing sessions keep thirty threads runnable, the server's event
#: loop (which sends the frames) gets a thirty-first of the interpreter and no frame leaves.
FRAME_SLOTS = threading.BoundedSemaphore(max(1, int(os.environ.get("SVMCORE_FRAME_SLOTS", "2"))))
#: While playing a shared run, one fragment run a second sends that second's keyframes: the
#: browser blends them at the display's rate (svmcore/ui/canvas.js), and thirty sessions cost the
#: server thirty fragment runs a second instead of a hundred and fifty.
BATCH_S = 1.0            # seconds between two batches of keyframes (fewest sessions)
BATCH_KEYS = 5           # keyframes in such a batch: one every KEY_S seconds
KEY_S = BATCH_S / BATCH_KEYS
BUFFER_S = 0.25          # how much motion the browser keeps queued (jitter): canvas.js `receive`
#: Batches played by the whole server per second before they grow longer: with more sessions
#: playing, each batch covers more seconds (more keyframes, at the same KEY_S), so the server
#: makes about this many fragment runs a second whatever the class's size, and every session
#: keeps its keyframe rate while the picture trails the server a little more.
SERVER_BATCHES_PER_S = 25.0
MAX_BATCH_S = 4.0
MAX_RUN_S = 300.0        # solver time a run of the app may take (TrainingRun cap)
# How far one tick moves t. The curves use a log iteration axis, so growing t by a constant
# factor per tick gives an even animation; "max" spends the whole budget.
PACES = {"×1.1": 1.1, "×1.25": 1.25, "×1.5": 1.5, "×2": 2.0, "×4": 4.0, "max": None}
# ×1.1 by default: the live loop draws 5 frames a second (FRAME_S), so 10 s of Play are 50
# ticks: the default Playground run (Pegasos, 1,500 planned iterations) is past t = 400 — more
# than two decades of the log axis, the 1/(λt) descent and the noise floor — and still running,
# so a 10-s look sees 50 different moments (the browser test counts ≥ 40); a curated
# race of Pegasos twice is at t ≈ 660. ×1.5 would end the default run after 20 ticks, 4 s:
# the picture then stands still for the rest of a class's first look. Past a few hundred
# iterations every pace is limited by LIVE_BUDGET_S, so a tick costs the same.
DEFAULT_PACE = "×1.1"
LIVE_BUDGET_S = 0.015       # about this much solver time per tick
LIVE_PER_DECADE = 10        # trace checkpoints per decade of a page's run (×1.26 apart): at the
#                             pace ×1.1 about 2 ticks in 5 cross one and pay for the run's
#                             snapshot, at ×1.5 most ticks do; the others draw the current model
RES_PLAYING, RES_PAUSED = 100, 150


def model_state(run, fresh: bool = False, scores: bool | str = "auto", max_cost: float = 4e5):
    """``(snapshot, train_scores or None)`` of a :class:`~svmcore.runs.run.TrainingRun` for drawing.

    * The run stands on its last trace checkpoint: the run's own snapshot (no second one).
    * ``fresh`` (paused, a step): ``solver.snapshot()`` — exact numbers for the tiles.
    * Otherwise (a live tick that ended between checkpoints): the last checkpoint's snapshot with
      the support vectors and coefficients of the *current* model from ``support_coef()``
      (O(n), no kernel evaluations), so the rings follow the field while the tiles show the
      numbers of the last checkpoint (``snapshot.t`` says which). A linear (primal) model's
      snapshot is cheap and always fresh.

    Training scores (for the misclassified marks) come from the solver's ``train_scores()`` when it
    has one (free), else from ``decision_function`` — with ``scores="auto"`` only when that is
    cheap (a linear model, or n·#SV ≤ ``max_cost`` kernel evaluations); ``True`` forces it.
    """
    solver = run.solver
    last = run.last_snapshot
    kernelized = solver.kernelized
    if last is not None and run.status == "diverged":
        return last, None       # the NaN model has nothing to show: the last finite checkpoint
    expansion = None
    if last is not None and run.trace and run.trace[-1].iteration == run.t and last.t == run.t:
        snap = last
    elif fresh or last is None or (expansion := solver.support_coef()) is None:
        snap = run.snapshot_now()
    else:
        support, coef, _ = expansion
        support = np.asarray(support, dtype=np.int64)
        snap = replace(last, support=support, n_sv=int(support.size),
                       coef=None if last.coef is None else np.asarray(coef))
    out = None
    if scores:
        cheap = solver.train_scores()
        if cheap is not None:
            out = np.asarray(cheap, dtype=np.float64)
        else:
            cost = solver.n * max(int(snap.n_sv), 1) if kernelized else 0
            if scores is True or cost <= max_cost:
                out = np.asarray(solver.decision_function(solver.X), dtype=np.float64)
    return snap, out


def advance_tick(run, pace: float | None, budget_s: float) -> int:
    """One live tick: grow t by the factor ``pace`` (at least one iteration), spending at most
    about ``budget_s`` seconds of solver time; ``pace=None`` spends the whole budget. The run
    records its trace (and pays for a snapshot) only when the tick crosses a checkpoint.
    Returns the iterations done."""
    if run.done:
        return 0
    if pace is None:
        return run.advance(budget_s)
    stream = getattr(run, "stream", None)
    if stream is not None:                   # a stream: an even number of new points per tick
        target = run.t + stream.steps_per_tick(pace, run.solver)
    else:
        target = max(run.t + 1, int(np.ceil(run.t * float(pace))))
    if run.end_t is not None:
        target = min(target, run.end_t)
    return run.advance(budget_s, max_iters=max(1, target - run.t))


def tick(driver, pace: float | None) -> None:
    """One live tick of a driver — a :class:`~svmcore.runs.run.TrainingRun` or a
    :class:`~svmcore.runs.race.Race`, driven through the same calls (``tick``,
    ``advance_iters(n)``, ``done``, ``t`` of its runs): a race steps its entrants in lockstep
    (its own ``tick``), a run grows t by the pace within :data:`LIVE_BUDGET_S`
    (:func:`advance_tick`)."""
    if hasattr(driver, "tick"):
        driver.tick(pace)
    else:
        advance_tick(driver, pace, LIVE_BUDGET_S)


class Players:
    """The sessions playing on this server (their last batch's time), to size the batches."""

    def __init__(self, forget_s: float = 3 * MAX_BATCH_S):
        self._seen: dict = {}
        self._lock = threading.Lock()
        self.forget_s = forget_s

    def seen(self, who, now: float) -> int:
        """Note that ``who`` plays at ``now``; returns how many sessions play."""
        with self._lock:
            self._seen[who] = now
            for k in [k for k, t in self._seen.items() if now - t > self.forget_s]:
                del self._seen[k]
            return len(self._seen)

    def left(self, who) -> None:
        with self._lock:
            self._seen.pop(who, None)


PLAYERS = Players()


def batch_keys(playing: int) -> int:
    """Keyframes in a batch when ``playing`` sessions play on the server: BATCH_KEYS for a few,
    more (up to MAX_BATCH_S of play) when their batches would exceed SERVER_BATCHES_PER_S."""
    seconds = min(MAX_BATCH_S, max(BATCH_S, playing / SERVER_BATCHES_PER_S))
    return int(round(seconds / KEY_S))


# ------------------------------------------------------------------------ shared runs


def test_error(run, snap) -> float:
    """The test error of the model a frame shows: the trace row's when the snapshot is the last
    checkpoint, else computed (NaN without a test set)."""
    if run.trace and run.trace[-1].iteration == snap.t:
        return run.trace[-1].test_error
    return run.test_error_now()


class Moment:
    """What a frame shows of a run at one iteration t, kept so that every session playing the
    same configuration draws it without computing it again: the run's status line numbers, the
    snapshot, the training scores, the test error, how much of the trace existed, and the frame
    the page built for it (``frame``, opaque here)."""

    __slots__ = ("t", "status", "message", "max_iter", "end_t", "max_seconds", "solver_time",
                 "kernel_evals", "snap", "scores", "test", "trace_len", "frame", "_run", "nbytes",
                 "marks")

    def __init__(self, run, snap, scores, frame_of):
        self.t, self.status, self.message = run.t, run.status, run.message
        self.max_iter, self.end_t, self.max_seconds = run.max_iter, run.end_t, run.max_seconds
        self.solver_time, self.kernel_evals = run.solver_time, run.solver.kernel_evals
        self.snap, self.scores, self.test = snap, scores, test_error(run, snap)
        self.trace_len = len(run.trace)
        self.marks = list(run.marks)             # mid-run changes reached so far
        self._run = run
        self.frame = frame_of(run, snap, scores)
        self.nbytes = 2048 + (0 if scores is None else scores.nbytes) + \
            len(str(self.frame)) if self.frame is not None else 2048

    @property
    def solver(self):
        return self._run.solver

    @property
    def stream(self):
        """The run's stream mode (None: a run on all its points)."""
        return getattr(self._run, "stream", None)

    @property
    def done(self) -> bool:
        return self.status != "running"

    def trace_columns(self) -> dict:
        rows = self._run.trace[:self.trace_len]
        if not rows:
            return {}
        cols = self._run.trace_columns()
        return {k: v[:self.trace_len] for k, v in cols.items()}

    def curve_marks(self, x: str = "iteration") -> list[dict]:
        from ..runs.run import curve_marks
        return curve_marks(self.marks, self.trace_columns() if x != "iteration" else {}, x)

    def column_labels(self) -> dict:
        r = self._run.trace[self.trace_len - 1] if self.trace_len else None
        if r is None:
            return {"objective": "", "dual_objective": "", "gap": ""}
        return {"objective": r.objective_name, "dual_objective": r.dual_name, "gap": r.gap_name}


class Timeline:
    """One run played by many sessions: the moments of its frames, computed once, in order.
    A session that is ahead of all others computes the next moment (under the lock); the others
    read it. Its moments are the run's at the iterations the leading session's ticks reached."""

    def __init__(self, run, start: int = 0):
        self.run, self.start = run, start
        self.lock = threading.Lock()
        self.moments: list[Moment] = []
        self.nbytes = 0

    def moment(self, i: int, pace: float | None, frame_of) -> Moment:
        """The i-th moment (0: the run as built), computing the missing ones."""
        with self.lock:
            while len(self.moments) <= i:
                if not self.moments and self.start > self.run.t:
                    self.run.advance_iters(self.start - self.run.t)   # the same seeded run
                if self.moments:
                    if self.run.done:
                        return self.moments[-1]
                    try:
                        with heavy_work():       # the server-wide limit (runs.slots)
                            tick(self.run, pace)
                    except ServerBusy:           # queued: this frame shows the last moment
                        return self.moments[-1]
                snap, scores = model_state(self.run, fresh=False, scores="auto")
                m = Moment(self.run, snap, scores, frame_of)
                self.moments.append(m)
                self.nbytes += m.nbytes
            return self.moments[i]


def join_index(timeline: Timeline, t: int, pace, frame_of, limit: int = 200):
    """The position of the moment at iteration ``t`` on a timeline (computing moments up to it,
    at most ``limit``), or None when the timeline passes t without stopping there."""
    i = 0
    while i < limit:
        m = timeline.moment(i, pace, frame_of)
        if m.t == t:
            return i
        if m.t > t or (m.done and i == len(timeline.moments) - 1):
            return None
        i += 1
    return None


class SharedRuns:
    """The process-wide store of timelines, keyed by what decides a run and its frames (the
    configuration, the uploaded bytes, the pace, the frame layout). A seeded run is a pure
    function of its configuration and t, so sessions that play the same configuration share one
    computation. Bounded: at most ``max_runs`` timelines and ``max_bytes`` of moments; the least
    recently used go first."""

    def __init__(self, max_runs: int = 24, max_bytes: int = 256 * 2**20):
        self.max_runs, self.max_bytes = max_runs, max_bytes
        self._lock = threading.Lock()
        self._timelines: dict = {}

    def timeline(self, key, make_run, start: int = 0) -> Timeline:
        """The timeline of ``key`` (made with ``make_run()``, a run at t = 0, on first use);
        ``start``: its first moment is the run at that t (replayed when first needed)."""
        with self._lock:
            tl = self._timelines.pop(key, None)
            if tl is None:
                tl = Timeline(make_run(), start)
            self._timelines[key] = tl                       # most recently used last
            while len(self._timelines) > self.max_runs or (
                    len(self._timelines) > 1 and
                    sum(t.nbytes for t in self._timelines.values()) > self.max_bytes):
                self._timelines.pop(next(iter(self._timelines)))
            return tl

    def clear(self) -> None:
        with self._lock:
            self._timelines.clear()


SHARED = SharedRuns()


# ------------------------------------------------------------------------ run caps per session

def cap_left(spent: dict, key, runs, cap: float | None = None) -> None:
    """The time cap of a (re)built run or race counts per configuration in a session: each of
    ``runs`` gets ``cap`` minus the wall time of the steps its entrant already took on the same
    configuration ``key`` (``spent[key]``, a list per entrant), so Reset — which rebuilds the
    same configuration — does not restart the cap. A run with nothing left is done at once,
    with a message that says why."""
    cap = MAX_RUN_S if cap is None else cap
    used = spent.get(key, ())
    for k, run in enumerate(runs):
        left = cap - (used[k] if k < len(used) else 0.0)
        run.max_seconds = max(0.0, left)
        if left <= 0:
            run.message = (f"This configuration has used its {cap:g} s of training in this "
                           "session (Reset does not restart the cap): change a setting, or "
                           "open the link in a new session.")


def record_spent(spent: dict, key, runs, keep: int = 64) -> None:
    """Add the wall time of the steps of ``runs`` (a run or race that is being replaced; what
    ``TrainingRun.max_seconds`` caps) to ``spent[key]``
    (at most ``keep`` configurations are remembered, the oldest go first)."""
    used = list(spent.pop(key, ()))
    for k, run in enumerate(runs):
        t = float(getattr(run, "wall_time", 0.0) or 0.0)     # the cap counts wall time
        if k < len(used):
            used[k] += t
        else:
            used.append(t)
    spent[key] = used
    while len(spent) > keep:
        spent.pop(next(iter(spent)))
