"""The decision-field figure: f as a small image with the margins and the boundary traced on the
server, the points, the support vectors (sized by |coefficient|) and the mistakes; optionally an
invisible click grid for editing (Plotly, for notebooks and exports; the app's live view draws
:func:`run_frame`). Arrays are float32 and every figure carries a
constant ``uirevision``, so a redraw keeps the user's zoom and does not jump."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._base import CLASS_COLORS, CLASS_NAMES, FIELD_COLORSCALE, f32_array, fast_figure
from .frame import clipped_field, field_frame, margin_lines, point_states
from .plane import View, decision_field
from .raster import data_uri, field_png, level_lines


# per-point outline codes of a class trace: plain, support vector (ringed), misclassified
_RING_COLORS = [[0.0, "#ffffff"], [0.5, "#111111"], [1.0, "#ff9d00"]]


def _class_trace(P, idx, cls, hollow: bool, name: str, legendgroup: str, editing: bool,
                 ring=None, size=None):
    """One class's points. ``ring`` (uint8 per point: 0 plain, 1 support vector, 2 misclassified)
    and ``size`` (uint8 per point) restyle the points in place — a support vector is drawn
    larger with a dark outline, a mistake with an orange one — so a frame sends one byte per
    point for them instead of a second copy of the coordinates."""
    color = CLASS_COLORS[cls]
    if hollow:      # test points: white inside, class-coloured ring
        marker = dict(symbol="circle", size=8, color="white", line=dict(width=2, color=color))
    else:
        marker = dict(symbol="circle", size=7, color=color, line=dict(width=1, color="white"))
        if ring is not None and np.any(ring):
            marker["line"] = dict(width=np.where(ring > 0, 2, 1).astype(np.uint8),
                                  color=np.asarray(ring, dtype=np.uint8), cmin=0, cmax=2,
                                  colorscale=_RING_COLORS)
        if size is not None:
            marker["size"] = np.asarray(size, dtype=np.uint8)
    tr = dict(type="scatter", x=f32_array(P[:, 0]), y=f32_array(P[:, 1]), mode="markers", name=name,
              legendgroup=legendgroup, marker=marker,
              hovertemplate="(%{x:.2f}, %{y:.2f})<extra>" + name + "</extra>")
    if editing:                     # a click on a point says which one it is
        tr["customdata"] = np.asarray(idx, dtype=np.int32)
        tr["unselected"] = dict(marker=dict(opacity=1.0))
        tr["selected"] = dict(marker=dict(opacity=1.0))
    return tr


def _legend_only(name: str, marker: dict, group: str) -> dict:
    """A legend entry for what the class traces draw by restyling (rings, mistakes)."""
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, marker=marker,
                legendgroup=group, hoverinfo="skip")


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
    field, xs, ys : output of :func:`decision_field` on the axes of :func:`svmcore.viz.plane.field_grid`.
    support : training indices of the support vectors (drawn larger, dark outline), optional.
    sv_size : |coefficient| per support vector (same length as ``support``): their sizes scale
        with it; without it all support vectors have one size.
    misclassified : boolean mask over the training points (orange outline), optional.
    X_test, y_test : test points, drawn hollow, optional.
    clip : the colour scale spans [−clip, clip] (values beyond are saturated), so the ±1 margins
        sit in the same colours on every frame.
    click_grid : ``(gx, gy)`` invisible click targets (edit mode, see :func:`edit_grid`); in
        edit mode every point trace carries ``customdata`` = the point's index in [train; test].
    note : a line under the title (e.g. that the field is a slice).

    The field is an image (:func:`~svmcore.viz.raster.field_png`, at most 100 × 100 pixels,
    smoothed by the browser) and the lines f = 0 and f = ±1 are polylines traced here
    (:func:`~svmcore.viz.raster.level_lines`), so the browser neither receives the grid as
    numbers nor recomputes contours: a frame is a few tens of kB and cheap to draw.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    xs, ys, z = clipped_field(field, xs, ys, clip)
    editing = click_grid is not None
    step = max(1, -(-len(xs) // 100))
    zi, xi, yi = z[::step, ::step], xs[::step], ys[::step]
    data = []
    # 1. the field as an image, and a colour bar for it
    data.append(dict(type="image", source=data_uri(field_png(zi, clip)), name="f(x)",
                     x0=float(xi[0]), dx=float(xi[1] - xi[0]) if len(xi) > 1 else 1.0,
                     y0=float(yi[-1]), dy=-float(yi[1] - yi[0]) if len(yi) > 1 else 1.0,
                     zsmooth="fast", hoverinfo="skip"))
    data.append(dict(type="scatter", x=[None], y=[None], mode="markers", showlegend=False,
                     hoverinfo="skip", name="f(x) scale",
                     marker=dict(color=[0.0], cmin=-clip, cmax=clip, colorscale=FIELD_COLORSCALE,
                                 showscale=True, colorbar=dict(
                                     title=dict(text="f(x)"), thickness=12, len=0.75,
                                     tickvals=[-clip, -1, 0, 1, clip]))))
    # 2. the margins f = ±1 (dashed) and the decision boundary f = 0 (solid), traced here
    mx, my = margin_lines(z, xs, ys)
    if mx.size:
        data.append(dict(type="scatter", x=f32_array(mx), y=f32_array(my),
                         mode="lines", name="margins f = ±1", hoverinfo="skip",
                         line=dict(width=1.5, dash="dash", color="rgba(30,30,30,0.85)")))
    bx, by = level_lines(z, xs, ys, 0.0)
    data.append(dict(type="scatter", x=f32_array(bx), y=f32_array(by), mode="lines",
                     name="boundary f = 0", line=dict(color="#111111", width=2.5),
                     hoverinfo="skip", showlegend=True, connectgaps=False))
    # 3. click targets (edit mode only): invisible, but they report their coordinates
    if editing:
        gx, gy = click_grid
        data.append(dict(type="scatter", x=f32_array(gx), y=f32_array(gy), mode="markers",
                         name="click grid", marker=dict(size=9, opacity=0.0, color="#000000"),
                         hoverinfo="none", showlegend=False,
                         unselected=dict(marker=dict(opacity=0.0)),
                         selected=dict(marker=dict(opacity=0.0))))
    # 4. training points, restyled for support vectors (size ∝ √|coefficient|) and mistakes
    n = X.shape[0]
    ring, size = point_states(n, support, sv_size, misclassified)
    for cls in (1, -1):
        m = np.flatnonzero(y == cls)
        if m.size:
            data.append(_class_trace(X[m], m, cls, False, CLASS_NAMES[cls] + " (train)",
                                     f"c{cls}", editing, ring[m], size[m]))
    if X_test is not None and y_test is not None and len(y_test):
        Xt = np.asarray(X_test, dtype=np.float64)
        yt = np.asarray(y_test).ravel()
        for cls in (1, -1):
            m = np.flatnonzero(yt == cls)
            if m.size:
                data.append(_class_trace(Xt[m], n + m, cls, True, CLASS_NAMES[cls] + " (test)",
                                         f"c{cls}", editing))
    if (ring == 1).any() or (ring == 2).any():
        data.append(_legend_only("support vectors", dict(symbol="circle", size=11,
                                 color="#888888", line=dict(width=2, color="#111111")), "sv"))
    if (ring == 2).any():
        data.append(_legend_only("misclassified", dict(symbol="circle", size=9,
                                 color="#888888", line=dict(width=2, color="#ff9d00")), "mis"))
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
    return fast_figure(dict(data=data, layout=layout))


def run_parts(run, view: View, resolution: int, snap, scores=None,
              title: str | None = None) -> dict:
    """What a figure or a live frame of a run's current model shows: the field on the view's
    grid, the support vectors and their |coefficient|, the training mistakes (t > 0 only: the
    zero model classifies nothing), the title and the slice note."""
    solver = run.solver
    xs, ys = view.grid(resolution)
    field = decision_field(solver, xs, ys, None if view.plane.exact else view.plane)
    support = np.asarray(snap.support, dtype=np.int64) if snap.support is not None else None
    sv_size = None
    coef = snap.coef
    if coef is not None and support is not None and len(coef) == len(support):
        sv_size = np.abs(np.asarray(coef, dtype=np.float64))
    mis = None
    if scores is not None and len(scores) == len(view.y_train) and run.t > 0:
        mis = np.where(scores >= 0.0, 1.0, -1.0) != view.y_train
    if support is not None and support.size and support.max() >= view.P_train.shape[0]:
        support, sv_size = None, None           # not training indices: do not draw
    kernel = solver.p.get("kernel", "")
    if title is None:
        title = f"{solver.title or solver.name}{', ' + kernel + ' kernel' if kernel else ''}" \
                f" — t = {run.t:,}"
    note = None if view.plane.exact else (
        "field on the PC1–PC2 plane through the mean (a slice); points projected"
        if view.plane.kind == "pca" else
        "field on a slice, other features at their mean; points projected")
    return dict(field=field, xs=xs, ys=ys, support=support, sv_size=sv_size,
                misclassified=mis, title=title, note=note)


def run_figure(run, view: View, resolution: int, snap, scores=None, title: str | None = None,
               click_grid: bool = False, height: int = 560) -> go.Figure:
    """The boundary figure of a run's current model on ``view`` at ``resolution`` (Plotly: for
    notebooks and exports; the app's live view draws :func:`run_frame`)."""
    p = run_parts(run, view, resolution, snap, scores, title)
    grid = edit_grid(p["xs"], p["ys"], 2 if resolution > 100 else 1) if click_grid else None
    return boundary_figure(view.P_train, view.y_train, p["field"], p["xs"], p["ys"],
                           support=p["support"], sv_size=p["sv_size"],
                           misclassified=p["misclassified"], X_test=view.P_test,
                           y_test=view.y_test, title=p["title"], height=height,
                           xlabel=view.plane.xlabel, ylabel=view.plane.ylabel, click_grid=grid,
                           note=p["note"])


def last_iterate_boundary(solver, view: View, resolution: int, max_points: int = 80):
    """The last iterate's line f = 0 on the view's grid (at most ``max_points`` per axis), as
    NaN-separated ``(x, y)`` arrays, for a solver whose model is an average of its iterates
    (``averaging_active``: SFW/MSFW, ASSET, Pegasos, NORMA, … past the averaging start); None
    when the two models are the same."""
    if not getattr(solver, "averaging_active", False) or getattr(solver, "t", 0) <= 0:
        return None
    from ..solvers.decision_plane import plane_points
    xs, ys = view.grid(min(resolution, max_points))
    plane = view.plane
    pts = plane_points(xs, ys, np.asarray(plane.origin, float), np.asarray(plane.e1, float),
                       np.asarray(plane.e2, float))
    f = np.asarray(solver.decision_function(pts, iterate="last"), dtype=np.float64)
    f = np.nan_to_num(f, nan=0.0, posinf=0.0, neginf=0.0).reshape(len(ys), len(xs))
    return level_lines(f, xs, ys, 0.0)


def run_frame(run, view: View, resolution: int, snap, scores=None, title: str | None = None,
              mode: str = "view", height: int = 520, font: int = 12, marks=(),
              fit: bool = False, shared_legend: bool = False, keep_below: int = 0) -> dict:
    """The live frame (:func:`svmcore.viz.frame.field_frame`) of a run's current model, with
    the last iterate's boundary beside it when the model averages (:func:`last_iterate_boundary`);
    ``shared_legend``, ``keep_below``: see :func:`~svmcore.viz.frame.field_frame`."""
    p = run_parts(run, view, resolution, snap, scores, title)
    last = last_iterate_boundary(run.solver, view, resolution)
    P, y, fade = view.P_train, view.y_train, None
    stream = getattr(run, "stream", None)
    if stream is not None:                   # the recent points of the stream only
        P, y, fade, p, marks = stream_window(run, view, p, marks)
    return {"t": int(run.t)} | field_frame(P, y, p["field"], p["xs"], p["ys"],
                       P_test=view.P_test, y_test=view.y_test, support=p["support"],
                       sv_size=p["sv_size"], misclassified=p["misclassified"],
                       title=p["title"], note=p["note"], xlabel=view.plane.xlabel,
                       ylabel=view.plane.ylabel, height=height, font=font, mode=mode,
                       marks=marks, fit=fit, last=last, shared_legend=shared_legend, fade=fade,
                       keep_below=keep_below)


#: the ring around the newest point of a stream
NEWEST_COLOR = "#00a651"


def stream_window(run, view: View, parts: dict, marks=()):
    """What a stream run's frame shows of its training points: the last ``run.stream.window``
    points fed (oldest first, fading from 0.2 to full opacity), their support-vector rings and
    mistakes, and a ring around the newest one. Returns ``(P, y, fade, parts, marks)``."""
    rows = run.stream.window_rows(run.solver)
    m = rows.size
    fade = np.linspace(0.2, 1.0, m) if m > 1 else np.ones(m)
    p = dict(parts)
    support, sv_size = p["support"], p["sv_size"]
    if support is not None:                  # training indices -> positions in the window
        where = np.full(view.P_train.shape[0], -1, dtype=np.int64)
        where[rows] = np.arange(m)
        at = where[np.asarray(support, dtype=np.int64)]
        keep = at >= 0
        p["support"] = at[keep]
        p["sv_size"] = None if sv_size is None else np.asarray(sv_size)[keep]
    if p["misclassified"] is not None:
        p["misclassified"] = np.asarray(p["misclassified"])[rows]
    what = (f"stream: the last {m:,} points fed, older ones fading; the newest is ringed"
            if m else "stream: no point fed yet — press Play")
    p["note"] = what if not p["note"] else f"{p['note']}; {what}"
    marks = list(marks)
    if m:
        x, z = view.P_train[rows[-1]]
        marks.append({"x": float(x), "y": float(z), "color": NEWEST_COLOR, "r": 8, "width": 2.5,
                      "legend": "newest point"})
    return view.P_train[rows], view.y_train[rows], fade, p, marks
