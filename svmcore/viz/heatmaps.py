"""Heatmaps of a sweep: one value per cell of a C × γ grid (numbers from
:func:`svmcore.runs.sweep.heatmap`), cells not finished yet left blank, the best cell starred.

Plotly heatmaps send no click events: an invisible scatter marker sits on every cell centre with
``customdata = (row value, column value)``, so a page can let a click pick a cell (Streamlit's
``on_select`` with ``selection_mode="points"``). The axes are categories (the grid's values,
evenly spaced as on a log scale), rows bottom to top.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

__all__ = ["axis_labels", "sweep_heatmap"]


def axis_labels(values) -> list[str]:
    """Tick labels of one axis: each value with ``:g`` (1e-05, 0.01, 100)."""
    return [f"{float(v):g}" for v in values]


def sweep_heatmap(row_values, col_values, Z, *, title: str = "", row_name: str = "C",
                  col_name: str = "γ", colorbar: str = "", best: tuple | None = None,
                  zmin: float | None = None, zmax: float | None = None, fmt: str = ".3f",
                  colorscale: str = "Viridis", height: int = 360,
                  font: int | None = None) -> go.Figure:
    """``Z[i, j]`` for ``row_values[i]`` × ``col_values[j]`` as a heatmap (NaN: a blank cell).
    ``font``: px of the cells' text, ticks and titles (None: plotly's, which shrinks the cells'
    text to fit them).

    Traces: 0 the heatmap, 1 the click targets (one invisible marker per cell, customdata
    ``[row value, col value]``, row-major), 2 the best cell ``best = (i, j)`` framed (if any).
    The best cell keeps its number, read as "★ 96%": a star drawn on the cell covered it. The
    cells' text is formatted here with ``fmt`` (a Python format spec, which for the specs the
    pages use, ``.0%``, ``.0f``, ``.3f``, writes what plotly's d3 format would).
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.shape != (len(row_values), len(col_values)):
        raise ValueError(f"Z has shape {Z.shape}, expected ({len(row_values)}, "
                         f"{len(col_values)}) for the given axis values")
    ys, xs = axis_labels(row_values), axis_labels(col_values)
    cells = [(i, j) for i in range(len(ys)) for j in range(len(xs))]
    hover = (f"{row_name} = %{{customdata[0]:g}}<br>{col_name} = %{{customdata[1]:g}}"
             "<extra>click: open on the Playground</extra>")
    z = [[None if not np.isfinite(v) else float(v) for v in row] for row in Z]
    text = [["" if v is None else format(v, fmt) for v in row] for row in z]
    if best is not None and text[best[0]][best[1]]:
        text[best[0]][best[1]] = "★ " + text[best[0]][best[1]]
    traces = [
        {"type": "heatmap", "x": xs, "y": ys, "z": z, "zmin": zmin, "zmax": zmax,
         "colorscale": colorscale, "text": text, "texttemplate": "%{text}", "hoverinfo": "skip",
         "colorbar": {"title": {"text": colorbar}, "thickness": 12}},
        {"type": "scatter", "mode": "markers", "x": [xs[j] for _, j in cells],
         "y": [ys[i] for i, _ in cells], "name": "cells", "showlegend": False,
         "customdata": [[float(row_values[i]), float(col_values[j])] for i, j in cells],
         "hovertemplate": hover,
         "marker": {"size": 28, "symbol": "square", "opacity": 0.0},
         "selected": {"marker": {"opacity": 0.0}}, "unselected": {"marker": {"opacity": 0.0}}},
    ]
    if best is not None:
        i, j = best
        traces.append({"type": "scatter", "mode": "markers", "x": [xs[j]], "y": [ys[i]],
                       "name": "best", "showlegend": False, "hovertemplate": hover,
                       "customdata": [[float(row_values[i]), float(col_values[j])]],
                       "marker": {"symbol": "square-open", "size": 2.6 * (font or 12) + 8,
                                  "color": "white", "line": {"color": "white", "width": 3}}})
    layout = {"title": {"text": title}, "height": height, "margin": dict(l=60, r=10, t=40, b=50),
              "xaxis": {"title": {"text": col_name}, "type": "category"},
              "yaxis": {"title": {"text": row_name}, "type": "category"},
              "clickmode": "event+select", "dragmode": False,
              "hovermode": "closest", "hoverdistance": -1}     # a click anywhere: nearest cell
    if font is not None:
        traces[0]["textfont"] = {"size": font}
        layout["font"] = {"size": font}
        for ax in ("xaxis", "yaxis"):        # explicit: a theme's smaller axis fonts win else
            layout[ax]["tickfont"] = {"size": font}
            layout[ax]["title"]["font"] = {"size": font}
        layout["margin"] = dict(l=4 * font + 12, r=10, t=2 * font + 16, b=3 * font + 8)
    return go.Figure({"data": traces, "layout": layout})
