"""What every figure module shares: float32 arrays, figures built from plain dicts, colours."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# Diverging scale for f(x), light so that the points stay readable on it: red for the −1 side,
# white at 0, blue for the +1 side (ColorBrewer RdBu, inner shades).
FIELD_COLORSCALE = [
    [0.0, "#d6604d"], [0.25, "#f4a582"], [0.4, "#fbe3d6"], [0.5, "#f7f7f7"],
    [0.6, "#dceaf3"], [0.75, "#92c5de"], [1.0, "#4393c3"],
]
CLASS_COLORS = {1: "#053061", -1: "#67001f"}       # points: +1 dark blue, −1 dark red
CLASS_NAMES = {1: "class +1", -1: "class −1"}

_F32 = np.float32


def f32_array(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=_F32)


def fast_figure(spec: dict) -> go.Figure:
    """A Figure from a dict we built ourselves, without plotly's per-property validation
    (≈ 20 ms for a field figure with a few thousand points, ≈ 1 ms without)."""
    try:
        return go.Figure(spec, _validate=False)
    except TypeError:                       # a plotly without the private switch
        return go.Figure(spec)
