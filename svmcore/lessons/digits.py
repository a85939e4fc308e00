"""The Digits page's numbers, which draw nothing: which training images are the model's support
(in the order of |α|), which test images it gets wrong, and its weights as an image.

Everything goes through the declared solver interface, with no per-solver code:
``support_coef()`` gives a kernel expansion over training rows (SMO, kernel Pegasos, NORMA,
SFW, CPSP ... and ASSET on Nyström features, whose expansion is over its landmarks), and
``linear_weights()`` the weight vector of a linear model. A linear primal model keeps no α:
its "support" is then the training images on or inside the margin (y·f(x) ≤ 1), the hardest
(smallest margin) first — the images the next subgradient steps are made of.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Support:
    index: np.ndarray        # training rows, in display order
    value: np.ndarray        # |α| (expansion) or y·f(x) (margin), the order's key
    kind: str                # "alpha" or "margin"


def support_in_order(solver, X_train, y_train) -> Support:
    """The model's support as training rows: by |α| from ``support_coef()`` (largest first:
    the examples the model leans on hardest), else the rows with y·f(x) ≤ 1 by margin
    (smallest first). Ties keep row order."""
    n = len(y_train)
    expansion = solver.support_coef()
    if expansion is not None:
        idx, coef, _ = expansion
        idx = np.asarray(idx, dtype=np.int64)
        a = np.abs(np.asarray(coef, dtype=np.float64))
        ok = (idx >= 0) & (idx < n) & (a > 0)
        idx, a = idx[ok], a[ok]
        order = np.lexsort((idx, -a))
        return Support(idx[order], a[order], "alpha")
    margin = np.asarray(y_train, dtype=np.float64) * np.asarray(
        solver.decision_function(X_train), dtype=np.float64)
    idx = np.flatnonzero(margin <= 1.0)
    order = np.lexsort((idx, margin[idx]))
    return Support(idx[order], margin[idx][order], "margin")


def misclassified(solver, X_test, y_test) -> np.ndarray:
    """Test rows the model gets wrong (f(x) = 0 counts as +1), most confidently wrong first."""
    f = np.asarray(solver.decision_function(X_test), dtype=np.float64)
    y = np.asarray(y_test, dtype=np.float64)
    wrong = np.flatnonzero(np.where(f >= 0.0, 1.0, -1.0) != y)
    return wrong[np.argsort(y[wrong] * f[wrong], kind="stable")]


def weight_image(solver) -> np.ndarray | None:
    """The weights of a linear model (one per pixel), or None for a nonlinear one."""
    lw = solver.linear_weights()
    if lw is None:
        return None
    w = np.asarray(lw[0], dtype=np.float64).ravel()
    return w if np.isfinite(w).all() else None
