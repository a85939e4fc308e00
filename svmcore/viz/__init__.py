"""Figures: pure functions from arrays (and a solver) to plotly Figures, one module per family.

No streamlit here, so every function is unit-testable and usable from a notebook.

* :mod:`~svmcore.viz.plane` — the 2-D view of the data and the decision field on it (numbers);
* :mod:`~svmcore.viz.field` — the decision-field figure of a run (boundary, margins, points, SVs);
* :mod:`~svmcore.viz.curves` — convergence curves and the step-size plot;
* :mod:`~svmcore.viz.race` — a race's overlaid curves and per-entrant fields.

Figures are built in one go from plain dicts (``go.Figure(dict)``): plotly's per-call validation
in ``add_trace``/``update_layout`` costs tens of milliseconds per live frame. Arrays are float32
(plotly ships numpy arrays as typed binary buffers).
"""
from ._base import CLASS_COLORS, CLASS_NAMES, FIELD_COLORSCALE
from .curves import CURVE_LABELS, curves_figure, schedule_figure
from .field import boundary_figure, edit_grid, run_figure, run_frame
from .plane import Plane, View, decision_field, field_grid, make_view, view_plane

__all__ = ["CLASS_COLORS", "CLASS_NAMES", "FIELD_COLORSCALE", "CURVE_LABELS", "curves_figure",
           "schedule_figure", "boundary_figure", "edit_grid", "run_figure", "run_frame", "Plane", "View",
           "decision_field", "field_grid", "make_view", "view_plane"]
