"""Solver parameters as data: :class:`ParamSpec` (default, kind, valid range, slider range, help)
drives validation, the app's widgets and the docs; the specs several solvers share (C, kernel,
gamma, degree, epochs, averaging, step size) live here once."""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .kernels import POINT_KERNELS
from .step_sizes import SCHEDULE_CODES


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class ParamSpec:
    """One solver parameter: default, kind, valid range and help text.

    kind: ``"float"``, ``"int"``, ``"bool"``, ``"choice"`` or ``"averaging"``.
    ``low``/``high`` bound the valid range (``low_open``/``high_open`` make a bound strict);
    ``ui`` is the slider range the app offers (within the valid range), ``log`` a log slider.
    ``when = (other, values)`` says the parameter only matters when parameter ``other`` takes one
    of ``values`` (gamma only for rbf/poly kernels); ``advanced`` puts it under "more options".
    ``unoffered`` are further valid choices the app's widgets do not offer (the kernel
    "precomputed": the data would have to be a Gram matrix).
    """

    default: Any
    kind: str
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    ui: tuple | None = None
    log: bool = False
    when: tuple | None = None
    advanced: bool = False
    unoffered: tuple = ()

    def applies(self, values: dict) -> bool:
        """Does this parameter matter, given the other parameter values?"""
        if self.when is None:
            return True
        other, allowed = self.when
        return values.get(other) in allowed

    def range_text(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "bool":
            return "True or False"
        if self.kind == "averaging":
            return "None, a float in (0, 1] or an int ≥ 1"
        lo = "-∞" if self.low is None else f"{self.low:g}"
        hi = "∞" if self.high is None else f"{self.high:g}"
        lb = "(" if (self.low is None or self.low_open) else "["
        hb = ")" if (self.high is None or self.high_open) else "]"
        return f"in {lb}{lo}, {hi}{hb}"

    def validate(self, name: str, value):
        """Return the value coerced to its kind, or raise ValueError naming the parameter."""
        out = self._coerce(name, value)
        if out is _BAD:
            raise ValueError(f"{name} must be {self.range_text()}, got {value!r}")
        return out

    def _coerce(self, name: str, value):
        """The value coerced to its kind, or ``_BAD`` (the message is only built for a bad
        value: solvers are built once per binary problem, thousands of times in a grid)."""
        kind = self.kind
        if kind == "choice":
            return value if value in self.choices or value in self.unoffered else _BAD
        if kind == "bool":
            return bool(value) if isinstance(value, (bool, np.bool_)) else _BAD
        if kind == "averaging":
            return validate_averaging(value, name)
        t = type(value)
        # a plain float or int is a real number and not a bool: the usual case skips the
        # abstract-base-class check of numbers.Real, a registry lookup
        if t is not float and t is not int and (
                isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)):
            return _BAD
        if not math.isfinite(float(value)):
            return _BAD
        if kind == "int":
            if float(value) != int(value):
                return _BAD
            value = int(value)
        else:
            value = float(value)
        if not math.isfinite(value):
            return _BAD
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return _BAD
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            return _BAD
        return value


_BAD = object()


def validate_averaging(value, name: str = "averaging"):
    """``None`` (last iterate), a float ρ in (0, 1] (the final ρ fraction of the planned
    iterations) or an int N ≥ 1 (the final N iterations)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be None, a float in (0, 1] or an int ≥ 1, got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"{name} as an int counts iterations and must be ≥ 1, got {value}")
        return int(value)
    if isinstance(value, numbers.Real):
        if not (0.0 < float(value) <= 1.0):
            raise ValueError(f"{name} as a float is a fraction and must be in (0, 1], got {value}")
        return float(value)
    raise ValueError(f"{name} must be None, a float in (0, 1] or an int ≥ 1, got {value!r}")


def averaging_start(averaging, horizon: int) -> int:
    """First iteration (1-based) whose iterate enters the average, for a planned ``horizon``.

    ``None`` gives a start beyond any reachable t (no averaging: the last iterate is used).
    A float ρ averages the final ⌈ρ·T⌉ iterates, an int N the final N (all if N ≥ T).
    When a run goes past its horizon, the average simply keeps growing.
    """
    if averaging is None:
        return np.iinfo(np.int64).max
    T = max(int(horizon), 1)
    if isinstance(averaging, float):
        m = max(1, math.ceil(averaging * T))
    else:
        m = averaging
    return max(1, T - m + 1)


# Parameters most solvers share; a solver lists the ones it uses in its own ``params``.
C_SPEC = ParamSpec(1.0, "float",
                   "C — how much a point on the wrong side of the margin costs: a larger C fits "
                   "the training data harder (SVC's C; Pegasos eq. 1 uses λ = 1/(C·n)). At most "
                   "1e12: beyond, ½‖w‖² vanishes next to C·Σ loss in float64.",
                   low=0.0, low_open=True, high=1e12, ui=(1e-3, 1e3), log=True)
KERNEL_SPEC = ParamSpec("linear", "choice",
                        "k(x, z) — how similar two points are, which decides the shape of the "
                        "boundary: linear draws a straight line, rbf, poly and sigmoid curved "
                        "ones (precomputed: X is the n × n kernel matrix, SMO only).",
                        choices=POINT_KERNELS, unoffered=("precomputed",))
GAMMA_SPEC = ParamSpec(1.0, "float",
                       "γ — how far one training point's influence reaches: a larger γ gives "
                       "narrower bumps and a wigglier boundary (rbf exp(−γ‖x−z‖²), poly "
                       "(γ⟨x,z⟩+c0)^d, sigmoid tanh(γ⟨x,z⟩+c0)).",
                       low=0.0, low_open=True, ui=(1e-3, 1e3), log=True,
                       when=("kernel", ("rbf", "poly", "sigmoid")))
DEGREE_SPEC = ParamSpec(3, "int",
                        "d — the power of the polynomial kernel (γ⟨x,z⟩+c0)^d: a higher degree "
                        "lets the boundary bend more.", low=1, high=10, ui=(1, 6),
                        when=("kernel", ("poly",)))
COEF0_SPEC = ParamSpec(1.0, "float",
                       "c0 — the constant of the polynomial kernel (γ⟨x,z⟩+c0)^d: it weighs the "
                       "low-degree terms against the high ones (sigmoid: tanh(γ⟨x,z⟩+c0)).",
                       low=-1e6, high=1e6, ui=(0.0, 5.0), when=("kernel", ("poly", "sigmoid")))
EPOCHS_SPEC = ParamSpec(10.0, "float",
                        "T = epochs·n/k — how many passes over the data the run plans (T "
                        "iterations for n points and batch size k); it also sets the averaging "
                        "window and the estimator's run length.",
                        low=0.0, low_open=True, high=1e6, ui=(0.1, 100.0), log=True)
AVERAGING_SPEC = ParamSpec(None, "averaging",
                           "w̄ — report the mean of the last iterates instead of the last one, "
                           "which smooths out the noise of stochastic steps. None = last iterate; "
                           "a float ρ in (0, 1] = mean of the final ρ fraction of the planned "
                           "iterations; an int N = mean of the final N iterations.")
SCHEDULE_SPEC = ParamSpec("pegasos", "choice",
                          "η_t — the rule that sets the step size at iteration t (Pegasos "
                          "Fig. 1: η_t = 1/(λt)).", choices=tuple(SCHEDULE_CODES))
ETA0_SPEC = ParamSpec(1.0, "float",
                      "η₀ — the first step size of the sqrt, constant and invscaling schedules: "
                      "larger moves faster but noisier.",
                      low=0.0, low_open=True, high=1e12, ui=(1e-4, 1e2), log=True,
                      when=("schedule", ("sqrt", "constant", "invscaling")))
SEED_FREE = ()


def resolve_gamma(gamma, X) -> float:
    """scikit-learn's meaning: "scale" = 1/(d·Var(X)), "auto" = 1/d, or a positive number."""
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "auto":
            return 1.0 / d
        if gamma == "scale":
            with np.errstate(over="ignore", invalid="ignore"):
                if sp.issparse(X):
                    var = X.multiply(X).mean() - X.mean() ** 2
                else:
                    var = X.var()
                g = 1.0 / (d * var) if var > 0 else 1.0
            if not (math.isfinite(var) and math.isfinite(g) and g > 0):
                raise ValueError(f"gamma='scale' = 1/(n_features·Var(X)) is not a usable number "
                                 f"for these data (Var(X) = {float(var):g}): scale the features "
                                 "(e.g. StandardScaler) or give gamma as a number > 0")
            return float(g)
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not gamma > 0:
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
    return float(gamma)
