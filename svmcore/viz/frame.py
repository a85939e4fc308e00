"""Live frames: what the app's canvas views draw, as plain JSON-able dicts (no plotly, no
streamlit), built from arrays.

A Plotly chart in Streamlit is a new element whenever its figure changes (the figure is part
of its identity), so the browser re-created the whole plot on every frame of a live run: the
field went blank between frames and a page spent about a core redrawing. The live views are
instead drawn by a small canvas renderer (``svmcore/ui/canvas.js``) that Streamlit keeps in
place and hands each new frame. A frame holds:

* the field's values on its grid, one byte each (:func:`quantize_field`): the browser colours
  them, traces the lines f = 0 and f = ±1 by marching squares, and blends two frames' values
  while it animates from one to the next (the level lines of a blend are those of the blended
  field, not a blend of lines); an affine field (a linear model) also carries its three
  coefficients (``line``, :func:`affine_field`), and its level lines are drawn exactly;
* the points as float32 coordinates, and one byte per point for its state (support vector,
  misclassified) and size (∝ √|coefficient|);
* for curves, float32 series per panel.

Arrays travel as base64 strings of little-endian typed arrays (:func:`b64`).
"""
from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

import numpy as np

from ._base import CLASS_COLORS, FIELD_COLORSCALE
from .raster import level_lines

#: what the curve panels of a run call their columns
CURVE_NAMES = {"iteration": "iteration t", "time": "solver time [s]",
               "kernel_evals": "kernel evaluations", "objective": "objective",
               "train_error": "train error %", "test_error": "test error %",
               "n_sv": "# support vectors", "dual_objective": "dual objective",
               "gap": "duality gap"}
CURVE_COLORS = {"objective": "#1f77b4", "train_error": "#2ca02c", "test_error": "#d62728",
                "n_sv": "#7f4f9f", "dual_objective": "#ff7f0e", "gap": "#8c564b"}
PERCENT = ("train_error", "test_error")
#: the last iterate's boundary beside the averaged model's (solid) one
LAST_ITERATE_LEGEND = "last iterate f = 0 (the model is the average)"
LAST_ITERATE_COLOR = "#c2185b"


def b64(a, dtype) -> str:
    """A numpy array as base64 of its little-endian bytes in ``dtype``."""
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.dtype(dtype).newbyteorder("<")))
    return base64.b64encode(arr.tobytes()).decode("ascii")


_Q = 32767.0                        # int16 quantisation: ±32767, −32768 marks a gap (NaN)


def quantize_xy(x, y, xr, yr) -> str:
    """Interleaved (x, y) as int16 steps of the ranges ``xr``, ``yr`` (1/65,534 of the range:
    far below a pixel), NaN as −32768; base64. Half the bytes of float32."""
    out = []
    for v, (lo, hi) in ((x, xr), (y, yr)):
        v = np.asarray(v, dtype=np.float64)
        q = np.rint((np.clip(v, lo, hi) - lo) / ((hi - lo) or 1.0) * (2 * _Q) - _Q)
        out.append(np.where(np.isfinite(v), q, -_Q - 1).astype(np.int16))
    return b64(np.column_stack(out).ravel(), np.int16)


def dequantize_xy(text: str, xr, yr) -> np.ndarray:
    """The inverse of :func:`quantize_xy`: an (m, 2) float array with NaN gaps."""
    q = np.frombuffer(base64.b64decode(text), dtype="<i2").reshape(-1, 2).astype(np.float64)
    out = np.empty_like(q)
    for k, (lo, hi) in enumerate((xr, yr)):
        out[:, k] = lo + (q[:, k] + _Q) / (2 * _Q) * (hi - lo)
    out[q == -_Q - 1] = np.nan
    return out


_ZQ = 126.0                        # field bytes: 127 + round(126 f / clip), so f = 0 is 127


def quantize_field(z, clip: float) -> str:
    """The field ``z`` (rows = increasing y, already clipped to [−clip, clip]) as one byte per
    grid node, ``127 + round(126 f / clip)`` (with clip = 2, f = 0 and f = ±1 are exact), base64.
    A step is clip/126 (0.016 of f for clip 2): far below what the colours or the level lines'
    positions show."""
    q = np.rint(127.0 + np.asarray(z, dtype=np.float64) * (_ZQ / clip))
    return b64(np.clip(q, 1, 253), np.uint8)


def dequantize_field(text: str, nx: int, ny: int, clip: float) -> np.ndarray:
    """The inverse of :func:`quantize_field`: the (ny, nx) field."""
    q = np.frombuffer(base64.b64decode(text), dtype=np.uint8).astype(np.float64)
    return ((q - 127.0) * (clip / _ZQ)).reshape(ny, nx)


def clipped_field(field, xs, ys, clip: float = 2.0):
    """``(xs, ys, z)`` as float64 with f clipped to [−clip, clip] (NaN → 0, ±inf → ±clip);
    raises ValueError when f is not on the ``ys × xs`` grid."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    z = np.clip(np.nan_to_num(np.asarray(field, dtype=np.float64), nan=0.0, posinf=clip,
                              neginf=-clip), -clip, clip)
    if z.shape != (len(ys), len(xs)):
        raise ValueError(f"field has shape {z.shape}, expected {(len(ys), len(xs))}")
    return xs, ys, z


def point_states(n: int, support=None, sv_size=None, misclassified=None):
    """Per training point: ``ring`` (uint8: 0 plain, 1 support vector, 2 misclassified) and
    ``size`` (uint8 px: 7, support vectors 8–17 ∝ √|coefficient|, 11 without coefficients)."""
    ring = np.zeros(n, dtype=np.uint8)
    size = np.full(n, 7, dtype=np.uint8)
    if support is not None and len(support):
        support = np.asarray(support, dtype=np.int64)
        keep = (support >= 0) & (support < n)
        ring[support[keep]] = 1
        size[support[keep]] = 11
        if sv_size is not None and len(sv_size) == len(support):
            w = np.abs(np.nan_to_num(np.asarray(sv_size, dtype=np.float64)))[keep]
            top = w.max() if w.size and w.max() > 0 else 1.0
            size[support[keep]] = np.rint(8.0 + 9.0 * np.sqrt(w / top)).astype(np.uint8)
    if misclassified is not None:
        mis = np.asarray(misclassified, dtype=bool)
        if mis.shape[0] == n:
            ring[mis] = 2
    return ring, size


def affine_field(field, xs, ys, rtol: float = 1e-5) -> list[float] | None:
    """``[c, a, b]`` with f(x, y) = c + a·x + b·y on the whole grid when the field is affine in
    the plane's coordinates (a linear model on an exact 2-D view), to ``rtol`` of its largest
    value (a float32 field is affine to about 1e-6); else None. The browser then draws the
    lines f = 0 and f = ±1 of a keyframe, and of any blend of two such keyframes (a blend of
    affine fields is affine), as exact straight lines instead of tracing them on the quantized
    grid."""
    z = np.asarray(field, dtype=np.float64)
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    if z.shape != (len(ys), len(xs)) or len(xs) < 2 or len(ys) < 2 or not np.isfinite(z).all():
        return None
    a = (z[0, -1] - z[0, 0]) / (xs[-1] - xs[0])
    b = (z[-1, 0] - z[0, 0]) / (ys[-1] - ys[0])
    c = z[0, 0] - a * xs[0] - b * ys[0]
    err = np.abs(c + a * xs[None, :] + b * ys[:, None] - z).max()
    if err > rtol * max(1.0, float(np.abs(z).max())):
        return None
    return [float(c), float(a), float(b)]


def line_segment(coef, level: float, xr, yr) -> tuple | None:
    """Where the line c + a·x + b·y = level crosses the box ``xr`` × ``yr``: its two end points
    ``((x0, y0), (x1, y1))``, or None when it misses the box (what canvas.js draws)."""
    c, a, b = coef
    pts = []
    if abs(b) > 1e-300:
        for x in xr:
            y = (level - c - a * x) / b
            if yr[0] <= y <= yr[1]:
                pts.append((x, y))
    if abs(a) > 1e-300:
        for y in yr:
            x = (level - c - b * y) / a
            if xr[0] <= x <= xr[1]:
                pts.append((x, y))
    if len(pts) < 2:
        return None
    best = max(((p, q) for p in pts for q in pts), key=lambda pq: (pq[0][0] - pq[1][0]) ** 2
               + (pq[0][1] - pq[1][1]) ** 2)
    return best


def margin_lines(z, xs, ys) -> tuple[np.ndarray, np.ndarray]:
    """The lines f = −1 and f = +1 as one NaN-separated polyline (empty when neither is hit)."""
    mx, my = [], []
    for level in (-1.0, 1.0):
        lx, ly = level_lines(z, xs, ys, level)
        if lx.size:
            mx += [lx, [np.nan]]
            my += [ly, [np.nan]]
    if not mx:
        return np.empty(0), np.empty(0)
    return np.concatenate(mx), np.concatenate(my)


def field_frame(P_train, y_train, field, xs, ys, *, P_test=None, y_test=None, support=None,
                sv_size=None, misclassified=None, title: str = "", note: str | None = None,
                segments: Sequence[Mapping] = (),
                xlabel: str = "", ylabel: str = "", height: int = 520, font: int = 12,
                mode: str = "view", marks: Sequence[Mapping] = (), clip: float = 2.0,
                fit: bool = False, last: tuple | None = None,
                shared_legend: bool = False, fade=None, keep_below: int = 0) -> dict:
    """One frame of the field view: the field image, its level lines, the points and their
    state. ``P_*`` are plane coordinates (n, 2); ``field`` is f on ``ys × xs``; ``support`` are
    training indices ringed (sizes from ``sv_size`` = |coefficient|), ``misclassified`` a mask;
    ``segments`` are lines drawn after the marks (``{"x0", "y0", "x1", "y1", "color", "width",
    "dash", "head", "legend"}``; ``head``: an arrowhead at (x1, y1)), optional;
    ``mode`` is the click mode ("view" ignores clicks); ``marks`` are extra rings (pinned or
    picked points: ``{"x", "y", "color", "r"}``); ``fit`` lets the view fill the window's height
    (projector mode), less ``keep_below`` px for what the page shows under it; ``last`` is the last iterate's line f = 0 as ``(x, y)`` NaN-separated
    arrays (:func:`svmcore.viz.field.last_iterate_boundary`) for a solver whose model averages
    its iterates: drawn dashed beside the averaged model's boundary, with a legend entry.
    ``shared_legend``: the page explains the points and lines once for several fields (the
    Race: :data:`svmcore.viz.race.FIELD_LEGEND`), so this field's legend keeps only what is
    its own (the last iterate, pinned points, segments). ``fade``: an opacity in (0, 1] per
    training point (a stream's older points fade), optional."""
    line = affine_field(field, xs, ys)
    xs, ys, z = clipped_field(field, xs, ys, clip)
    ring, size = point_states(len(y_train), support, sv_size, misclassified)
    P_train = np.asarray(P_train, dtype=np.float64)
    xr, yr = (float(xs[0]), float(xs[-1])), (float(ys[0]), float(ys[-1]))

    def _xy(a, b):
        return quantize_xy(a, b, xr, yr)

    has_test = P_test is not None and y_test is not None and len(y_test)
    legend = []
    if not shared_legend:
        legend += [dict(name="class +1", color=CLASS_COLORS[1]),
                   dict(name="class −1", color=CLASS_COLORS[-1])]
        if has_test:
            legend.append(dict(name="test point (hollow)", fill="white", stroke="#555", sw=2))
        legend += [dict(name="boundary f = 0", color="#111111", line=True, width=2.5),
                   dict(name="margins f = ±1", color="#333333", line=True, dash=True, width=1.5)]
        if (ring > 0).any():
            legend.append(dict(name="support vector (size ∝ |α|)", color="#888888",
                               stroke="#111111", sw=2, r=5.5))
        if (ring == 2).any():
            legend.append(dict(name="misclassified", color="#888888", stroke="#ff9d00", sw=2))
    has_last = last is not None and len(last[0]) > 0
    if has_last:
        legend.append(dict(name=LAST_ITERATE_LEGEND, color=LAST_ITERATE_COLOR, line=True,
                           dash=True, width=2))
    for m in marks:
        if m.get("legend"):
            legend.append(dict(name=m["legend"], fill="white", stroke=m.get("color", "#00a651"),
                               sw=3, r=5.5))
    for g in segments:
        if g.get("legend"):
            legend.append(dict(name=g["legend"], color=g.get("color", "#000000"), line=True,
                               dash=bool(g.get("dash")), width=g.get("width", 2)))
    return {
        "kind": "field", "grid": [len(xs), len(ys)], "title": title, "note": note, "xlabel": xlabel, "ylabel": ylabel,
        "height": int(height), "font": int(font), "mode": mode, "clip": float(clip),
        "fit": bool(fit), "keep": int(keep_below),
        "x": list(xr), "y": list(yr),
        "z": quantize_field(z, clip),
        "scale": [[float(t), c] for t, c in FIELD_COLORSCALE],
        "colors": {"pos": CLASS_COLORS[1], "neg": CLASS_COLORS[-1]},
        "train": _xy(P_train[:, 0], P_train[:, 1]),
        "labels": b64(np.sign(np.asarray(y_train)), np.int8),
        "ring": b64(ring, np.uint8), "size": b64(size, np.uint8),
        "test": _xy(np.asarray(P_test)[:, 0], np.asarray(P_test)[:, 1]) if has_test else "",
        "tlabels": b64(np.sign(np.asarray(y_test)), np.int8) if has_test else "",
        "marks": [dict(m) for m in marks], "legend": legend,
        **({"line": line} if line is not None else {}),
        **({"segments": [dict(g) for g in segments]} if segments else {}),
        **({"last": _xy(*last)} if has_last else {}),
        **({"fade": b64(np.rint(255 * np.clip(np.asarray(fade, dtype=np.float64), 0.0, 1.0)),
                        np.uint8)} if fade is not None and len(fade) == len(y_train) else {}),
    }


def series(x, y, name: str, color: str, dash: bool = False) -> dict:
    """One curve of a panel (float32 on the wire)."""
    return {"x": b64(x, np.float32), "y": b64(y, np.float32), "name": name, "color": color,
            "dash": bool(dash)}


def curves_frame(panels: Sequence[Mapping], x: str = "iteration", log_x: bool = True,
                 height: int = 420, font: int = 12, cols: int = 1, title: str = "",
                 legend: Sequence[Mapping] = (), marks: Sequence[Mapping] = (),
                 fit: bool = False, x_title: str | None = None, keep_below: int = 0) -> dict:
    """Convergence curves as small multiples: ``panels`` = [{title, log_y, percent, series}],
    every panel against the x column ``x`` (log axis with ``log_x``), titled ``x_title``
    (default: the column's name); ``marks`` are vertical lines ``{"x", "label"}`` (mid-run
    changes); ``fit``, ``keep_below``: as :func:`field_frame`'s."""
    return {"kind": "curves", "panels": [dict(p) for p in panels], "log_x": bool(log_x),
            "x_title": x_title or CURVE_NAMES.get(x, x), "height": int(height),
            "font": int(font),
            "fit": bool(fit), "keep": int(keep_below),
            "cols": int(cols), "title": title, "legend": [dict(item) for item in legend],
            "marks": [dict(m) for m in marks]}


def panel_title(names: Sequence[str]) -> str:
    """A panel's title from its curves' names, a shared ending said once ("train error %",
    "test error %" -> "train, test error %": a narrow panel cut the full list short)."""
    names = list(names)
    words = [n.split(" ") for n in names]
    k = 0
    while len(names) > 1 and all(len(w) > k + 1 for w in words) and \
            len({tuple(w[len(w) - k - 1:]) for w in words}) == 1:
        k += 1
    if k == 0:
        return ", ".join(names)
    return ", ".join(" ".join(w[:len(w) - k]) for w in words) + " " + " ".join(words[0][-k:])


def run_panels(cols: Mapping[str, np.ndarray], x: str, groups: Sequence[Sequence[str]],
               logs: Sequence[bool], labels: Mapping[str, str] | None = None) -> list[dict]:
    """Panels of one run's trace columns: each group of columns in one panel (errors in %)."""
    labels = labels or {}
    xv = np.asarray(cols.get(x, ()), dtype=np.float64)
    out = []
    for group, log_y in zip(groups, logs):
        ss = []
        for c in group:
            if c not in cols:
                continue
            yv = np.asarray(cols[c], dtype=np.float64) * (100.0 if c in PERCENT else 1.0)
            ss.append(series(xv, yv, labels.get(c, CURVE_NAMES.get(c, c)),
                             CURVE_COLORS.get(c, "#444444")))
        title = panel_title([labels.get(c, CURVE_NAMES.get(c, c)) for c in group if c in cols])
        out.append({"title": title, "log_y": bool(log_y), "series": ss,
                    "percent": all(c in PERCENT for c in group)})
    return out


def batch(frames: Sequence[Mapping], dt: float, snap: str = "nearest",
          buffer_s: float = 0.0) -> dict:
    """Keyframes for the browser to play one after the other, ``dt`` seconds apart, blending
    each into the next (svmcore/ui/canvas.js): the first frame whole, each later one only with
    the entries that changed (``t`` always). ``snap``: where Pause stops the motion at once —
    on the keyframe the view is nearest to (``"nearest"``: the server rewinds to the same one)
    or on the newest (``"last"``: the server's run is there). ``buffer_s``: seconds of
    keyframes the browser may keep queued beyond the batch (canvas.js stretches or shrinks the
    steps by at most a quarter to stay that far ahead)."""
    if not frames:
        raise ValueError("a batch needs at least one frame")
    keys = [dict(frames[0])]
    for before, now in zip(frames, frames[1:]):
        keys.append({k: v for k, v in now.items() if k == "t" or before.get(k) != v})
    return {"kind": frames[0]["kind"], "keys": keys, "dt": float(dt), "snap": snap,
            "buffer": float(buffer_s)}


def unbatch(message: Mapping) -> list[dict]:
    """The whole frames of a :func:`batch` (or ``[message]`` for a single frame)."""
    if "keys" not in message:
        return [dict(message)]
    out, full = [], {}
    for k in message["keys"]:
        full = {**full, **k}
        out.append(full)
    return out
