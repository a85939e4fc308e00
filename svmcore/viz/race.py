"""Race figures: every entrant's curves overlaid (one colour, dash and marker per entrant) and
one decision field per entrant on the same grid and colour scale."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..runs.race import LETTERS, Race, group_text
from ._base import fast_figure
from .field import run_figure
from .frame import curves_frame, series
from .plane import View

ENTRANT_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
ENTRANT_DASHES = ("solid", "dash", "dot", "dashdot")
ENTRANT_SYMBOLS = ("circle", "square", "diamond", "triangle-up")


def f32_array(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


CURVE_X = {"iteration": "iteration t", "time": "solver CPU time [s] (compile excluded)",
           "kernel_evals": "kernel evaluations"}
#: the x titles of a race's live curves: a race counts each entrant's CPU time (svmcore.runs.race)
FRAME_X = {"iteration": "iteration t", "time": "solver CPU time [s]",
           "kernel_evals": "kernel evaluations"}


def curve_panels(race: Race) -> list[dict]:
    """The panels of the race's curves: test error (train error without a test set), P − P*
    of the main group (when its reference is known), and one panel per other objective."""
    has_test = any(np.isfinite([r.test_error for r in run.trace]).any() for run in race.runs)
    err = "test_error" if has_test else "train_error"
    panels = [dict(kind="error", column=err, title=("test error" if has_test else
                                                     "train error (no test set)"),
                   members=list(range(len(race.runs))), log_y=False)]
    ref = race.reference_value
    main = [k for k in range(len(race.runs)) if race.in_main_group(k)] if ref is not None else []
    if main:
        panels.append(dict(kind="subopt", title="P − P*  (L1-SVM primal, λ-form; P* from SMO)",
                           members=main, log_y=True))
    seen: dict = {}
    for k in range(len(race.runs)):
        if k in main:
            continue
        seen.setdefault(race.groups[k], []).append(k)
    for g, members in seen.items():
        panels.append(dict(kind="objective", title=f"own objective: {group_text(g)}",
                           members=members, log_y=False))
    return panels


def race_curves_figure(race: Race, x: str = "iteration", log_x: bool = True,
                       height: int = 300, cols: int | None = None):
    """Overlaid curves of every entrant (one colour, dash and marker per entrant) against
    iterations, solver time or kernel evaluations: test error, P − P* (log y) for the main group,
    and each other objective in its own panel, titled with its name. Panels sit side by side
    (``cols`` per row, default all in one row); ``height`` is per row of panels."""
    if x not in CURVE_X:
        raise ValueError(f"x must be one of {', '.join(CURVE_X)}, got {x!r}")
    panels = curve_panels(race)
    P = len(panels)
    cols = P if cols is None else max(1, min(int(cols), P))
    rows = -(-P // cols)
    hs, vs = 0.07, (0.16 if rows > 1 else 0.0)
    w = (1.0 - hs * (cols - 1)) / cols
    h = (1.0 - vs * (rows - 1)) / rows
    data, layout, notes = [], {}, []
    shown = set()
    trace_cols = [run.trace_columns() for run in race.runs]
    for p_i, panel in enumerate(panels):
        r, c = p_i // cols, p_i % cols
        xa = "x" if p_i == 0 else f"x{p_i + 1}"
        ya = "y" if p_i == 0 else f"y{p_i + 1}"
        x0, y1 = c * (w + hs), 1.0 - r * (h + vs)
        for k in panel["members"]:
            tc = trace_cols[k]
            if not tc:
                continue
            xv = np.asarray(tc[x], dtype=np.float64)
            if panel["kind"] == "error":
                yv = np.asarray(tc[panel["column"]], dtype=np.float64)
            elif panel["kind"] == "subopt":
                yv = race.suboptimality(k)
            else:
                yv = np.asarray(tc["objective"], dtype=np.float64)
            keep = np.isfinite(xv) & np.isfinite(yv)
            if log_x:
                keep &= xv > 0
            if panel["log_y"]:
                keep &= yv > 0
            if not keep.any():
                continue
            label = race.labels[k]
            data.append(dict(
                type="scatter", x=f32_array(xv[keep]), y=f32_array(yv[keep]), mode="lines+markers",
                name=label, legendgroup=LETTERS[k], showlegend=k not in shown,
                xaxis=xa, yaxis=ya,
                line=dict(color=ENTRANT_COLORS[k], width=2, dash=ENTRANT_DASHES[k]),
                marker=dict(size=5, symbol=ENTRANT_SYMBOLS[k], color=ENTRANT_COLORS[k]),
                hovertemplate="%{y:.4g} at %{x:.4g}<extra>" + label + "</extra>"))
            shown.add(k)
        xaxis = dict(domain=[x0, x0 + w], anchor=ya, type="log" if log_x else "linear",
                     exponentformat="power" if x == "time" else "SI",
                     title=dict(text=CURVE_X[x], font=dict(size=11)))
        if log_x:
            xaxis["dtick"] = 1
        if p_i > 0:
            xaxis["matches"] = "x"
        layout["xaxis" if p_i == 0 else f"xaxis{p_i + 1}"] = xaxis
        yaxis = dict(domain=[max(0.0, y1 - h), y1], anchor=xa,
                     type="log" if panel["log_y"] else "linear")
        if panel["log_y"]:
            yaxis["exponentformat"] = "power"
        layout["yaxis" if p_i == 0 else f"yaxis{p_i + 1}"] = yaxis
        notes.append(dict(text=panel["title"], x=x0, y=y1, xref="paper", yref="paper",
                          xanchor="left", yanchor="bottom", showarrow=False,
                          font=dict(size=12)))
    total = height * rows + 60
    layout.update(height=total, margin=dict(l=10, r=10, t=60, b=10), uirevision="race-curves",
                  annotations=notes, hovermode="closest",
                  legend=dict(orientation="h", x=0.0, y=1.0 + 34 / total, yanchor="bottom"))
    return fast_figure(dict(data=data, layout=layout))


def race_field_figures(race: Race, view: View, resolution: int, models: Sequence,
                       height: int = 380) -> list:
    """One decision-field figure per entrant on the same grid and colour scale (viz.run_figure:
    the field via decision_on_plane, margins, boundary, points, support vectors). ``models``
    holds per entrant ``(snapshot, train scores or None)``. The figures carry no legend (the
    page writes one line for the grid) and only the last one a colour bar."""
    figs = []
    K = len(race.runs)
    for k, run in enumerate(race.runs):
        snap, scores = models[k]
        title = f"<span style='color:{ENTRANT_COLORS[k]}'>■</span> {race.labels[k]} — t = {run.t:,}"
        fig = run_figure(run, view, resolution, snap, scores, title=title, height=height)
        _compact_field(fig, legend=False, colorbar=k == K - 1)
        figs.append(fig)
    return figs


# the race fields' one legend (the canvas views draw these marks; each field's own legend keeps
# only its own entries: field_frame(shared_legend=True))
FIELD_LEGEND = ("● filled: training points (blue +1, red −1) · ○ hollow: test points · dark ring: "
                "support vector (dot size ∝ |coefficient|) · orange ring: misclassified · "
                "solid line f = 0, dashed f = ±1")


def _compact_field(fig, legend: bool, colorbar: bool) -> None:
    """Smaller margins, one legend and one colour bar per grid (cheap: no re-validation of the
    data arrays)."""
    lay = fig.layout
    lay.margin = dict(l=4, r=4, t=40, b=4)
    lay.title.font.size = 13
    if not legend:
        lay.showlegend = False
    else:
        lay.legend.font.size = 10
    if not colorbar:
        for tr in fig.data:
            if tr.name == "f(x) scale":
                tr.marker.showscale = False


def _spec(fig) -> dict:
    """A figure's data and layout as plain dicts, without copying the arrays (plotly keeps them
    in ``_data`` / ``_layout``; a deep copy through ``to_plotly_json`` is the fallback)."""
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if isinstance(data, list) and isinstance(layout, dict):
        return {"data": data, "layout": layout}
    return fig.to_plotly_json()


def race_grid_figure(figs: Sequence, cols: int = 2, height: int = 380):
    """The field figures merged into ONE figure with a grid of subplots (the alternative to
    sending one figure per entrant; ``python -m svmcore.bench race-tick`` measures both)."""
    K = len(figs)
    rows = -(-K // cols)
    hs, vs = 0.04, 0.06
    w = (1.0 - hs * (cols - 1)) / cols
    hh = (1.0 - vs * (rows - 1)) / rows
    data, layout, notes = [], {}, []
    for k, fig in enumerate(figs):
        spec = _spec(fig)
        r, c = k // cols, k % cols
        xa = "x" if k == 0 else f"x{k + 1}"
        ya = "y" if k == 0 else f"y{k + 1}"
        for tr in spec["data"]:
            tr = dict(tr)
            tr["xaxis"], tr["yaxis"] = xa, ya
            if k > 0:
                tr["showlegend"] = False
            if tr.get("name") == "f(x) scale":
                tr["marker"] = dict(tr["marker"], showscale=k == K - 1)
            data.append(tr)
        src = spec["layout"]
        x0, y1 = c * (w + hs), 1.0 - r * (hh + vs)
        xax = dict(src.get("xaxis", {}))
        yax = dict(src.get("yaxis", {}))
        xax.update(domain=[x0, x0 + w], anchor=ya)
        yax.update(domain=[y1 - hh, y1], anchor=xa, scaleanchor=xa)
        layout["xaxis" if k == 0 else f"xaxis{k + 1}"] = xax
        layout["yaxis" if k == 0 else f"yaxis{k + 1}"] = yax
        title = src.get("title", {})
        notes.append(dict(text=title.get("text", "") if isinstance(title, dict) else str(title),
                          x=x0, y=y1, xref="paper", yref="paper", xanchor="left",
                          yanchor="bottom", showarrow=False, font=dict(size=13)))
    layout.update(height=height * rows, margin=dict(l=4, r=4, t=40, b=4),
                  uirevision="race-grid", annotations=notes, plot_bgcolor="white",
                  legend=dict(orientation="h", yanchor="top", y=-0.03, x=0.0))
    return fast_figure(dict(data=data, layout=layout))


def race_curves_frame(race: Race, x: str = "iteration", log_x: bool = True,
                      height: int = 320, font: int = 12, stacked: bool = False,
                      fit: bool = False, keep_below: int = 0) -> dict:
    """The race's curves as a live frame (:func:`svmcore.viz.frame.curves_frame`): the panels of
    :func:`curve_panels` side by side (``stacked``: one above the other, for a column beside
    the fields), one colour (and dash) per entrant, errors in %; ``fit``, ``keep_below``: down
    to the window's bottom (:func:`svmcore.viz.frame.field_frame`)."""
    if x not in CURVE_X:
        raise ValueError(f"x must be one of {', '.join(CURVE_X)}, got {x!r}")
    panels = curve_panels(race)
    cols = [run.trace_columns() for run in race.runs]
    out = []
    for panel in panels:
        ss = []
        for k in panel["members"]:
            tc = cols[k]
            if not tc:
                continue
            if panel["kind"] == "error":
                yv = 100.0 * np.asarray(tc[panel["column"]], dtype=np.float64)
            elif panel["kind"] == "subopt":
                yv = race.suboptimality(k)
            else:
                yv = np.asarray(tc["objective"], dtype=np.float64)
            ss.append(series(tc[x], yv, race.labels[k], ENTRANT_COLORS[k], dash=k % 2 == 1))
        title = panel["title"] + (" %" if panel["kind"] == "error" else "")
        out.append({"title": title, "log_y": panel["log_y"], "series": ss,
                    "percent": panel["kind"] == "error"})
    legend = [dict(name=label, color=ENTRANT_COLORS[k], line=True, dash=k % 2 == 1)
              for k, label in enumerate(race.labels)]
    return curves_frame(out, x=x, log_x=log_x, height=height, font=font,
                        cols=1 if stacked else len(out),
                        legend=legend, marks=race.curve_marks(x), x_title=FRAME_X[x],
                        fit=fit, keep_below=keep_below)
