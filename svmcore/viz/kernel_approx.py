"""Figures of the Kernel approximation page, from the numbers of :mod:`svmcore.lessons.kernel_approx`.

* :func:`kernel_heatmaps` — K, Nyström K̃ and RFF K̃ side by side, rows and columns sorted by
  class, on one colour scale (one shared colour axis);
* :func:`error_figure` — ‖K − K̃‖_F/‖K‖_F against s or d on log–log axes: the median over seeds
  with a (min, max) band, scikit-learn's maps dashed as the reference, a 1/√d guide;
* :func:`test_error_figure` — ASSET's test error against s or d (log x), band over seeds, the
  exact-kernel SVM as a line;
* :func:`spectrum_figure` — the eigenvalues of K_SS with the threshold ε_d;
* :func:`times_figure` — the time of each feature map.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ..lessons.kernel_approx import LABELS, METHODS, Approximation, Sweep
from ._base import f32_array, fast_figure

__all__ = ["COLORS", "error_figure", "kernel_heatmaps", "spectrum_figure", "test_error_figure",
           "times_figure"]

COLORS = {"nystroem": "#1f77b4", "rff": "#ff7f0e", "exact": "#444444"}
_BANDS = {"nystroem": "rgba(31,119,180,0.18)", "rff": "rgba(255,127,14,0.18)"}
_MARGIN = dict(l=60, r=20, t=50, b=50)


def _class_edges(labels: np.ndarray) -> list[float]:
    """Positions (in shown-row units) where the class changes."""
    return [i - 0.5 for i in range(1, len(labels)) if labels[i] != labels[i - 1]]


def kernel_heatmaps(a: Approximation, height: int = 360) -> go.Figure:
    """Three heatmaps on one colour axis: K, Nyström K̃ (s landmarks), RFF K̃ (d features).
    The colour range is [min(0, smallest entry), max(1, largest entry)] over all three."""
    mats = (a.K, a.K_nystroem, a.K_rff)
    lo = min(0.0, *(float(m.min()) for m in mats))
    hi = max(1.0, *(float(m.max()) for m in mats))
    titles = (f"exact K ({a.n:,} × {a.n:,})",       # two short lines each: no overlap at 1280 px
              f"Nyström, s = {a.s:,} (d = {a.features['nystroem']:,} kept)"
              f"<br>error {a.errors['nystroem']:.2g}",
              f"random Fourier, d = {a.d:,}<br>error {a.errors['rff']:.2g}")
    traces, annotations, shapes = [], [], []
    edges = _class_edges(a.labels)
    w, gap = 0.31, 0.035
    layout: dict = {"height": height, "margin": dict(l=20, r=20, t=60, b=20),
                    "coloraxis": {"colorscale": "Viridis", "cmin": lo, "cmax": hi,
                                  "colorbar": {"title": {"text": "k"}, "thickness": 12}}}
    for k, (M, title) in enumerate(zip(mats, titles)):
        ax = "" if k == 0 else str(k + 1)
        x0 = k * (w + gap)
        traces.append({"type": "heatmap", "z": f32_array(M), "coloraxis": "coloraxis",
                       "xaxis": f"x{ax}", "yaxis": f"y{ax}",
                       "hovertemplate": "row %{y}, col %{x}: %{z:.3f}<extra></extra>"})
        layout[f"xaxis{ax}"] = {"domain": [x0, x0 + w], "showticklabels": False,
                                "constrain": "domain"}
        layout[f"yaxis{ax}"] = {"autorange": "reversed", "showticklabels": False,
                                "scaleanchor": f"x{ax}", "constrain": "domain"}
        annotations.append({"text": title, "x": x0 + w / 2, "y": 1.0, "xref": "paper",
                            "yref": "paper", "yanchor": "bottom", "showarrow": False,
                            "font": {"size": 12}})
        for e in edges:
            for line in (dict(x0=e, x1=e, y0=-0.5, y1=len(a.labels) - 0.5),
                         dict(y0=e, y1=e, x0=-0.5, x1=len(a.labels) - 0.5)):
                shapes.append({"type": "line", "xref": f"x{ax}", "yref": f"y{ax}",
                               "line": {"color": "white", "width": 1, "dash": "dot"}, **line})
    layout.update(annotations=annotations, shapes=shapes)
    return fast_figure({"data": traces, "layout": layout})


def _band_traces(x, med, low, high, name: str, color: str, fill: str, group: str,
                 dash: str | None = None, show_band: bool = True) -> list[dict]:
    x = f32_array(x)
    out = []
    if show_band:
        out += [{"type": "scatter", "x": x, "y": f32_array(high), "mode": "lines",
                 "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False,
                 "legendgroup": group},
                {"type": "scatter", "x": x, "y": f32_array(low), "mode": "lines",
                 "line": {"width": 0}, "fill": "tonexty", "fillcolor": fill,
                 "hoverinfo": "skip", "showlegend": False, "legendgroup": group}]
    out.append({"type": "scatter", "x": x, "y": f32_array(med), "mode": "lines+markers", "name": name,
                "legendgroup": group, "line": {"color": color, "dash": dash or "solid"},
                "marker": {"size": 6}})
    return out


def _chosen(s: int | None, d: int | None) -> list[dict]:
    """Dotted vertical lines at the s and d of the heatmaps."""
    out = []
    for v, m in ((s, "nystroem"), (d, "rff")):
        if v:
            out.append({"type": "line", "xref": "x", "yref": "paper", "x0": v, "x1": v,
                        "y0": 0, "y1": 1, "line": {"color": COLORS[m], "width": 1,
                                                   "dash": "dot"}})
    return out


def error_figure(sw: Sweep, s: int | None = None, d: int | None = None,
                 height: int = 380) -> go.Figure:
    """Relative error against s / d (log–log): median and band over seeds for svmcore's maps,
    the medians of scikit-learn's (dashed), and a c/√d guide through the RFF median at the
    smallest d ≥ 16."""
    traces = []
    for m in METHODS:
        med, lo, hi = sw.band(m)
        traces += _band_traces(sw.sizes[m], med, lo, hi, LABELS[m], COLORS[m], _BANDS[m], m,
                               show_band=len(sw.seeds) > 1)
        skmed = sw.band("sk_" + m)[0]
        traces += _band_traces(sw.sizes[m], skmed, None, None, LABELS["sk_" + m], COLORS[m],
                               "", "sk_" + m, dash="dash", show_band=False)
    x = np.asarray(sw.sizes["rff"], dtype=np.float64)
    med = sw.band("rff")[0]
    at = int(np.argmax(x >= 16)) if np.any(x >= 16) else 0
    if np.isfinite(med[at]) and med[at] > 0:
        guide = med[at] * np.sqrt(x[at] / x)
        traces.append({"type": "scatter", "x": f32_array(x), "y": f32_array(guide), "mode": "lines",
                       "name": "∝ 1/√d", "line": {"color": "#999999", "dash": "dot"},
                       "hoverinfo": "skip"})
    seeds = len(sw.seeds)
    layout = {"height": height, "margin": _MARGIN, "shapes": _chosen(s, d),
              # two lines: in one, the title ran out of its half-width column at 1280 px
              "title": {"text": f"‖K − K̃‖_F / ‖K‖_F<br><sup>n = {sw.n:,}, γ = {sw.gamma:g}, "
                                f"{seeds} seed{'s' if seeds > 1 else ''}"
                                + (": median, band min–max" if seeds > 1 else "") + "</sup>"},
              "xaxis": {"type": "log", "title": {"text": "s (Nyström landmarks) / d (random "
                                                          "features)"}},
              "yaxis": {"type": "log", "title": {"text": "relative error"},
                        "exponentformat": "power"},
              "legend": {"orientation": "h", "y": -0.22}}
    return fast_figure({"data": traces, "layout": layout})


def test_error_figure(sw: Sweep, s: int | None = None, d: int | None = None,
                      height: int = 380) -> go.Figure:
    """ASSET's test error against s / d (log x): median and band over seeds per map, and the
    exact-kernel SVM (scikit-learn SVC, same C and γ) as a horizontal line."""
    traces = []
    for m in sw.test_error:
        med, lo, hi = sw.band(m, test=True)
        traces += _band_traces(sw.sizes[m], med, lo, hi, f"ASSET on {LABELS[m]}", COLORS[m],
                               _BANDS[m], m, show_band=len(sw.seeds) > 1)
    shapes = _chosen(s, d)
    if sw.exact_test_error is not None:
        x = np.asarray(sw.sizes["rff"], dtype=np.float64)
        traces.append({"type": "scatter", "x": f32_array([x.min(), x.max()]),
                       "y": f32_array([sw.exact_test_error] * 2), "mode": "lines",
                       "name": f"exact kernel (SVC): {sw.exact_test_error:.3f}",
                       "line": {"color": COLORS["exact"], "dash": "dash"}})
    layout = {"height": height, "margin": _MARGIN, "shapes": shapes,
              "title": {"text": f"ASSET test error ({sw.n_test:,} test points, C = {sw.C:g}, "
                                f"{sw.epochs:g} epochs)"},
              "xaxis": {"type": "log", "title": {"text": "s / d"}},
              "yaxis": {"title": {"text": "test error rate"}, "rangemode": "tozero"},
              "legend": {"orientation": "h", "y": -0.22}}
    return fast_figure({"data": traces, "layout": layout})


def spectrum_figure(spec: dict, height: int = 340) -> go.Figure:
    """The eigenvalues of K_SS (descending, log y): kept (≥ ε_d) and dropped ones in two colours,
    ε_d as a horizontal line; eigenvalues ≤ 0 cannot sit on a log axis and are counted in the
    legend instead."""
    ev = np.asarray(spec["eigenvalues"], dtype=np.float64)
    eps = float(spec["threshold"])
    idx = np.arange(1, ev.size + 1)
    kept = ev >= eps
    low = (~kept) & (ev > 0)
    nonpos = int(np.sum(ev <= 0))
    traces = [{"type": "scatter", "x": idx[kept], "y": ev[kept], "mode": "markers",
               "name": f"kept: d = {int(kept.sum()):,}", "marker": {"color": COLORS["nystroem"],
                                                                  "size": 5}},
              {"type": "scatter", "x": idx[low], "y": ev[low], "mode": "markers",
               "name": f"dropped (< ε_d): {int(low.sum()):,}"
                       + (f", and {nonpos:,} ≤ 0 not drawn" if nonpos else ""),
               "marker": {"color": "#d62728", "size": 5, "symbol": "x"}}]
    layout = {"height": height, "margin": _MARGIN,
              "title": {"text": f"Eigenvalues of K_SS (s = {spec['s']:,})"},
              "xaxis": {"title": {"text": "k"}, "type": "log" if ev.size > 30 else "linear"},
              "yaxis": {"type": "log", "title": {"text": "D_kk"}, "exponentformat": "power"},
              "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y",
                          "y0": eps, "y1": eps, "line": {"color": "#d62728", "dash": "dash"}}],
              "annotations": [{"text": f"ε_d = {eps:g}", "xref": "paper", "x": 1.0, "y":
                               math.log10(eps), "yref": "y", "xanchor": "right",
                               "yanchor": "bottom", "showarrow": False}],
              "legend": {"orientation": "h", "y": -0.25}}
    return fast_figure({"data": traces, "layout": layout})


def times_figure(times: dict, n: int, height: int = 300) -> go.Figure:
    """Horizontal bars: milliseconds to fit each map and transform the n rows (and to form K)."""
    names = {"exact": "exact K", **LABELS}
    keys = [k for k in ("exact", "nystroem", "sk_nystroem", "rff", "sk_rff") if k in times]
    ms = [1e3 * float(times[k]) for k in keys]
    colors = [COLORS.get(k.removeprefix("sk_"), "#444444") for k in keys]
    traces = [{"type": "bar", "orientation": "h", "y": [names[k] for k in keys], "x": ms,
               "marker": {"color": colors, "opacity": [0.55 if k.startswith("sk_") else 1.0
                                                       for k in keys]},
               "text": [f"{v:.1f} ms" for v in ms], "textposition": "auto",
               "hovertemplate": "%{y}: %{x:.2f} ms<extra></extra>"}]
    layout = {"height": height, "margin": dict(l=170, r=20, t=50, b=40),
              "title": {"text": f"Time to fit the map and transform the {n:,} rows"},
              "xaxis": {"title": {"text": "ms (best of 2)"}},
              "yaxis": {"autorange": "reversed"}}
    return fast_figure({"data": traces, "layout": layout})
