"""Figures of a regression run: the fitted function with its ε-tube (1-D inputs), predicted
against true values (more inputs), and the live curves of objective and test RMSE.

Pure functions from arrays to plotly Figures (no streamlit, no solver): the numbers come from
:func:`regression_view`, which a page, a test or a notebook calls with a solver.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._base import _f32, _figure

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


def _points(x, y, outside, hover):
    traces = []
    for mask, name, color, size in ((~outside, "inside the tube", POINT_COLOR, 5),
                                    (outside, "outside the tube (support vectors)", SV_COLOR, 7)):
        traces.append({"type": "scatter", "mode": "markers", "name": f"{name}: {int(mask.sum())}",
                       "x": _f32(x[mask]), "y": _f32(y[mask]), "hovertemplate": hover,
                       "marker": {"color": color, "size": size,
                                  "line": {"width": 1, "color": "white"}}})
    return traces


def fit_figure(v: RegressionView, title: str = "", height: int = 420):
    """1-D inputs: the data, the fitted function f(x) and the tube f ± ε, points outside the
    tube in red. More inputs: f(x_i) against y_i with the band |y − f| < ε around the diagonal."""
    eps = v.epsilon
    if v.grid is not None:
        g, fg = v.grid, v.f_grid
        tube = {"type": "scatter", "x": _f32(np.concatenate([g, g[::-1]])),
                "y": _f32(np.concatenate([fg + eps, (fg - eps)[::-1]])), "fill": "toself",
                "fillcolor": TUBE_COLOR, "line": {"width": 0}, "hoverinfo": "skip",
                "name": f"ε-tube f ± {eps:g}"}
        fit = {"type": "scatter", "mode": "lines", "x": _f32(g), "y": _f32(fg),
               "line": {"color": FIT_COLOR, "width": 2.5}, "name": "fitted f(x)"}
        data = [tube, fit] + _points(v.x_train[:, 0], v.y_train, v.outside,
                                     "x = %{x:.3g}<br>y = %{y:.3g}<extra></extra>")
        axes = {"xaxis": {"title": {"text": "x"}}, "yaxis": {"title": {"text": "y"}}}
    else:
        lo = float(min(v.y_train.min(), v.f_train.min())) - eps
        hi = float(max(v.y_train.max(), v.f_train.max())) + eps
        d = np.array([lo, hi])
        tube = {"type": "scatter", "x": _f32([lo, hi, hi, lo]),
                "y": _f32([lo + eps, hi + eps, hi - eps, lo - eps]), "fill": "toself",
                "fillcolor": TUBE_COLOR, "line": {"width": 0}, "hoverinfo": "skip",
                "name": f"|y − f| < ε = {eps:g}"}
        diag = {"type": "scatter", "mode": "lines", "x": _f32(d), "y": _f32(d),
                "line": {"color": FIT_COLOR, "width": 2}, "name": "y = f(x)"}
        data = [tube, diag] + _points(v.f_train, v.y_train, v.outside,
                                      "f = %{x:.3g}<br>y = %{y:.3g}<extra></extra>")
        axes = {"xaxis": {"title": {"text": "prediction f(x)"}},
                "yaxis": {"title": {"text": "target y"}}}
    layout = {"height": height, "margin": {"l": 50, "r": 10, "t": 40 if title else 10, "b": 40},
              "legend": {"orientation": "h", "y": -0.18}, "template": "plotly_white", **axes}
    if title:
        layout["title"] = {"text": title, "font": {"size": 14}}
    return _figure({"data": data, "layout": layout})


def regression_curves(iteration, objective, test_rmse, svr_rmse: float | None = None,
                      constant_rmse: float | None = None, height: int = 260):
    """Objective and test RMSE against t (log x), side by side; SVR's RMSE at the same C, γ, ε
    and the constant predictor's as horizontal references in the RMSE panel."""
    t = np.asarray(iteration, dtype=np.float64)
    keep = t > 0
    t = t[keep]
    obj = np.asarray(objective, dtype=np.float64)[keep]
    rm = np.asarray(test_rmse, dtype=np.float64)[keep]
    data = [{"type": "scatter", "mode": "lines+markers", "x": _f32(t), "y": _f32(obj),
             "name": "objective", "line": {"color": FIT_COLOR}, "marker": {"size": 4},
             "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "mode": "lines+markers", "x": _f32(t), "y": _f32(rm),
             "name": "test RMSE", "line": {"color": SV_COLOR}, "marker": {"size": 4},
             "xaxis": "x2", "yaxis": "y2"}]
    span = [float(t.min()), float(t.max())] if t.size else [1.0, 10.0]
    for val, name, dash in ((svr_rmse, "SVR (same C, γ, ε)", "dash"),
                            (constant_rmse, "constant predictor", "dot")):
        if val is not None and np.isfinite(val):
            data.append({"type": "scatter", "mode": "lines", "x": _f32(span),
                         "y": _f32([val, val]), "name": f"{name}: {val:.3g}",
                         "line": {"color": "#444444", "dash": dash, "width": 1.5},
                         "xaxis": "x2", "yaxis": "y2"})
    layout = {"height": height, "template": "plotly_white",
              "margin": {"l": 50, "r": 10, "t": 30, "b": 40},
              "legend": {"orientation": "h", "y": -0.3},
              "xaxis": {"type": "log", "domain": [0.0, 0.46], "title": {"text": "iteration t"}},
              "yaxis": {"title": {"text": "primal objective"}},
              "xaxis2": {"type": "log", "domain": [0.54, 1.0], "title": {"text": "iteration t"},
                         "anchor": "y2"},
              "yaxis2": {"title": {"text": "test RMSE"}, "anchor": "x2", "rangemode": "tozero"}}
    return _figure({"data": data, "layout": layout})
