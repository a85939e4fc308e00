r"""The point history: one pinned training point followed through a run (no streamlit).

Pin training point i of a :class:`~svmcore.runs.run.TrainingRun` (or of every entrant of a
:class:`~svmcore.runs.race.Race`) and :class:`PointHistory` records, at every trace checkpoint of the
run from then on (the run calls its ``observers``), the point's

* margin :math:`m_i = y_i f(x_i)` — above 1 the point is safely on its side, between 0 and 1
  inside the margin, below 0 misclassified;
* coefficient in the model :math:`f(x) = \sum_j c_j k(x_j, x) + b`, where the solver keeps one
  per training point (``support_coef()``: Pegasos' kernelized form β_i y_i, SMO's α_i y_i, SFW's
  y_i α_i/ρ, NORMA/Pegaz/OL SVM's α_i, CPSP's β_i) — NaN for a primal linear model (Pegasos with
  a linear kernel keeps w, no α) and for ASSET (its coefficients belong to landmarks);
* hinge loss :math:`\max(0, 1 - m_i)`;
* support-vector status: a non-zero coefficient where there is one, else
  :math:`m_i \le 1` (the definition of :class:`~svmcore.solvers.base.Snapshot`'s ``support``
  for models without per-point coefficients: only such points can carry an optimal dual
  variable).

:meth:`PointHistory.events` lists when the point became, or stopped being, a support vector.
:func:`backfill` fills the history before the pin by replaying the same seeded run (a run is a
pure function of its configuration and t), checkpoint by checkpoint, on a fresh copy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..runs.run import checkpoints_after

__all__ = ["PointHistory", "point_values", "backfill", "has_point_coef", "pin", "unpin"]


def has_point_coef(solver) -> bool:
    """Does the model keep one coefficient per training point (a kernel expansion over the
    training set)? ASSET's Nyström expansion is over landmarks, not a dual per point."""
    if not solver.kernelized or solver.name == "asset":
        return False
    try:
        return solver.support_coef() is not None
    except Exception:  # noqa: BLE001 - a solver that cannot say has none to show
        return False


def _row(X, i: int):
    return X[i:i + 1] if sp.issparse(X) else np.asarray(X)[i:i + 1]


def point_values(solver, x_row, y_i: float, index: int) -> tuple[float, float, bool]:
    """``(margin y_i f(x_i), coefficient c_i or NaN, is a support vector)`` of the current model."""
    score = float(np.asarray(solver.decision_function(x_row), dtype=np.float64).ravel()[0])
    margin = float(y_i) * score
    coef = float("nan")
    if has_point_coef(solver):
        support, c, _ = solver.support_coef()
        at = np.flatnonzero(np.asarray(support) == index)
        coef = float(np.asarray(c)[at[0]]) if at.size else 0.0
        is_sv = coef != 0.0
    else:
        is_sv = margin <= 1.0
    return margin, coef, bool(is_sv)


@dataclass(eq=False)
class PointHistory:
    """The recorded history of training point ``index`` (label ``y``, row ``x``): one entry per
    recorded iteration t, in increasing t. ``coef_name`` says what the coefficient is."""

    index: int
    x: object
    y: float
    coef_name: str = "coefficient"
    t: list = field(default_factory=list)
    margin: list = field(default_factory=list)
    coef: list = field(default_factory=list)
    loss: list = field(default_factory=list)
    sv: list = field(default_factory=list)

    @classmethod
    def of(cls, X, y, index: int, solver=None) -> "PointHistory":
        index = int(index)
        if not 0 <= index < X.shape[0]:
            raise ValueError(f"point {index} is not a training point (0 … {X.shape[0] - 1})")
        name = "coefficient"
        if solver is not None:
            name = ("c_i, its coefficient in f(x) = Σ_j c_j k(x_j, x) + b"
                    if has_point_coef(solver) else
                    "no α: the model keeps no coefficient per training point")
        return cls(index, _row(X, index), float(np.asarray(y)[index]), name)

    def record(self, solver) -> None:
        """Add the point's values at the solver's current t (once per t; a diverged model adds
        nothing)."""
        t = int(solver.t)
        if self.t and self.t[-1] >= t:
            return
        margin, coef, is_sv = point_values(solver, self.x, self.y, self.index)
        if not math.isfinite(margin):
            return
        self.t.append(t)
        self.margin.append(margin)
        self.coef.append(coef)
        self.loss.append(max(0.0, 1.0 - margin))
        self.sv.append(is_sv)

    def __call__(self, run) -> None:
        """The observer a :class:`~svmcore.runs.run.TrainingRun` calls at each trace checkpoint."""
        self.record(run.solver)

    def merge_before(self, other: "PointHistory") -> None:
        """Put ``other``'s entries with t before this history's first in front of it."""
        first = self.t[0] if self.t else math.inf
        keep = [k for k, t in enumerate(other.t) if t < first]
        for name in ("t", "margin", "coef", "loss", "sv"):
            setattr(self, name, [getattr(other, name)[k] for k in keep] + getattr(self, name))

    def columns(self) -> dict[str, np.ndarray]:
        """The history as arrays: ``iteration``, ``margin``, ``coef``, ``hinge``, ``sv``."""
        return {"iteration": np.asarray(self.t, dtype=float),
                "margin": np.asarray(self.margin, dtype=float),
                "coef": np.asarray(self.coef, dtype=float),
                "hinge": np.asarray(self.loss, dtype=float),
                "sv": np.asarray(self.sv, dtype=float)}

    def events(self) -> list[tuple[int, str]]:
        """``(t, what)`` for every change of support-vector status: "became a support vector" or
        "stopped being a support vector" (the first entry counts as a change when it is one)."""
        out, before = [], False
        for t, now in zip(self.t, self.sv):
            if now != before:
                out.append((t, "became a support vector" if now else
                            "stopped being a support vector"))
            before = now
        return out

    def describe(self) -> str:
        """One sentence on the point now and its support-vector history."""
        if not self.t:
            return f"point {self.index} (y = {self.y:+g}): nothing recorded yet"
        m = self.margin[-1]
        where = ("misclassified" if m < 0 else "inside the margin" if m < 1 else
                 "on the margin" if m == 1 else "outside the margin")
        text = (f"point {self.index} (y = {self.y:+g}) at t = {self.t[-1]:,}: margin y·f(x) = "
                f"{m:.3g} ({where}), hinge loss {self.loss[-1]:.3g}")
        ev = self.events()
        if ev:
            text += "; " + ", ".join(f"{what} at t = {t:,}" for t, what in ev)
        else:
            text += "; never a support vector so far"
        return text + "."


def backfill(make_run, history: PointHistory, until: int, max_checkpoints: int = 400) -> None:
    """Fill ``history`` before its first entry: build a fresh run with ``make_run()`` (the same
    solver, parameters, data and seed: the same iterates), advance it checkpoint by checkpoint
    (the run's own checkpoint sequence, ``per_decade`` apart) up to ``until`` and record the
    point at each. ``until`` is normally the t at which the point was pinned."""
    run = make_run()
    early = PointHistory(history.index, history.x, history.y, history.coef_name)
    early.record(run.solver)
    per_decade = getattr(run, "per_decade", 20)
    c = 0
    for _ in range(max_checkpoints):
        c = checkpoints_after(c, per_decade)
        if c > until or run.done:
            break
        run.advance_iters(c - run.t)
        early.record(run.solver)
    history.merge_before(early)


def pin(run, X, y, index: int) -> PointHistory:
    """Pin training point ``index`` of ``run``: a history recorded now and at every later trace
    checkpoint (it joins ``run.observers``). Unpin with :func:`unpin`."""
    h = PointHistory.of(X, y, index, run.solver)
    h.record(run.solver)
    observers = getattr(run, "observers", None)
    if observers is not None:
        observers.append(h)
    return h


def unpin(run, history: PointHistory) -> None:
    observers = getattr(run, "observers", None)
    if observers is not None:
        observers[:] = [o for o in observers if o is not history]
