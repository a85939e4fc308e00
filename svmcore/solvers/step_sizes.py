"""Step-size schedules η_t: one small object for Python and one compiled function for the solvers.

The page plots exactly what the solver runs: both call :func:`step_size` with the same code and
parameter array ``params = [eta0, lam, C]``. Iterations are counted from t = 1.

===========  ====  ==========================  ============================================
name         code  η_t                         where it comes from
===========  ====  ==========================  ============================================
pegasos      0     1 / (λ t)                   Pegasos (Shalev-Shwartz et al. 2007)
sqrt         1     η0 / √t                     robust SA; ASSET uses η0 = D_X / D_G
kecman       2     C √(2 / t)                  OL SVM, NORMA, Pegaz (Kecman & Melki 2016)
constant     3     η0                          plain SGD
invscaling   4     η0 / (1 + η0 λ t)           Bottou's SGD schedule ("optimal" in sklearn)
===========  ====  ==========================  ============================================
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._jit import njit

PEGASOS, SQRT, KECMAN, CONSTANT, INVSCALING = 0, 1, 2, 3, 4
SCHEDULE_CODES = {"pegasos": PEGASOS, "sqrt": SQRT, "kecman": KECMAN,
                  "constant": CONSTANT, "invscaling": INVSCALING}

SCHEDULE_FORMULAS = {
    "pegasos": r"\eta_t = \frac{1}{\lambda t}",
    "sqrt": r"\eta_t = \frac{\eta_0}{\sqrt{t}}",
    "kecman": r"\eta_t = C\sqrt{2/t}",
    "constant": r"\eta_t = \eta_0",
    "invscaling": r"\eta_t = \frac{\eta_0}{1 + \eta_0 \lambda t}",
}

#: the same formulas as plain text (the pseudocode of the step-through page)
SCHEDULE_TEXT = {
    "pegasos": "1/(λt)",
    "sqrt": "η0/√t",
    "kecman": "C√(2/t)",
    "constant": "η0",
    "invscaling": "η0/(1 + η0 λ t)",
}


@njit
def step_size(code, params, t):
    """η_t for schedule ``code`` with ``params = [eta0, lam, C]``, t ≥ 1."""
    tt = float(t)
    if code == 0:
        return 1.0 / (params[1] * tt)
    if code == 1:
        return params[0] / math.sqrt(tt)
    if code == 2:
        return params[2] * math.sqrt(2.0 / tt)
    if code == 3:
        return params[0]
    return params[0] / (1.0 + params[0] * params[1] * tt)


@njit
def _step_sizes(code, params, ts):
    out = np.empty(ts.shape[0])
    for k in range(ts.shape[0]):
        out[k] = step_size(code, params, ts[k])
    return out


@dataclass(frozen=True)
class Schedule:
    """A step-size schedule by name, with its own η0 (used by sqrt, constant and invscaling).

    ``lam`` and ``C`` come from the problem, so they are given when the parameter array is built.
    """

    name: str = "pegasos"
    eta0: float = 1.0
    code: int = field(init=False)

    def __post_init__(self):
        if self.name not in SCHEDULE_CODES:
            raise ValueError(
                f"schedule must be one of {sorted(SCHEDULE_CODES)}, got {self.name!r}")
        if not (np.isfinite(self.eta0) and self.eta0 > 0):
            raise ValueError(f"eta0 must be a finite number > 0, got {self.eta0!r}")
        object.__setattr__(self, "code", SCHEDULE_CODES[self.name])

    def params(self, lam: float, C: float) -> np.ndarray:
        return np.array([self.eta0, lam, C], dtype=np.float64)

    def values(self, t, lam: float, C: float) -> np.ndarray:
        """η_t for an array of iteration numbers (what the UI plots)."""
        ts = np.asarray(t, dtype=np.int64).ravel()
        if ts.size and ts.min() < 1:
            raise ValueError("iterations are counted from t = 1")
        return _step_sizes(self.code, self.params(lam, C), ts)

    @property
    def formula(self) -> str:
        return SCHEDULE_FORMULAS[self.name]

    @property
    def text(self) -> str:
        """The formula as plain text, e.g. ``1/(λt)``."""
        return SCHEDULE_TEXT[self.name]


@dataclass(frozen=True)
class StepRule:
    """The step sizes a solver actually runs: a :class:`Schedule` with the problem's λ and C
    filled in. ``Solver.step_rule()`` returns one (or None for solvers without a step size:
    SMO, Frank-Wolfe's line search, cutting planes), and the solver's compiled loop calls
    :func:`step_size` with ``code`` and ``params`` — so a plot of ``values(t)`` is what runs."""

    schedule: Schedule
    lam: float
    C: float
    note: str = ""               # where the constants come from (ASSET: η0 = D_X / D_G)

    @property
    def name(self) -> str:
        return self.schedule.name

    @property
    def code(self) -> int:
        return self.schedule.code

    @property
    def params(self) -> np.ndarray:
        return self.schedule.params(self.lam, self.C)

    @property
    def formula(self) -> str:
        return self.schedule.formula

    def values(self, t) -> np.ndarray:
        """η_t at the iterations ``t`` (counted from 1)."""
        return self.schedule.values(t, self.lam, self.C)
