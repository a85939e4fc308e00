"""The decision-field figure: f as one ``go.Contour(coloring="heatmap")`` with the margins and
the boundary, the points, the support vectors (rings sized by |coefficient|) and the mistakes;
optionally an invisible click grid for editing. Arrays are float32 and every figure carries a
constant ``uirevision``, so a redraw keeps the user's zoom and does not jump."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._base import CLASS_COLORS, CLASS_NAMES, FIELD_COLORSCALE, _f32, _figure
from .plane import View, decision_field, zero_contour


def _class_trace(P, idx, cls, hollow: bool, name: str, legendgroup: str, keep_opacity: bool):
    color = CLASS_COLORS[cls]
    if hollow:      # test points: white inside, class-coloured ring
        marker = dict(symbol="circle", size=8, color="white", line=dict(width=2, color=color))
    else:
        marker = dict(symbol="circle", size=7, color=color, line=dict(width=1, color="white"))
    tr = dict(type="scatter", x=_f32(P[:, 0]), y=_f32(P[:, 1]), mode="markers", name=name,
              legendgroup=legendgroup, marker=marker, customdata=np.asarray(idx, dtype=np.int32),
              hovertemplate="(%{x:.2f}, %{y:.2f})<extra>" + name + "</extra>")
    if keep_opacity:
        tr["unselected"] = dict(marker=dict(opacity=1.0))
        tr["selected"] = dict(marker=dict(opacity=1.0))
    return tr


def edit_grid(xs, ys, step: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The invisible click targets of the edit mode: every ``step``-th grid node."""
    gx, gy = np.meshgrid(np.asarray(xs)[::step], np.asarray(ys)[::step])
    return gx.ravel(), gy.ravel()


def boundary_figure(X, y, field, xs, ys, support=None, sv_size=None, misclassified=None,
                    X_test=None, y_test=None, title: str = "decision function f(x)",
                    clip: float = 2.0, height: int = 560, xlabel: str | None = None,
                    ylabel: str | None = None, click_grid: tuple | None = None,
                    note: str | None = None) -> go.Figure:
    """The decision field with boundary, margins, points, support vectors and mistakes.

    Parameters
    ----------
    X, y : training points (n, 2) in plane coordinates and labels in {−1, +1}.
    field, xs, ys : output of :func:`decision_field` on the axes of :func:`field_grid`.
    support : training indices of the support vectors (ringed), optional.
    sv_size : |coefficient| per support vector (same length as ``support``): ring sizes scale
        with it; without it all rings have one size.
    misclassified : boolean mask over the training points (marked with a cross), optional.
    X_test, y_test : test points, drawn hollow, optional.
    clip : the colour scale spans [−clip, clip] (values beyond are saturated), so the ±1 margins
        sit in the same colours on every frame.
    click_grid : ``(gx, gy)`` invisible click targets (edit mode, see :func:`edit_grid`).
    note : a line under the title (e.g. that the field is a slice).

    Every point trace carries ``customdata`` = the point's index in [train; test], so a click
    on a point (edit mode) says which one it is.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    z = np.clip(np.nan_to_num(np.asarray(field, dtype=np.float64), nan=0.0, posinf=clip,
                              neginf=-clip), -clip, clip)
    if z.shape != (len(ys), len(xs)):
        raise ValueError(f"field has shape {z.shape}, expected {(len(ys), len(xs))}")
    editing = click_grid is not None
    data = []
    # 1. the field (heatmap colouring) with dashed lines on the margins f = ±1: the only grid
    data.append(dict(
        type="contour", x=_f32(xs), y=_f32(ys), z=_f32(z), name="f(x)",
        colorscale=FIELD_COLORSCALE, zmin=-clip, zmax=clip, autocontour=False,
        contours=dict(start=-1.0, end=1.0, size=2.0, coloring="heatmap", showlines=True),
        line=dict(width=1.5, dash="dash", color="rgba(30,30,30,0.85)"),
        colorbar=dict(title=dict(text="f(x)"), thickness=12, len=0.75,
                      tickvals=[-clip, -1, 0, 1, clip]),
        hovertemplate="f(%{x:.2f}, %{y:.2f}) = %{z:.3f}<extra></extra>",
        hoverinfo="skip" if editing else None, showlegend=False))
    if editing:
        data[0].pop("hovertemplate")
    else:
        data[0].pop("hoverinfo")
    # 2. the decision boundary f = 0, solid, from the same field
    bx, by = zero_contour(z, xs, ys)
    data.append(dict(type="scatter", x=_f32(bx), y=_f32(by), mode="lines",
                     name="boundary f = 0", line=dict(color="#111111", width=2.5),
                     hoverinfo="skip", showlegend=True, connectgaps=False))
    # 3. click targets (edit mode only): invisible, but they report their coordinates
    if editing:
        gx, gy = click_grid
        data.append(dict(type="scatter", x=_f32(gx), y=_f32(gy), mode="markers",
                         name="click grid", marker=dict(size=9, opacity=0.0, color="#000000"),
                         hoverinfo="none", showlegend=False,
                         unselected=dict(marker=dict(opacity=0.0)),
                         selected=dict(marker=dict(opacity=0.0))))
    # 4. points
    n = X.shape[0]
    for cls in (1, -1):
        m = np.flatnonzero(y == cls)
        if m.size:
            data.append(_class_trace(X[m], m, cls, False, CLASS_NAMES[cls] + " (train)",
                                     f"c{cls}", editing))
    if X_test is not None and y_test is not None and len(y_test):
        Xt = np.asarray(X_test, dtype=np.float64)
        yt = np.asarray(y_test).ravel()
        for cls in (1, -1):
            m = np.flatnonzero(yt == cls)
            if m.size:
                data.append(_class_trace(Xt[m], n + m, cls, True, CLASS_NAMES[cls] + " (test)",
                                         f"c{cls}", editing))
    # 5. support vectors: rings sized by |coefficient|
    if support is not None and len(support):
        support = np.asarray(support, dtype=np.int64)
        S = X[support]
        if sv_size is not None and len(sv_size) == len(support):
            w = np.abs(np.nan_to_num(np.asarray(sv_size, dtype=np.float64)))
            top = w.max() if w.size and w.max() > 0 else 1.0
            sizes = 9.0 + 13.0 * np.sqrt(w / top)
        else:
            sizes = np.full(len(support), 13.0)
        data.append(dict(
            type="scatter", x=_f32(S[:, 0]), y=_f32(S[:, 1]), mode="markers",
            name="support vectors", hoverinfo="skip" if editing else None,
            marker=dict(symbol="circle-open", size=_f32(sizes), color="#111111",
                        line=dict(width=1.6, color="#111111")),
            hovertemplate=None if editing else "SV (%{x:.2f}, %{y:.2f})<extra></extra>"))
    # 6. training mistakes
    if misclassified is not None:
        mask = np.asarray(misclassified, dtype=bool)
        if mask.shape[0] == X.shape[0] and mask.any():
            M = X[mask]
            data.append(dict(
                type="scatter", x=_f32(M[:, 0]), y=_f32(M[:, 1]), mode="markers",
                name="misclassified", hoverinfo="skip" if editing else None,
                marker=dict(symbol="x-thin", size=11, line=dict(width=2.2, color="#ffb000")),
                hovertemplate=None if editing else
                "misclassified (%{x:.2f}, %{y:.2f})<extra></extra>"))
    for tr in data:
        for k in [k for k, v in tr.items() if v is None]:
            del tr[k]
    text = title if not note else f"{title}<br><sup>{note}</sup>"
    layout = dict(
        title=dict(text=text, x=0.0, xanchor="left"),
        height=height, margin=dict(l=10, r=10, t=60 if note else 40, b=10),
        uirevision="boundary",
        legend=dict(orientation="h", yanchor="top", y=-0.08, x=0.0, itemsizing="constant"),
        plot_bgcolor="white",
        xaxis=dict(range=[float(xs[0]), float(xs[-1])], autorange=False, showgrid=False,
                   zeroline=False, constrain="domain", title=dict(text=xlabel or "")),
        yaxis=dict(range=[float(ys[0]), float(ys[-1])], autorange=False, showgrid=False,
                   zeroline=False, scaleanchor="x", scaleratio=1.0, constrain="domain",
                   title=dict(text=ylabel or "")),
    )
    if editing:
        layout.update(dragmode=False, hovermode="closest", clickmode="event+select")
    return _figure(dict(data=data, layout=layout))


def run_figure(run, view: View, resolution: int, snap, scores=None, title: str | None = None,
               click_grid: bool = False, height: int = 560) -> go.Figure:
    """The boundary figure of a run's current model on ``view`` at ``resolution``."""
    solver = run.solver
    xs, ys = view.grid(resolution)
    field = decision_field(solver, xs, ys, None if view.plane.exact else view.plane)
    support = np.asarray(snap.support, dtype=np.int64) if snap.support is not None else None
    sv_size = None
    coef = snap.coef
    if coef is not None and support is not None and len(coef) == len(support):
        sv_size = np.abs(np.asarray(coef, dtype=np.float64))
    mis = None
    if scores is not None and len(scores) == len(view.y_train):
        mis = np.where(scores >= 0.0, 1.0, -1.0) != view.y_train
    if support is not None and support.size and support.max() >= view.P_train.shape[0]:
        support, sv_size = None, None           # not training indices: do not draw
    kernel = solver.p.get("kernel", "")
    if title is None:
        title = f"{solver.title or solver.name}{', ' + kernel + ' kernel' if kernel else ''}" \
                f" — t = {run.t:,}"
    grid = edit_grid(xs, ys, 2 if resolution > 100 else 1) if click_grid else None
    return boundary_figure(view.P_train, view.y_train, field, xs, ys, support=support,
                           sv_size=sv_size, misclassified=mis, X_test=view.P_test,
                           y_test=view.y_test, title=title, height=height,
                           xlabel=view.plane.xlabel, ylabel=view.plane.ylabel, click_grid=grid,
                           note=None if view.plane.exact else
                           ("field on the PC1–PC2 plane through the mean (a slice); points "
                            "projected" if view.plane.kind == "pca" else
                            "field on a slice, other features at their mean; points projected"))
