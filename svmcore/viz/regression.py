"""Figures of a regression run: the fitted function with its ε-tube (1-D inputs), predicted
against true values (more inputs), and the live curves of objective and test RMSE.

Pure functions from arrays to frames of the app's live canvas view (:mod:`svmcore.viz.frame`;
no streamlit, no solver): the numbers come from
:func:`regression_view`, which a page, a test or a notebook calls with a solver.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .frame import curves_frame, series

TUBE_COLOR = "rgba(31, 119, 180, 0.15)"
FIT_COLOR = "#1f77b4"
POINT_COLOR = "#555555"
SV_COLOR = "#d62728"


class RegressionView(NamedTuple):
    """What the figure of a regression model shows, as arrays."""
    x_train: np.ndarray          # (n, d) training inputs
    y_train: np.ndarray
    f_train: np.ndarray          # the model's values at the training inputs
    outside: np.ndarray          # bool: |y − f| ≥ ε, the support vectors of SVR
    epsilon: float
    grid: np.ndarray | None      # 1-D inputs: x values of the curve, else None
    f_grid: np.ndarray | None


def regression_view(solver, X, y, epsilon: float, n_grid: int = 300) -> RegressionView:
    """Values of ``solver``'s current model on the training set and, for one input feature, on
    a grid spanning the data (5 % margin). ``outside`` marks the points on or outside the ε-tube
    (|y − f| ≥ ε): they carry the loss and are SVR's support vectors."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    f = np.asarray(solver.decision_function(X), dtype=np.float64)
    grid = fg = None
    if X.shape[1] == 1:
        lo, hi = float(X[:, 0].min()), float(X[:, 0].max())
        pad = 0.05 * (hi - lo or 1.0)
        grid = np.linspace(lo - pad, hi + pad, int(n_grid))
        fg = np.asarray(solver.decision_function(grid[:, None]), dtype=np.float64)
    return RegressionView(X, y, f, np.abs(y - f) >= float(epsilon), float(epsilon), grid, fg)


def _points(x, y, outside) -> tuple[list[dict], list[dict]]:
    """The training points as two marker series (inside the tube, outside it) and their
    legend entries."""
    out, legend = [], []
    for mask, name, color, r in ((~outside, "inside the tube", POINT_COLOR, 2.6),
                                 (outside, "outside the tube (support vectors)", SV_COLOR, 3.6)):
        label = f"{name}: {int(mask.sum())}"
        out.append({**series(x[mask], y[mask], label, color), "line": False, "r": r,
                    "stroke": "white"})
        legend.append({"name": label, "color": color, "r": r + 1})
    return out, legend


def _band(x, y, name: str) -> dict:
    """A closed polygon filled with the tube's colour (no outline, no markers)."""
    return {**series(x, y, name, TUBE_COLOR), "fill": TUBE_COLOR, "line": False,
            "dots": False}


def fit_frame(v: RegressionView, title: str = "", height: int = 420, font: int = 12) -> dict:
    """1-D inputs: the data, the fitted function f(x) and the tube f ± ε, points outside the
    tube in red. More inputs: f(x_i) against y_i with the band |y − f| < ε around the diagonal.
    A frame of the live canvas view (:mod:`svmcore.viz.frame`, linear axes): a Plotly chart
    would be re-created by the browser on every frame of a playing run."""
    eps = v.epsilon
    if v.grid is not None:
        g, fg = v.grid, v.f_grid
        band = _band(np.concatenate([g, g[::-1]]), np.concatenate([fg + eps, (fg - eps)[::-1]]),
                     f"ε-tube f ± {eps:g}")
        line = {**series(g, fg, "fitted f(x)", FIT_COLOR), "dots": False, "width": 2.5}
        points, legend = _points(v.x_train[:, 0], v.y_train, v.outside)
        x_title, panel = "x", "y"
    else:
        lo = float(min(v.y_train.min(), v.f_train.min())) - eps
        hi = float(max(v.y_train.max(), v.f_train.max())) + eps
        band = _band([lo, hi, hi, lo], [lo + eps, hi + eps, hi - eps, lo - eps],
                     f"|y − f| < ε = {eps:g}")
        line = {**series([lo, hi], [lo, hi], "y = f(x)", FIT_COLOR), "dots": False}
        points, legend = _points(v.f_train, v.y_train, v.outside)
        x_title, panel = "prediction f(x)", "target y"
    legend = [{"name": band["name"], "color": TUBE_COLOR, "fill": TUBE_COLOR, "stroke": FIT_COLOR,
               "sw": 0.5, "r": 6},
              {"name": line["name"], "color": FIT_COLOR, "line": True, "width": 2.5}] + legend
    return curves_frame([{"title": panel, "log_y": False, "percent": False,
                          "series": [band, line] + points}],
                        x=x_title, log_x=False, height=height, font=font, title=title,
                        legend=legend)


def regression_curves_frame(iteration, objective, test_rmse, svr_rmse: float | None = None,
                            constant_rmse: float | None = None, height: int = 260,
                            font: int = 12) -> dict:
    """Objective and test RMSE against t (log x), one above the other (the page's right column
    is ~2/5 of the width: side by side, each panel was ~120 px wide at 1280 px); SVR's RMSE at
    the same C, γ, ε and the constant predictor's as horizontal references in the RMSE panel
    (a frame of the live canvas view)."""
    t = np.asarray(iteration, dtype=np.float64)
    keep = t > 0
    t = t[keep]
    obj = np.asarray(objective, dtype=np.float64)[keep]
    rm = np.asarray(test_rmse, dtype=np.float64)[keep]
    rmse = [series(t, rm, "test RMSE", SV_COLOR)]
    legend = []
    for val, name, color in ((svr_rmse, "SVR (same C, γ, ε)", "#444444"),
                             (constant_rmse, "constant predictor", "#999999")):
        if val is not None and np.isfinite(val):       # dashed horizontal references
            # one point per trace row: a keyframe that shows the trace up to its t cuts the
            # references there too (a replay holds the whole trace in one frame)
            label = f"{name}: {val:.3g}"
            rmse.append({**series(t, np.full(t.shape, val), label, color, dash=True),
                         "dots": False, "width": 1.5})
            legend.append({"name": label, "color": color, "line": True, "dash": True,
                           "width": 1.5})
    panels = [{"title": "primal objective", "log_y": False, "percent": False,
               "series": [series(t, obj, "objective", FIT_COLOR)]},
              {"title": "test RMSE", "log_y": False, "percent": False, "series": rmse}]
    return curves_frame(panels, x="iteration", log_x=True, height=height, font=font, cols=1,
                        legend=legend)
