"""Figures for the pages: pure functions from arrays (and a solver) to plotly Figures.

No streamlit here, so every function is unit-testable and usable from a notebook.

* :class:`Plane` / :func:`view_plane` — the 2-D view of the data: the data plane itself for 2-D
  data; for more features the PCA plane (or two chosen features) through the training mean, on
  which the field is a *slice* and the points are *projections* (the figure says so).
* :func:`field_grid` — the plotting grid, fixed by the data (not by the model), so the field keeps
  its place while a run is animated.
* :func:`decision_field` — the solver's decision function on that grid (float32), via
  :func:`svmcore.field.decision_on_plane` (the RBF field as one matrix product).
* :func:`zero_contour` — the line f = 0 of a field (marching squares), drawn as a line trace so
  the grid is sent to the browser once.
* :func:`boundary_figure` — the field as ONE ``go.Contour(coloring="heatmap")`` with dashed
  margin lines at ±1, the boundary f = 0 as a solid line, the points, the support vectors (rings
  sized by |coefficient|) and the mistakes; optionally an invisible click grid for editing.
* :func:`curves_figure` — trace columns of a :class:`svmcore.run.TrainingRun` against iterations,
  time or kernel evaluations, one panel per quantity (or group of quantities).
* :func:`schedule_figure` — a step-size schedule η_t.

Figures are built in one go from plain dicts (``go.Figure(dict)``): plotly's per-call validation
in ``add_trace``/``update_layout`` costs tens of milliseconds per live frame. Arrays are float32
(plotly ships numpy arrays as typed binary buffers) and every figure carries a constant
``uirevision``, so a redraw keeps the user's zoom and does not jump.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import scipy.sparse as sp

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


def _figure(spec: dict) -> go.Figure:
    """A Figure from a dict we built ourselves, without plotly's per-property validation
    (≈ 20 ms for a field figure with a few thousand points, ≈ 1 ms without)."""
    try:
        return go.Figure(spec, _validate=False)
    except TypeError:                       # a plotly without the private switch
        return go.Figure(spec)


_BLAS = None


def _one_blas_thread():
    """A context that runs BLAS on one thread: the field's small matrix product is ~20× slower
    with OpenBLAS's threads on a loaded 2-core server (they spin against the solvers and the
    other sessions)."""
    global _BLAS
    try:
        if _BLAS is None:
            from threadpoolctl import ThreadpoolController
            _BLAS = ThreadpoolController()
        return _BLAS.limit(limits=1, user_api="blas")
    except Exception:  # noqa: BLE001 - threadpoolctl missing or failing: run as is
        import contextlib
        return contextlib.nullcontext()


# --------------------------------------------------------------------------------------- plane


@dataclass(frozen=True)
class Plane:
    """A plane x(u, v) = origin + u·e1 + v·e2 in feature space, with axis labels.

    ``kind`` is ``"data"`` (2-D data: the plane is the data space, nothing hidden), ``"pca"``
    (the two leading principal axes through the training mean) or ``"features"`` (two chosen
    feature axes; the other features are held at their training mean).
    """

    origin: np.ndarray
    e1: np.ndarray
    e2: np.ndarray
    xlabel: str
    ylabel: str
    kind: str = "data"
    explained: tuple | None = None        # PCA: fraction of the variance along e1, e2

    @property
    def exact(self) -> bool:
        """True when the plane is the whole feature space (2-D data)."""
        return self.kind == "data"

    def project(self, X) -> np.ndarray:
        """Coordinates (u, v) of the rows of X on the plane (orthogonal projection)."""
        E = np.column_stack([self.e1, self.e2])
        if sp.issparse(X):
            P = np.asarray(X @ E)
        else:
            P = np.asarray(X, dtype=np.float64) @ E
        return np.ascontiguousarray(P - self.origin @ E)

    def describe(self) -> str:
        """One honest sentence for the page."""
        if self.kind == "data":
            return ""
        if self.kind == "pca":
            ev = ""
            if self.explained is not None:
                ev = (f" (they carry {100 * self.explained[0]:.0f} % and "
                      f"{100 * self.explained[1]:.0f} % of the variance)")
            return ("Projection: the points are projected onto the plane of the first two "
                    f"principal components through the training mean{ev}. The colours show f on "
                    "that plane — a slice, not f at the points; the crosses use each point's "
                    "own f(x).")
        return (f"Slice: the colours show f as {self.xlabel} and {self.ylabel} vary with every "
                "other feature held at its training mean; the points are projected onto that "
                "plane. The crosses use each point's own f(x).")


def view_plane(X, kind: str = "pca", fx: int = 0, fy: int = 1,
               names: Sequence[str] | None = None) -> Plane:
    """The plane on which the data ``X`` (n × d, dense or CSR) are shown.

    d = 2: the data plane (kind ``"data"``) whatever ``kind`` says. d > 2: ``"pca"`` (the
    principal axes of the training rows, signs fixed so each axis' largest loading is positive)
    or ``"features"`` (feature axes ``fx`` and ``fy``, other features at their mean).
    """
    n, d = X.shape
    names = list(names) if names is not None else [f"x{j + 1}" for j in range(d)]
    if d <= 2:
        e1 = np.eye(d)[0]
        e2 = np.eye(d)[1] if d == 2 else np.zeros(d)
        return Plane(np.zeros(d), e1, e2, names[0], names[1] if d == 2 else "(unused)", "data")
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    mean = dense.mean(axis=0)
    if kind == "features":
        fx, fy = int(fx), int(fy)
        if not (0 <= fx < d and 0 <= fy < d) or fx == fy:
            raise ValueError(f"feature axes must be two different indices in [0, {d - 1}], "
                             f"got {fx} and {fy}")
        origin = mean.copy()
        origin[[fx, fy]] = 0.0                # so that u, v are the feature values themselves
        return Plane(origin, np.eye(d)[fx], np.eye(d)[fy], names[fx], names[fy], "features")
    if kind != "pca":
        raise ValueError(f"view must be 'pca' or 'features', got {kind!r}")
    C = dense - mean
    _, s, Vt = np.linalg.svd(C, full_matrices=False)
    V = Vt[:2].copy()
    for k in range(2):
        j = int(np.argmax(np.abs(V[k])))
        if V[k, j] < 0:
            V[k] = -V[k]
    var = s ** 2
    explained = tuple(float(v) for v in (var[:2] / var.sum())) if var.sum() > 0 else None
    return Plane(mean, V[0], V[1], "PC 1", "PC 2", "pca", explained)


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


def decision_field(solver, xs, ys, plane: Plane | None = None) -> np.ndarray:
    """f on the grid ``xs × ys`` of ``plane`` (default: the first two coordinates): float32 array
    of shape ``(len(ys), len(xs))`` (row = y, as plotly's ``z`` expects). Non-finite values (a
    diverged model) become 0 so that the figure still draws."""
    from .field import decision_on_plane

    with _one_blas_thread():
        if plane is None:
            f = decision_on_plane(solver, xs, ys, dtype=np.float64)
        else:
            f = decision_on_plane(solver, xs, ys, plane.origin, plane.e1, plane.e2,
                                  dtype=np.float64)
    return np.nan_to_num(np.asarray(f, dtype=np.float64), nan=0.0, posinf=0.0,
                         neginf=0.0).astype(_F32)


def zero_contour(z, xs, ys, level: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The level line ``z = level`` by marching squares: ``(x, y)`` float arrays of segments
    separated by NaN (plotly draws them as one broken line). Saddle cells are resolved by the
    cell's mean value. Empty arrays when the level is not crossed."""
    z = np.asarray(z, dtype=np.float64) - level
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    pos = z > 0.0
    # crossings on horizontal edges (j, i)-(j, i+1) and vertical edges (j, i)-(j+1, i)
    zh_a, zh_b = z[:, :-1], z[:, 1:]
    h = pos[:, :-1] != pos[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        th = np.where(h, zh_a / (zh_a - zh_b), 0.0)
    hx = xs[:-1][None, :] + th * np.diff(xs)[None, :]
    hy = np.broadcast_to(ys[:, None], hx.shape)
    zv_a, zv_b = z[:-1, :], z[1:, :]
    v = pos[:-1, :] != pos[1:, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        tv = np.where(v, zv_a / (zv_a - zv_b), 0.0)
    vy = ys[:-1][:, None] + tv * np.diff(ys)[:, None]
    vx = np.broadcast_to(xs[None, :], vy.shape)
    # per cell (j, i): edges B = h[j, i], T = h[j+1, i], L = v[j, i], R = v[j, i+1]
    E = {"B": (h[:-1, :], hx[:-1, :], hy[:-1, :]), "T": (h[1:, :], hx[1:, :], hy[1:, :]),
         "L": (v[:, :-1], vx[:, :-1], vy[:, :-1]), "R": (v[:, 1:], vx[:, 1:], vy[:, 1:])}
    count = E["B"][0].astype(int) + E["T"][0] + E["L"][0] + E["R"][0]
    segs = []
    two = count == 2
    order = ("B", "R", "T", "L")
    for a_i in range(4):
        for b_i in range(a_i + 1, 4):
            a, b = order[a_i], order[b_i]
            m = two & E[a][0] & E[b][0]
            if m.any():
                segs.append((E[a][1][m], E[a][2][m], E[b][1][m], E[b][2][m]))
    saddle = count == 4
    if saddle.any():
        centre = 0.25 * (z[:-1, :-1] + z[:-1, 1:] + z[1:, :-1] + z[1:, 1:])
        bl_pos = pos[:-1, :-1]
        joined = (centre > 0.0) == bl_pos       # BL and TR connected through the centre
        for m, pairs in ((saddle & joined, (("B", "R"), ("T", "L"))),
                         (saddle & ~joined, (("B", "L"), ("T", "R")))):
            if m.any():
                for a, b in pairs:
                    segs.append((E[a][1][m], E[a][2][m], E[b][1][m], E[b][2][m]))
    if not segs:
        return np.empty(0), np.empty(0)
    x1 = np.concatenate([s[0] for s in segs])
    y1 = np.concatenate([s[1] for s in segs])
    x2 = np.concatenate([s[2] for s in segs])
    y2 = np.concatenate([s[3] for s in segs])
    nan = np.full_like(x1, np.nan)
    return np.column_stack([x1, x2, nan]).ravel(), np.column_stack([y1, y2, nan]).ravel()


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


# -------------------------------------------------------------------------------------- curves


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
    """Training curves from :meth:`TrainingRun.trace_columns`.

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
                type="scatter", x=_f32(xv[keep]), y=_f32(yv[keep]), mode="lines+markers",
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
    return _figure(dict(data=data, layout=layout))


def schedule_figure(t, eta, current_t: int | None = None, log: bool = True,
                    height: int = 200, title: str = "step size η_t") -> go.Figure:
    """A step-size schedule η_t against t (log-log by default), optionally marking the current t."""
    t = np.asarray(t, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    keep = np.isfinite(eta) & (t > 0) & ((eta > 0) if log else True)
    data = [dict(type="scatter", x=_f32(t[keep]), y=_f32(eta[keep]), mode="lines",
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
    return _figure(dict(data=data, layout=layout))


# ------------------------------------------------------------------------------ live frames

#: The live loop's settings, shared by the pages and ``python -m svmcore.bench app-tick``.
LIVE_BUDGET_S = 0.015       # about this much solver time per tick
LIVE_PER_DECADE = 10        # trace checkpoints per decade of a page's run (×1.26 apart): at the
#                             default pace ×1.1 about 2 ticks in 5 cross one and pay for the
#                             run's snapshot; the others draw the current model without one
RES_PLAYING, RES_PAUSED = 100, 150


@dataclass
class View:
    """What a page needs to draw a run's data, computed once per dataset: the plane, the points
    projected on it (train and test) and the plotting grids per resolution."""

    plane: Plane
    P_train: np.ndarray
    y_train: np.ndarray
    P_test: np.ndarray | None
    y_test: np.ndarray | None

    def __post_init__(self):
        self._grids: dict = {}
        allp = self.P_train if self.P_test is None else np.vstack([self.P_train, self.P_test])
        self._all = allp

    def grid(self, resolution: int) -> tuple[np.ndarray, np.ndarray]:
        if resolution not in self._grids:
            self._grids[resolution] = field_grid(self._all, resolution, pad=0.1)
        return self._grids[resolution]


def make_view(X_train, y_train, X_test=None, y_test=None, kind: str = "pca", fx: int = 0,
              fy: int = 1, names: Sequence[str] | None = None) -> View:
    """The :class:`View` of a dataset (see :func:`view_plane`)."""
    plane = view_plane(X_train, kind, fx, fy, names)
    P_test = None if X_test is None or X_test.shape[0] == 0 else plane.project(X_test)
    return View(plane, plane.project(X_train), np.asarray(y_train, dtype=np.float64), P_test,
                None if P_test is None else np.asarray(y_test, dtype=np.float64))


def model_state(run, fresh: bool = False, scores: bool | str = "auto", max_cost: float = 4e5):
    """``(snapshot, train_scores or None)`` of a :class:`~svmcore.run.TrainingRun` for drawing.

    * The run stands on its last trace checkpoint: the run's own snapshot (no second one).
    * ``fresh`` (paused, a step): ``solver.snapshot()`` — exact numbers for the tiles.
    * Otherwise (a live tick that ended between checkpoints): the last checkpoint's snapshot with
      the support vectors and coefficients of the *current* model from ``support_coef()``
      (O(n), no kernel evaluations), so the rings follow the field while the tiles show the
      numbers of the last checkpoint (``snapshot.t`` says which). A linear (primal) model's
      snapshot is cheap and always fresh.

    Training scores (for the misclassified marks) come from the solver's ``train_scores()`` when it
    has one (free), else from ``decision_function`` — with ``scores="auto"`` only when that is
    cheap (a linear model, or n·#SV ≤ ``max_cost`` kernel evaluations); ``True`` forces it.
    """
    from dataclasses import replace

    solver = run.solver
    last = run.last_snapshot
    kernelized = solver.kernelized
    if last is not None and run.status == "diverged":
        return last, None       # the NaN model has nothing to show: the last finite checkpoint
    expansion = None
    if last is not None and run.trace and run.trace[-1].iteration == run.t and last.t == run.t:
        snap = last
    elif fresh or last is None or (expansion := solver.support_coef()) is None:
        snap = solver.snapshot()
    else:
        support, coef, _ = expansion
        support = np.asarray(support, dtype=np.int64)
        snap = replace(last, support=support, n_sv=int(support.size),
                       coef=None if last.coef is None else np.asarray(coef))
    out = None
    if scores:
        cheap = solver.train_scores()
        if cheap is not None:
            out = np.asarray(cheap, dtype=np.float64)
        else:
            cost = solver.n * max(int(snap.n_sv), 1) if kernelized else 0
            if scores is True or cost <= max_cost:
                out = np.asarray(solver.decision_function(solver.X), dtype=np.float64)
    return snap, out


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


def advance_tick(run, pace: float | None, budget_s: float) -> int:
    """One live tick: grow t by the factor ``pace`` (at least one iteration), spending at most
    about ``budget_s`` seconds of solver time; ``pace=None`` spends the whole budget. The run
    records its trace (and pays for a snapshot) only when the tick crosses a checkpoint.
    Returns the iterations done."""
    if run.done:
        return 0
    if pace is None:
        return run.advance(budget_s)
    target = max(run.t + 1, int(np.ceil(run.t * float(pace))))
    if run.max_iter is not None:
        target = min(target, run.max_iter)
    return run.advance(budget_s, max_iters=max(1, target - run.t))
