"""Step-size figures: η_t of every schedule on one log–log plot, and the live curves of a lockstep
of schedules (:mod:`svmcore.lessons.step_sizes`) as canvas frames (:mod:`svmcore.viz.frame`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ._base import f32_array, fast_figure
from .frame import curves_frame, series
from .race import CURVE_X, ENTRANT_COLORS, FRAME_X

SCHEDULE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                   "#e377c2", "#7f7f7f")


def schedules_figure(curves: Sequence, height: int = 380) -> go.Figure:
    """η_t against t on log–log axes, one line per :class:`svmcore.lessons.step_sizes.ScheduleCurve`,
    its formula in the legend (ASSET's dashed: it is the sqrt rule with η0 = D_X/D_G)."""
    data = []
    for k, c in enumerate(curves):
        keep = np.isfinite(c.eta) & (c.eta > 0)
        data.append(dict(type="scatter", x=f32_array(c.t[keep]), y=f32_array(c.eta[keep]), mode="lines",
                         name=c.label, line=dict(color=SCHEDULE_COLORS[k % len(SCHEDULE_COLORS)],
                                                 width=2, dash="dash" if c.name == "asset"
                                                 else "solid"),
                         hovertemplate="η(%{x:.0f}) = %{y:.3g}<extra>" + c.name + "</extra>"))
    layout = dict(height=height, margin=dict(l=10, r=10, t=10, b=10), uirevision="schedules",
                  xaxis=dict(type="log", title=dict(text="iteration t"), dtick=1),
                  yaxis=dict(type="log", title=dict(text="step size η_t"),
                             exponentformat="power"),
                  legend=dict(x=1.02, y=1.0, xanchor="left", font=dict(size=12)))
    return fast_figure(dict(data=data, layout=layout))


def _legend(race) -> list[dict]:
    return [dict(name=label, color=ENTRANT_COLORS[k], line=True, dash=k % 2 == 1)
            for k, label in enumerate(race.labels)]


def _panel(race, cols, title, column, log_y=False, percent=False, x="iteration") -> dict:
    ss = []
    for k, c in enumerate(cols):
        if not c:
            continue
        yv = np.asarray(c[column], dtype=np.float64) * (100.0 if percent else 1.0)
        ss.append(series(c[x], yv, race.labels[k], ENTRANT_COLORS[k], dash=k % 2 == 1))
    return {"title": title + (" %" if percent else ""), "log_y": log_y, "series": ss,
            "percent": percent}


def _fit_lines(race, fits) -> list[dict]:
    """The fitted lines of :func:`svmcore.lessons.step_sizes.slope_fits`, black, dashed."""
    out = []
    for k, per in enumerate(fits or ()):
        for what, f in (per or {}).items():
            if f is not None:
                t, v = f.line()
                out.append(series(t, v, f"{race.labels[k][0]} fit {f.slope:+.2f} ({what})",
                                  "#000000", dash=True))
    return out


def lockstep_frame(race, extras, x: str = "iteration", log_x: bool = True, height: int = 300,
                   font: int = 12, fits=None) -> dict:
    """The lockstep's curves side by side, one colour per schedule: P − P* (log y; each
    entrant's own objective when the race has no common reference) with the lines ``fits``
    (:func:`svmcore.lessons.step_sizes.slope_fits`, against iterations only), the test error of the
    reported model, and its size ‖w‖ or Σ|α_i| (:class:`~svmcore.lessons.step_sizes.Extras`). Every
    mid-run switch is a vertical line with its label on every panel (``race.curve_marks``)."""
    if x not in CURVE_X:
        raise ValueError(f"x must be one of {', '.join(CURVE_X)}, got {x!r}")
    cols = [extras.columns(k) for k in range(len(race.runs))]
    subs = [race.suboptimality(k) for k in range(len(race.runs))]
    if all(s is not None for s in subs):
        for c, s in zip(cols, subs):
            if c:
                c["subopt"] = s
        first = _panel(race, cols, "P − P*  (P* from SMO)", "subopt", log_y=True, x=x)
        if x == "iteration":
            first["series"] += _fit_lines(race, fits)
    else:
        first = _panel(race, cols, "objective (each its own)", "objective", x=x)
    err = "test error" if any(c and np.isfinite(c["test_error"]).any() for c in cols) \
        else "train error"
    panels = [first, _panel(race, cols, err, "model_error", percent=True, x=x),
              _panel(race, cols, extras.size_name or "model size", "size", x=x)]
    return curves_frame(panels, x=x, log_x=log_x, height=height, font=font, cols=3,
                        legend=_legend(race), marks=race.curve_marks(x),
                        x_title=FRAME_X[x])


def averaging_frame(race, extras, x: str = "iteration", log_x: bool = True, height: int = 280,
                    font: int = 12) -> dict:
    """Averaging off / on side by side, for the same runs: the error of the last iterate
    (``decision_function(X, iterate="last")``) beside the error of the reported model (the
    average of the iterates once the solver's averaging window has started); the mid-run
    switches marked as on :func:`lockstep_frame`."""
    if x not in CURVE_X:
        raise ValueError(f"x must be one of {', '.join(CURVE_X)}, got {x!r}")
    cols = [extras.columns(k) for k in range(len(race.runs))]
    err = "test error" if any(c and np.isfinite(c["test_error"]).any() for c in cols) \
        else "train error"
    panels = [_panel(race, cols, f"last iterate: {err}", "last_error", percent=True, x=x),
              _panel(race, cols, f"averaged iterate (the model): {err}", "model_error",
                     percent=True, x=x)]
    return curves_frame(panels, x=x, log_x=log_x, height=height, font=font, cols=2,
                        legend=_legend(race), marks=race.curve_marks(x),
                        x_title=FRAME_X[x])
