"""The objective landscape over (w1, w2) of a linear model without bias on 2-D data: contours of
the primal objective, the path of the iterates, the last step and (Pegasos with projection) the
ball ‖w‖ ≤ 1/√λ — a Plotly figure built from :class:`svmcore.lessons.step_through.Landscape` (no streamlit).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from ._base import f32_array, fast_figure

PATH_COLOR = "#444444"
STEP_COLORS = {"step": "#d62728", "projection": "#9467bd", "update": "#d62728"}
BALL_COLOR = "#2ca02c"


def _segment(a, b, color: str, name: str, dash: str = "solid") -> dict:
    return dict(type="scatter", x=[float(a[0]), float(b[0])], y=[float(a[1]), float(b[1])],
                mode="lines+markers", name=name,
                line=dict(color=color, width=3, dash=dash),
                marker=dict(symbol=["circle", "arrow"], angleref="previous", size=[6, 14],
                            color=color))


def landscape_figure(land, path=None, step: Mapping | None = None, title: str = "",
                     height: int = 420) -> go.Figure:
    """Contours of ``land.P`` over (w1, w2), the iterate ``path`` (rows of w, oldest first), the
    current w, ``step`` as given by :func:`svmcore.lessons.step_through.weight_step` (w_t → w_{t+½} = w_t −
    η_t∇_t → w_{t+1} when the record has the half step, else w_t → w_{t+1}) and the ball of
    radius ``land.radius``."""
    data = [dict(type="contour", x=f32_array(land.w1), y=f32_array(land.w2), z=f32_array(land.P),
                 colorscale="Viridis", ncontours=25, name="objective",
                 contours=dict(coloring="heatmap", showlabels=True,
                               labelfont=dict(size=9, color="white")),
                 colorbar=dict(title=dict(text="P(w)"), thickness=12),
                 hovertemplate="w1 = %{x:.3g}<br>w2 = %{y:.3g}<br>P = %{z:.4g}<extra></extra>")]
    k, l = np.unravel_index(int(np.argmin(land.P)), land.P.shape)
    data.append(dict(type="scatter", x=[float(land.w1[l])], y=[float(land.w2[k])],
                     mode="markers", name="grid minimum",
                     marker=dict(symbol="x", size=10, color="white",
                                 line=dict(color="black", width=1))))
    if land.radius is not None:
        a = np.linspace(0.0, 2.0 * np.pi, 121)
        data.append(dict(type="scatter", x=f32_array(land.radius * np.cos(a)),
                         y=f32_array(land.radius * np.sin(a)), mode="lines",
                         name="ball ‖w‖ ≤ 1/√λ", line=dict(color=BALL_COLOR, width=2,
                                                           dash="dash")))
    if path is not None and len(path):
        path = np.asarray(path, dtype=np.float64).reshape(-1, 2)
        data.append(dict(type="scatter", x=f32_array(path[:, 0]), y=f32_array(path[:, 1]),
                         mode="lines+markers", name="iterates w_t",
                         line=dict(color=PATH_COLOR, width=1.5),
                         marker=dict(size=4, color=PATH_COLOR)))
    if step:
        if "w_half" in step:
            data.append(_segment(step["w_t"], step["w_half"], STEP_COLORS["step"],
                                 "step −η_t∇_t"))
            data.append(_segment(step["w_half"], step["w_next"], STEP_COLORS["projection"],
                                 "projection", dash="dot"))
        else:
            data.append(_segment(step["w_t"], step["w_next"], STEP_COLORS["update"],
                                 "update w_t → w_t+1"))
    w = np.asarray(land.w, dtype=np.float64)
    data.append(dict(type="scatter", x=[float(w[0])], y=[float(w[1])], mode="markers",
                     name="current w", marker=dict(size=11, color="white",
                                                   line=dict(color="black", width=2))))
    layout = dict(title=dict(text=title), height=height, margin=dict(l=50, r=10, t=40, b=40),
                  xaxis=dict(title=dict(text="w1"), range=[float(land.w1[0]),
                                                           float(land.w1[-1])]),
                  yaxis=dict(title=dict(text="w2"), range=[float(land.w2[0]),
                                                           float(land.w2[-1])],
                             scaleanchor="x"),
                  legend=dict(orientation="h", y=-0.18), showlegend=True)
    return fast_figure(dict(data=data, layout=layout))


__all__ = ["landscape_figure"]
