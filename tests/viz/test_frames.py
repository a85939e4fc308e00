"""Live frames (svmcore.viz.raster, svmcore.viz.frame): the field bytes, the level lines (server and browser),
the quantised points and the curve panels, checked against the arrays they come from."""
from __future__ import annotations

import base64
import json
import struct
import zlib

import numpy as np
import pytest

from svmcore.viz import field_grid
from svmcore.viz.frame import (curves_frame, dequantize_xy, field_frame, panel_title,
                               quantize_xy, run_panels)
from svmcore.viz.raster import colour_table, field_png, level_lines
from reference import zero_contour_reference as zero_contour


def _decode_png(png: bytes) -> np.ndarray:
    """A minimal PNG reader for what field_png writes (8-bit RGB, filters None/Up)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(png):
        n, tag = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", png[pos + 8 + n:pos + 12 + n])[0]
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        if tag == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 3 * w + 1)
    out = np.zeros((h, 3 * w), dtype=np.int64)
    for r in range(h):
        f, row = raw[r, 0], raw[r, 1:].astype(np.int64)
        out[r] = row if f == 0 else (row + out[r - 1]) % 256
        assert f in (0, 2)
    return out.reshape(h, w, 3).astype(np.uint8)


def test_field_png_is_the_colour_scale_of_the_field_top_row_first():
    xs, ys = np.linspace(-1, 1, 40), np.linspace(0, 2, 30)
    z = xs[None, :] * 2.5 + 0.0 * ys[:, None]
    z[5, 7] = np.nan
    img = _decode_png(field_png(z, clip=2.0))
    assert img.shape == (30, 40, 3)
    lut = colour_table()
    zc = np.clip(np.nan_to_num(z), -2, 2)
    idx = np.rint((zc + 2) * 255 / 4).astype(int)
    np.testing.assert_array_equal(img, lut[idx[::-1]])       # row 0 of the image = largest y
    assert tuple(lut[0]) == (0xd6, 0x60, 0x4d) and tuple(lut[-1]) == (0x43, 0x93, 0xc3)


def test_level_lines_chain_the_marching_squares_segments():
    xs, ys = np.linspace(-2, 2, 81), np.linspace(-1.5, 1.5, 61)
    Z = xs[None, :] ** 2 + ys[:, None] ** 2 - 1.0123   # no grid node exactly on the line
    lx, ly = level_lines(Z, xs, ys)
    sx, sy = zero_contour(Z, xs, ys)
    key = lambda a, b: set(map(tuple, np.round(np.c_[a, b][np.isfinite(a)], 9)))  # noqa: E731
    assert key(lx, ly) == key(sx, sy)                          # the same crossing points
    assert np.isfinite(lx).sum() <= 0.55 * np.isfinite(sx).sum()   # each sent once
    r = np.hypot(lx, ly)[np.isfinite(lx)]
    assert np.all(np.abs(r - np.sqrt(1.0123)) < 5e-3)
    assert np.isnan(lx).sum() <= 1                              # one closed piece
    ex, ey = level_lines(Z + 10, xs, ys)
    assert ex.size == 0 and ey.size == 0


def test_quantised_coordinates_are_exact_to_a_sixty_thousandth_of_the_range():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-3, 5, 500), rng.uniform(10, 11, 500)
    x[7], y[9] = np.nan, np.nan
    back = dequantize_xy(quantize_xy(x, y, (-3, 5), (10, 11)), (-3, 5), (10, 11))
    ok = np.isfinite(x) & np.isfinite(y)
    assert np.abs(back[ok, 0] - x[ok]).max() <= 8 / 65534 and np.abs(back[ok, 1] - y[ok]).max() <= 1 / 65534
    assert np.isnan(back[7, 0]) and np.isnan(back[9, 1])


def test_field_frame_codes_support_vectors_mistakes_and_stays_small():
    rng = np.random.default_rng(1)
    P = rng.normal(size=(150, 2))
    y = np.where(P[:, 0] > 0, 1.0, -1.0)
    Pt, yt = rng.normal(size=(50, 2)), np.ones(50)
    xs, ys = field_grid(np.vstack([P, Pt]), 150)
    f = (xs[None, :] - 0.1 + 0.2 * np.sin(ys[:, None])).astype(np.float32)
    support = np.array([3, 10, 20])
    mis = np.zeros(150, dtype=bool)
    mis[[10, 40]] = True
    fr = field_frame(P, y, f, xs, ys, P_test=Pt, y_test=yt, support=support,
                     sv_size=np.array([1.0, 4.0, 0.0]), misclassified=mis, title="t")
    ring = np.frombuffer(base64.b64decode(fr["ring"]), np.uint8)
    size = np.frombuffer(base64.b64decode(fr["size"]), np.uint8)
    assert list(np.flatnonzero(ring)) == [3, 10, 20, 40]
    assert ring[10] == 2 and ring[40] == 2 and ring[3] == 1     # a mistake shows as one
    assert size[10] == 17 and size[20] == 8 and size[0] == 7      # ∝ √|coefficient|
    pts = dequantize_xy(fr["train"], fr["x"], fr["y"])
    np.testing.assert_allclose(pts, P, atol=(xs[-1] - xs[0]) / 60000)
    assert fr["grid"] == [150, 150]
    names = [item["name"] for item in fr["legend"]]
    assert "misclassified" in names and "test point (hollow)" in names
    assert len(json.dumps(fr)) < 40_000
    # a field among several (the Race) keeps only its own entries: the page explains the rest once
    own = field_frame(P, y, f, xs, ys, P_test=Pt, y_test=yt, support=support, misclassified=mis,
                      marks=[{"x": 0.0, "y": 0.0, "legend": "pinned point"}], shared_legend=True)
    assert [item["name"] for item in own["legend"]] == ["pinned point"]
    with pytest.raises(ValueError):
        field_frame(P, y, f[:5], xs, ys)


def test_curve_panels_in_percent_with_change_marks():
    cols = {"iteration": np.array([1.0, 2, 4]), "objective": np.array([3.0, 2, 1]),
            "train_error": np.array([0.5, 0.25, 0.125]), "test_error": np.array([0.5, 0.5, 0.25])}
    panels = run_panels(cols, "iteration", [("objective",), ("train_error", "test_error")],
                        [True, False])
    err = panels[1]["series"][0]
    assert np.frombuffer(base64.b64decode(err["y"]), "<f4").tolist() == [50.0, 25.0, 12.5]
    assert panels[1]["percent"] and not panels[0]["percent"] and panels[0]["log_y"]
    fr = curves_frame(panels, marks=[{"x": 2, "label": "η0 = 0.1"}])
    assert fr["x_title"] == "iteration t" and fr["marks"][0]["label"] == "η0 = 0.1"
    # a shared ending is said once (the full list was cut short in a narrow panel); a curve
    # the run does not have is not named
    assert [p["title"] for p in panels] == ["objective", "train, test error %"]
    both = run_panels(cols, "iteration", [("objective", "dual_objective")], [False])
    assert both[0]["title"] == "objective" and len(both[0]["series"]) == 1
    assert panel_title(["objective", "dual objective"]) == "objective, dual objective"


def _segments(x, y):
    """The segments of NaN-separated polylines, each with its end points in order, sorted."""
    P = np.c_[x, y]
    seg = [sorted((tuple(P[k]), tuple(P[k + 1]))) for k in range(len(P) - 1)
           if np.isfinite(P[k, 0]) and np.isfinite(P[k + 1, 0])]
    return np.array(sorted(seg, key=lambda s: np.round(np.ravel(s), 6).tolist())).reshape(-1, 4)


def test_level_lines_are_the_marching_squares_segments_on_rough_fields():
    """contourpy's lines (level_lines) against the NumPy marching squares of tests/reference.py
    on fields with several pieces, closed loops, saddles, plateaus and nodes exactly on the
    level: the same segments (to rounding), each crossing point sent once."""
    rng = np.random.default_rng(1)
    xs, ys = np.linspace(-2, 2, 60), np.linspace(-1.5, 1.5, 45)
    X, Y = np.meshgrid(xs, ys)
    for trial in range(30):
        c, w = rng.normal(size=(8, 2)) * 1.5, rng.normal(size=8)
        Z = sum(wk * np.exp(-3 * ((X - a) ** 2 + (Y - b) ** 2)) for wk, (a, b) in zip(w, c))
        if trial % 3 == 0:
            Z = np.round(Z, 1)
        for level in (0.0, 0.1, -0.1):
            lx, ly = level_lines(Z, xs, ys, level)
            sx, sy = zero_contour(Z, xs, ys, level)
            got, want = _segments(lx, ly), _segments(sx, sy)
            assert got.shape == want.shape, (trial, level)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{trial} {level}")
            # each crossing once: a piece of m segments has m + 1 points (a loop repeats its
            # first point at its end)
            n_pieces = np.isnan(lx).sum() + (lx.size > 0)
            assert np.isfinite(lx).sum() == len(got) + n_pieces
    assert level_lines(np.zeros((1, 5)), xs[:5], ys[:1])[0].size == 0


# ----------------------------------------------------------------------------- browser side


def test_field_bytes_keep_the_level_values_exact_and_every_value_within_a_step():
    from svmcore.viz.frame import dequantize_field, quantize_field
    rng = np.random.default_rng(0)
    z = np.clip(rng.normal(size=(7, 9)) * 2, -2, 2)
    z[0, :3] = [0.0, 1.0, -1.0]
    back = dequantize_field(quantize_field(z, 2.0), 9, 7, 2.0)
    assert back[0, :3].tolist() == [0.0, 1.0, -1.0]      # f = 0 and f = ±1 are exact bytes
    assert np.abs(back - z).max() <= 2.0 / 252 + 1e-12     # half a step of clip / 126
    q = base64.b64decode(quantize_field(np.array([[-2.0, 2.0]]), 2.0))
    assert list(q) == [1, 253]


def test_a_batch_sends_each_keyframe_as_its_changes_and_unbatches_to_the_frames():
    from svmcore.viz.frame import batch, unbatch
    frames = [{"kind": "field", "t": t, "z": z, "train": "same", "title": f"t = {t}"}
              for t, z in ((1, "a"), (2, "b"), (3, "b"))]
    msg = batch(frames, 0.2, "nearest", 0.25)
    assert msg["keys"][0] == frames[0]
    assert msg["keys"][1] == {"t": 2, "z": "b", "title": "t = 2"}       # "train" unchanged
    assert msg["keys"][2] == {"t": 3, "title": "t = 3"}
    assert unbatch(msg) == frames and unbatch(frames[0]) == [frames[0]]
    assert (msg["dt"], msg["snap"], msg["buffer"]) == (0.2, "nearest", 0.25)
    with pytest.raises(ValueError):
        batch([], 0.2)


_ISOLINE_JS = """
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const start = src.indexOf("function isoline(");
const body = src.slice(start, src.indexOf("\\n}\\n", start) + 2);
const isoline = new Function(body + "; return isoline;")();
const inp = JSON.parse(fs.readFileSync(0, "utf8"));
const out = [];
let pen = null;
const ctx = {beginPath() {}, moveTo(x, y) { pen = [x, y]; },
             lineTo(x, y) { out.push([pen, [x, y]]); pen = [x, y]; }};
const [x0, dx, y0, dy] = inp.grid;
isoline(ctx, Float32Array.from(inp.z), inp.nx, inp.ny, inp.level, i => x0 + i * dx, j => y0 + j * dy);
process.stdout.write(JSON.stringify(out));
"""


def test_the_browsers_marching_squares_draw_the_segments_of_the_servers():
    """canvas.js's isoline (run in node) against the reference marching squares: the same
    segments on fields with several pieces, loops and saddles (the same rule at a saddle)."""
    import shutil
    import subprocess
    from collections import Counter
    from pathlib import Path
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    js = Path(__file__).resolve().parents[2] / "svmcore" / "ui" / "canvas.js"
    rng = np.random.default_rng(3)
    xs, ys = np.linspace(0, 39, 40), np.linspace(0, 29, 30)    # one unit a node
    X, Y = np.meshgrid(xs, ys)
    for trial in range(6):
        c, w = rng.uniform(0, 35, size=(8, 2)), rng.normal(size=8)
        Z = sum(wk * np.exp(-0.02 * ((X - a) ** 2 + (Y - b) ** 2)) for wk, (a, b) in zip(w, c))
        Z = Z.astype(np.float32).astype(np.float64)
        for level in (0.0, 0.3):
            inp = {"z": Z.ravel().tolist(), "nx": 40, "ny": 30, "level": level,
                   "grid": [0, 1, 0, 1]}
            out = subprocess.run([node, "-e", _ISOLINE_JS, str(js)], input=json.dumps(inp),
                                 capture_output=True, text=True, check=True).stdout
            got = Counter(frozenset((round(a[0], 6), round(a[1], 6)) for a in s)
                          for s in json.loads(out))
            sx, sy = zero_contour(Z, xs, ys, level)
            want = Counter(frozenset((round(p[0], 6), round(p[1], 6)) for p in s[:2])
                           for s in np.c_[sx, sy].reshape(-1, 3, 2))
            assert got == want and len(want) > 10, (trial, level)


def test_batches_grow_with_the_class_so_the_server_makes_as_many_runs_and_keyframes_keep_their_rate():
    from svmcore.server import pacing
    assert pacing.batch_keys(1) == pacing.BATCH_KEYS == pacing.batch_keys(25)
    for playing in (30, 60, 100):
        keys = pacing.batch_keys(playing)
        assert keys * pacing.KEY_S == pytest.approx(playing / pacing.SERVER_BATCHES_PER_S, abs=0.1)
    assert pacing.batch_keys(10_000) * pacing.KEY_S == pytest.approx(pacing.MAX_BATCH_S)
    players = pacing.Players(forget_s=5.0)
    assert [players.seen(k, 0.0) for k in "abc"] == [1, 2, 3]
    players.left("b")
    assert players.seen("a", 4.0) == 2 and players.seen("d", 9.5) == 1   # 5 s unseen: gone
