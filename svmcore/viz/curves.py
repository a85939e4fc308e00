"""Convergence curves of a run (one panel per quantity) and the step-size plot."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._base import f32_array, fast_figure

CURVE_LABELS = {
    "iteration": "iteration t",
    "time": "solver time [s]",
    "kernel_evals": "kernel evaluations",
    "objective": "primal objective",
    "train_error": "train error",
    "test_error": "test error",
    "n_sv": "# support vectors",
    "dual_objective": "dual objective",
    "gap": "duality gap",
}


def _panels(y) -> list[tuple[str, ...]]:
    if isinstance(y, str):
        y = [y]
    return [(p,) if isinstance(p, str) else tuple(p) for p in y]


_CURVE_COLORS = {"objective": "#1f77b4", "train_error": "#2ca02c", "test_error": "#d62728",
                 "n_sv": "#7f4f9f", "dual_objective": "#ff7f0e", "gap": "#8c564b"}


def _axis_name(k: int, letter: str) -> str:
    return letter if k == 0 else f"{letter}{k + 1}"


def curves_figure(trace_columns: Mapping[str, Sequence[float]], x: str = "iteration",
                  y=("objective", ("train_error", "test_error"), "n_sv"),
                  log_x: bool = True, log_y: bool | Sequence[bool] = False, height: int = 280,
                  cols: int | None = None) -> go.Figure:
    """Training curves from :meth:`svmcore.runs.run.TrainingRun.trace_columns`.

    ``y`` lists panels: a column name, or a tuple of names drawn in one panel (e.g. train and
    test error). Columns that are missing or all-NaN are skipped. With ``log_x`` the points with
    x ≤ 0 (the t = 0 row) are left out; with ``log_y`` (one flag, or one per panel)
    non-positive values are. ``height`` is per row of panels.
    """
    if x not in ("iteration", "time", "kernel_evals"):
        raise ValueError(f"x must be 'iteration', 'time' or 'kernel_evals', got {x!r}")
    panels = _panels(y)
    cols = len(panels) if cols is None else max(1, int(cols))
    rows = max(1, -(-len(panels) // cols))
    logs = ([bool(log_y)] * len(panels) if isinstance(log_y, (bool, np.bool_))
            else [bool(v) for v in log_y])
    if len(logs) != len(panels):
        raise ValueError(f"log_y needs one flag per panel ({len(panels)}), got {len(logs)}")
    hs, vs = 0.08, (0.12 if rows > 1 else 0.0)
    w = (1.0 - hs * (cols - 1)) / cols
    h = (1.0 - vs * (rows - 1)) / rows
    xv = np.asarray(trace_columns.get(x, ()), dtype=np.float64)
    data, layout, notes = [], {}, []
    for k, panel in enumerate(panels):
        r, c = k // cols, k % cols
        xa, ya = _axis_name(k, "x"), _axis_name(k, "y")
        x0 = c * (w + hs)
        y1 = 1.0 - r * (h + vs)
        for name in panel:
            if name not in trace_columns or xv.size == 0:
                continue
            yv = np.asarray(trace_columns[name], dtype=np.float64)
            keep = np.isfinite(xv) & np.isfinite(yv)
            if log_x:
                keep &= xv > 0
            if logs[k]:
                keep &= yv > 0
            if not keep.any():
                continue
            label = CURVE_LABELS.get(name, name)
            data.append(dict(
                type="scatter", x=f32_array(xv[keep]), y=f32_array(yv[keep]), mode="lines+markers",
                name=label, xaxis=xa, yaxis=ya,
                line=dict(color=_CURVE_COLORS.get(name), width=2), marker=dict(size=4),
                showlegend=len(panel) > 1,
                hovertemplate="%{y:.4g} at %{x:.4g}<extra>" + label + "</extra>"))
        xaxis = dict(domain=[x0, x0 + w], anchor=ya, type="log" if log_x else "linear",
                     exponentformat="power" if x == "time" else "SI")
        if log_x:
            xaxis["dtick"] = 1
        if k > 0:
            xaxis["matches"] = "x"
        if r == rows - 1 or k + cols >= len(panels):
            xaxis["title"] = dict(text=CURVE_LABELS.get(x, x))
        else:
            xaxis["showticklabels"] = False
        layout["xaxis" if k == 0 else f"xaxis{k + 1}"] = xaxis
        layout["yaxis" if k == 0 else f"yaxis{k + 1}"] = dict(
            domain=[max(0.0, y1 - h), y1], anchor=xa, type="log" if logs[k] else "linear")
        notes.append(dict(text=", ".join(CURVE_LABELS.get(cn, cn) for cn in panel),
                          x=x0 + w / 2, y=y1, xref="paper", yref="paper", xanchor="center",
                          yanchor="bottom", showarrow=False, font=dict(size=13)))
    layout.update(height=height * rows, margin=dict(l=10, r=10, t=40, b=10),
                  uirevision="curves", annotations=notes,
                  legend=dict(orientation="h", y=1.0 + 40 / (height * rows) + 0.02, x=1.0,
                              xanchor="right", yanchor="bottom"))
    return fast_figure(dict(data=data, layout=layout))


def schedule_figure(t, eta, current_t: int | None = None, log: bool = True,
                    height: int = 200, title: str = "step size η_t") -> go.Figure:
    """A step-size schedule η_t against t (log-log by default), optionally marking the current t."""
    t = np.asarray(t, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    keep = np.isfinite(eta) & (t > 0) & ((eta > 0) if log else True)
    data = [dict(type="scatter", x=f32_array(t[keep]), y=f32_array(eta[keep]), mode="lines",
                 line=dict(color="#444444", width=2), name="η_t",
                 hovertemplate="η(%{x:.0f}) = %{y:.3g}<extra></extra>")]
    if current_t is not None and current_t >= 1 and keep.any():
        j = int(np.clip(np.searchsorted(t[keep], current_t), 0, keep.sum() - 1))
        data.append(dict(type="scatter", x=[float(t[keep][j])], y=[float(eta[keep][j])],
                         mode="markers", marker=dict(size=9, color="#d62728"), name="now",
                         hoverinfo="skip"))
    layout = dict(height=height, margin=dict(l=10, r=10, t=30, b=10), showlegend=False,
                  title=dict(text=title, x=0.0, font=dict(size=13)), uirevision="schedule",
                  xaxis=dict(type="log" if log else "linear", title=dict(text="t")),
                  yaxis=dict(type="log" if log else "linear"))
    return fast_figure(dict(data=data, layout=layout))
