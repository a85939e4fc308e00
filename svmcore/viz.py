"""Figures for the pages: pure functions from arrays (and a solver) to plotly Figures.

No streamlit here, so every function is unit-testable and usable from a notebook.

* :func:`field_grid` — the plotting grid, fixed by the data (not by the model), so the field keeps
  its place while a run is animated.
* :func:`decision_field` — the solver's decision function on that grid (float32).
* :func:`boundary_figure` — field as one ``go.Contour(coloring="heatmap")`` with dashed margin
  lines at ±1, a solid boundary at 0, the points, the support vectors and the mistakes.
* :func:`curves_figure` — trace columns of a :class:`svmcore.run.TrainingRun` against iterations,
  time or kernel evaluations, one panel per quantity (or group of quantities).
* :func:`schedule_figure` — a step-size schedule η_t.

Arrays are sent to the browser as float32 (plotly ships numpy arrays as typed binary buffers) and
every figure carries a constant ``uirevision``, so a redraw keeps the user's zoom and does not jump.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

# Diverging scale for f(x), light so that the points stay readable on it: red for the −1 side,
# white at 0, blue for the +1 side (ColorBrewer RdBu, inner shades).
FIELD_COLORSCALE = [
    [0.0, "#d6604d"], [0.25, "#f4a582"], [0.4, "#fbe3d6"], [0.5, "#f7f7f7"],
    [0.6, "#dceaf3"], [0.75, "#92c5de"], [1.0, "#4393c3"],
]
CLASS_COLORS = {1: "#053061", -1: "#67001f"}       # points: +1 dark blue, −1 dark red
CLASS_NAMES = {1: "class +1", -1: "class −1"}

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

_F32 = np.float32


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=_F32)


# --------------------------------------------------------------------------------------- field


def field_grid(X, resolution: int = 100, pad: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Grid axes ``(xs, ys)`` over the bounding box of the 2-D points ``X``, widened on each side
    by ``pad`` times the box's larger side (a square-ish margin), ``resolution`` points per axis.

    The grid depends only on the data, so it stays put while a model trains on it.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"field_grid needs 2-D points of shape (n, 2), got {X.shape}")
    if X.shape[0] == 0 or not np.all(np.isfinite(X)):
        raise ValueError("field_grid needs at least one finite point")
    resolution = int(resolution)
    if resolution < 2:
        raise ValueError(f"resolution must be ≥ 2, got {resolution}")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
    m = pad * span
    if span <= 1e-9:                       # all points on one spot: a unit box around it
        m = 1.0
    xs = np.linspace(lo[0] - m, hi[0] + m, resolution)
    ys = np.linspace(lo[1] - m, hi[1] + m, resolution)
    return xs, ys


def decision_field(solver, xs, ys) -> np.ndarray:
    """``solver.decision_function`` on the grid ``xs × ys``: float32 array of shape
    ``(len(ys), len(xs))`` (row = y, as plotly's ``z`` expects). Non-finite values (a diverged
    model) become 0 so that the figure still draws."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    G = np.ascontiguousarray(np.column_stack([gx.ravel(), gy.ravel()]))
    f = np.asarray(solver.decision_function(G), dtype=np.float64).reshape(len(ys), len(xs))
    return np.nan_to_num(f, nan=0.0, posinf=0.0, neginf=0.0).astype(_F32)


def _class_trace(X, y, cls, hollow: bool, name: str, legendgroup: str) -> go.Scatter:
    P = X[y == cls]
    color = CLASS_COLORS[cls]
    if hollow:      # test points: white inside, class-coloured ring
        marker = dict(symbol="circle", size=8, color="white", line=dict(width=2, color=color))
    else:
        marker = dict(symbol="circle", size=7, color=color, line=dict(width=1, color="white"))
    return go.Scatter(x=_f32(P[:, 0]), y=_f32(P[:, 1]), mode="markers", name=name,
                      legendgroup=legendgroup, marker=marker,
                      hovertemplate="(%{x:.2f}, %{y:.2f})<extra>" + name + "</extra>")


def boundary_figure(X, y, field, xs, ys, support=None, sv_size=None, misclassified=None,
                    X_test=None, y_test=None, title: str = "decision function f(x)",
                    clip: float = 2.0, height: int = 560) -> go.Figure:
    """The decision field with boundary, margins, points, support vectors and mistakes.

    Parameters
    ----------
    X, y : training points (n, 2) and labels in {−1, +1}.
    field, xs, ys : output of :func:`decision_field` on the axes of :func:`field_grid`.
    support : training indices of the support vectors (ringed), optional.
    sv_size : |coefficient| per support vector (same length as ``support``): ring sizes scale
        with it; without it all rings have one size.
    misclassified : boolean mask over the training points (marked with a cross), optional.
    X_test, y_test : test points, drawn hollow, optional.
    clip : the colour scale spans [−clip, clip] (values beyond are saturated), so the ±1 margins
        sit in the same colours on every frame.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    z = np.clip(np.nan_to_num(np.asarray(field, dtype=np.float64), nan=0.0, posinf=clip,
                              neginf=-clip), -clip, clip)
    if z.shape != (len(ys), len(xs)):
        raise ValueError(f"field has shape {z.shape}, expected {(len(ys), len(xs))}")
    z32 = _f32(z)
    x32, y32 = _f32(xs), _f32(ys)
    fig = go.Figure()
    # 1. the field (heatmap colouring) with dashed lines on the margins f = ±1
    fig.add_trace(go.Contour(
        x=x32, y=y32, z=z32, name="f(x)", colorscale=FIELD_COLORSCALE,
        zmin=-clip, zmax=clip, autocontour=False,
        contours=dict(start=-1.0, end=1.0, size=2.0, coloring="heatmap", showlines=True),
        line=dict(width=1.5, dash="dash", color="rgba(30,30,30,0.85)"),
        colorbar=dict(title=dict(text="f(x)"), thickness=12, len=0.75,
                      tickvals=[-clip, -1, 0, 1, clip]),
        hovertemplate="f(%{x:.2f}, %{y:.2f}) = %{z:.3f}<extra></extra>",
        showlegend=False,
    ))
    # 2. the decision boundary f = 0, solid
    fig.add_trace(go.Contour(
        x=x32, y=y32, z=z32, name="boundary f = 0", autocontour=False,
        contours=dict(start=0.0, end=0.0, size=1.0, coloring="lines", showlines=True),
        colorscale=[[0.0, "#111111"], [1.0, "#111111"]], showscale=False,
        line=dict(width=2.5), hoverinfo="skip", showlegend=False,
    ))
    # 3. points
    for cls in (1, -1):
        if np.any(y == cls):
            fig.add_trace(_class_trace(X, y, cls, False, CLASS_NAMES[cls] + " (train)",
                                       f"c{cls}"))
    if X_test is not None and y_test is not None and len(y_test):
        Xt = np.asarray(X_test, dtype=np.float64)
        yt = np.asarray(y_test).ravel()
        for cls in (1, -1):
            if np.any(yt == cls):
                fig.add_trace(_class_trace(Xt, yt, cls, True, CLASS_NAMES[cls] + " (test)",
                                           f"c{cls}"))
    # 4. support vectors: rings sized by |coefficient|
    if support is not None and len(support):
        support = np.asarray(support, dtype=np.int64)
        S = X[support]
        if sv_size is not None and len(sv_size) == len(support):
            w = np.abs(np.nan_to_num(np.asarray(sv_size, dtype=np.float64)))
            top = w.max() if w.size and w.max() > 0 else 1.0
            sizes = 9.0 + 13.0 * np.sqrt(w / top)
        else:
            sizes = np.full(len(support), 13.0)
        fig.add_trace(go.Scatter(
            x=_f32(S[:, 0]), y=_f32(S[:, 1]), mode="markers", name="support vectors",
            marker=dict(symbol="circle-open", size=_f32(sizes), color="#111111",
                        line=dict(width=1.6, color="#111111")),
            hovertemplate="SV (%{x:.2f}, %{y:.2f})<extra></extra>",
        ))
    # 5. training mistakes
    if misclassified is not None:
        mask = np.asarray(misclassified, dtype=bool)
        if mask.shape[0] == X.shape[0] and mask.any():
            M = X[mask]
            fig.add_trace(go.Scatter(
                x=_f32(M[:, 0]), y=_f32(M[:, 1]), mode="markers", name="misclassified",
                marker=dict(symbol="x-thin", size=11, line=dict(width=2.2, color="#ffb000")),
                hovertemplate="misclassified (%{x:.2f}, %{y:.2f})<extra></extra>",
            ))
    fig.update_layout(
        title=dict(text=title, x=0.0, xanchor="left"),
        height=height, margin=dict(l=10, r=10, t=40, b=10),
        uirevision="boundary",
        legend=dict(orientation="h", yanchor="top", y=-0.08, x=0.0, itemsizing="constant"),
        plot_bgcolor="white",
    )
    fig.update_xaxes(range=[float(xs[0]), float(xs[-1])], autorange=False, showgrid=False,
                     zeroline=False, constrain="domain")
    fig.update_yaxes(range=[float(ys[0]), float(ys[-1])], autorange=False, showgrid=False,
                     zeroline=False, scaleanchor="x", scaleratio=1.0, constrain="domain")
    return fig


# -------------------------------------------------------------------------------------- curves


def _panels(y) -> list[tuple[str, ...]]:
    if isinstance(y, str):
        y = [y]
    return [(p,) if isinstance(p, str) else tuple(p) for p in y]


_CURVE_COLORS = {"objective": "#1f77b4", "train_error": "#2ca02c", "test_error": "#d62728",
                 "n_sv": "#7f4f9f", "dual_objective": "#ff7f0e", "gap": "#8c564b"}


def curves_figure(trace_columns: Mapping[str, Sequence[float]], x: str = "iteration",
                  y=("objective", ("train_error", "test_error"), "n_sv"),
                  log_x: bool = True, log_y: bool = False, height: int = 280,
                  cols: int | None = None) -> go.Figure:
    """Training curves from :meth:`TrainingRun.trace_columns`.

    ``y`` lists panels: a column name, or a tuple of names drawn in one panel (e.g. train and
    test error). Columns that are missing or all-NaN are skipped. With ``log_x`` the points with
    x ≤ 0 (the t = 0 row) are left out; with ``log_y`` non-positive values are.
    """
    if x not in ("iteration", "time", "kernel_evals"):
        raise ValueError(f"x must be 'iteration', 'time' or 'kernel_evals', got {x!r}")
    panels = _panels(y)
    cols = len(panels) if cols is None else int(cols)
    rows = -(-len(panels) // cols)
    titles = [", ".join(CURVE_LABELS.get(c, c) for c in p) for p in panels]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, shared_xaxes=True,
                        horizontal_spacing=0.08, vertical_spacing=0.12 if rows > 1 else 0.0)
    xv = np.asarray(trace_columns.get(x, ()), dtype=np.float64)
    for k, panel in enumerate(panels):
        r, c = k // cols + 1, k % cols + 1
        for name in panel:
            if name not in trace_columns or xv.size == 0:
                continue
            yv = np.asarray(trace_columns[name], dtype=np.float64)
            keep = np.isfinite(xv) & np.isfinite(yv)
            if log_x:
                keep &= xv > 0
            if log_y:
                keep &= yv > 0
            if not keep.any():
                continue
            fig.add_trace(go.Scatter(
                x=_f32(xv[keep]), y=_f32(yv[keep]), mode="lines+markers",
                name=CURVE_LABELS.get(name, name), line=dict(color=_CURVE_COLORS.get(name), width=2),
                marker=dict(size=4), showlegend=len(panel) > 1,
                hovertemplate="%{y:.4g} at %{x:.4g}<extra>" + CURVE_LABELS.get(name, name) + "</extra>",
            ), row=r, col=c)
        fig.update_xaxes(type="log" if log_x else "linear", dtick=1 if log_x else None,
                         exponentformat="power" if x == "time" else "SI", row=r, col=c,
                         title_text=CURVE_LABELS.get(x, x) if r == rows else None)
        fig.update_yaxes(type="log" if log_y else "linear", row=r, col=c)
    fig.update_layout(height=height * rows, margin=dict(l=10, r=10, t=40, b=10),
                      uirevision="curves", legend=dict(orientation="h", y=1.18, x=1.0,
                                                        xanchor="right"))
    fig.update_annotations(font_size=13)
    return fig


def schedule_figure(t, eta, current_t: int | None = None, log: bool = True,
                    height: int = 200, title: str = "step size η_t") -> go.Figure:
    """A step-size schedule η_t against t (log-log by default), optionally marking the current t."""
    t = np.asarray(t, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    keep = np.isfinite(eta) & (t > 0) & ((eta > 0) if log else True)
    fig = go.Figure(go.Scatter(x=_f32(t[keep]), y=_f32(eta[keep]), mode="lines",
                               line=dict(color="#444444", width=2), name="η_t",
                               hovertemplate="η(%{x:.0f}) = %{y:.3g}<extra></extra>"))
    if current_t is not None and current_t >= 1 and keep.any():
        j = int(np.clip(np.searchsorted(t[keep], current_t), 0, keep.sum() - 1))
        fig.add_trace(go.Scatter(x=[float(t[keep][j])], y=[float(eta[keep][j])], mode="markers",
                                 marker=dict(size=9, color="#d62728"), name="now",
                                 hoverinfo="skip"))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10), showlegend=False,
                      title=dict(text=title, x=0.0, font=dict(size=13)), uirevision="schedule")
    fig.update_xaxes(type="log" if log else "linear", title_text="t")
    fig.update_yaxes(type="log" if log else "linear")
    return fig
