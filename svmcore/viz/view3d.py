"""The decision function in three dimensions: pure functions from arrays to plotly Figures.

Two pictures of one trained model on 2-D data:

* :func:`surface_figure` — the surface z = f(x) over the field's grid, coloured with the
  field's colour scale (:data:`~svmcore.viz._base.FIELD_COLORSCALE` on [−2, 2], as the 2-D
  view), the plane z = 0, the boundary f = 0 where the two meet, the margins f = ±1 at their
  heights, and the training points at z = f(x_i): support vectors ringed and sized by |α|,
  misclassified points ringed in orange (the 2-D view's marks).
* :func:`feature_map_figure` — for a degree-2 polynomial kernel, the points lifted by the
  explicit feature map φ(u) = (u₁², √2·u₁u₂, u₂²) and the model's separating plane in that
  space (:func:`poly2_plane`).

Why a plane exists (and which one). With K(x, s) = (γ⟨x, s⟩ + c₀)², a model
f(x) = Σ_s c_s K(x, s) + b is the quadratic

    f(x) = xᵀA x + lᵀx + k,   A = γ² Σ c_s s sᵀ,   l = 2γc₀ Σ c_s s,   k = c₀² Σ c_s + b.

Since ⟨φ(x), φ(s)⟩ = ⟨x, s⟩², the part xᵀA x is ⟨w, φ(x)⟩ with w = (A₁₁, √2·A₁₂, A₂₂). The
linear part lᵀx (present when c₀ ≠ 0) is no function of φ(x) (φ(x) = φ(−x)), so the
textbook picture is exact only for c₀ = 0. Completing the square removes it: with m the
solution of 2A m = −l,

    f(x) = ⟨w, φ(x − m)⟩ + k − mᵀA m,

so the points are lifted as φ(x − m) (the map centred at m, the centre of the model's conic;
m = 0 for c₀ = 0) and the plane ⟨w, φ⟩ + k − mᵀA m = 0 separates them exactly as f does: a
point's signed value in feature space is its decision value. When A is singular and l has a
part outside its range, no centre exists; the plane is then drawn for the best centre
(least squares) and :class:`Poly2Plane` says how far it is from f (``residual``).

Arrays are float32 on the wire; figures carry a constant ``uirevision`` so a redraw keeps the
camera the user chose.
"""
from __future__ import annotations


import numpy as np
import plotly.graph_objects as go

from ._base import CLASS_COLORS, CLASS_NAMES, FIELD_COLORSCALE, f32_array, fast_figure
# the kernel-trick arithmetic, re-exported for the 3-D view's callers
from ..lessons.kernel_trick import (SQRT2, Poly2Plane, feature_map, poly2_plane,  # noqa: F401
                                    poly2_quadratic, quadratic_fit)
from .frame import clipped_field, point_states
from .raster import level_lines

#: grid nodes per axis of the 3-D surface (a frame stays well under 60 kB)
GRID_3D = 41
#: the surface and the points' heights are clipped to [−Z_CLIP, Z_CLIP]
Z_CLIP = 3.0
#: the field's colour scale spans [−COLOR_CLIP, COLOR_CLIP], as in the 2-D view
COLOR_CLIP = 2.0
#: at most this many training points are drawn (a fixed, seeded subset beyond it)
MAX_POINTS_3D = 700
SV_RING = "#111111"
MIS_RING = "#ff9d00"
def subset(n: int, limit: int = MAX_POINTS_3D, seed: int = 0) -> np.ndarray:
    """The indices of the points drawn: all of them up to ``limit``, else a fixed random subset
    (sorted), the same on every frame."""
    if n <= limit:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


def _point_traces(Q, y, support, sv_size, misclassified, show, hover: str) -> list[dict]:
    """The training points at 3-D positions ``Q`` (n, 3): one trace per class, sized like the
    2-D view (support vectors ∝ √|α|), then a dark ring around each support vector and an
    orange ring around each misclassified point. ``show`` are the indices drawn."""
    n = len(y)
    ring, size = point_states(n, support, sv_size, misclassified)
    # px (uint8 on the wire): plotly's 3-D markers draw larger than the 2-D view's
    size3 = np.where(ring == 1, np.rint(size * 0.7), 4).astype(np.uint8)
    out = []
    for cls in (1, -1):
        m = show[np.asarray(y)[show] == cls]
        if m.size:
            out.append(dict(type="scatter3d", mode="markers", name=CLASS_NAMES[cls],
                            x=f32_array(Q[m, 0]), y=f32_array(Q[m, 1]), z=f32_array(Q[m, 2]),
                            marker=dict(size=size3[m], color=CLASS_COLORS[cls],
                                        opacity=1.0, line=dict(width=0)),
                            hovertemplate=hover + f"<extra>{CLASS_NAMES[cls]}</extra>"))
    sv = show[ring[show] == 1]
    if sv.size:
        out.append(dict(type="scatter3d", mode="markers", name="support vector (size ∝ |α|)",
                        x=f32_array(Q[sv, 0]), y=f32_array(Q[sv, 1]), z=f32_array(Q[sv, 2]),
                        marker=dict(size=size3[sv] + np.uint8(3), symbol="circle-open",
                                    color=SV_RING, line=dict(width=2)), hoverinfo="skip"))
    mis = show[ring[show] == 2]
    if mis.size:
        out.append(dict(type="scatter3d", mode="markers", name="misclassified",
                        x=f32_array(Q[mis, 0]), y=f32_array(Q[mis, 1]), z=f32_array(Q[mis, 2]),
                        marker=dict(size=8, symbol="circle-open", color=MIS_RING,
                                    line=dict(width=3)), hoverinfo="skip"))
    return out


def _layout(title: str, note: str | None, height: int, font: int, scene: dict,
            camera: dict | None = None) -> dict:
    tick = dict(size=min(font, 12))          # a scene's ticks crowd at projector sizes
    for ax in ("xaxis", "yaxis", "zaxis"):
        scene[ax] = {**scene.get(ax, {}), "tickfont": tick}
    text = title if not note else f"{title}<br><sup>{note}</sup>"
    return dict(
        title=dict(text=text, x=0.0, xanchor="left", font=dict(size=font + 2)),
        height=int(height), font=dict(size=font),
        margin=dict(l=0, r=0, t=64 if note else 40, b=0),
        uirevision="view3d",                 # the camera the user chose survives a redraw
        legend=dict(orientation="h", yanchor="top", y=0.0, x=0.0, itemsizing="constant",
                    font=dict(size=max(font - 1, 10))),
        scene=dict(uirevision="view3d", aspectmode="manual",
                   aspectratio=dict(x=1.0, y=1.0, z=0.7),
                   camera=camera or dict(eye=dict(x=1.35, y=-1.45, z=0.95)), **scene),
    )


def surface_figure(xs, ys, field, P, y, f_points, support=None, sv_size=None,
                   misclassified=None, title: str = "decision function z = f(x)",
                   note: str | None = None, xlabel: str = "x1", ylabel: str = "x2",
                   height: int = 520, font: int = 12, z_clip: float = Z_CLIP,
                   show=None, camera: dict | None = None) -> go.Figure:
    """The surface z = f(x) over the grid ``xs × ys`` (``field``: shape (len(ys), len(xs))),
    the plane z = 0 and the boundary where they meet (f = 0, traced on the grid), the margins
    f = ±1 at z = ±1, and the training points ``P`` (n, 2) at z = ``f_points`` (their own
    decision values), marked as in the 2-D view. Heights are clipped to [−z_clip, z_clip];
    colours are the field's on [−2, 2]. ``show``: the indices of the points drawn (default
    :func:`subset`); ``camera``: Plotly's scene camera (eye, center, up), else the default."""
    xs, ys, z = clipped_field(field, xs, ys, z_clip)
    P = np.asarray(P, dtype=np.float64)
    fp = np.clip(np.nan_to_num(np.asarray(f_points, dtype=np.float64), nan=0.0), -z_clip,
                 z_clip)
    show = subset(len(P)) if show is None else np.asarray(show, dtype=np.int64)
    data = [dict(type="surface", name="f(x)", x=f32_array(xs), y=f32_array(ys), z=f32_array(z),
                 colorscale=FIELD_COLORSCALE, cmin=-COLOR_CLIP, cmax=COLOR_CLIP,
                 opacity=0.9, showlegend=False, hovertemplate="f = %{z:.2f}<extra></extra>",
                 colorbar=dict(title=dict(text="f(x)"), thickness=12, len=0.6,
                               tickvals=[-2, -1, 0, 1, 2]),
                 contours=dict(z=dict(show=False)))]
    x0, x1, y0, y1 = float(xs[0]), float(xs[-1]), float(ys[0]), float(ys[-1])
    data.append(dict(type="surface", name="plane z = 0", x=f32_array([x0, x1]), y=f32_array([y0, y1]),
                     z=np.zeros((2, 2), dtype=np.float32), showscale=False, opacity=0.35,
                     colorscale=[[0, "#6b6b6b"], [1, "#6b6b6b"]], showlegend=True,
                     hoverinfo="skip"))
    bx, by = level_lines(z, xs, ys, 0.0)
    if bx.size:
        data.append(dict(type="scatter3d", mode="lines", name="boundary f = 0 (surface meets "
                         "plane)", x=f32_array(bx), y=f32_array(by), z=np.zeros(bx.size, np.float32),
                         line=dict(color="#111111", width=6), hoverinfo="skip",
                         connectgaps=False))
    mx, my, mz = [], [], []
    for level in (-1.0, 1.0):
        lx, ly = level_lines(z, xs, ys, level)
        if lx.size:
            mx += [lx, [np.nan]]
            my += [ly, [np.nan]]
            mz += [np.full(lx.size, level), [np.nan]]
    if mx:
        data.append(dict(type="scatter3d", mode="lines", name="margins f = ±1",
                         x=f32_array(np.concatenate(mx)), y=f32_array(np.concatenate(my)),
                         z=f32_array(np.concatenate(mz)), connectgaps=False, hoverinfo="skip",
                         line=dict(color="#333333", width=3, dash="dash")))
    Q = np.column_stack([P[:, 0], P[:, 1], fp])
    data += _point_traces(Q, np.sign(np.asarray(y)), support, sv_size, misclassified, show,
                          "(%{x:.2f}, %{y:.2f}) f = %{z:.2f}")
    scene = dict(xaxis=dict(title=dict(text=xlabel), range=[x0, x1], autorange=False),
                 yaxis=dict(title=dict(text=ylabel), range=[y0, y1], autorange=False),
                 zaxis=dict(title=dict(text="f(x)"), range=[-z_clip, z_clip],
                            autorange=False))
    return fast_figure(dict(data=data, layout=_layout(title, note, height, font, scene, camera)))


# ------------------------------------------------------------------------- degree-2 feature map


def _plane_mesh(plane: Poly2Plane, Phi, n: int = 12):
    """The plane ⟨w, φ⟩ + offset = 0 as a mesh over the lifted points' box: solved for the
    coordinate with the largest |w| (the plane is steepest in no other)."""
    lo, hi = Phi.min(axis=0), Phi.max(axis=0)
    pad = 0.05 * np.maximum(hi - lo, 1e-9)
    lo, hi = lo - pad, hi + pad
    j = int(np.argmax(np.abs(plane.w)))
    a, b = [q for q in range(3) if q != j]
    ua, ub = np.linspace(lo[a], hi[a], n), np.linspace(lo[b], hi[b], n)
    Ga, Gb = np.meshgrid(ua, ub)
    Gj = -(plane.offset + plane.w[a] * Ga + plane.w[b] * Gb) / plane.w[j]
    Gj = np.where((Gj >= lo[j]) & (Gj <= hi[j]), Gj, np.nan)     # the part inside the box
    out = [None, None, None]
    out[a], out[b], out[j] = Ga, Gb, Gj
    return out, (lo, hi)


def feature_map_figure(P, y, plane: Poly2Plane, support=None, sv_size=None,
                       misclassified=None, title: str = "feature space φ(x)",
                       note: str | None = None, height: int = 520, font: int = 12,
                       show=None, camera: dict | None = None) -> go.Figure:
    """The training points ``P`` (n, 2) lifted to φ(x − centre) (:class:`Poly2Plane`), marked
    as in the 2-D view, and the separating plane of the model in that space (coloured by the
    side: the field's colours at ±1)."""
    P = np.asarray(P, dtype=np.float64)
    show = subset(len(P)) if show is None else np.asarray(show, dtype=np.int64)
    Phi = plane.lift(P)
    data = []
    if np.abs(plane.w).max(initial=0.0) > 0:
        (Gx, Gy, Gz), (lo, hi) = _plane_mesh(plane, Phi[show] if show.size else Phi)
        data.append(dict(type="surface", name="separating plane f = 0", x=f32_array(Gx),
                         y=f32_array(Gy), z=f32_array(Gz), showscale=False, opacity=0.55,
                         colorscale=[[0, "#7a7a7a"], [1, "#7a7a7a"]], showlegend=True,
                         hoverinfo="skip"))
    data += _point_traces(Phi, np.sign(np.asarray(y)), support, sv_size, misclassified, show,
                          "φ = (%{x:.2f}, %{y:.2f}, %{z:.2f})")
    c = plane.centre
    u = "x" if not np.any(c) else "(x − m)"
    scene = dict(xaxis=dict(title=dict(text=f"{u}₁²")),
                 yaxis=dict(title=dict(text=f"√2·{u}₁{u}₂")),
                 zaxis=dict(title=dict(text=f"{u}₂²")))
    return fast_figure(dict(data=data, layout=_layout(title, note, height, font, scene, camera)))


def figure_bytes(fig: go.Figure) -> int:
    """The size of the figure's JSON as Streamlit sends it (typed arrays as base64)."""
    return len(fig.to_json(validate=False, engine="json").encode("utf-8"))
