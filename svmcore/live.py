"""The pacing of live training, shared by the pages and the tick benchmarks (no streamlit, no
plotly): how much solver time a tick spends, how far it moves t, what a frame draws.

A page ticks every :data:`TICK_S` seconds while playing; a tick grows t by the chosen pace
(:data:`PACES`: a constant factor per tick animates evenly on the curves' log axes) within
:data:`LIVE_BUDGET_S` of solver time (:func:`advance_tick`), and the frame is drawn from
:func:`model_state` (exact when paused, the last checkpoint's numbers while playing).
"""
from __future__ import annotations

import os
import threading
from dataclasses import replace

import numpy as np

TICK_S = 0.25            # seconds between two fragment reruns while playing (the race's pace)
FRAME_S = 0.2            # while playing, a frame at most every FRAME_S seconds (5 per second)
#: How many sessions of one server build a frame at the same time (the rest wait their turn):
#: without a limit thirty playing sessions keep thirty threads runnable, the server's event
#: loop (which sends the frames) gets a thirty-first of the interpreter and no frame leaves.
FRAME_SLOTS = threading.BoundedSemaphore(max(1, int(os.environ.get("SVMCORE_FRAME_SLOTS", "2"))))
MAX_RUN_S = 300.0        # solver time a run of the app may take (TrainingRun cap)
# How far one tick moves t. The curves use a log iteration axis, so growing t by a constant
# factor per tick gives an even animation; "max" spends the whole budget.
PACES = {"×1.1": 1.1, "×1.25": 1.25, "×1.5": 1.5, "×2": 2.0, "×4": 4.0, "max": None}
DEFAULT_PACE = "×1.1"
LIVE_BUDGET_S = 0.015       # about this much solver time per tick
LIVE_PER_DECADE = 10        # trace checkpoints per decade of a page's run (×1.26 apart): at the
#                             default pace ×1.1 about 2 ticks in 5 cross one and pay for the
#                             run's snapshot; the others draw the current model without one
RES_PLAYING, RES_PAUSED = 100, 150


def model_state(run, fresh: bool = False, scores: bool | str = "auto", max_cost: float = 4e5):
    """``(snapshot, train_scores or None)`` of a :class:`~svmcore.run.TrainingRun` for drawing.

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
        snap = solver.snapshot()
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
    target = max(run.t + 1, int(np.ceil(run.t * float(pace))))
    if run.max_iter is not None:
        target = min(target, run.max_iter)
    return run.advance(budget_s, max_iters=max(1, target - run.t))
