"""One judge for every solver: primal objectives and error rates.

Two parametrisations of the same L1-SVM (hinge-loss) problem are used in the papers:

* λ-form (Pegasos, ASSET):  P_λ(w, b) = λ/2 ‖w‖² + (1/n) Σ_i max(0, 1 − y_i f(x_i))
* C-form (SMO, LIBSVM, scikit-learn's SVC / LinearSVC):  P_C(w, b) = ½ ‖w‖² + C Σ_i max(0, 1 − y_i f(x_i))

with f(x) = ⟨w, x⟩ + b (or the kernel expansion). They have the same minimiser when
λ = 1 / (C n), and then P_λ = P_C / (C n): relative gaps are identical in both forms.
The bias b is never regularised.
"""
from __future__ import annotations

import math
import sys

import numpy as np


def lam_from_C(C: float, n: float) -> float:
    """λ = 1 / (C n): the λ for which Pegasos' problem has scikit-learn's SVC(C) minimiser
    (n: the rows, or their summed weights Σw_i, which may be below 1).

    A C so large that C·n overflows (or λ is no longer a normal float64) would make λ = 0 and
    every 1/λ a division by zero: refused with a ValueError that says which C would do."""
    Cn = float(C) * float(n)
    lam = 1.0 / Cn if Cn > 0.0 else math.inf
    if not (sys.float_info.min <= lam < math.inf):
        n_txt = f"{int(n):,}" if float(n).is_integer() else f"{float(n):g}"
        raise ValueError(f"C = {float(C):g} with n = {n_txt} gives λ = 1/(C·n) = {lam:g}, "
                         f"which float64 cannot use; use C ≤ {1e300 / max(float(n), 1):.3g}")
    return lam


def C_from_lam(lam: float, n: int) -> float:
    return 1.0 / (float(lam) * int(n))


def hinge_losses(scores: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - y * scores)


def primal_objective(scores, y, w_sqnorm: float, *, lam: float | None = None,
                     C: float | None = None) -> float:
    """The hinge-loss primal objective, in λ-form (give ``lam``) or C-form (give ``C``).

    ``scores`` are f(x_i) = ⟨w, x_i⟩ + b on the training set, ``w_sqnorm`` = ‖w‖².
    """
    if (lam is None) == (C is None):
        raise ValueError("give exactly one of lam or C")
    loss = hinge_losses(np.asarray(scores, dtype=np.float64), np.asarray(y, dtype=np.float64))
    if lam is not None:
        return 0.5 * lam * w_sqnorm + float(loss.mean())
    return 0.5 * w_sqnorm + C * float(loss.sum())


def error_rate(scores, y) -> float:
    """Fraction of points with sign(f(x)) ≠ y (a score of exactly 0 counts as +1, like predict)."""
    scores = np.asarray(scores)
    if scores.size == 0:
        return float("nan")
    pred = np.where(scores >= 0.0, 1.0, -1.0)
    return float(np.mean(pred != np.asarray(y)))
