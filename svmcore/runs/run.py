"""A training run: a solver, its data and a trace, advanced by a time or iteration budget.

The trace is recorded at a fixed, log-spaced sequence of iteration checkpoints (1, 2, …, 10, then
about 20 per decade) and never elsewhere, so a run's trace does not depend on how it was
chunked: the app (time-budgeted ticks), the benchmarks and the estimators all produce the same
rows for the same seed. Only the ``time`` column, the solver's own wall time with compilation
excluded (a warm-up runs once per process), differs between runs.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, replace

import numpy as np
import scipy.sparse as sp

from ..solvers.objectives import error_rate
from ..solvers import get_solver
from ..solvers.base import Solver

_WARM: set = set()


def warmup(solver: Solver) -> None:
    """Compile (or load from the on-disk cache) the code ``solver`` will run, on a tiny problem,
    so that no measured time includes compilation. Done once per process per configuration."""
    key = (solver.name, tuple(sorted((k, repr(v)) for k, v in solver.p.items())))
    if key in _WARM:
        return
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    y = np.array([1.0, -1.0] * 4)
    params = dict(solver.p)
    if "batch_size" in params:
        params["batch_size"] = 1
    for sparse in (False, True):
        s = type(solver)(**params)
        s.init(sp.csr_matrix(X) if sparse else X, y, seed=0)
        s.step(3)
        s.decision_function(X if not sparse else sp.csr_matrix(X))
        s.snapshot()
    _WARM.add(key)


def checkpoints_after(t: int, per_decade: int = 20) -> int:
    """The next trace checkpoint strictly after iteration t: 1..10, then ``per_decade`` points
    per decade at round(10^(k/per_decade))."""
    if t < 10:
        return t + 1
    k = math.floor(per_decade * math.log10(t) + 1e-9) + 1
    while True:
        c = int(round(10 ** (k / per_decade)))
        if c > t:
            return c
        k += 1


@dataclass
class TraceRow:
    """One checkpoint of a run. The numbers are the snapshot's; the three names are its labels
    (:meth:`svmcore.solvers.records.Snapshot.labels`): what ``objective`` is, what ``dual_objective`` is (its name says
    "not a bound" when it is none) and which gap ``gap`` is ("" when the column is empty). A
    page labels a trace column by them, so a curve is never called a bound or a gap unless the
    solver says it is one; an exported row carries them too."""

    iteration: int
    time: float
    objective: float
    train_error: float
    test_error: float
    n_sv: int
    kernel_evals: int
    dual_objective: float | None = None
    gap: float | None = None
    objective_name: str = ""
    dual_name: str = ""
    gap_name: str = ""

    #: the columns that hold text (names), left out of :meth:`TrainingRun.trace_columns`
    TEXT_COLUMNS = ("objective_name", "dual_name", "gap_name")


#: training rows a light trace evaluates the model on (a fixed random subsample): at most
#: LIGHT_ROWS, and about horizon / 40 for a stochastic run with a planned horizon T, at least
#: LIGHT_MIN_ROWS. At 5 checkpoints per decade a row costs one model evaluation per checkpoint,
#: ≈ 2.7·m·|S_T| kernel values in all for a kernel expansion growing to |S_T|, against ≈ T·|S_T|
#: for SFW's two kernel rows per iteration: m = T/40 keeps the trace below 10 % from T ≈ 10⁴
#: on; below that the floor of 250 rows (a mean hinge loss to ± a few hundredths) costs more.
LIGHT_ROWS, LIGHT_MIN_ROWS = 1000, 250


def eval_rows(n: int, seed: int, m: int = LIGHT_ROWS) -> np.ndarray:
    """A fixed subsample of min(n, m) training rows, sorted, from ``default_rng([seed, 7])``."""
    if n <= m:
        return np.arange(n)
    return np.sort(np.random.default_rng([int(seed), 7]).choice(n, m, replace=False))


#: how a mark names a changed parameter (the paper's symbol where there is one)
CHANGE_SYMBOLS = {"eta0": "η₀", "C": "C", "schedule": "schedule", "averaging": "averaging",
                  "batch_size": "batch k"}


def _short(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def change_label(diff: dict) -> str:
    """``{name: (old, new)}`` as a mark's label: ``"η₀ 0.1→0.5, C 1→2"``."""
    return ", ".join(f"{CHANGE_SYMBOLS.get(k, k)} {_short(a)}→{_short(b)}"
                     for k, (a, b) in diff.items())


def curve_marks(marks, cols: dict, x: str = "iteration") -> list[dict]:
    """Marks ``{"t", "label"}`` placed on a curve axis: ``{"x", "label"}`` with x the iteration,
    or the value of the trace column ``x`` (time, kernel evaluations) at the mark's t,
    interpolated between checkpoints (``cols`` from ``trace_columns()``)."""
    out = []
    for m in marks:
        if x == "iteration" or x not in cols or len(cols.get("iteration", ())) == 0:
            v = float(m["t"])
        else:
            v = float(np.interp(m["t"], cols["iteration"], cols[x]))
        out.append({"x": v, "label": m["label"]})
    return out


#: the smallest time a chunk of iterations is sized against (:meth:`TrainingRun.advance`): a race
#: asks an entrant for a fraction of a millisecond at a time, and a step call's own cost in a busy
#: app server (far above its cost in a quiet process: docs/live-view.md, "Chunks of iterations")
#: would otherwise keep it at one iteration per call
CHUNK_FLOOR_S = 1e-3

#: what a run's ``solver_time`` can count (:class:`TrainingRun`'s ``clock``): the wall time of
#: its steps, or the CPU time of the thread that steps it
CLOCKS = ("wall", "cpu")


class TrainingRun:
    """Advance a solver by budgets and record its trace.

    ``max_iter`` (default: the solver's planned horizon, if it has one) ends the run; so do the
    solver's own stopping rule, divergence, a halt (a result the solver cannot vouch for), and
    ``max_seconds`` of wall time spent in its steps (``wall_time``: a cap holds in wall time).

    ``clock`` says what ``solver_time`` (and the trace's ``time`` column) counts: ``"wall"``
    (default) the wall time of the solver's steps, compile time excluded — what a benchmark
    against a peer measures; ``"cpu"`` the CPU time of the thread that steps the solver
    (``time.thread_time``), so that the time it waits — for the GIL held by another session's
    thread, or for a core — does not count as the solver's. A race counts that way (equal solver
    time, :mod:`svmcore.runs.race`): beside a thread running Python code, a step call waits up to the
    interpreter's 5-ms switch interval for the GIL each time it returns from compiled code, and
    a solver of many cheap steps was measured to lose 99 % of its wall time to such waits. The
    thread's CPU time is the solver's whole work only when it computes in that thread (numba
    code does; BLAS on one thread: a race steps under :func:`svmcore._blas.one_blas_thread`).

    ``trace`` says what a checkpoint records: ``"full"`` (default: the solver's snapshot, every
    number on every training point, the test error when a test set is given), ``"light"`` (the
    estimators' ``trace=True``: ``Solver.trace_row`` on a fixed subsample of ``LIGHT_ROWS``
    training rows (fewer, down to 250, for a stochastic run of fewer than 40,000 planned
    iterations, so that the trace stays near 10 % of the run), drawn from
    ``default_rng([seed, 7])`` — the objective's data term and the training error estimated
    there, no test error, no dual or gap) or None (no trace at all;
    the run then steps in chunks of up to 2²⁰ iterations, no checkpoint stops it).
    """

    #: optional ``on_record(run)``, called after each full trace row is appended (a page's own
    #: columns at the same checkpoints, e.g. svmcore.lessons.step_sizes); it must not change the run
    on_record = None

    def __init__(self, solver: Solver | str, X, y, X_test=None, y_test=None, *, seed: int = 0,
                 max_iter: int | None = None, max_seconds: float | None = None,
                 per_decade: int = 20, trace: str | None = "full", clock: str = "wall",
                 stream=None, **params):
        if isinstance(solver, str):
            solver = get_solver(solver)(**params)
        elif params:
            raise ValueError("pass parameters either to the solver or to the run, not both")
        #: stream mode (:class:`svmcore.runs.stream.Stream`): rows in order, a checkpoint every
        #: ``stream.every`` iterations, the test error on the stream's current concept
        self.stream = stream
        if stream is not None:
            if not solver.online:
                from .stream import offline_message
                raise ValueError(offline_message(type(solver)))
            solver.in_order = True
        if trace not in ("full", "light", None):
            raise ValueError(f"trace must be 'full', 'light' or None, got {trace!r}")
        if clock not in CLOCKS:
            raise ValueError(f"clock must be one of {', '.join(map(repr, CLOCKS))}, got {clock!r}")
        self.clock = clock
        self.solver = solver
        self.trace_mode = trace
        warmup(solver)
        solver.init(X, y, seed=seed)
        self.eval_rows = None
        if trace == "light":
            m = LIGHT_ROWS
            if solver.horizon is not None and solver.stochastic:
                m = min(m, max(LIGHT_MIN_ROWS, solver.horizon // 40))
            self.eval_rows = eval_rows(solver.n, seed, m)
        self.X_test = None if X_test is None else solver.rows_like_train(X_test)
        self.y_test = None if y_test is None else np.asarray(y_test, dtype=np.float64)
        self.max_iter = max_iter if max_iter is not None else solver.horizon
        self._planned = max_iter is None          # max_iter follows the solver's horizon
        #: mid-run changes: ``marks`` [{"t", "label"}] for the curves, ``changes`` [(t, {name:
        #: value})] for the configuration (see :meth:`change`)
        self.marks: list[dict] = []
        self.changes: list[tuple[int, dict]] = []
        self._pending: list[tuple[int, dict]] = []    # scheduled changes not yet reached
        self.on_change = None                # called after a change (a race refreshes its groups)
        self.max_seconds = max_seconds
        self.per_decade = int(per_decade)
        self.solver_time = 0.0              # the solver's time in its steps, by ``clock``
        self.wall_time = 0.0                # the wall time of its steps (the cap counts it)
        self.trace: list[TraceRow] = []
        self._chunk = 1
        self._next_ckpt = self._checkpoint_after(0)
        self.message = ""
        self.nonfinite = False
        self.last_snapshot = None
        #: callables ``f(run)`` called after each trace checkpoint is recorded (the
        #: point history, svmcore.lessons.point_history, records a pinned point there)
        self.observers: list = []
        if solver.diverged or solver.halted:        # already at init (SFW's q overflowed)
            self.message = solver.message
        if trace is not None:
            self._record()

    # ------------------------------------------------------------------------------ state
    @property
    def t(self) -> int:
        return self.solver.t

    @property
    def kernel_evals(self) -> int:
        return self.solver.kernel_evals

    @property
    def end_t(self) -> int | None:
        """The iteration at which the run ends by plan: ``max_iter``, or a solver's own cap
        (SMO's and CPSP's ``max_iter``: they take no step past it) if that comes first. A
        stochastic solver may go past its planned horizon when ``max_iter`` asks for more (its
        average keeps growing), so its horizon is no end here."""
        s, m = self.solver, self.max_iter
        h = None if s.stochastic else s.horizon
        return m if h is None else (h if m is None else min(m, h))

    @property
    def done(self) -> bool:
        s = self.solver
        end = self.end_t
        return bool(s.converged or s.diverged or s.halted or self.nonfinite
                    or (end is not None and s.t >= end)
                    or (self.max_seconds is not None and self.wall_time >= self.max_seconds))

    @property
    def status(self) -> str:
        s = self.solver
        if s.diverged or self.nonfinite:
            return "diverged"
        if s.halted:
            return "not trusted"
        if s.converged:
            return "converged"
        if self.end_t is not None and s.t >= self.end_t:
            return "finished"
        if self.max_seconds is not None and self.wall_time >= self.max_seconds:
            return "time cap"
        return "running"

    def _nonfinite(self, what: str) -> None:
        """The model's numbers are no longer finite: stop, and say what and what to change."""
        s = self.solver
        self.nonfinite = True
        self.message = s.message or (f"{s.name} diverged at iteration {s.t}: {what} became NaN "
                                     f"or infinite. {s.nonfinite_advice()}")

    def _record(self) -> None:
        s = self.solver
        if self.trace_mode == "light":
            obj, err, n_sv = s.trace_row(self.eval_rows)
            if not math.isfinite(obj):
                return self._nonfinite("the objective")
            self.trace.append(TraceRow(iteration=s.t, time=self.solver_time, objective=float(obj),
                                       train_error=float(err), test_error=float("nan"),
                                       n_sv=int(n_sv), kernel_evals=int(s.kernel_evals)))
            return
        snap = self.snapshot_now()
        if not math.isfinite(snap.objective):
            # keep the last finite row; say what happened; stop
            return self._nonfinite("the objective")
        test_err = self.test_error_now()
        names = snap.labels()
        self.trace.append(TraceRow(
            iteration=s.t, time=self.solver_time, objective=float(snap.objective),
            train_error=float(snap.extra.get("train_error", float("nan"))),
            test_error=test_err, n_sv=int(snap.n_sv), kernel_evals=int(snap.kernel_evals),
            dual_objective=snap.dual_objective, gap=snap.gap,
            objective_name=names["objective"], dual_name=names["dual_objective"],
            gap_name=names["gap"]))
        self.last_snapshot = snap
        if self.on_record is not None:
            self.on_record(self)

    def _step(self, n: int) -> int:
        cpu = self.clock == "cpu"
        w0 = time.perf_counter()
        c0 = time.thread_time() if cpu else 0.0
        done = self.solver.step(n)
        c1 = time.thread_time() if cpu else 0.0
        wall = time.perf_counter() - w0
        self.wall_time += wall
        self.solver_time += (c1 - c0) if cpu else wall
        return done

    def _checkpoint_after(self, t: int) -> int:
        if self.stream is not None:
            return self.stream.next_checkpoint(t)
        return checkpoints_after(t, self.per_decade)

    def test_error_now(self) -> float:
        """The current model's test error (RMSE for regression): on the stream's fresh points
        of its current concept in stream mode with a probe, else on the test set (NaN without
        one)."""
        s = self.solver
        if self.stream is not None and self.stream.probe is not None:
            X, y = self.stream.probe(self.stream.visited(s))
            return error_rate(s.decision_function(X), y)
        if self.X_test is None or self.X_test.n == 0:
            return float("nan")
        f_test = s.decision_function(self.X_test)
        return (float(np.sqrt(np.mean((f_test - self.y_test) ** 2))) if s.regression
                else error_rate(f_test, self.y_test))

    def snapshot_now(self):
        """The solver's snapshot; in stream mode its training error is that of the recent
        points (the window the page shows: the stream's other points belong to other moments,
        and a drifting stream's whole error stays near a coin's)."""
        snap = self.solver.snapshot()
        if self.stream is None or self.solver.t == 0:
            return snap
        rows = self.stream.window_rows(self.solver)
        f = self.solver.decision_function(self.solver.X.take(rows))
        err = error_rate(f, self.solver.y[rows])
        return replace(snap, extra={**snap.extra, "train_error": err})

    def _advance_once(self, n: int) -> int:
        """Up to n iterations, stopping at the next checkpoint to record it."""
        if self.done:
            return 0
        if self.trace_mode is None:
            m = n if self.max_iter is None else min(n, self.max_iter - self.t)
            m = self._to_next_change(m)
            done = self._step(m) if m > 0 else 0
            self._apply_due()
            if self.solver.diverged or self.solver.halted:
                self.message = self.message or self.solver.message
            elif self.done and not self.message:
                self.message = self._end_message()
            return done
        while self._next_ckpt <= self.t:
            self._next_ckpt = self._checkpoint_after(self._next_ckpt)
        limit = self._next_ckpt - self.t
        if self.max_iter is not None:
            limit = min(limit, self.max_iter - self.t)
        m = self._to_next_change(max(0, min(n, limit)))
        done = self._step(m) if m > 0 else 0
        if self.t >= self._next_ckpt or self.done:
            if not self.trace or self.trace[-1].iteration != self.t or self.solver.diverged:
                self._record()
                for watch in self.observers:
                    watch(self)
            self._next_ckpt = self._checkpoint_after(self.t)
        self._apply_due()
        if (self.solver.diverged or self.solver.halted) and not self.message:
            self.message = self.solver.message
        elif self.done and not self.message:
            self.message = self._end_message()
        return done

    def _end_message(self) -> str:
        status = self.status
        if status == "converged":
            return f"{self.solver.name} converged at iteration {self.t}: its stopping rule fired."
        if status == "finished":
            if not self.solver.stochastic:
                return (f"{self.solver.name} stopped at max_iter = {self.end_t:,} before its "
                        "stopping rule fired: the result is not converged (raise max_iter or "
                        "the tolerance).")
            return f"{self.solver.name} finished the planned {self.end_t} iterations."
        if status == "time cap":
            return (f"stopped after {self.wall_time:.1f} s of training (the time cap); "
                    "use fewer epochs or a smaller dataset")
        return ""

    # ------------------------------------------------------------------------------ change
    def change(self, **params) -> dict:
        """Give the solver new values of soft parameters (``solver.soft_params``: the schedule,
        η₀, C, the averaging, the batch size, where the solver can take them) from the next
        iteration on: t, the iterate and the trace continue. Records a mark ``{"t", "label"}``
        (e.g. ``"η₀ 0.1→0.5"``) in :attr:`marks` and ``(t, {name: value})`` in
        :attr:`changes`. Returns ``{name: (old, new)}`` of the values that changed (nothing is
        recorded when none did). ValueError for a parameter the solver cannot change mid-run
        or a bad value; the run is then unchanged."""
        diff = self.solver.retune(**params)
        if not diff:
            return {}
        if self._planned:                   # a new batch size re-plans the horizon
            self.max_iter = self.solver.horizon
        self.marks.append({"t": self.t, "label": change_label(diff)})
        self.changes.append((self.t, {k: new for k, (_, new) in diff.items()}))
        if self.last_snapshot is not None and self.last_snapshot.t == self.t:
            self.last_snapshot = None       # its numbers are those of the old parameters
        if not self.done and self.message and not (self.solver.diverged or self.solver.halted):
            self.message = ""               # e.g. SMO had converged for the old C
        if self.on_change is not None:
            self.on_change()
        return diff

    def schedule_changes(self, changes) -> None:
        """Changes ``[(t, {name: value})]`` to apply when the run reaches each t (a
        configuration's mid-run changes, replayed): the run stops at every such t, applies
        :meth:`change` there and goes on, so its numbers are those of the run in which the
        changes were made by hand at those iterations. A t already passed is refused."""
        pending = sorted(((int(t), dict(c)) for t, c in changes), key=lambda c: c[0])
        if pending and pending[0][0] < self.t:
            raise ValueError(f"a change at t = {pending[0][0]} is in the past of this run "
                             f"(t = {self.t})")
        self._pending = pending
        self._apply_due()

    def _apply_due(self) -> None:
        while self._pending and self._pending[0][0] <= self.t:
            _, c = self._pending.pop(0)
            self.change(**c)

    def _to_next_change(self, m: int) -> int:
        """At most m iterations, stopping at the next scheduled change."""
        return m if not self._pending else min(m, self._pending[0][0] - self.t)

    # ------------------------------------------------------------------------------ drive
    def advance_iters(self, n: int) -> int:
        """Exactly n iterations (fewer if the run ends first); returns those done."""
        total = 0
        while total < n and not self.done:
            d = self._advance_once(n - total)
            if d == 0:              # the solver can go no further (diverged, or at its end)
                break
            total += d
        return total

    def advance(self, budget_s: float = 0.1, max_iters: int | None = None) -> int:
        """Iterations for about ``budget_s`` seconds of wall time (chunk sizes adapt), and at
        most ``max_iters`` of them (a page that wants a run to unfold slowly caps both). A
        chunk grows until its steps take 1/8 of the budget (at least of ``CHUNK_FLOOR_S``) by
        the run's ``clock``, the trace snapshots at its checkpoints not counted: under
        ``"cpu"`` however long the thread waits for the GIL between chunks (sized by the wall
        time around them, snapshots included, a race's Pegasos stayed at one or two iterations
        per call in the app server)."""
        start = time.perf_counter()
        size_by = max(budget_s, CHUNK_FLOOR_S)
        total = 0
        while not self.done and (max_iters is None or total < max_iters):
            t0 = self.solver_time
            want = self._chunk if max_iters is None else min(self._chunk, max_iters - total)
            d = self._advance_once(want)
            dt = self.solver_time - t0         # the steps' own time: not a trace snapshot's
            total += d
            if d == 0:
                break
            if dt < size_by / 8:
                self._chunk = min(self._chunk * 2, 1 << 24)
            elif dt > size_by / 2 and self._chunk > 1:
                self._chunk //= 2
            if time.perf_counter() - start >= budget_s:
                break
        return total

    def run(self) -> "TrainingRun":
        """Advance until done (requires ``max_iter``, ``max_seconds`` or a stopping rule)."""
        if self.max_iter is None and self.max_seconds is None and self.solver.stochastic:
            raise ValueError("run() needs max_iter or max_seconds for a solver without a stopping rule")
        while not self.done:
            if self.advance_iters(1 << 20) == 0:
                break
        return self

    def curve_marks(self, x: str = "iteration") -> list[dict]:
        """:attr:`marks` as vertical lines on curves against ``x`` (:func:`curve_marks`)."""
        return curve_marks(self.marks, self.trace_columns() if x != "iteration" else {}, x)

    def trace_dicts(self) -> list[dict]:
        return [asdict(r) for r in self.trace]

    def trace_columns(self) -> dict[str, np.ndarray]:
        """The numeric trace columns as float arrays (None as NaN); the names are in
        :meth:`column_labels`. Cached until the trace grows (a live page asks every frame)."""
        key = (len(self.trace), id(self.trace[-1]) if self.trace else None)
        cached = self.__dict__.get("_columns")
        if cached is not None and cached[0] == key:
            return dict(cached[1])
        rows = self.trace_dicts()
        cols = {} if not rows else {
            k: np.array([r[k] if r[k] is not None else np.nan for r in rows], dtype=float)
            for k in rows[0] if k not in TraceRow.TEXT_COLUMNS}
        for v in cols.values():
            v.flags.writeable = False        # shared by every caller until the trace grows
        self._columns = (key, cols)
        return dict(cols)

    def column_labels(self) -> dict[str, str]:
        """What the ``objective``, ``dual_objective`` and ``gap`` columns are, from the last
        trace row ("" for a column the solver does not report)."""
        if not self.trace:
            return {"objective": "", "dual_objective": "", "gap": ""}
        r = self.trace[-1]
        return {"objective": r.objective_name, "dual_objective": r.dual_name, "gap": r.gap_name}
