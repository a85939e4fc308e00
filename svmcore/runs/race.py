r"""Races: 2–4 solvers on the same data, advanced in lockstep by equal budgets (no streamlit here).

A :class:`Race` holds one :class:`svmcore.runs.run.TrainingRun` per entrant, all built on the same
training and test arrays with the same seed: every solver draws its samples from
``SampleStream(n, seed)``, so two stochastic entrants with the same sampling mode see the same
sample order, and the same solver entered twice with the same parameters produces the same trace.
A run's trace is recorded at fixed log-spaced iteration checkpoints, independent of chunking, so
an entrant's trace in a race is exactly the trace of the same solver run alone to the same
iteration (only the ``time`` column differs: a race's is each entrant's CPU time, below).

Lockstep budgets (``budget``), one *clock* per race, moved forward once per :meth:`Race.tick`:

* ``"time"`` (default) — equal solver time: the clock is a cumulative solver-time target (seconds,
  compile time excluded); every entrant is advanced with ``TrainingRun.advance`` until its own
  ``solver_time`` reaches it. An entrant's solver time is the CPU time of the thread stepping it
  (``TrainingRun(clock="cpu")``, BLAS on that one thread), not the wall time of its steps: on a
  server where another session's thread runs Python code, every return from compiled code waits
  for the GIL (up to the interpreter's 5-ms switch interval): counting wall time, the first
  curated race at a 5-ms clock reached Pegasos t = 2 and SMO t = 13-16 (not converged) beside
  such a thread, against t = 3,354-5,751 and 72 (converged) alone; counting CPU time, t = 562-1,000
  and 72 (``python -m svmcore.bench race-fairness``). Waiting is not the solver's work and is not
  counted. The clock waits for the slowest entrant: it is never more than one ``pace`` step
  (or 0.2 ms) ahead of it, so an entrant that gets little CPU time in its allowance (a loaded
  machine) holds the race back instead of falling behind; overshoot in one tick (a chunk) is
  paid back in the next.
* ``"iterations"`` — equal iterations: every entrant is advanced to the same iteration count t.
* a stream (``stream``, :mod:`svmcore.runs.stream`), whatever the budget: each tick feeds every
  entrant the same new points, in time order; no reference optimum.
* ``"kernel_evals"`` — equal kernel evaluations: every entrant is advanced until its
  ``kernel_evals`` counter reaches the common target (it overshoots by at most one iteration's
  evaluations; the evaluations a solver spends in ``init``, e.g. SMO's kernel diagonal, count).
  Entrants that compute no kernel values (a linear primal model, or random features:
  ``kernelized`` False and ``kernel_evals == 0``) cannot be placed on that clock: they fall back to
  an *iteration* clock that moves with the same pace rules (i.e. they race as under equal
  iterations), and :meth:`Race.notes` says so. An entrant whose iterations stop costing kernel
  evaluations (SMO once its cache holds every row, ASSET once every feature row is cached) is
  *free-running*: it would never reach the target, so it does not hold the clock back; it keeps
  iterating within its time allowance each tick until it finishes.

How far the clock moves per tick: by the factor ``pace`` (×1.1 by default: the curves use log
axes, so a constant factor animates evenly; always far enough that the laggard moves: one
iteration, one kernel evaluation, 0.2 ms), but no further than the slowest active entrant can go
in ``budget_s`` of solver time (costs per unit are measured on the previous ticks); ``pace=None``
moves it as far as that allows. Every entrant gets a wall-time allowance of ``budget_s`` per
tick (by default ``LIVE_TICK_S / K``, so a tick's solver time does not grow with the number of
entrants; 1.5 times that under equal time, to pay back a trace snapshot or an overshoot). An
entrant that does not reach the clock within its allowance (slow iterations, a loaded machine)
catches up on the next ticks while the clock waits: the lockstep is slowed, never broken.

Comparing objectives: the snapshots name the objective they report. Entrants whose objective is
the L1-SVM primal in the λ-form (``"primal L1-SVM, λ-form"``, possibly qualified by ``", λ = …"``)
with the same λ and the same kernel minimise the *same function* P(w, b) = λ/2‖w‖² + mean hinge.
The largest such group is the race's *main group*; its reference optimum P* comes from SMO run to
``tol = 1e-6`` once per dataset and problem (cached, :func:`reference_optimum`), and the race
draws P − P* for those entrants. Everyone else (another C or λ, another kernel, SFW's L2-SVM dual,
OL SVM's unregularised hinge, ASSET's objective on approximate features, NORMA/Pegaz in paper
scaling, CPSP with a regularised bias) is drawn against its own objective, labelled with its
name, never on the P − P* axis. An entrant of the main group that fixes b = 0
(``fit_intercept=False``) minimises the same function over fewer variables: its P − P* ≥ 0 still
holds, but it levels off above 0, and its label says so.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from .._blas import one_blas_thread
from .optimum import (L1_NAME, REF_MAX_SECONDS, REF_TOL, Reference, data_fingerprint, group_text,
                      objective_group, reference_in_background, reference_optimum)
from .config import BUDGET_LABELS, RACE_BUDGETS, RACE_SIZE, Entrant, RaceConfig
from .rundata import RunData, build_data
from .run import TrainingRun
from .stream import stream_of
from ..solvers import get_solver
from ..solvers.base import Solver


__all__ = ["Race", "Reference", "Entrant", "RaceConfig", "RACE_BUDGETS", "BUDGET_LABELS",
           "L1_NAME", "REF_TOL", "reference_optimum", "objective_group", "entrant_labels",
           "build_race", "LETTERS", "data_fingerprint", "LIVE_TICK_S", "group_text"]

MIN_TIME_STEP = 2e-4            # equal time: the clock moves at least 0.2 ms per tick
#: Solver time of one live tick of a race, shared by its entrants (each gets LIVE_TICK_S / K):
#: the page and ``python -m svmcore.bench race-tick`` use it.
LIVE_TICK_S = 0.04
CATCH_UP = 1.5                  # equal time: an entrant may spend this many budgets per tick
LETTERS = "ABCD"


# ================================================================================ entrants


def _entrant_of(e) -> Entrant | Solver:
    if isinstance(e, (Entrant, Solver)):
        return e
    if isinstance(e, str):
        return Entrant(e)
    name, params = e
    return Entrant(name, tuple(dict(params).items()))


def _fmt_value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


#: Parameters that define the problem (not the algorithm): shown in a label whenever they differ
#: from another entrant's, whatever its solver.
PROBLEM_PARAMS = ("C", "kernel", "gamma", "degree", "coef0")


def entrant_labels(solvers: Sequence[Solver], max_params: int = 3) -> list[str]:
    """"A · pegasos", "B · pegasos (schedule=constant, eta0=0.05)": a letter, the solver, and the
    parameters in which it differs from another entrant — any parameter against an entrant of
    the same solver, the problem's parameters (C, kernel, γ, …) against every entrant. A
    parameter the entrant does not use (``ParamSpec.when``) is never shown."""
    def applies(s, name):
        spec = type(s).params.get(name)
        return spec is None or spec.applies(s.p)

    labels = []
    for k, s in enumerate(solvers):
        diff = []
        for name, v in s.p.items():
            if not applies(s, name):
                continue                  # e.g. eta0 under the pegasos schedule: unused
            others = [(o.p[name], applies(o, name)) for j, o in enumerate(solvers)
                      if j != k and name in o.p
                      and (o.name == s.name or name in PROBLEM_PARAMS)]
            if any(not used or o != v for o, used in others):
                diff.append(f"{name}={_fmt_value(v)}")
        text = f"{LETTERS[k]} · {s.name}"
        if diff:
            more = " …" if len(diff) > max_params else ""
            text += f" ({', '.join(diff[:max_params])}{more})"
        labels.append(text)
    return labels


# ================================================================================ the race


class Race:
    """2–4 training runs on the same data with the same seed, advanced in lockstep.

    Parameters
    ----------
    entrants : each an :class:`~svmcore.runs.config.Entrant`, a ``(solver name, params dict)`` pair,
        a solver name, or a :class:`~svmcore.solvers.base.Solver` instance (not yet initialised).
    X, y, X_test, y_test : the data (labels ±1), shared by every entrant.
    seed : one seed for every entrant (its sample order).
    budget : ``"time"``, ``"iterations"`` or ``"kernel_evals"`` (see the module docstring).
    per_decade, max_seconds : passed to every :class:`~svmcore.runs.run.TrainingRun` (trace density;
        a cap on each run's solver time).

    A bad entrant raises ValueError naming it (``"entrant B (smo): C must be …"``).
    """

    def __init__(self, entrants, X, y, X_test=None, y_test=None, *, seed: int = 0,
                 budget: str = "time", per_decade: int = 20, max_seconds: float | None = None,
                 stream=None):
        entrants = [_entrant_of(e) for e in entrants]
        lo, hi = RACE_SIZE
        if not lo <= len(entrants) <= hi:
            raise ValueError(f"a race needs {lo} to {hi} entrants, got {len(entrants)}")
        if budget not in RACE_BUDGETS:
            raise ValueError(f"budget must be one of {', '.join(RACE_BUDGETS)}, got {budget!r}")
        self.budget = budget
        self.seed = int(seed)
        self.X, self.y = X, np.asarray(y, dtype=np.float64)
        #: stream mode (:class:`svmcore.runs.stream.Stream`): every entrant is fed the same new
        #: points each tick, and there is no reference optimum (the stream's whole objective is
        #: not what a learner that follows it minimises)
        self.stream = stream
        self.runs: list[TrainingRun] = []
        for k, e in enumerate(entrants):
            name = e.name if isinstance(e, Solver) else e.solver
            try:
                solver = e if isinstance(e, Solver) else get_solver(e.solver)(**e.param_dict)
                run = TrainingRun(solver, X, y, X_test, y_test, seed=self.seed,
                                  per_decade=per_decade, max_seconds=max_seconds, clock="cpu",
                                  stream=stream)
            except (ValueError, TypeError, MemoryError) as exc:
                raise ValueError(f"entrant {LETTERS[k]} ({name}): {exc}") from exc
            self.runs.append(run)
        self.per_decade = int(per_decade)
        self.max_seconds = max_seconds
        self.labels = entrant_labels([r.solver for r in self.runs])
        # Under equal kernel evaluations the clock starts where the costliest start-up already is
        # (SMO computes its n diagonal values in init): the others first spend as much, so the
        # race is level from the first tick and no entrant waits for a creeping clock.
        start_ke = max((r.solver.kernel_evals for r in self.runs), default=0)
        self.clock = {"time": 0.0, "iterations": 0, "kernel_evals": int(start_ke)}
        self.ticks = 0
        K = len(self.runs)
        self._cost = [dict() for _ in range(K)]     # unit -> wall seconds per unit (recent)
        self._rate: list[float | None] = [None] * K  # kernel evals per iteration (recent)
        self._free = [False] * K                    # free-running under equal kernel evals
        self.groups = [objective_group(r.solver, self._snap(r)) for r in self.runs]
        self.main_group = self._main_group()
        self._reference: Reference | None = None
        self.reference_error: str | None = None
        self._ref_future = None                      # a reference computed in the background

    # ------------------------------------------------------------------------------ change
    def soft_plan(self, names) -> list[dict] | None:
        """Which entrants take which of the shared parameters ``names`` (those the entrant has),
        or None when an entrant has one of them but cannot take it mid-run (the race must then
        restart). An entrant without the parameter is left alone."""
        plan = []
        for run in self.runs:
            mine = [k for k in names if k in run.solver.params]
            if any(k not in run.solver.soft_params for k in mine):
                return None
            plan.append(mine)
        return plan

    def schedule_changes(self, changes) -> None:
        """A race configuration's mid-run changes ``[(t, entrant k, {name: value})]``: each
        entrant applies its own when it reaches its t (:meth:`TrainingRun.schedule_changes`)."""
        per = [[] for _ in self.runs]
        for t, k, c in changes:
            per[int(k)].append((t, dict(c)))
        for run, mine in zip(self.runs, per):
            run.on_change = self._after_change
            run.schedule_changes(mine)

    def _after_change(self) -> None:
        """An entrant's parameters changed: its label, objective group and the reference."""
        self.labels = entrant_labels([r.solver for r in self.runs])
        self.groups = [objective_group(r.solver, r.solver.snapshot()) for r in self.runs]
        self.main_group = self._main_group()
        self._reference = None
        self.reference_error = None

    @property
    def marks(self) -> list[list[dict]]:
        """Each entrant's marks (:attr:`TrainingRun.marks`), in entrant order."""
        return [r.marks for r in self.runs]

    def curve_marks(self, x: str = "iteration") -> list[dict]:
        """Every entrant's marks on curves against ``x``; entrants changed at the same place
        with the same label share one line, labelled with their letters ("A, B: C 1→2")."""
        lines: dict = {}
        for k, run in enumerate(self.runs):
            for m in run.curve_marks(x):
                lines.setdefault((m["x"], m["label"]), []).append(LETTERS[k])
        return [{"x": v, "label": f"{', '.join(who)}: {label}"}
                for (v, label), who in lines.items()]

    def change(self, **shared) -> list[dict]:
        """:meth:`TrainingRun.change` for every entrant that has the parameters ``shared`` (each
        entrant takes the ones it has, at its own t). Every value is checked first: a ValueError
        (an entrant that cannot take one mid-run, a bad value) leaves every entrant unchanged.
        Returns each entrant's ``{name: (old, new)}``."""
        plan = self.soft_plan(list(shared))
        if plan is None:
            hard = sorted({f"{LETTERS[k]} ({r.solver.name}): {n}" for k, r in enumerate(self.runs)
                           for n in shared if n in r.solver.params
                           and n not in r.solver.soft_params})
            raise ValueError("cannot change mid-run: " + "; ".join(hard))
        return self.change_each([{k: shared[k] for k in mine} for mine in plan])

    def change_each(self, changes) -> list[dict]:
        """Entrant k takes ``changes[k]`` (``{name: value}``, possibly empty) mid-run; every
        value is checked before any entrant changes. Returns each entrant's ``{name: (old,
        new)}``."""
        changes = list(changes)
        if len(changes) != len(self.runs):
            raise ValueError(f"one change per entrant: {len(self.runs)}, got {len(changes)}")
        for k, (run, mine) in enumerate(zip(self.runs, changes)):
            s = run.solver
            hard = [n for n in mine if n not in s.soft_params]
            if hard:
                raise ValueError(f"entrant {LETTERS[k]} ({s.name}) cannot change "
                                 f"{', '.join(hard)} mid-run")
            for n, v in mine.items():
                s.params[n].validate(n, v)
            if mine.get("batch_size", 0) > s.n:         # the one check retune makes beyond
                raise ValueError(f"entrant {LETTERS[k]} ({s.name}): batch_size must be in "
                                 f"[1, n={s.n}], got {mine['batch_size']}")
        hooks = [r.on_change for r in self.runs]
        for r in self.runs:
            r.on_change = None                  # one refresh for all of them, below
        try:
            diffs = [run.change(**mine) if mine else {} for run, mine in zip(self.runs, changes)]
        finally:
            for r, h in zip(self.runs, hooks):
                r.on_change = h
        if any(diffs):
            self._after_change()
        return diffs

    # ------------------------------------------------------------------------------ state
    @staticmethod
    def _snap(run: TrainingRun):
        return getattr(run, "last_snapshot", None) or run.solver.snapshot()

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def done(self) -> bool:
        return all(r.done for r in self.runs)

    @property
    def t(self) -> int:
        """The largest iteration count (the pages' 'has anything happened' test)."""
        return max(r.t for r in self.runs)

    def clock_text(self) -> str:
        """The race clock in words: how far the budget has come, the ticks and the budget's
        name (the Race page's caption, and a replay's)."""
        c = self.reached()
        if self.budget == "time":
            text = f"race clock: {1e3 * c['time']:.1f} ms of solver CPU time per entrant"
        elif self.budget == "iterations":
            text = f"race clock: t = {c['iterations']:,} iterations"
        else:
            text = f"race clock: {c['kernel_evals']:,} kernel evaluations"
            if c["iterations"]:
                text += f" (kernel-free entrants: t = {c['iterations']:,})"
        return f"{text} · {self.ticks:,} ticks · {BUDGET_LABELS[self.budget]}"

    def reached(self) -> dict:
        """The clock as far as an entrant got: the clock is a target, and the last tick of a
        race whose entrants all ended sets one past every end (at full speed t = 111,225 on a
        race whose entrants stopped at 22,500), a moment no entrant reached. What the pages
        show."""
        far = {u: max(self.units(k, u) for k in range(len(self.runs)))
               for u in ("time", "iterations", "kernel_evals")}
        return {u: min(v, far[u]) for u, v in self.clock.items()}

    def units(self, k: int, unit: str) -> float:
        run = self.runs[k]
        if unit == "time":
            return run.solver_time
        if unit == "iterations":
            return run.t
        return run.solver.kernel_evals

    def kernel_free(self, k: int) -> bool:
        """Does entrant k compute no kernel values (it races by iterations under equal kernel
        evaluations)?"""
        s = self.runs[k].solver
        return s.kernel_evals == 0 and (not s.kernelized or s.t >= 10)

    def lagging(self) -> list[int]:
        """Entrants still catching up with the clock (their iterations are slow)."""
        out = []
        for k, unit in self._units_of():
            if unit != "time" and not self.runs[k].done and not self._free[k] \
                    and self.units(k, unit) < self.clock[unit]:
                out.append(k)
        return out

    def _units_of(self) -> list[tuple[int, str]]:
        if self.budget == "kernel_evals":
            return [(k, "iterations" if self.kernel_free(k) else "kernel_evals")
                    for k in range(len(self.runs))]
        return [(k, self.budget) for k in range(len(self.runs))]

    # ------------------------------------------------------------------------------ drive
    def tick(self, pace: float | None = 1.1, budget_s: float | None = None) -> list[int]:
        """One lockstep tick (see the module docstring); returns the iterations each entrant
        did. ``budget_s`` is each entrant's wall-time allowance for its steps (default
        ``LIVE_TICK_S / K``)."""
        if pace is not None and not pace > 1.0:
            raise ValueError(f"pace must be > 1 or None, got {pace!r}")
        if budget_s is None:
            budget_s = LIVE_TICK_S / len(self.runs)
        if not budget_s > 0:
            raise ValueError(f"budget_s must be > 0, got {budget_s!r}")
        before = [r.t for r in self.runs]
        if self.stream is not None:              # the same new points for every entrant
            for run in self.runs:
                if not run.done:
                    if pace is None:
                        run.advance(budget_s)
                    else:
                        run.advance_iters(self.stream.steps_per_tick(pace, run.solver))
            for u in self.clock:                 # the clock shows how far the stream got
                self.clock[u] = max(self.units(k, u) for k in range(len(self.runs)))
            self.ticks += 1
            return [r.t - b for r, b in zip(self.runs, before)]
        active = [(k, u) for k, u in self._units_of() if not self.runs[k].done]
        with one_blas_thread():          # an entrant's CPU time is then all of its work
            for unit in ("time", "iterations", "kernel_evals"):
                idx = [k for k, u in active if u == unit]
                if not idx:
                    continue
                if unit == "time":
                    self._tick_time(idx, pace, budget_s)
                else:
                    self._tick_units(idx, unit, pace, budget_s)
        self.ticks += 1
        return [r.t - b for r, b in zip(self.runs, before)]

    def _tick_time(self, idx, pace, budget_s):
        T = self.clock["time"]
        target = T + budget_s if pace is None else max(T * pace, T + MIN_TIME_STEP)
        target = min(target, T + budget_s)
        lo = min(self.runs[k].solver_time for k in idx)
        # everyone ahead of the clock (an overshooting chunk): the laggard still moves
        target = max(target, lo + MIN_TIME_STEP)
        # ... and the clock is never more than one step ahead of the laggard (it waits for an
        # entrant that got little CPU time in its wall-time allowance)
        lead = lo + budget_s if pace is None else max(lo * pace, lo + MIN_TIME_STEP)
        target = max(T, min(target, lead))
        for k in idx:
            run = self.runs[k]
            need = target - run.solver_time
            if need > 0:
                run.advance(min(need, CATCH_UP * budget_s))
        self.clock["time"] = target

    def _tick_units(self, idx, unit, pace, budget_s):
        T = self.clock[unit]
        holding = [k for k in idx if not self._free[k]] or idx
        lag = [k for k in holding if self.units(k, unit) < T]
        if lag:                                   # catch up first; the clock waits
            target = T
        else:
            lo = min(self.units(k, unit) for k in holding)
            costs = [self._cost[k].get(unit) for k in holding]
            known = [c for c in costs if c]
            max_inc = max(1, int(budget_s / max(known))) if known else 1
            if pace is None:
                target = T + max_inc
            else:
                target = min(max(math.ceil(T * pace), T + 1), T + max_inc)
            target = max(target, int(lo) + 1)
            self.clock[unit] = target
        for k in idx:
            self._advance_to(k, unit, target, budget_s)

    def _advance_to(self, k: int, unit: str, target, allow: float) -> None:
        run = self.runs[k]
        u0, s0, t0 = self.units(k, unit), run.wall_time, run.t
        if unit == "iterations":
            if target > run.t:
                run.advance(allow, max_iters=int(target - run.t))
        else:
            s = run.solver
            deadline = time.perf_counter() + allow
            moved = False
            while not run.done and s.kernel_evals < target:
                left = deadline - time.perf_counter()
                if left <= 0 and moved:          # a descheduled thread still moves once
                    break
                left, moved = max(left, 1e-4), True
                rate = self._rate[k]
                n_it = 1 if not rate else max(1, int((target - s.kernel_evals) / (2.0 * rate)))
                ke0 = s.kernel_evals
                d = run.advance(left, max_iters=n_it)
                if d == 0:
                    break
                dke = s.kernel_evals - ke0
                if dke > 0:
                    self._rate[k] = dke / d
                elif rate:
                    self._rate[k] = rate / 2.0           # free iterations: take more at once
            self._free[k] = run.t > t0 and self.units(k, unit) == u0 and not run.done
        du = self.units(k, unit) - u0
        if du > 0:
            self._cost[k][unit] = (run.wall_time - s0) / du

    def advance_iters(self, n: int) -> list[int]:
        """Every entrant exactly ``n`` more iterations (fewer if it ends first); the clock then
        follows them (:meth:`follow`), so after +1 it reads what the fields show."""
        done = [r.advance_iters(int(n)) for r in self.runs]
        self.follow()
        return done

    def follow(self) -> None:
        """Bring the clock to where the entrants stand after steps taken outside a tick (+1, a
        replay to given iterations): the clock is the lockstep's target, and a tick moves it
        before the entrants, but such steps move the entrants alone. Each unit the race counts
        in goes to the least reading among the entrants still running on it (the one the
        lockstep waits for), never back; a stream's clock, as its tick sets it, to the
        furthest."""
        if self.stream is not None:
            for u in self.clock:
                self.clock[u] = max(self.units(k, u) for k in range(len(self.runs)))
            return
        for unit in {u for _, u in self._units_of()}:
            on = [k for k, u in self._units_of() if u == unit]
            running = [k for k in on if not self.runs[k].done] or on
            self.clock[unit] = max(self.clock[unit], min(self.units(k, unit) for k in running))

    # ------------------------------------------------------------------------------ reference
    def _main_group(self) -> tuple | None:
        l1 = [g for g in self.groups if g[0] == L1_NAME and g[1] is not None]
        if not l1 or self.stream is not None:
            return None
        counts = {g: l1.count(g) for g in l1}
        best = max(counts.values())
        return next(g for g in l1 if counts[g] == best)

    def in_main_group(self, k: int) -> bool:
        return self.main_group is not None and self.groups[k] == self.main_group

    def reference(self, tol: float = REF_TOL, max_seconds: float = REF_MAX_SECONDS,
                  wait: float | None = None) -> Reference | None:
        """P* of the main group (computed once, cached per dataset); None when there is no
        main group or it cannot be computed (``reference_error`` says why).

        ``wait=None`` computes it here; a number starts it in the background
        (:func:`reference_in_background`) and waits at most that long: None while it is
        still being computed (``reference_pending``); :attr:`reference_value` picks it up
        when it is done, so the session is never blocked longer than ``wait``."""
        if self._reference is not None or self.main_group is None or self.reference_error:
            return self._reference
        _, lam, kkey = self.main_group
        if wait is not None and self._ref_future is None:
            self._ref_future = reference_in_background(self.X, self.y, lam, kkey, tol,
                                                       max_seconds)
        self._ref_max_seconds = max_seconds
        try:
            if self._ref_future is not None:
                import concurrent.futures as cf
                try:
                    self._reference = self._ref_future.result(timeout=wait)
                except cf.TimeoutError:
                    return None                      # still computing: picked up later
                self._ref_future = None
            else:
                self._reference = reference_optimum(self.X, self.y, lam, kkey, tol, max_seconds)
        except Exception as exc:  # noqa: BLE001 - reported, the race goes on without P*
            self._ref_future = None
            self.reference_error = f"{type(exc).__name__}: {exc}"
            return None
        if not self._reference.converged:
            self.reference_error = ("SMO did not reach the reference tolerance within "
                                    f"{max_seconds:g} s: no suboptimality curve")
            self._reference = None
        return self._reference

    @property
    def reference_pending(self) -> bool:
        """Is the reference being computed in the background?"""
        return self._ref_future is not None and self._reference is None

    @property
    def reference_value(self) -> Reference | None:
        """The reference if it has been computed (never computes it; collects a background
        computation that has finished)."""
        if self._ref_future is not None and self._ref_future.done():
            self.reference(max_seconds=getattr(self, "_ref_max_seconds", REF_MAX_SECONDS),
                           wait=0)
        return self._reference

    def suboptimality(self, k: int) -> np.ndarray | None:
        """P − P* along entrant k's trace (main group and a reference only), else None."""
        ref = self.reference_value
        if ref is None or not self.in_main_group(k):
            return None
        obj = np.array([r.objective for r in self.runs[k].trace], dtype=np.float64)
        return obj - ref.value

    def note_of(self, k: int) -> str:
        """How entrant k's objective is drawn, in one phrase."""
        s = self.runs[k].solver
        if self.in_main_group(k):
            text = "P − P* (shared L1-SVM λ-form)"
            if "fit_intercept" in s.p and not s.p["fit_intercept"]:
                text += "; b = 0 here, so P − P* levels off above 0"
            return text
        return f"own objective: {group_text(self.groups[k])}"

    def notes(self) -> list[str]:
        """What the page should say about this race (fallbacks, what is compared)."""
        out = []
        if self.budget == "kernel_evals":
            free = [k for k in range(len(self.runs)) if self.kernel_free(k)]
            if free:
                who = ", ".join(self.labels[k] for k in free)
                out.append(f"{who}: no kernel evaluations (a kernel-free model) — raced by "
                           "iterations instead, on an iteration clock with the same pace.")
            running = [k for k in range(len(self.runs)) if self._free[k]]
            if running:
                who = ", ".join(self.labels[k] for k in running)
                out.append(f"{who}: its iterations cost no kernel evaluations now (cached); it "
                           "runs free within its time allowance and does not hold the clock.")
        lag = self.lagging()
        if lag:
            who = ", ".join(self.labels[k] for k in lag)
            out.append(f"{who}: slow iterations — catching up with the clock; the others wait.")
        if self.reference_pending:
            out.append("P* (SMO to tol 1e-6) is being computed in the background, at most "
                       f"{REF_MAX_SECONDS:g} s: P − P* appears when it is ready.")
        if self.main_group is not None:
            members = [self.labels[k] for k in range(len(self.runs)) if self.in_main_group(k)]
            others = [self.labels[k] for k in range(len(self.runs)) if not self.in_main_group(k)]
            text = (f"P − P* compares {', '.join(members)}: {group_text(self.main_group)}.")
            if others:
                text += (f" {', '.join(others)} minimise{'s' if len(others) == 1 else ''} "
                         "another function: drawn against its own objective.")
            out.append(text)
        elif self.stream is not None:
            out.append("A stream: every entrant is fed the same points in time order; no P* (an "
                       "optimum over the whole stream is not what a learner that follows it "
                       "aims at): the test error now is the yardstick.")
        else:
            out.append("No entrant reports the L1-SVM primal in the λ-form: each objective is "
                       "drawn on its own, and the test error is the common yardstick.")
        return out

    # ------------------------------------------------------------------------------ results
    def results(self, models: Sequence | None = None) -> list[dict]:
        """One row per entrant for the results table. ``models`` (optional) gives per entrant
        ``(snapshot, test error)`` to use instead of the last trace row (exact when paused)."""
        rows = []
        for k, run in enumerate(self.runs):
            if models is not None and models[k] is not None:
                snap, test = models[k]
            else:
                snap = self._snap(run)
                test = run.trace[-1].test_error if run.trace else float("nan")
            train = snap.extra.get("train_error", float("nan"))
            sub = None
            if self._reference is not None and self.in_main_group(k):
                sub = float(snap.objective) - self._reference.value
            rows.append({
                "entrant": self.labels[k], "solver": run.solver.name, "status": run.status,
                "t": int(run.t), "test_accuracy": _acc(test), "train_accuracy": _acc(train),
                "time_s": float(run.solver_time), "kernel_evals": int(run.solver.kernel_evals),
                "n_sv": int(snap.n_sv), "objective": float(snap.objective),
                "objective_name": snap.objective_name, "suboptimality": sub,
                "at_t": int(snap.t), "state": run.solver.state_line(snap)})
        return rows


def _acc(err) -> float:
    try:
        e = float(err)
    except (TypeError, ValueError):
        return float("nan")
    return 1.0 - e if math.isfinite(e) else float("nan")


def build_race(cfg: RaceConfig, upload=None, *, per_decade: int = 20,
               max_seconds: float | None = None) -> tuple[Race, RunData]:
    """The data of ``cfg`` (:func:`svmcore.runs.rundata.build_data`) and a fresh :class:`Race`."""
    data = build_data(cfg.data, upload)
    race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                seed=cfg.seed, budget=cfg.budget, per_decade=per_decade,
                max_seconds=max_seconds, stream=stream_of(cfg.data, data))
    return race, data
