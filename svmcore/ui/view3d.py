"""The 3-D view of a run's decision function (the Playground's "3-D view" toggle).

:func:`view3d_toggle` is drawn by the page on its header line; while it is on,
:func:`svmcore.ui.panels.draw_run` draws :func:`draw_view3d` in the field's place, inside the
live fragment, so the view moves with the run (a session with the 3-D view plays its own run,
:func:`svmcore.ui.live_controls._share`). Everything is computed through the declared solver
interface (``decision_function``, ``support_coef()``, the snapshot), with no per-solver code.

The figure is drawn by a small component (``view3d.js``) with plotly.js itself, served by the
app (:mod:`svmcore.server.assets`): Streamlit's Plotly chart is a new element whenever its
figure changes, so it blanked between frames and lost a turned camera, while ``Plotly.react``
on one keyed plot updates it in place, and the scene's constant ``uirevision`` keeps the
camera the user chose.

Two pictures (:mod:`svmcore.viz.view3d`): the surface z = f(x) with the plane z = 0, and, for
a degree-2 polynomial kernel, the explicit feature map with the model's separating plane.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import plotly.io as pio
import streamlit as st

from ..server.assets import PLOTLY_JS
from ..viz.plane import decision_field
from ..viz.view3d import (GRID_3D, feature_map_figure, poly2_plane, poly2_quadratic,
                           quadratic_fit, subset, surface_figure)
from .layout import line
from .state import Instance, Live

SURFACE, FEATURES = "surface z = f(x)", "feature map φ(x)"
#: px added to the live views' height in projector mode: the 2-D field's legend sits outside
#: its view, the 3-D figure's inside, at the projector's font
PRESENT_EXTRA = 190

_PLOT3D = st.components.v2.component(
    "svmcore_view3d", js=(Path(__file__).with_name("view3d.js")).read_text(),
    css=".svmc-view3d { width: 100%; }", isolate_styles=False)


def draw_figure(key: str, fig, fit: bool = False) -> None:
    """Draw ``fig`` in the keyed 3-D plot (updated in place, frame after frame); ``fit``: its
    height runs down to the window's bottom (projector mode), not ``fig``'s own."""
    _PLOT3D(key=key, data={"figure": pio.to_json(fig, validate=False), "src": PLOTLY_JS,
                           "fit": bool(fit)})


def view3d_on(inst: Instance) -> bool:
    return bool(inst.get("view3d", False))


def view3d_toggle(inst: Instance, on_change=None) -> bool:
    """The switch of the 3-D view."""
    inst.setdefault("view3d", False)
    return st.toggle("3-D view", key=inst.key("view3d"), on_change=on_change,
                     help="The decision function as a surface z = f(x) over the data plane, "
                          "cut by the plane z = 0 along the boundary; for a degree-2 "
                          "polynomial kernel also the explicit feature map "
                          "(x₁², √2·x₁x₂, x₂²) with the model's separating plane. Drag to "
                          "turn it: the view keeps that angle while the run plays.")


def view_toggles(inst: Instance, present: bool) -> None:
    """The header's two view switches, which exclude each other (a click pins a point on the 2-D
    field, which the 3-D view replaces): "inspect a point" and "3-D view". In projector mode the
    header holds one of them beside the projector toggle (inspect while it is on, else 3-D),
    so that the toolbar's line keeps its room."""
    from .point_history import inspect_toggle
    off = lambda name: lambda: inst.set(name, False)  # noqa: E731
    if not present or inst.get("inspect", False):
        inspect_toggle(inst, on_change=off("view3d"))
    if not present or not inst.get("inspect", False):
        view3d_toggle(inst, on_change=off("inspect"))


def dimension_problem(data) -> str | None:
    """Why the 3-D view cannot draw this data, or None (it needs exactly two features: the
    field of other data is a slice, and the points' f(x_i) do not lie on it)."""
    d = int(data.X_train.shape[1])
    if d == 2:
        return None
    return (f"The 3-D view needs 2 features; this data has {d}. "
            + ("Its 2-D field is a slice through the data, and the points' own f(x) do not "
               "lie on it: pick a toy problem, or upload data with two features."
               if d > 2 else "Pick a toy problem, or upload data with two features."))


def poly2_kernel(solver) -> bool:
    """Is the model's kernel the degree-2 polynomial one (the feature map's condition)?"""
    p = solver.p
    try:
        return p.get("kernel") == "poly" and float(p.get("degree", 0)) == 2.0
    except (TypeError, ValueError):
        return False


def model_plane(solver, P, f_points):
    """The separating plane of a degree-2 polynomial model in feature space
    (:func:`svmcore.viz.view3d.poly2_plane`): from its kernel expansion (``support_coef()``)
    when it has one, else fitted to its decision values (a model on approximate features),
    checked on the training points ``P`` against their decision values ``f_points``.
    Returns ``(plane, how)``."""
    p = solver.p
    gamma, coef0 = float(p["gamma"]), float(p.get("coef0", 0.0))
    expansion = solver.support_coef() if solver.kernelized else None
    if expansion is not None:
        support, coef, b = expansion
        S = np.asarray(P, dtype=np.float64)[np.asarray(support, dtype=np.int64)]
        A, lin, k = poly2_quadratic(S, coef, b, gamma, coef0)
        how = "from the kernel expansion"
    else:
        A, lin, k, _ = quadratic_fit(P, f_points)
        how = "fitted to f (the model is not an expansion over training points)"
    plane = poly2_plane(A, lin, k, P, tol=1e-6)
    # against the solver's own values (float32 solvers: their rounding)
    f = np.asarray(f_points, dtype=np.float64)
    res = float(np.max(np.abs(plane.value(P) - f))) if len(f) else 0.0
    exact = res <= 1e-4 * max(1.0, float(np.max(np.abs(f))) if len(f) else 1.0)
    return plane, how, exact, res


def draw_view3d(inst: Instance, live: Live, run, snap, scores, height: int, font: int,
                present: bool) -> None:
    """The 3-D view of the run's current model (inside the live fragment): the picture switch
    and the figure, or the message why this data has none."""
    problem = dimension_problem(live.data)
    if problem is not None:
        st.info(problem, icon=":material/view_in_ar:")
        return
    view, solver = live.view, run.solver
    poly2 = poly2_kernel(solver)
    inst.setdefault("view3d_pic", SURFACE)
    if poly2:
        pic = st.segmented_control("3-D picture", [SURFACE, FEATURES],
                                   key=inst.key("view3d_pic"), required=True,
                                   label_visibility="collapsed")
    else:
        pic = SURFACE
    if not poly2 and not present:            # the projector shows the picture alone
        kernel = solver.p.get("kernel") or "linear (primal)"
        deg = f", degree {solver.p.get('degree')}" if kernel == "poly" else ""
        line(inst, f"The feature-map picture (x₁², √2·x₁x₂, x₂²) is for a degree-2 polynomial "
                   f"kernel; this run's kernel is {kernel}{deg}. Choose kernel poly, "
                   "degree 2 in the sidebar to see it.", "view3d")
    stream = getattr(run, "stream", None)     # a stream: its recent points only
    show = subset(len(view.y_train)) if stream is None else np.unique(stream.window_rows(solver))
    n = len(view.y_train)
    if scores is not None and len(scores) == n:
        f_points = np.asarray(scores, dtype=np.float64)
    else:                                    # the heights need f(x_i) of the points drawn
        f_points = np.zeros(n)
        f_points[show] = solver.decision_function(view.P_train[show])
    support = np.asarray(snap.support, dtype=np.int64) if snap.support is not None else None
    sv_size = None
    if snap.coef is not None and support is not None and len(snap.coef) == len(support):
        sv_size = np.abs(np.asarray(snap.coef, dtype=np.float64))
    if support is not None and support.size and support.max() >= len(view.y_train):
        support, sv_size = None, None
    mis = None
    if run.t > 0:
        mis = np.zeros(len(view.y_train), dtype=bool)
        mis[show] = np.where(f_points[show] >= 0.0, 1.0, -1.0) != view.y_train[show]
    kernel = solver.p.get("kernel", "")
    head = f"t = {run.t:,}"                  # short: the title fits a phone's width
    shown = (f"{solver.name}{', ' + kernel if kernel else ''}; "
             + ("" if len(show) == len(view.y_train) else
                f"{len(show):,} of {len(view.y_train):,} points drawn; "))
    key = inst.key("view3d_fig", keep=False)
    if present:          # the title, note and legend lines are inside the figure's own height
        height += PRESENT_EXTRA
    if pic == FEATURES and poly2:
        plane, how, exact, res = model_plane(solver, view.P_train[show], f_points[show])
        centre = "" if not np.any(plane.centre) else (
            f"φ of x − m, m = ({plane.centre[0]:.2f}, {plane.centre[1]:.2f}) the centre of "
            "the model's conic (coef0 ≠ 0); ")
        note = shown + centre + (f"plane {how}: its signed value is f(x)" if exact else
                                 f"plane {how}, off f by up to {res:.2g}")
        fig = feature_map_figure(view.P_train, view.y_train, plane, support, sv_size, mis,
                                 title=f"feature space — {head}", note=note,
                                 height=height, font=font, show=show)
    else:
        xs, ys = view.grid(GRID_3D)
        field = decision_field(solver, xs, ys)
        note = shown + "heights clipped to ±3; colours as the field's"
        fig = surface_figure(xs, ys, field, view.P_train, view.y_train, f_points, support,
                             sv_size, mis, title=f"z = f(x) — {head}", note=note,
                             xlabel=view.plane.xlabel, ylabel=view.plane.ylabel,
                             height=height, font=font, show=show)
    fig.layout.uirevision = fig.layout.scene.uirevision = pic   # a camera per picture
    draw_figure(key, fig, fit=present)
